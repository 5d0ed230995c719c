"""``expert:rollout=net``: the network plays the worlds out; candidates, budget, options."""

from __future__ import annotations

import pytest

from lostcities import Round
from lostcities.bots import BotSpecError, make
from lostcities.bots.expert import ExpertBot

pytest.importorskip("numba")


def test_net_rollouts_choose_a_legal_move_reproducibly_within_the_budget() -> None:
    r = Round.deal(seed=4)
    view = r.view(0)
    a = make("expert:rollout=net,iters=120", seed=3)
    move = a.choose(view)
    assert move in r.legal_moves()
    assert isinstance(a, ExpertBot)
    cands, _ = a.candidates(view)
    worlds = -(-120 // len(cands))
    assert a.last_iterations == worlds * len(cands)
    assert make("expert:rollout=net,iters=120", seed=3).choose(view) == move


def test_pile_draws_are_also_searched_with_a_draw_from_the_draw_pile() -> None:
    r = Round.deal(seed=11)
    for m in ["-b8.", "-r5.", "-g4."]:
        if r.is_legal(m):
            r.push(m)
    bot = ExpertBot(iters=50, seed=1, rollout="net", top=30)
    plain = ExpertBot(iters=50, seed=1, rollout="net", top=30, draws=False)
    view = r.view(r.to_move)
    cands, probs = bot.candidates(view)
    base, _ = plain.candidates(view)
    piles = [m for m in base if m.draw is not None]
    assert piles, "the position offers a discard-pile draw"
    for m in piles:
        assert any(c.card == m.card and c.action == m.action and c.draw is None for c in cands)
    assert len(cands) == len(probs) and set(base) <= set(cands)


def test_depth_cuts_rollouts_with_the_value_head() -> None:
    view = Round.deal(seed=2).view(0)
    full = ExpertBot(iters=60, seed=5, rollout="net")
    cut = ExpertBot(iters=60, seed=5, rollout="net", depth=2)
    assert full.choose(view) in view.legal_moves()
    assert cut.choose(view) in view.legal_moves()


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("expert:rollout=nope", "rollout must be smart or net"),
        ("expert:rollout=net,depth=-1", "depth"),
        ("expert:rollout=net,draws=x", "draws"),
    ],
)
def test_bad_options_say_what_is_wrong(spec: str, why: str) -> None:
    with pytest.raises(BotSpecError, match=why):
        make(spec)
