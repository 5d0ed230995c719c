"""The bot worker pool: bot searches, hints and analyses run off the event loop, in worker
processes (default) or threads. Each worker process dies with the server
(:func:`die_with_parent`) and loads the compiled search and the levels' bots before its
first move (:func:`prepare_search`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import logging
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from lostcities.bots import make
from lostcities.bots.base import one_core_per_bot
from lostcities.bots.warmup import NO_NUMBA, prepare_search, search_first_start
from lostcities.rules import Move, PlayerView
from lostcities.web.levels import bot_available

if TYPE_CHECKING:
    from lostcities.fast.warmup import WarmUpProcess

__all__ = [
    "NO_NUMBA",
    "PR_SET_PDEATHSIG",
    "BackgroundWarmUp",
    "BotRunner",
    "bot_choose",
    "die_with_parent",
    "prepare_search",
    "search_first_start",
]

log = logging.getLogger("lostcities.web")
T = TypeVar("T")


def bot_choose(
    spec: str, seed: int, view: PlayerView, time_limit: float | None, mistakes: float = 0.0
) -> str:
    """What a worker of :class:`BotRunner` runs: build the bot of ``spec`` and choose a move
    for ``view`` (its only input), in notation; with probability ``mistakes`` (drawn from
    ``seed``) a uniformly random legal move instead."""
    rng = random.Random(seed)
    if mistakes > 0 and rng.random() < mistakes:
        moves = view.legal_moves()
        return str(moves[rng.randrange(len(moves))])
    bot = make(spec, seed)
    try:
        bot.restart(view.variant, view.player)
        return str(bot.choose(view, time_limit))
    finally:
        bot.close()


class BackgroundWarmUp:
    """A first start's compile of the search, off the server: in a child process
    (:class:`lostcities.fast.warmup.WarmUpProcess`) while the server answers; then the
    bot workers (or this process, with thread workers) load it from numba's cache."""

    def __init__(self, runner: BotRunner) -> None:
        self.runner = runner
        self._child: WarmUpProcess | None = None
        self._closed = False

    async def run(self) -> float:
        """Compile, then load; the seconds the compile took. A failed compile is logged
        and the workers load what they can (a move then compiles what is missing).

        :raises asyncio.CancelledError: if cancelled (the child is stopped).
        """
        from lostcities.fast.warmup import WarmUpError, WarmUpProcess

        child = WarmUpProcess()
        self._child = child
        seconds = 0.0
        try:
            if self._closed:
                return 0.0
            seconds = await asyncio.to_thread(child.wait)
        except WarmUpError as e:
            log.warning("%s", e)
        finally:
            child.close()
            self._child = None
        await self.runner.load_search()
        return seconds

    def close(self) -> None:
        """Stop the compile if it still runs (shutdown)."""
        self._closed = True
        child = self._child
        if child is not None:
            child.close()


PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when its parent dies."""


def die_with_parent(parent: int, poll: float = 1.0) -> None:
    """Make this process end when process ``parent`` does (a bot worker must never outlive
    the server, not even a ``kill -9`` of it, which runs no shutdown code).

    Two layers: on Linux the kernel sends SIGKILL at the parent's death
    (``prctl(PR_SET_PDEATHSIG)``, through ctypes); everywhere a daemon thread checks every
    ``poll`` seconds that the parent is still this process's parent and ends the process
    (``os._exit``) when it is not. A parent already gone at the call ends it at once.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread does it
            pass
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="lostcities-parent-watch", daemon=True).start()


def _prepare_worker(specs: tuple[str, ...], parent: int | None = None, load: bool = True) -> None:
    """Start-up of each bot worker process: die with the server (:func:`die_with_parent`),
    load the compiled search (unless ``load`` is false: a first start compiles it in the
    background meanwhile, and the worker loads it then) and build each level's bot once
    (the network's weights), before the worker takes its first move."""
    if parent is not None:
        die_with_parent(parent)
    try:
        if load:
            prepare_search()
        for spec in specs:
            bot_available(spec)
    except Exception:  # never break the pool: a move will say what is wrong
        log.warning("bot worker warm-up failed", exc_info=True)


def _ready() -> int:
    return os.getpid()


class BotRunner:
    """Runs bot searches off the event loop: a process pool (default) or a thread pool.

    Each worker process first loads the compiled search (:func:`prepare_search`) and builds
    the bots of :attr:`specs`, so a move never waits on a compile or a weights file.
    """

    def __init__(
        self,
        kind: str = "process",
        workers: int = 2,
        specs: Sequence[str] = (),
        *,
        load_search: bool = True,
    ) -> None:
        self.kind = kind
        self.workers = max(1, workers)
        self.specs = tuple(specs)
        """Bot specs each worker process builds once at start (the levels' bots)."""
        self.load_at_start = load_search
        """Whether a worker process loads the compiled search when it starts (false while
        a first start compiles it: :meth:`load_search` then loads it)."""
        self._pool: concurrent.futures.Executor | None = None

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            if self.kind == "process":
                one_core_per_bot()
                ctx = multiprocessing.get_context("spawn")
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.workers,
                    mp_context=ctx,
                    initializer=_prepare_worker,
                    initargs=(self.specs, os.getpid(), self.load_at_start),
                )
            else:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    self.workers, thread_name_prefix="lostcities-bot"
                )
        return self._pool

    async def warm_up(self) -> None:
        """Start the workers now and wait until they are ready (each has loaded the compiled
        search and the levels' bots) rather than on the first bot move."""
        ex = self._executor()
        futures = [asyncio.wrap_future(ex.submit(_ready)) for _ in range(self.workers)]
        await asyncio.gather(*futures, return_exceptions=True)

    async def load_search(self) -> None:
        """Load the compiled search now that numba's cache holds it: in each running worker
        process (one load per worker, as far as the pool spreads them; a worker it missed
        loads each kernel on first use, from the cache), in the workers started later, and
        with thread workers in this process."""
        self.load_at_start = True
        if self.kind != "process":
            await asyncio.to_thread(prepare_search)
        elif self._pool is None:
            await self.warm_up()  # the workers start now, loading it
        else:
            await asyncio.gather(
                *(self.run(prepare_search) for _ in range(self.workers)), return_exceptions=True
            )

    async def choose(
        self,
        spec: str,
        seed: int,
        view: PlayerView,
        time_limit: float | None,
        mistakes: float = 0.0,
    ) -> Move:
        """The bot's move for ``view`` (:func:`bot_choose` in a worker, through :meth:`run`).

        :raises Exception: whatever the bot raised.
        """
        return Move.parse(await self.run(bot_choose, spec, seed, view, time_limit, mistakes))

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in a worker (moves, hints, analyses). A broken pool (a worker
        killed, out of memory) is replaced by a fresh one and ``fn`` tried once more.

        :raises Exception: whatever ``fn`` raised.
        """
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), fn, *args)
        except concurrent.futures.BrokenExecutor:
            log.warning("bot worker pool broke; restarting it")
            self.close()
            return await loop.run_in_executor(self._executor(), fn, *args)

    def close(self) -> None:
        """Stop the workers."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
