"""The ISMCTS bot: options, budgets, determinism, world sampling and its rollouts."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from lostcities import Round
from lostcities.bots import BotSpecError, make
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import IsmctsBot, smart_playout


def midgame(seed: int, plies: int = 14, variant: str = "classic") -> Round:
    r = Round.deal(seed=seed, variant=variant)
    bot = HeuristicBot(seed=seed)
    for _ in range(plies):
        r.push(bot.choose(r.view(r.to_move)))
    return r


def test_spec_options() -> None:
    bot = make("ismcts:iters=50,c=0.3,depth=3,widen=0,scale=20,rollout=cheap,top=0,mode=tree")
    assert isinstance(bot, IsmctsBot)
    assert (bot.iters, bot.time, bot.c, bot.depth, bot.widen, bot.scale) == (
        50,
        None,
        0.3,
        3,
        0.0,
        20.0,
    )
    assert (bot.rollout, bot.top, bot.mode) == ("cheap", 0, "tree")
    assert make("ismcts:engine=python").engine == "python"  # type: ignore[attr-defined]
    default = make("ismcts")
    assert isinstance(default, IsmctsBot)
    assert default.time == 1.0 and default.iters is None


def test_rollout_fast_is_a_deprecated_name_of_cheap() -> None:
    with pytest.warns(DeprecationWarning, match=r"removed in 0\.4\.0: it is called rollout=cheap"):
        bot = make("ismcts:iters=20,rollout=fast", seed=1)
    assert isinstance(bot, IsmctsBot) and bot.rollout == "cheap"
    r = midgame(2)
    view = r.view(r.to_move)
    assert bot.choose(view) == make("ismcts:iters=20,rollout=cheap", seed=1).choose(view)


def test_one_default_scale() -> None:
    from lostcities.scoring import MARGIN_SCALE

    bot = make("ismcts")
    assert isinstance(bot, IsmctsBot)
    assert IsmctsBot().scale == bot.scale == MARGIN_SCALE == 15.0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:iters=-1", "iters must be positive"),
        ("ismcts:iters=x", "not a whole number"),
        ("ismcts:time=0", "time must be positive"),
        ("ismcts:time=nan", "not finite"),
        ("ismcts:bogus=1", "no option 'bogus'"),
        ("ismcts:rollout=magic", "rollout must be"),
        ("ismcts:mode=deep", "mode must be"),
        ("ismcts:top=-2", "top must be"),
        ("ismcts:c=-1", "c >= 0"),
        ("ismcts:engine=gpu", "engine must be"),
    ],
)
def test_bad_options(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        make(spec)


@pytest.mark.parametrize("mode", ["tree", "flat", "flat,engine=python"])
@pytest.mark.parametrize("rollout", ["smart", "cheap"])
def test_iterations_budget_is_deterministic(mode: str, rollout: str) -> None:
    r = midgame(3)
    view = r.view(r.to_move)
    spec = f"ismcts:iters=60,mode={mode},rollout={rollout}"
    a, b = make(spec, seed=7), make(spec, seed=7)
    assert a.choose(view) == b.choose(view)
    assert isinstance(a, IsmctsBot)
    assert 60 <= a.last_iterations < 60 + 20


def test_full_tree_without_pruning() -> None:
    r = midgame(5)
    bot = make("ismcts:iters=200,top=0", seed=1)
    assert bot.choose(r.view(r.to_move)) in r.legal_moves()


def test_time_budget_and_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    r = midgame(4)
    view = r.view(r.to_move)
    bot = make("ismcts:time=0.05,engine=python", seed=1)
    assert isinstance(bot, IsmctsBot)
    k = len(bot.search_candidates(view))
    # the bot's clock made one that reads 10 ms later each time (the Python search reads it
    # once a world): the budget is a number of worlds, however fast or loaded the machine
    ticks = itertools.count()
    monkeypatch.setattr(time, "perf_counter", lambda: next(ticks) * 0.01)
    bot.choose(view)
    assert 0 < bot.last_iterations <= 5 * k  # stopped at its 50 ms
    # a time limit from the caller cuts even an iteration budget short (0.85 x 100 ms)
    big = make("ismcts:iters=10000000,engine=python", seed=1)
    assert isinstance(big, IsmctsBot)
    assert big.choose(view, time_limit=0.1) in r.legal_moves()
    assert 0 < big.last_iterations <= 9 * k


def test_sampled_worlds_match_the_view() -> None:
    r = midgame(8, plies=20)
    # make the opponent hold a known card: it takes the top of a discard pile
    view = r.view(r.to_move)
    sampler = view.sampler()
    rng = random.Random(1)
    hidden = sorted(view.unseen_cards() + list(view.opponent_known))
    decks = set()
    for _ in range(30):
        w = sampler.sample(rng)
        v = w.view(view.player)
        assert (v.hand, v.expeditions, v.discard_piles, v.deck_size, v.to_move) == (
            view.hand,
            view.expeditions,
            view.discard_piles,
            view.deck_size,
            view.to_move,
        )
        assert v.opponent_known == view.opponent_known
        opp = w.hands[view.player ^ 1]
        assert all(c in opp for c in view.opponent_known)
        assert sorted(opp + w.draw_pile) == hidden
        decks.add(w.draw_pile)
    assert len(decks) > 1


def test_sampled_worlds_keep_known_cards() -> None:
    # p1 discards y4 and p0 takes it: p0 is known to hold y4
    r = Round.deal(seed=2)
    for _ in range(6):
        r.push(HeuristicBot(seed=1).choose(r.view(r.to_move)))
    moves = r.legal_moves()
    take = (
        next(m for m in moves if m.draw is not None)
        if any(m.draw is not None for m in moves)
        else None
    )
    if take is None:
        pytest.skip("no discard pile to take from in this deal")
    r.push(take)
    view = r.view(r.to_move)
    assert view.opponent_known
    sampler = view.sampler()
    for k in range(10):
        w = sampler.sample(random.Random(k))
        assert all(c in w.hands[view.player ^ 1] for c in view.opponent_known)


@pytest.mark.parametrize("seed", range(8))
def test_smart_playout_ends_the_round(seed: int) -> None:
    for variant in ("classic", "long"):
        r = midgame(seed, plies=seed, variant=variant)
        w = r.copy(stack=False)
        s = smart_playout(w)
        assert w.is_over() and s == w.scores()


def test_smart_rollouts_score_above_doing_nothing() -> None:
    """The smart rollout policy opens expeditions and scores on average (the fast one
    never opens any, which is why it is not the default)."""
    total = 0
    for seed in range(40):
        s = smart_playout(Round.deal(seed=seed))
        total += s[0] + s[1]
    assert total / 80 > 5
