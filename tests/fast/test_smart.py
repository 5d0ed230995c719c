"""The compiled smart rollout policy and flat search against ``ismcts``'s pure-Python ones."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

from lostcities import Move, Round
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import flat_totals, smart_playout

from .positions import random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.rng import MersenneState, mt_shuffle  # noqa: E402
from lostcities.fast.search import FlatSearch, flat_values  # noqa: E402
from lostcities.fast.smart import smart_action, smart_playout_scores  # noqa: E402
from lostcities.fast.state import state_from_round  # noqa: E402


def _python_line(r: Round) -> tuple[list[Move], tuple[int, int]]:
    """The moves ``smart_playout`` makes from ``r`` (on a copy) and the final scores."""
    w = r.copy(stack=False)
    scores = smart_playout(w)
    return list(w.history[r.ply :]), scores


def _heuristic_positions(n: int, variant: str, seed: int) -> Iterator[Round]:
    """Positions of heuristic-vs-heuristic games (expeditions built the way strong play
    builds them), half of them as determinizations of the mover's view."""
    rng = random.Random(seed)
    bots = [HeuristicBot(seed=seed), HeuristicBot(seed=seed + 1)]
    made = 0
    k = 0
    while made < n:
        k += 1
        r = Round.deal(seed=seed * 7919 + k, variant=variant, starter=k % 2)
        stop = rng.randrange(0, 90)
        while not r.is_over() and r.ply < stop:
            r.push(bots[r.to_move].choose(r.view(r.to_move)))
        if r.is_over():
            continue
        if k % 2:
            r = r.view(r.to_move).sample_round(rng)
        made += 1
        yield r


def _check_line(r: Round) -> int:
    """Step the compiled policy along the Python policy's line from ``r``; the steps."""
    moves, scores = _python_line(r)
    s = state_from_round(r)
    for t, m in enumerate(moves):
        assert s[K.OVER] == 0, f"fast path ended early at step {t}"
        got = Move.from_index(int(smart_action(s)))
        assert got == m, f"step {t} from ply {r.ply}: fast {got}, python {m}\n{r}"
        K.apply(s, got.index)
    assert s[K.OVER] != 0
    assert (int(K.score(s, 0)), int(K.score(s, 1))) == scores
    # and the whole compiled playout in one call
    a, b = smart_playout_scores(state_from_round(r))
    assert (int(a), int(b)) == scores
    return len(moves)


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_smart_policy_equals_python_move_for_move(variant: str) -> None:
    steps = 0
    starts = 0
    for r in random_positions(300, variant, seed=31):
        steps += _check_line(r)
        starts += 1
    for r in _heuristic_positions(40, variant, seed=5):
        steps += _check_line(r)
        starts += 1
    for seed in range(60):  # whole rounds from the deal
        steps += _check_line(Round.deal(seed=seed, variant=variant, starter=seed % 2))
        starts += 1
    assert starts == 400 and steps > 8_000  # thousands of positions compared


def test_smart_policy_with_a_turn_cap() -> None:
    r = Round.deal(seed=3, max_turns=40)
    for _ in range(10):
        r.push(r.legal_moves()[0])
    assert _check_line(r) == 30


def test_mersenne_twister_shuffles_as_python() -> None:
    rng = random.Random(123)
    for n in (1, 2, 7, 40, 60, 72, 700):  # 700 draws: the twist runs mid-shuffle
        for _ in range(3):
            want = list(range(n))
            ref = random.Random()
            ref.setstate(rng.getstate())
            ref.shuffle(want)
            st = MersenneState(rng)
            x = np.arange(n, dtype=np.int64)
            mt_shuffle(x, st.mt, st.pos)
            st.store(rng)
            assert x.tolist() == want
            assert rng.getstate() == ref.getstate()
    with pytest.raises(TypeError):
        MersenneState(random.SystemRandom())


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_compiled_flat_search_equals_python_bit_for_bit(variant: str) -> None:
    pick = random.Random(4)
    for i, r in enumerate(random_positions(12, variant, seed=44)):
        view = r.view(r.to_move)
        moves = list(view.legal_moves())
        cands = pick.sample(moves, min(6, len(moves)))
        py_rng = random.Random(i)
        want = flat_totals(r.view(r.to_move), cands, 7, py_rng, 15.0)
        rng = random.Random(i)
        fs = FlatSearch(view, cands, scale=15.0, rollout="smart", rng=rng)
        fs.run(3)
        fs.run(4)  # in chunks: one sequence of worlds
        assert fs.value_sums.tolist() == want  # exactly, not approximately
        assert rng.getstate() == py_rng.getstate()
        assert fs.worlds == 7


def test_smart_flat_values_are_reproducible() -> None:
    r = Round.deal(seed=8)
    view = r.view(0)
    cands = list(view.legal_moves())[:4]
    a = flat_values(view, cands, 40, seed=2, rollout="smart")
    assert a == flat_values(view, cands, 40, seed=2, rollout="smart")
    assert a == flat_values(view, cands, 40, rng=random.Random(2), rollout="smart")
    assert a != flat_values(view, cands, 40, seed=2)  # the cheap policy plays differently
    with pytest.raises(ValueError, match="rollout"):
        FlatSearch(view, cands, rollout="clever")


def test_run_until_stops_at_the_deadline_or_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    r = Round.deal(seed=9)
    view = r.view(0)
    cands = list(view.legal_moves())[:3]
    fs = FlatSearch(view, cands, rollout="smart", seed=1)
    # the search's clock made one in which a world takes a millisecond: the deadline is a
    # number of worlds, however fast or loaded the machine
    monkeypatch.setattr(time, "perf_counter", lambda: fs.worlds / 1000)
    fs.run_until(math.inf, max_worlds=25)
    assert fs.worlds == 25
    fs.run_until(time.perf_counter() - 1)  # past: still one world
    assert fs.worlds == 26
    fs.run_until(time.perf_counter() + 0.05)  # 50 worlds, in chunks of about 5 ms
    assert 26 + 45 <= fs.worlds <= 26 + 55
