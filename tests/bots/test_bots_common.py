"""Properties every built-in bot must have: legal moves in any position, reproducible with
a seed, and decisions that depend on the player's view only."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lostcities import PlayerView, Round, Termination, score_expedition
from lostcities.bots import Bot, make

SPECS = ["random", "discard", "heuristic", "ismcts:iters=24", "ismcts:iters=40,mode=flat"]


def random_position(seed: int, variant: str = "classic") -> Round:
    """A deal advanced by a random number of random legal moves (not over)."""
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant, starter=rng.randrange(2))
    for _ in range(rng.randrange(0, 60)):
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
        if r.is_over():
            r.pop()
            break
    return r


class ViewOnly(Bot):
    """Wraps a bot and checks that it is only ever handed a PlayerView."""

    def __init__(self, inner: Bot) -> None:
        super().__init__()
        self.inner = inner
        self.calls = 0

    def choose(self, view: PlayerView, time_limit: float | None = None):  # type: ignore[no-untyped-def]
        assert type(view) is PlayerView
        self.calls += 1
        return self.inner.choose(view, time_limit)


def play(specs: list[str], seed: int, variant: str = "classic") -> Round:
    r = Round.deal(seed=seed, variant=variant)
    bots = [ViewOnly(make(specs[p], seed=seed + p)) for p in (0, 1)]
    while not r.is_over():
        p = r.to_move
        r.push(bots[p].choose(r.view(p)))
    assert bots[0].calls + bots[1].calls == r.ply
    return r


@pytest.mark.parametrize("spec", SPECS)
@given(seed=st.integers(0, 10**6), variant=st.sampled_from(["classic", "long"]))
def test_legal_move_in_random_positions(spec: str, seed: int, variant: str) -> None:
    r = random_position(seed, variant)
    bot = make(spec, seed=seed)
    move = bot.choose(r.view(r.to_move))
    assert move in r.legal_moves()


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("seed", [3, 8])
def test_reproducible_with_seed(spec: str, seed: int) -> None:
    a = play([spec, "heuristic"], seed)
    b = play([spec, "heuristic"], seed)
    assert a.history == b.history
    assert a.scores() == b.scores()


@pytest.mark.parametrize("spec", ["heuristic", "ismcts:iters=30", "ismcts:iters=30,mode=flat"])
@pytest.mark.parametrize("seed", range(6))
def test_decision_depends_on_the_view_only(spec: str, seed: int) -> None:
    """Two referee states that look the same to the player (different hidden cards) get
    the same move from equally seeded bots: nothing hidden leaks into the decision."""
    r = random_position(seed)
    view = r.view(r.to_move)
    worlds = [view.sample_round(random.Random(k)) for k in range(2)]
    assert worlds[0].draw_pile != worlds[1].draw_pile
    moves = [make(spec, seed=5).choose(w.view(view.player)) for w in worlds]
    assert moves[0] == moves[1]


@pytest.mark.parametrize("spec", SPECS)
def test_whole_round_in_both_variants(spec: str) -> None:
    """A whole round of the variant, to the rules' own end: the draw pile drawn out (no
    cap, no forfeit), every card of that variant's deck still there exactly once, and the
    result what the score sheets say."""
    for variant in ("classic", "long"):
        r = play([spec, "heuristic"], 11, variant)
        out = r.outcome()
        assert out is not None and r.variant.name == variant
        assert out.termination is Termination.DRAW_PILE_EMPTY and not r.draw_pile
        deck_draws = sum(1 for m in r.history if m.draw is None)
        assert deck_draws == r.variant.deck_size - 2 * r.variant.hand_size
        cards = [*r.hands[0], *r.hands[1]]
        for pile in [
            *r.discard_piles.values(),
            *r.expeditions[0].values(),
            *r.expeditions[1].values(),
        ]:
            cards += pile
        assert sorted(cards) == r.variant.deck()
        sheets = [sum(score_expedition(e).score for e in r.expeditions[p].values()) for p in (0, 1)]
        assert out.scores == r.scores() == tuple(sheets)
        assert out.winner == (None if sheets[0] == sheets[1] else int(sheets[1] > sheets[0]))
        assert len(r.expeditions[0]) == r.variant.num_colors == (5 if variant == "classic" else 6)


@pytest.mark.parametrize("spec", ["heuristic", "ismcts:iters=10"])
def test_no_move_when_not_its_turn(spec: str) -> None:
    from lostcities.bots import BotError

    r = Round.deal(seed=1)
    with pytest.raises(BotError):
        make(spec).choose(r.view(1))


def test_strength_benchmark_statistics() -> None:
    """benchmarks/strength.py: duplicate deals (both seats per deal) and its statistics."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "strength.py"
    spec = importlib.util.spec_from_file_location("strength_bench", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["strength_bench"] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules["strength_bench"]
    res = mod.run_pairing("heuristic", "discard", 3, 7, 1, "classic", 1000, progress=False)
    assert res.rounds == 6
    assert sorted((g.deal, g.a_seat) for g in res.games) == [
        (d, s) for d in range(3) for s in (0, 1)
    ]
    # the two rounds of a deal are the same deal with the seats swapped
    r0 = [g for g in res.games if g.deal == 0]
    assert {g.a_seat for g in r0} == {0, 1}
    wr, ci = res.a_win_rate, res.a_win_rate_ci95[1] - res.a_win_rate_ci95[0]
    assert wr == sum(g.a_points for g in res.games) / 6 and ci >= 0
    margin = res.mean_margin
    assert margin == sum(g.a_score - g.b_score for g in res.games) / 6
    assert all(g.b_score == 0 for g in res.games)  # discard never scores
    text = mod.report(res)
    assert "6 rounds (3 deals)" in text and "win rate" in text


def test_one_core_per_bot_sets_the_blas_threads_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from lostcities.bots.base import BLAS_THREAD_VARIABLES, one_core_per_bot

    for name in BLAS_THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    one_core_per_bot()
    import os

    assert os.environ["OMP_NUM_THREADS"] == "1" and os.environ["OPENBLAS_NUM_THREADS"] == "1"
    assert os.environ["MKL_NUM_THREADS"] == "3"
