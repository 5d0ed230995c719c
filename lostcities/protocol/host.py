"""The referee side of the protocol: drive a bot program over its stdin and stdout.

An asyncio core (:class:`BotProtocol` over a :class:`Transport`) runs one command at a time;
:class:`SubprocessTransport` talks to a real program (in its own process group), the scripted
:class:`MockTransport` stands in for one in tests, and :class:`SimpleBot` is a blocking
handle that runs the event loop on a background thread and puts a time limit on every call
(think ``chess.engine.SimpleEngine``). The lines themselves are built and read by
:mod:`lostcities.protocol.wire`. A bot author does not need this file.
"""

from __future__ import annotations

import abc
import asyncio
import collections
import concurrent.futures
import contextlib
import logging
import os
import shlex
import signal
import subprocess
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from lostcities.cards import Variant
from lostcities.errors import BotError, BotTerminatedError, BotTimeoutError, InvalidMoveError
from lostcities.protocol.wire import (
    go_line,
    moved_line,
    newgame_line,
    parse_move_answer,
    position_lines,
    seed_line,
)
from lostcities.referee import DEFAULT_GRACE
from lostcities.rules import Move, PlayerView

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_MOVE_TIMEOUT",
    "DEFAULT_START_TIMEOUT",
    "BotProtocol",
    "MockTransport",
    "ProgramError",
    "SimpleBot",
    "SubprocessTransport",
    "Transport",
]

LOGGER = logging.getLogger("lostcities.protocol")

DEFAULT_MOVE_TIMEOUT = 10.0
"""Seconds a bot may think per move when no limit is given."""
DEFAULT_START_TIMEOUT = 10.0
"""Seconds a bot may take to start and answer ``lcp`` / ``isready``."""

_MAX_LINE = 1 << 20

T = TypeVar("T")


class ProgramError(ValueError):
    """A bot command that cannot be run (no such program, not executable)."""


# -- transports ----------------------------------------------------------------------------


class Transport(abc.ABC):
    """Line I/O with one bot: what :class:`BotProtocol` talks through."""

    @abc.abstractmethod
    async def send(self, line: str) -> None:
        """Write one line, or several joined by newlines (a final newline is added).

        :raises BotTerminatedError: if the bot can no longer be written to.
        """

    @abc.abstractmethod
    async def receive(self) -> bytes | None:
        """The next raw line from the bot, without its newline; ``None`` at end of output.

        :raises ValueError: for a line longer than the transport accepts (it is dropped).
        """

    @abc.abstractmethod
    async def died(self) -> str:
        """After the end of output: why, for an error message (``'exit code 3'``)."""

    @abc.abstractmethod
    async def close(self, timeout: float = 0.5) -> None:
        """Let the bot exit (after ``quit``) for up to ``timeout`` seconds, then kill it."""


