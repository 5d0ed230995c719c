"""Compile the fast path's kernels, or load them from numba's on-disk cache, before play.

Numba compiles a kernel on its first call and caches the machine code on disk
(``cache=True``), so a fresh install would otherwise spend the first search move compiling
(about 20 seconds). :func:`warm_up` calls every kernel a bot move runs, in both variants,
through the same public entry points the bots use (so with the same argument types, hence
the same compiled signatures): the compiled rollouts (:mod:`lostcities.fast.rollouts`), the
flat search of ``ismcts`` and ``expert`` (:class:`~lostcities.fast.search.FlatSearch`) with
the smart and the cheap rollouts, with the bots' Mersenne Twister and with the compiled
generator, the network rollouts of ``expert:rollout=net``
(:class:`~lostcities.fast.netsearch.NetRollouts`), :class:`~lostcities.fast.state.FastRound`, and the batch kernels of
:class:`~lostcities.fast.batch.BatchGames`. The first call after an install compiles and
fills the cache; later calls, in any process, only load it (a fraction of a second).

Whether a warm-up will compile (the *first start*: a fresh install, or the fast path's
code changed since) is known beforehand (:func:`first_start`): each warm-up leaves a note
beside numba's cache naming the sources it compiled. ``lostcities warmup`` says
``(first start only)`` only then. ``lostcities serve`` and ``lostcities play`` do not wait
for a first start's compile: :class:`WarmUpProcess` runs it in a child process (which
holds neither the server's event loop nor the terminal's screen) while they start, and they
load the cache once it is done; a warm cache is loaded at start-up (under a second). Never
inside a move. Processes starting together on a cold cache (``lostcities serve --workers
N``) compile once: a first start's warm-up holds a file lock beside numba's cache
(:data:`LOCK`) while it compiles, the others wait for it (saying :data:`WAITING`) and then
load the cache it filled. Importing this module (like all of :mod:`lostcities.fast`) raises
:class:`ImportError` when numba is not installed.

>>> seconds = warm_up()
>>> seconds >= 0
True
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numba
from numba.core.caching import CompileResultCacheImpl

from lostcities.fast import kernels, smart
from lostcities.fast.batch import BatchGames
from lostcities.fast.netsearch import NetRollouts
from lostcities.fast.rollouts import playout_round, playouts_after_round
from lostcities.fast.search import FlatSearch
from lostcities.fast.state import FastRound
from lostcities.nn import Network
from lostcities.rules import Round

__all__ = [
    "LOADING",
    "PREPARING",
    "WAITING",
    "WarmUpError",
    "WarmUpProcess",
    "dispatchers",
    "first_start",
    "warm_up",
]

PREPARING = "preparing the search engine (first start only) ..."
"""What :func:`warm_up` tells ``progress`` first when it will compile (:func:`first_start`)."""
LOADING = "loading the search engine ..."
"""What :func:`warm_up` tells ``progress`` first when numba's cache holds the kernels."""
WAITING = "waiting for another process preparing the search engine ..."
"""What :func:`warm_up` tells ``progress`` while another process's first start compiles."""
NOTE = "lostcities-warmup.json"
"""The note a warm-up leaves beside numba's cache (:func:`first_start` reads it)."""
LOCK = "lostcities-warmup.lock"
"""The file beside numba's cache that a first start's warm-up locks while it compiles."""

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


class WarmUpError(RuntimeError):
    """The warm-up's child process failed (:meth:`WarmUpProcess.wait`)."""


def _note() -> tuple[Path, dict[str, Any]] | None:
    """Where the warm-up's note lives (numba's cache folder of the fast path) and what it
    must say for the cache to be warm: numba's and Python's versions and the size and
    modification time (numba's own test of a cache entry) of every source file of the
    fast path (its kernels, and whatever they call)."""
    funcs = [d.py_func for _, d in dispatchers()]
    if not funcs:  # pragma: no cover - the fast path always has kernels
        return None
    impl = CompileResultCacheImpl(funcs[0])  # type: ignore[no-untyped-call]
    folder = Path(impl.locator.get_cache_path())  # where numba keeps this module's cache
    sources: dict[str, list[float]] = {}
    fast = Path(kernels.__file__).parent
    # the fast path's files, and the core's input layout that vector.py compiles in
    for path in [*sorted(fast.glob("*.py")), fast.parent / "netinput.py"]:
        st = os.stat(path)
        sources[path.name] = [st.st_mtime, st.st_size]
    want = {"numba": numba.__version__, "python": sys.version, "sources": sources}
    return folder / NOTE, want


