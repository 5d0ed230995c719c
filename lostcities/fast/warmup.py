"""Compile the fast path's kernels, or load them from numba's on-disk cache, before play.

Numba compiles a kernel on its first call and caches the machine code on disk
(``cache=True``), so a fresh install would otherwise spend the first search move compiling
(about 20 seconds). :func:`warm_up` calls every kernel a bot move runs, in both variants,
through the same public entry points the bots use (so with the same argument types, hence
the same compiled signatures): the compiled rollouts (:mod:`lostcities.fast.rollouts`), the
flat search of ``ismcts`` and ``expert`` (:class:`~lostcities.fast.search.FlatSearch`) with
the smart and the cheap rollouts, with the bots' Mersenne Twister and with the compiled
generator, :class:`~lostcities.fast.state.FastRound`, and the batch kernels of
:class:`~lostcities.fast.batch.BatchGames`. The first call after an install compiles and
fills the cache; later calls, in any process, only load it (a fraction of a second).

``lostcities serve``, ``lostcities play`` and ``lostcities warmup`` call it at start-up,
never inside a move. Importing this module (like all of :mod:`lostcities.fast`) raises
:class:`ImportError` when numba is not installed.

>>> seconds = warm_up()
>>> seconds >= 0
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import numba

from lostcities.fast import kernels, smart
from lostcities.fast.batch import BatchGames
from lostcities.fast.rollouts import playout_round, playouts_after_round
from lostcities.fast.search import FlatSearch
from lostcities.fast.state import FastRound
from lostcities.rules import Round

__all__ = ["PREPARING", "dispatchers", "warm_up"]

PREPARING = "preparing the search engine (first start only) ..."
"""What :func:`warm_up` tells ``progress`` first."""

_VARIANTS = ("classic", "long")


def dispatchers() -> Iterator[tuple[str, Any]]:
    """Every numba function of the fast path, as ``(qualified name, dispatcher)`` (for
    checks such as "this move compiled nothing": compare their ``signatures``)."""
    seen: set[int] = set()
    for module in (kernels, smart):
        for name, value in sorted(vars(module).items()):
            if hasattr(value, "py_func") and hasattr(value, "signatures") and id(value) not in seen:
                seen.add(id(value))
                yield f"{module.__name__}.{name}", value


def _bot_kernels(variant: str) -> None:
    """What a move of ``ismcts`` or ``expert`` runs (any options), in ``variant``."""
    r = Round.deal(seed=1, variant=variant)
    view = r.view(r.to_move)
    moves = list(view.legal_moves())[:2]
    for rollout in ("smart", "cheap"):  # the bots' generator: the Mersenne Twister kernel
        FlatSearch(view, moves, rollout=rollout, rng=random.Random(1)).run(1)
    FlatSearch(view, moves, rollout="cheap", seed=1).run(1)  # the compiled generator
    playout_round(r)  # lostcities.bots.rollout.playout, compiled
    playouts_after_round(r, moves)
    f = FastRound.from_round(r)
    f.legal_moves()
    f.is_legal(moves[0])
    f.push(moves[0])
    f.scores()
    f.playout()


def _batch_kernels(variant: str) -> None:
    """What :class:`BatchGames` runs (RL, benchmarks), in ``variant``."""
    games = BatchGames(2, variant, seed=1)
    games.legal_mask()
    for policy in ("bench", "rollout"):
        games.random_actions(policy)
    games.step(games.random_actions("uniform"))  # with the mask kept current
    games.scores()
    games.reset_done()
    games.reset()
    games.step(games.random_actions("uniform"))  # without the mask
    games.play_bench(1)
    BatchGames.from_rounds([Round.deal(seed=2, variant=variant)]).legal_mask()


def warm_up(progress: Callable[[str], None] | None = None) -> float:
    """Compile every kernel a bot move needs (or load it from numba's on-disk cache) and
    return the seconds spent: about 20 s on a fresh install, well under 1 s afterwards.
    ``progress`` gets :data:`PREPARING` before and ``"ready in X s"`` after. With numba's
    JIT disabled (``NUMBA_DISABLE_JIT=1``) there is nothing to compile: it returns 0 at once.
    """
    if getattr(numba.config, "DISABLE_JIT", False):  # set from NUMBA_DISABLE_JIT at import
        if progress is not None:
            progress("numba's JIT is disabled (NUMBA_DISABLE_JIT): nothing to compile")
        return 0.0
    if progress is not None:
        progress(PREPARING)
    start = time.perf_counter()
    for variant in _VARIANTS:
        _bot_kernels(variant)
    for variant in _VARIANTS:
        _batch_kernels(variant)
    seconds = time.perf_counter() - start
    if progress is not None:
        progress(f"ready in {seconds:.1f} s")
    return seconds