class SubprocessTransport(Transport):
    """A bot program in its own process group (session), killed with the group on close.

    The bot's stderr is read line by line and logged at debug level; the last lines are
    quoted when the process dies.
    """

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        name: str,
        pipes: asyncio.SubprocessTransport | None = None,
    ) -> None:
        self.process = process
        """The bot's process."""
        self.name = name
        """The program's name, for messages."""
        self.pipes = pipes
        """The asyncio transport of the process's pipes (closed by :meth:`close`), when
        :meth:`start` made it."""
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=5)
        self._stderr_task = asyncio.ensure_future(self._read_stderr())

    @classmethod
    async def start(cls, argv: Sequence[str], *, cwd: str | None = None) -> SubprocessTransport:
        """Start ``argv`` with pipes on stdin, stdout and stderr.

        :raises ProgramError: if the program cannot be started (not found, not executable).
        """
        # What asyncio.create_subprocess_exec does, keeping the pipes' transport in hand
        # so that close() can close it while the loop runs.
        loop = asyncio.get_running_loop()
        try:
            pipes, protocol = await loop.subprocess_exec(
                lambda: asyncio.subprocess.SubprocessStreamProtocol(limit=_MAX_LINE, loop=loop),
                *argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                start_new_session=os.name == "posix",
            )
        except OSError as e:
            why = e.strerror or str(e)
            raise ProgramError(f"cannot run bot {shlex.join(argv)!r}: {why}") from None
        process = asyncio.subprocess.Process(pipes, protocol, loop)
        return cls(process, os.path.basename(argv[0]), pipes)

    async def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        while True:
            try:
                raw = await stream.readline()
            except ValueError:
                continue
            if not raw:
                return
            text = raw.decode("utf-8", "replace").rstrip()
            if text:
                self.stderr_tail.append(text)
                LOGGER.debug("%s stderr: %s", self.name, text)

    async def send(self, line: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        if stdin.is_closing():
            raise BotTerminatedError(f"bot {self.name!r} cannot be written to: {await self.died()}")
        LOGGER.debug("%s << %s", self.name, line)
        try:
            stdin.write(line.encode() + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise BotTerminatedError(
                f"bot {self.name!r} cannot be written to: {await self.died()}"
            ) from None

    async def receive(self) -> bytes | None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            raw = await stdout.readline()
        except ValueError:
            # an over-long line: drop what is buffered of it and let the caller log it
            with contextlib.suppress(Exception):
                await stdout.read(_MAX_LINE)
            raise
        if not raw:
            return None
        return raw.rstrip(b"\r\n")

    async def died(self) -> str:
        try:
            code = await asyncio.wait_for(self.process.wait(), 2.0)
        except TimeoutError:
            return "closed its output but is still running"
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 0.5)
        why = f"exit code {code}"
        if code < 0:
            with contextlib.suppress(ValueError):
                why = f"killed by signal {signal.Signals(-code).name}"
        if self.stderr_tail:
            why += f"; stderr: {self.stderr_tail[-1]}"
        return f"process died ({why})"

    def kill_group(self) -> None:
        """Kill the bot's whole process group now (children included)."""
        _kill_group(self.process.pid)

    async def close(self, timeout: float = 0.5) -> None:
        proc = self.process
        if proc.stdin is not None and not proc.stdin.is_closing():
            with contextlib.suppress(Exception):
                proc.stdin.close()
        if proc.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), timeout)
        self.kill_group()
        with contextlib.suppress(ProcessLookupError):
            if proc.returncode is None:
                proc.kill()
        await proc.wait()
        self._stderr_task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._stderr_task
        # Close the pipes now, while the loop runs (asyncio.subprocess.Process has no
        # close; otherwise its transport is closed at garbage collection, maybe after the
        # loop is gone).
        if self.pipes is not None:
            self.pipes.close()
        for _ in range(3):
            await asyncio.sleep(0)


def _abandon_start(
    future: concurrent.futures.Future[BotProtocol], loop: asyncio.AbstractEventLoop
) -> None:
    """Stop a bot program's start that its caller no longer waits for: cancel it and let it
    finish on the loop (asyncio closes a half-made subprocess itself), or close the bot it
    made, so no task or pipe is left for the garbage collector after the loop is gone."""
    future.cancel()
    concurrent.futures.wait([future], timeout=5.0)
    if future.done() and not future.cancelled() and future.exception() is None:
        closing = asyncio.run_coroutine_threadsafe(future.result().transport.close(0.0), loop)
        with contextlib.suppress(Exception):
            closing.result(5.0)