def first_start() -> bool:
    """Whether :func:`warm_up` will compile rather than load numba's cache: no warm-up has
    filled the cache for this numba, this Python and these sources (a fresh install, a new
    ``NUMBA_CACHE_DIR``, an upgrade, an edit of the fast path). False with the JIT disabled
    (nothing to compile). A cache deleted behind the note's back is not seen: the warm-up
    then compiles while saying it loads."""
    if getattr(numba.config, "DISABLE_JIT", False):
        return False
    try:
        found = _note()
        if found is None:  # pragma: no cover
            return True
        path, want = found
        had: object = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    return had != want


def _mark_warm() -> None:
    """Leave the note that the cache is warm (best effort: a read-only cache folder only
    means every start is a first start)."""
    try:
        found = _note()
        if found is not None:
            path, want = found
            tmp = path.with_name(f"{NOTE}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(want), encoding="utf-8")
            os.replace(tmp, path)
    except OSError:
        pass


@contextlib.contextmanager
def _compile_lock(progress: Callable[[str], None] | None) -> Iterator[None]:
    """Hold :data:`LOCK` (an exclusive ``flock``, let go when this process ends, however it
    ends), waiting for another process that holds it; best effort: without ``fcntl`` or
    with a read-only cache folder nothing is locked."""
    try:
        import fcntl

        found = _note()
        if found is None:  # pragma: no cover - the fast path always has kernels
            raise OSError("no cache folder")
        path = found[0].with_name(LOCK)
        path.parent.mkdir(parents=True, exist_ok=True)
        f = open(path, "ab")  # noqa: SIM115 (held until the compile is done)
    except (ImportError, OSError):
        yield
        return
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if progress is not None:
                progress(WAITING)
            fcntl.flock(f, fcntl.LOCK_EX)
        yield  # (closing the file lets the lock go)


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
    # expert's rollout=net: the network's batched play (its weights do not change the code)
    net = Network.random(hidden=(4,), seed=1)
    for depth in (0, 1):
        NetRollouts(net, view, moves, seed=1, depth=depth).run(1)


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
    ``progress`` gets :data:`PREPARING` (a first start, :func:`first_start`) or
    :data:`LOADING` before and ``"ready in X s"`` after. A first start compiles under a
    file lock (:data:`LOCK`): while another process holds it, ``progress`` first gets
    :data:`WAITING`, and once that one is done this one loads what it compiled (the seconds
    include the wait). With numba's JIT disabled
    (``NUMBA_DISABLE_JIT=1``) there is nothing to compile: it returns 0 at once.
    """
    if getattr(numba.config, "DISABLE_JIT", False):  # set from NUMBA_DISABLE_JIT at import
        if progress is not None:
            progress("numba's JIT is disabled (NUMBA_DISABLE_JIT): nothing to compile")
        return 0.0
    start = time.perf_counter()
    cold = first_start()
    with _compile_lock(progress) if cold else contextlib.nullcontext():
        cold = cold and first_start()  # another process may have compiled meanwhile
        if progress is not None:
            progress(PREPARING if cold else LOADING)
        for variant in _VARIANTS:
            _bot_kernels(variant)
        for variant in _VARIANTS:
            _batch_kernels(variant)
        _mark_warm()
    seconds = time.perf_counter() - start
    if progress is not None:
        progress(f"ready in {seconds:.1f} s")
    return seconds


_DONE = "warm-up done in"


class WarmUpProcess:
    """:func:`warm_up` in a child process, started at once: a first start's compile fills
    numba's on-disk cache there, holding neither this process's GIL nor its event loop, and
    this process then loads the cache (:func:`warm_up` again: under a second). The child
    ends with this process (it reads its standard input, which closes when this process
    dies, even by ``kill -9``) or with :meth:`close`.
    """

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "lostcities.fast.warmup"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def wait(self) -> float:
        """Block until the child is done; the seconds it spent.

        :raises WarmUpError: if it failed (the message ends with its last output).
        """
        stdout = self._proc.stdout
        out = "" if stdout is None or stdout.closed else stdout.read()
        code = self._proc.wait()
        lines = out.strip().splitlines()
        if code == 0 and lines and lines[-1].startswith(_DONE):
            return float(lines[-1].removeprefix(_DONE))
        raise WarmUpError(f"the search engine's warm-up failed ({code}): {out.strip()[-300:]}")

    def close(self) -> None:
        """Stop the child if it still runs."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        for f in (self._proc.stdin, self._proc.stdout):
            if f is not None:
                f.close()


def _exit_when_parent_goes() -> None:
    """(In the child) end as soon as the parent's end of standard input closes."""
    sys.stdin.read()
    os._exit(1)


def _child() -> int:
    threading.Thread(target=_exit_when_parent_goes, daemon=True).start()
    seconds = warm_up(lambda line: print(line, flush=True))
    print(f"{_DONE} {seconds}", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover - run by WarmUpProcess
    sys.exit(_child())
