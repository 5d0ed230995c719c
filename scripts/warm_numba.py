"""Compile the fast path's numba kernels once into their on-disk cache, so parallel test
workers load them instead of each compiling them (run by scripts/test.sh; harmless to rerun)."""

from __future__ import annotations

import time

from lostcities import Round
from lostcities.bots import make

start = time.perf_counter()
try:
    from lostcities.fast import FastRound
    from lostcities.fast.batch import BatchGames
    from lostcities.fast.search import flat_values
except ImportError:
    print("numba not installed: nothing to compile")
else:
    for variant in ("classic", "long"):
        r = Round.deal(seed=1, variant=variant)
        FastRound.from_round(r).playout()
        make("ismcts:iters=20", seed=1).choose(r.view(0))
        flat_values(r.view(0), list(r.view(0).legal_moves())[:2], 1, seed=1)  # the cheap search
        games = BatchGames(4, variant, seed=1)
        games.step(games.random_actions("uniform"))
    print(f"numba kernels ready in {time.perf_counter() - start:.1f} s")