def _kill_group(pid: int) -> None:
    if os.name != "posix":  # pragma: no cover - the group exists on POSIX only
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class MockTransport(Transport):
    """A scripted bot for protocol tests: it checks each line the referee sends against the
    script and answers with the scripted lines.

    >>> mock = MockTransport()
    >>> mock.expect("lcp", ["id name mock", "lcpok"])
    >>> async def handshake():
    ...     bot = BotProtocol(mock)
    ...     await bot.initialize()
    ...     return bot.id
    >>> asyncio.run(handshake())
    {'name': 'mock'}
    >>> mock.assert_done()
    """

    def __init__(self) -> None:
        self._script: collections.deque[tuple[str | None, list[bytes], int | None]] = (
            collections.deque()
        )
        self._out: asyncio.Queue[bytes | None] | None = None
        self._pending: list[bytes | None] = []
        self.sent: list[str] = []
        """Every line the referee sent, in order."""
        self.exit_code: int | None = None
        self.closed = False

    def expect(
        self,
        line: str | None,
        responses: Iterable[str | bytes] = (),
        *,
        exit: int | None = None,
    ) -> None:
        """Expect the referee to send ``line`` (``None``: any line), then answer
        ``responses`` (text, or raw bytes for undecodable output); with ``exit``, the bot
        then ends its output and dies with that exit code."""
        raw = [r if isinstance(r, bytes) else r.encode() for r in responses]
        self._script.append((line, raw, exit))

    def expect_many(self, lines: Iterable[str]) -> None:
        """Expect these lines in order, with no answer."""
        for line in lines:
            self.expect(line)

    def assert_done(self) -> None:
        """Check that the whole script was used.

        :raises AssertionError: if expected lines were never sent.
        """
        if self._script:
            left = [e[0] for e in self._script]
            raise AssertionError(f"mock bot still expects: {left!r}")

    def _queue(self) -> asyncio.Queue[bytes | None]:
        if self._out is None:
            self._out = asyncio.Queue()
            for item in self._pending:
                self._out.put_nowait(item)
            self._pending = []
        return self._out

    async def send(self, line: str) -> None:
        if self.exit_code is not None or self.closed:
            raise BotTerminatedError(f"bot 'mock' cannot be written to: {await self.died()}")
        for one in line.split("\n"):
            self._take(one)

    def _take(self, line: str) -> None:
        self.sent.append(line)
        if not self._script:
            raise AssertionError(f"mock bot got unexpected line {line!r} (script is done)")
        want, responses, code = self._script.popleft()
        if want is not None and want != line:
            raise AssertionError(f"mock bot expected {want!r}, got {line!r}")
        q = self._queue()
        for r in responses:
            q.put_nowait(r)
        if code is not None:
            self.exit_code = code
            q.put_nowait(None)

    async def receive(self) -> bytes | None:
        return await self._queue().get()

    async def died(self) -> str:
        return f"process died (exit code {self.exit_code})"

    async def close(self, timeout: float = 0.5) -> None:
        self.closed = True


# -- the referee side's async core ----------------------------------------------------------


