"""Evidence for choosing numba over a pure NumPy batch engine (docs/performance.md).

Computes the legal-move mask of a 10,000-game batch twice: with NumPy array operations
over the whole batch (the core step of a NumPy-only engine, vectorized across games) and
with the numba kernel of ``lostcities.fast``; checks they agree and prints the times.
Run: ``python benchmarks/numpy_mask_prototype.py``.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from lostcities.fast import kernels as K
from lostcities.fast.batch import BatchGames


def numpy_mask(states: np.ndarray) -> np.ndarray:
    """The legal-move mask with NumPy only (whole-batch array operations)."""
    n = states.shape[0]
    rows = np.arange(n)
    turn = states[:, K.TURN]
    over = states[:, K.OVER] != 0
    hands = states[:, K.HAND : K.HAND + 16].reshape(n, 2, 8)[rows, turn]  # (n, 8)
    colour = hands // 10
    k = hands % 10
    rank = np.where(k == 0, 0, k + 1)
    tops = states[:, K.TOP : K.TOP + 12].reshape(n, 2, 6)[rows, turn]  # (n, 6)
    top = np.take_along_axis(tops, colour, axis=1)
    playable = (rank > top) | ((rank == 0) & (top == 0))
    nonempty = states[:, K.NPILE : K.NPILE + 6] > 0  # (n, 6)
    ncol = states[0, K.NCOL]
    mask = np.zeros((n, K.NUM_ACTIONS), np.bool_)
    live = ~over
    for phase in range(2):
        ok = (playable if phase == 0 else np.ones_like(playable)) & live[:, None]
        base = (60 * phase + hands) * 7  # (n, 8)
        r8 = np.broadcast_to(rows[:, None], base.shape)
        mask[r8[ok], base[ok]] = True
        for c in range(ncol):
            src = ok & nonempty[:, c][:, None]
            if phase == 1:
                src &= colour != c
            mask[r8[src], base[src] + 1 + c] = True
    return mask


def main() -> None:
    games = BatchGames(10_000, "classic", seed=1)
    games.play_bench(60)
    numba.set_num_threads(1)
    want = games.legal_mask().copy()
    got = numpy_mask(games.states)
    assert np.array_equal(got, want), "the NumPy prototype disagrees with the kernel"
    for name, fn in (("numpy", lambda: numpy_mask(games.states)), ("numba", games.legal_mask)):
        fn()
        reps = 20
        t = time.process_time()
        for _ in range(reps):
            fn()
        dt = (time.process_time() - t) / reps
        print(
            f"{name}: {dt * 1e3:.2f} ms CPU per mask of 10,000 games ({dt / 1e4 * 1e9:.0f} ns/game)"
        )


if __name__ == "__main__":
    main()
