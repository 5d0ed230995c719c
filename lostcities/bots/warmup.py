"""The search bots' compiled kernels made ready before a first move, for the front ends
that host bots (the terminal UI, the web server): :func:`prepare_search` and
:func:`search_first_start` work without numba too (the bots then search in pure Python,
and there is nothing to compile)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["NO_NUMBA", "prepare_search", "search_first_start"]

NO_NUMBA = "numba is not installed: nothing to compile (the bots search in pure Python)"
"""What :func:`prepare_search` says without the ``fast`` extra."""


def prepare_search(progress: Callable[[str], None] | None = None) -> float:
    """Compile the search kernels, or load them from numba's on-disk cache
    (:func:`lostcities.fast.warmup.warm_up`), so that no bot move waits on the JIT; returns
    the seconds spent. Without numba there is nothing to do (``progress`` is told so)."""
    try:
        from lostcities.fast.warmup import warm_up
    except ImportError:
        if progress is not None:
            progress(NO_NUMBA)
        return 0.0
    return warm_up(progress)


def search_first_start() -> bool:
    """Whether preparing the search would compile it (numba's cache is cold: a first
    start, :func:`lostcities.fast.warmup.first_start`); False without numba."""
    try:
        from lostcities.fast.warmup import first_start
    except ImportError:
        return False
    return first_start()