class BotProtocol:
    """The referee side of the protocol over a :class:`Transport`, one command at a time.

    Misbehaviour is handled in layers: lines the protocol does not know are logged as
    warnings and skipped; bytes that are not UTF-8 are logged and dropped; a bad or
    illegal move raises :class:`~lostcities.errors.BotError`; the end of the bot's output
    raises :class:`~lostcities.errors.BotTerminatedError` with the exit code. Time limits are
    the caller's (:class:`SimpleBot` wraps each call in :func:`asyncio.wait_for`).
    """

    def __init__(self, transport: Transport, name: str = "mock") -> None:
        self.transport = transport
        self.name = name
        self.id: dict[str, str] = {}
        """What the bot said in its ``id`` lines (``name``, ``author``)."""
        self.infos: collections.deque[str] = collections.deque(maxlen=50)
        """The last ``info`` lines the bot sent."""
        self.ignored: collections.Counter[str] = collections.Counter()
        """Lines skipped since the last command, by kind (``unknown``, ``undecodable``,
        ``too long``)."""
        self._lock = asyncio.Lock()

    @classmethod
    async def popen(cls, argv: Sequence[str], *, cwd: str | None = None) -> BotProtocol:
        """Start a bot program (in its own process group) and do the handshake. Put your
        own time limit around it (``asyncio.wait_for``); :meth:`quit` ends it.

        :raises ProgramError: if the program cannot be started.
        :raises BotTerminatedError: if it dies during the handshake.
        """
        transport = await SubprocessTransport.start(argv, cwd=cwd)
        bot = cls(transport, os.path.basename(argv[0]))
        try:
            await bot.initialize()
        except BaseException:
            await transport.close(0.0)
            raise
        return bot

    async def _send(self, line: str) -> None:
        await self.transport.send(line)

    async def _read(self) -> list[str]:
        """The next meaningful line, split into words. ``info`` lines are logged and kept;
        undecodable and over-long lines are logged and dropped."""
        while True:
            try:
                raw = await self.transport.receive()
            except ValueError:
                LOGGER.warning("%s: dropped an over-long line", self.name)
                self.ignored["too long"] += 1
                continue
            if raw is None:
                why = await self.transport.died()
                raise BotTerminatedError(f"bot {self.name!r} {why}")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                LOGGER.warning("%s: dropped undecodable bytes %r", self.name, raw[:80])
                self.ignored["undecodable"] += 1
                continue
            LOGGER.debug("%s >> %s", self.name, text)
            words = text.split()
            if not words:
                continue
            if words[0] == "info":
                info = text.strip()[4:].strip()
                self.infos.append(info)
                LOGGER.info("%s info: %s", self.name, info)
                continue
            return words

    def _unexpected(self, words: list[str], waiting_for: str) -> None:
        self.ignored["unknown"] += 1
        LOGGER.warning(
            "%s: unexpected line %r while waiting for %s", self.name, " ".join(words), waiting_for
        )

    async def _exchange(
        self, command: str, answer: str, take: Callable[[list[str]], bool] | None = None
    ) -> list[str]:
        """Send ``command`` and read until a line starting with ``answer`` (returned, split);
        ``take`` may use each line before it, and the others are logged as unexpected."""
        self.ignored.clear()
        await self._send(command)
        while True:
            words = await self._read()
            if words[0] == answer:
                return words
            if take is None or not take(words):
                self._unexpected(words, answer)

    async def initialize(self) -> dict[str, str]:
        """The handshake: ``lcp``, then ``id`` lines until ``lcpok``. Returns :attr:`id`.

        :raises BotTerminatedError: if the bot dies first.
        """

        def take_id(words: list[str]) -> bool:
            if words[0] != "id" or len(words) < 3:
                return False
            self.id[words[1]] = " ".join(words[2:])
            if words[1] == "name":
                self.name = self.id["name"]
            return True

        async with self._lock:
            await self._exchange("lcp", "lcpok", take_id)
        return self.id

    async def ping(self) -> None:
        """``isready`` -> ``readyok``: the bot has caught up with every command sent.

        :raises BotTerminatedError: if the bot dies first.
        """
        async with self._lock:
            await self._exchange("isready", "readyok")

    async def newgame(self, variant: Variant | str, seat: int, seed: int | None = None) -> None:
        """``newgame <variant> <seat>`` (then ``seed <n>`` when given). No answer expected.

        :raises BotTerminatedError: if the bot cannot be written to.
        """
        async with self._lock:
            await self._send(newgame_line(variant, seat))
            if seed is not None:
                await self._send(seed_line(seed))

    async def inform(self, move: Move, player: int) -> None:
        """``moved <player> <move>``. No answer expected.

        :raises BotTerminatedError: if the bot cannot be written to.
        """
        async with self._lock:
            await self._send(moved_line(player, move))

    async def play(self, view: PlayerView, time_limit: float) -> Move:
        """Send the position and ``go <milliseconds>``; return the bot's legal move.

        :raises BotError: for a move that is not notation or not legal in ``view``.
        :raises BotTerminatedError: if the bot dies first.
        """
        async with self._lock:  # the position and go in one write
            words = await self._exchange(
                "\n".join([*position_lines(view), go_line(time_limit)]), "move"
            )
        if len(words) > 2:
            LOGGER.warning("%s: ignored words after the move: %r", self.name, " ".join(words[2:]))
        try:
            move, _ = parse_move_answer(words)
        except InvalidMoveError as e:
            raise BotError(f"bot {self.name!r} sent a bad move: {e}") from None
        if move not in view.legal_moves():
            why = view.why_illegal(move) or "not legal now"
            raise BotError(f"bot {self.name!r} sent an illegal move: {str(move)!r} ({why})")
        return move

    async def quit(self, timeout: float = 0.5) -> None:
        """``quit``, then close the transport (the bot is killed after ``timeout`` s)."""
        with contextlib.suppress(BotError):
            await self._send("quit")
        await self.transport.close(timeout)


