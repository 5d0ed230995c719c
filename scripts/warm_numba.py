"""Compile the fast path's numba kernels once into their on-disk cache, so parallel test
workers load them instead of each compiling them (run by scripts/test.sh; harmless to rerun).

The bots' kernels are :func:`lostcities.fast.warmup.warm_up`'s work, as ``lostcities warmup``
does; then the native vector env's (:class:`lostcities.envs.vector.LostCitiesVectorEnv`),
which no bot runs, through its public API with the argument types its tests use: every
opponent, both variants, one thread and numba's threads. Without this each pytest worker that
reached tests/envs/test_vector.py compiled them itself (tens of CPU seconds, twice with ``-n
2``)."""

from __future__ import annotations

import time

try:
    from lostcities.fast.warmup import warm_up
except ImportError:
    print("numba not installed: nothing to compile")
else:
    print(f"numba kernels ready in {warm_up():.1f} s")
    try:
        from lostcities.envs.vector import OPPONENTS, LostCitiesVectorEnv
    except ImportError as e:  # the vector env's extra (NumPy, Gymnasium) is not installed
        print(f"vector env not installed ({e}): its kernels are not compiled")
    else:
        t0 = time.monotonic()
        for parallel in (False, True):
            for opponent in (*sorted(OPPONENTS), None):
                for variant in ("classic", "long"):
                    env = LostCitiesVectorEnv(4, opponent, variant, parallel=parallel)
                    env.reset(seed=0)
                    for _ in range(3):
                        env.step(env.sample_legal_actions())
                    env.close()
        print(f"vector env kernels ready in {time.monotonic() - t0:.1f} s")
