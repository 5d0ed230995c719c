"""The learned judge's kernels: legal moves only, deterministic, the incremental accumulator
equal to a from-scratch one after every move, the head as documented, the flat search."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities import Round

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.judge import (  # noqa: E402
    CARD_ACTIONS,
    DRAWS,
    NUM_INPUTS,
    InvalidJudgeError,
    Judge,
    input_counts,
    judge_trace,
)
from lostcities.fast.search import FlatSearch  # noqa: E402
from lostcities.fast.smart import smart_action  # noqa: E402
from lostcities.fast.state import FastRound, state_from_round  # noqa: E402


def _position(seed: int, plies: int, variant: str) -> Round:
    """A round after ``plies`` uniformly random moves (piles, known cards and expeditions
    of every kind), dealt from ``seed``."""
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant, starter=seed % 2)
    while not r.is_over() and r.ply < plies:
        r.push(rng.choice(list(r.legal_moves())))
    return r


def _integer_judge(seed: int, hidden: tuple[int, int] = (24, 8)) -> Judge:
    """Random weights whose first layer holds small whole numbers, so that every sum of its
    rows is exact in float32 and the accumulators can be compared for equality."""
    j = Judge.random(seed, hidden)
    arrays = dict(
        zip(("w1", "b1", "w2", "b2", "wc", "bc", "wd", "bd", "ws"), j.arrays, strict=True)
    )
    rng = np.random.default_rng(seed)
    arrays["w1"] = rng.integers(-8, 9, arrays["w1"].shape).astype(np.float32)
    arrays["b1"] = rng.integers(-8, 9, arrays["b1"].shape).astype(np.float32)
    return Judge(arrays)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    plies=st.integers(0, 80),
    variant=st.sampled_from(["classic", "long"]),
    temperature=st.sampled_from([0.0, 0.5, 3.0]),
)
def test_incremental_accumulator_equals_recompute_and_moves_are_legal(
    seed: int, plies: int, variant: str, temperature: float
) -> None:
    r = _position(seed, plies, variant)
    if r.is_over():
        return
    judge = _integer_judge(seed)
    s = state_from_round(r)
    diffs = np.full(400, -1.0)
    moves = np.zeros(400, np.int64)
    rng = np.array([seed | 1, 12345], np.uint64)
    n = judge_trace(s, judge.arrays, rng, temperature, diffs, moves)
    assert n > 0
    assert diffs[:n].max() == 0.0  # exact: whole-number weights
    f = FastRound.from_round(r)
    for a in moves[:n].tolist():
        assert a in f.legal_actions().tolist()  # a legal move, every one
        f.push(a)
    assert np.array_equal(f.state, s)


def _logits(judge: Judge, s: np.ndarray) -> dict[int, float]:
    """Every legal move's score, computed in NumPy as the module docs define it."""
    w1, b1, w2, b2, wc, bc, wd, bd, ws = (a.astype(np.float64) for a in judge.arrays)
    x = np.zeros(NUM_INPUTS, np.float32)
    input_counts(s, int(s[K.TURN]), x)
    h1 = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
    h2 = np.maximum(w2 @ h1 + b2, 0)
    card = wc @ h2 + bc
    draw = wd @ h2 + bd
    sa = int(smart_action(s))
    out = {}
    for a in FastRound(s.copy()).legal_actions().tolist():
        ca, d = divmod(a, 7)
        same_c, same_d = ca == sa // 7, d == sa % 7
        out[a] = card[ca] + draw[d] + ws[0] * same_c + ws[1] * same_d + ws[2] * (same_c and same_d)
    assert len(card) == CARD_ACTIONS and len(draw) == DRAWS
    return out


@pytest.mark.parametrize("seed", range(12))
def test_the_move_is_the_best_scoring_legal_move(seed: int) -> None:
    judge = Judge.random(seed, (16, 8))
    s = state_from_round(_position(seed, 3 * seed, "long" if seed % 3 == 0 else "classic"))
    scores = _logits(judge, s)
    a = judge.action(s)
    assert a in scores
    assert scores[a] >= max(scores.values()) - 1e-4


def test_deterministic_given_the_seed() -> None:
    judge = Judge.random(3, (16, 8))
    s = state_from_round(Round.deal(seed=9))
    assert judge.playout_scores(s.copy()) == judge.playout_scores(s.copy())
    hot = judge.with_temperature(1.0)
    a = [hot.playout_scores(s.copy(), seed=5) for _ in range(2)]
    assert a[0] == a[1]
    t = s.copy()
    hot.playout(t, seed=5)
    assert t[K.OVER] != 0 or t[K.PLY] >= 400


def test_flat_search_with_the_judge() -> None:
    r = _position(4, 10, "classic")
    view = r.view(r.to_move)
    moves = list(view.legal_moves())[:4]
    judge = Judge.random(1, (16, 8))
    runs = []
    for _ in range(2):
        rng = random.Random(7)
        f = FlatSearch(view, moves, rollout="learned", rng=rng, judge=judge)
        f.run(6)
        runs.append((f.values(), f.margin_sums.tolist(), rng.random()))
    assert runs[0] == runs[1]
    assert all(-1 <= v <= 1 for v in runs[0][0])
    # argmax rollouts deal the same worlds as smart's: the generator ends in the same state
    rng = random.Random(7)
    FlatSearch(view, moves, rollout="smart", rng=rng).run(6)
    assert rng.random() == runs[0][2]
    hands = [list(view.sampler().unseen[: view.sampler().hidden])] * 2
    g = FlatSearch(view, moves, rollout="learned", rng=random.Random(1), judge=judge, hands=hands)
    g.run(3)
    assert g.worlds == 3


def test_weights_round_trip_and_errors(tmp_path: Path) -> None:
    judge = Judge.random(2, (8, 4))
    path = tmp_path / "j.npz"
    judge.save(path)
    back = Judge.load(path)
    assert all(np.array_equal(a, b) for a, b in zip(judge.arrays, back.arrays, strict=True))
    arrays = dict(
        zip(("w1", "b1", "w2", "b2", "wc", "bc", "wd", "bd", "ws"), judge.arrays, strict=True)
    )
    arrays["w2"] = arrays["w2"][:, :3]
    with pytest.raises(InvalidJudgeError, match="w2 has shape"):
        Judge(arrays)
    with pytest.raises(InvalidJudgeError, match="invalid judge weights"):
        Judge.load(tmp_path / "missing.npz")
    with pytest.raises(InvalidJudgeError, match="temperature"):
        judge.with_temperature(-1.0)


def test_search_bots_take_the_judge(tmp_path: Path) -> None:
    from lostcities.bots import make
    from lostcities.bots.base import BotSpecError

    path = tmp_path / "j.npz"
    Judge.random(4, (8, 4)).save(path)
    view = Round.deal(seed=6).view(0)
    for spec in (
        f"expert:iters=40,rollout=learned,judge={path}",
        f"ismcts:iters=40,rollout=learned,judge={path}",
    ):
        a, b = (make(spec, seed=3).choose(view) for _ in range(2))
        assert a == b and view.is_legal(a)
    for bad, why in (
        ("expert:rollout=clever", "smart, learned or jitter"),
        (f"expert:judge={path}", "needs rollout=learned"),
        ("ismcts:rollout=learned,mode=tree", "mode=flat"),
        (f"expert:rollout=learned,judge={tmp_path / 'none.npz'}", "invalid judge weights"),
    ):
        with pytest.raises(BotSpecError, match=why):
            make(bad)