# -- the blocking wrapper -------------------------------------------------------------------


class SimpleBot:
    """A bot program driven synchronously: the event loop runs on a background thread and
    every call is wrapped in :func:`asyncio.wait_for`.

    >>> import sys
    >>> from lostcities import Round
    >>> with SimpleBot.popen([sys.executable, "-m", "lostcities.cli", "bot", "random"]) as bot:
    ...     r = Round.deal(seed=1)
    ...     bot.newgame("classic", 0, seed=1)
    ...     r.is_legal(bot.play(r.view(0), 1.0))
    True
    """

    def __init__(
        self,
        protocol: BotProtocol,
        loop: asyncio.AbstractEventLoop,
        thread: threading.Thread,
        *,
        grace: float = DEFAULT_GRACE,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        self.protocol = protocol
        self.grace = grace
        self.start_timeout = start_timeout
        self.out_of_sync = False
        """Set when a call was cut off by its time limit: the bot may still answer it."""
        self._loop = loop
        self._thread = thread
        self._closed = False
        transport = protocol.transport
        pid = transport.process.pid if isinstance(transport, SubprocessTransport) else None
        self._finalizer = weakref.finalize(self, _finalize, loop, thread, pid)

    @classmethod
    def popen(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        grace: float = DEFAULT_GRACE,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> SimpleBot:
        """Start a bot program and do the handshake.

        :raises ProgramError: if the program cannot be started.
        :raises BotTerminatedError: if it dies during the handshake.
        :raises BotTimeoutError: if it does not finish the handshake in ``start_timeout`` s.
        """
        loop, thread = _start_loop()
        name = os.path.basename(argv[0]) if argv else "?"

        async def start() -> BotProtocol:
            transport = await SubprocessTransport.start(argv, cwd=cwd)
            return BotProtocol(transport, name)

        future = asyncio.run_coroutine_threadsafe(start(), loop)
        try:
            protocol = future.result()
        except BaseException:  # interrupted (Ctrl-C) while the program starts: leave nothing
            _abandon_start(future, loop)
            _stop_loop(loop, thread)
            raise
        bot = cls(protocol, loop, thread, grace=grace, start_timeout=start_timeout)
        try:
            bot._call(protocol.initialize(), start_timeout, "the handshake (lcp)")
        except BaseException:
            bot.close()
            raise
        return bot

    @classmethod
    def from_transport(cls, transport: Transport, **kwargs: Any) -> SimpleBot:
        """Drive an existing transport (a :class:`MockTransport` in tests); no handshake."""
        loop, thread = _start_loop()
        return cls(BotProtocol(transport), loop, thread, **kwargs)

    @property
    def id(self) -> dict[str, str]:
        """The bot's ``id`` lines."""
        return self.protocol.id

    @property
    def name(self) -> str:
        """The bot's name (its ``id name``, else the program's file name)."""
        return self.protocol.name

    def _call(self, coro: Awaitable[T], timeout: float | None, what: str) -> T:
        if self._closed:
            if asyncio.iscoroutine(coro):
                coro.close()
            raise BotTerminatedError(f"bot {self.name!r} is closed")

        async def limited() -> T:
            return await asyncio.wait_for(coro, timeout)

        future = asyncio.run_coroutine_threadsafe(limited(), self._loop)
        try:
            return future.result()
        except TimeoutError:
            self.out_of_sync = True
            ignored = self.protocol.ignored
            note = "".join(
                f"; {n} {kind} line{'s' if n != 1 else ''} dropped"
                for kind, n in sorted(ignored.items())
            )
            raise BotTimeoutError(
                f"bot {self.name!r} timed out: no answer to {what} within {timeout:g} s{note}"
            ) from None
        except BotTerminatedError:
            self.out_of_sync = True
            raise
        except BaseException:
            if not future.done():  # interrupted here (Ctrl-C): stop the call over there too
                future.cancel()
            raise

    def ping(self) -> None:
        """Check the bot is alive and caught up (``isready``).

        :raises BotError: if it dies or does not answer within the start timeout.
        """
        self._call(self.protocol.ping(), self.start_timeout, "isready")

    def newgame(self, variant: Variant | str, seat: int, seed: int | None = None) -> None:
        """Start a round: ``newgame`` (and ``seed``), then wait for ``readyok``.

        :raises BotError: if the bot dies or does not get ready within the start timeout.
        """
        self._call(self.protocol.newgame(variant, seat, seed), self.start_timeout, "newgame")
        self.ping()

    def play(self, view: PlayerView, time_limit: float = DEFAULT_MOVE_TIMEOUT) -> Move:
        """The bot's move for ``view``; it is told ``time_limit`` seconds and given that
        plus :attr:`grace`.

        :raises BotTimeoutError: if no move comes in time.
        :raises BotTerminatedError: if the bot dies.
        :raises BotError: for a bad or illegal move.
        """
        return self._call(self.protocol.play(view, time_limit), time_limit + self.grace, "go")

    def inform(self, move: Move, player: int) -> None:
        """Tell the bot about a move (``moved``) without waiting for the write: commands
        keep their order, and a bot that cannot be written to is found out by the next
        call that waits.

        :raises BotTerminatedError: if the bot is closed.
        """
        if self._closed:
            raise BotTerminatedError(f"bot {self.name!r} is closed")
        future = asyncio.run_coroutine_threadsafe(self.protocol.inform(move, player), self._loop)
        future.add_done_callback(_discard_result)

    def kill(self) -> None:
        """Kill the bot's process group now (no ``quit``, no waiting)."""
        transport = self.protocol.transport
        if isinstance(transport, SubprocessTransport):
            _kill_group(transport.process.pid)

    def close(self, timeout: float = 0.5) -> None:
        """Send ``quit``, give the bot ``timeout`` s to exit, then kill its process group
        and stop the background thread. Safe to call twice."""
        if self._closed:
            return
        try:
            future = asyncio.run_coroutine_threadsafe(self.protocol.quit(timeout), self._loop)
            with contextlib.suppress(Exception):
                future.result(timeout + 5.0)
        finally:
            self._closed = True
            self._finalizer()

    def __enter__(self) -> SimpleBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _discard_result(future: concurrent.futures.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        LOGGER.debug("a moved line could not be sent: %s", future.exception())


def _start_loop() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        loop.run_forever()
        loop.close()

    thread = threading.Thread(target=run, name="lostcities-bot", daemon=True)
    thread.start()
    ready.wait()
    return loop, thread


def _stop_loop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    if loop.is_closed():
        return
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(loop.stop)
    if thread is not threading.current_thread():
        thread.join(5.0)


def _finalize(loop: asyncio.AbstractEventLoop, thread: threading.Thread, pid: int | None) -> None:
    if pid is not None:
        _kill_group(pid)
    _stop_loop(loop, thread)
