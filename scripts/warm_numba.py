"""Compile the fast path's numba kernels once into their on-disk cache, so parallel test
workers load them instead of each compiling them (run by scripts/test.sh; harmless to rerun).
The work is :func:`lostcities.fast.warmup.warm_up`, as ``lostcities warmup`` does."""

from __future__ import annotations

try:
    from lostcities.fast.warmup import warm_up
except ImportError:
    print("numba not installed: nothing to compile")
else:
    print(f"numba kernels ready in {warm_up():.1f} s")
