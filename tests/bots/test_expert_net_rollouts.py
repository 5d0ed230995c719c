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


def test_scores_are_mean_margin_plus_prior_and_choose_plays_the_best() -> None:
    import math

    import numpy as np

    from lostcities.fast.netsearch import NetRollouts, PackedNetwork

    view = Round.deal(seed=6).view(0)
    bot = ExpertBot(iters=1, seed=8, rollout="net", match=False)
    cands, scores = bot.scores(view, worlds=16)
    again = ExpertBot(iters=1, seed=8, rollout="net", match=False).scores(view, worlds=16)
    assert (cands, scores) == again  # the same seed, the same worlds
    assert bot.last_iterations == 16 * len(cands)
    # re-derived: the same worlds (the bot's first draw is the rollouts' seed), margin + 2 ln p
    seed = ExpertBot(iters=1, seed=8, rollout="net").rng.getrandbits(63)
    margins = NetRollouts(PackedNetwork(bot.network), view, cands, seed=seed, depth=bot.depth)
    mean = np.rint(margins.run(16)).mean(axis=1)
    _, probs = bot.candidates(view)
    expected = [m + bot.prior * math.log(p) for m, p in zip(mean, probs, strict=True)]
    assert scores == pytest.approx(expected)
    best = cands[int(np.argmax(scores))]
    assert ExpertBot(iters=16 * len(cands), seed=8, rollout="net", match=False).choose(view) == best
