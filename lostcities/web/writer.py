"""The store's background threads: the writer, which commits pending writes in batches
(group commit), and SQLite's write-ahead-log checkpointer.

A write is a function of an open :class:`~sqlalchemy.orm.Session` (the ``op_`` functions
of :mod:`lostcities.web.repositories`). :class:`BatchWriter` runs every write handed to it
in one thread, many in one transaction: whoever waits for a write (a thread or a
coroutine) is answered only after its transaction committed. A batch of plain moves (a
:class:`~lostcities.web.repositories.games.MoveWrite` that changes nothing else) is stored
with one multi-row insert on a connection the writer keeps. :class:`WalCheckpointer` copies
SQLite's write-ahead log into the database file once a second, never inside a move's
commit. :class:`~lostcities.web.store.GameStore` runs both.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeAlias

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from lostcities.web.models.base import utcnow
from lostcities.web.repositories.games import MoveInserter, MoveWrite, notify_change

__all__ = ["BatchWriter", "WalCheckpointer", "Waiter"]

_STOP = object()

Waiter: TypeAlias = Future[Any] | asyncio.Future[Any]
"""Who waits for a write's commit: a thread (:meth:`BatchWriter.submit_sync`) or a
coroutine (:meth:`BatchWriter.submit`)."""


def _start(w: Waiter) -> bool:
    """Whether the write of ``w`` is still wanted (its waiter not cancelled); a thread's
    waiter can no longer be cancelled from here on."""
    if isinstance(w, Future):
        return w.set_running_or_notify_cancel()
    return not w.cancelled()


def _settle(outcomes: list[tuple[Waiter, bool, Any]]) -> None:
    """Give each waiter its write's result (``True``) or exception (``False``), from the
    writer thread once the batch committed: threads at once, coroutines through one call
    into each event loop for the whole batch."""
    loops: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], bool, Any]]] = {}
    for w, ok, value in outcomes:
        if isinstance(w, Future):
            if ok:
                w.set_result(value)
            else:
                w.set_exception(value)
        else:
            loops.setdefault(w.get_loop(), []).append((w, ok, value))
    for loop, items in loops.items():
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(_resolve, items)


def _resolve(items: list[tuple[asyncio.Future[Any], bool, Any]]) -> None:
    """(in the waiters' event loop) Resolve the futures of a committed batch."""
    for fut, ok, value in items:
        if fut.done():  # cancelled meanwhile: the write stands, nobody waits for it
            continue
        if ok:
            fut.set_result(value)
        else:
            fut.set_exception(value)


class BatchWriter:
    """One thread that commits the writes handed to it in batches of up to 256, each
    batch one transaction (a failing write is retried alone, so it fails alone)."""

    def __init__(self, engine: Engine, sessions: sessionmaker[Session]) -> None:
        self.engine = engine
        self._sessions = sessions
        self._insert_moves = MoveInserter(engine)
        self._move_conn: Connection | None = None
        """The writer thread's own connection for batches of plain moves."""
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.batches = 0
        """Transactions committed (or tried)."""
        self.writes = 0
        """Writes run."""

    @property
    def running(self) -> bool:
        """Whether the writer thread was started (and not stopped)."""
        return self._thread is not None

    def start(self) -> None:
        """Start the writer thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._write_loop, name="lostcities-db-writer", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Commit the writes already handed over, then stop the thread."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout=30)
            self._thread = None

    def submit_sync(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn(session)`` in the writer's next transaction, waiting in this thread;
        returns its result after the commit (the writer must be running)."""
        fut: Future[Any] = Future()
        self._queue.put((fn, fut))
        return fut.result()

    async def submit(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn(session)`` in the writer's next transaction; returns its result after
        the commit (the writer must be running).

        :raises Exception: whatever ``fn`` or the commit raised (nothing was written).
        """
        # An event loop's own future, resolved by the loop itself once the batch committed
        # (one hand-off per batch, not a thread-safe future and a callback per write).
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put((fn, fut))
        return await fut

    def _write_loop(self) -> None:
        try:
            self._write_batches()
        finally:
            self._drop_move_conn()

    def _write_batches(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            batch = [item]
            stop = False
            while len(batch) < 256:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP:
                    stop = True
                    break
                batch.append(nxt)
            self._commit_batch(batch)
            if stop:
                return

    def _commit_batch(self, batch: list[tuple[Callable[[Session], Any], Waiter]]) -> None:
        # Moves go first (one insert), then other writes in order; a move and a write that
        # depends on it never share a batch, because a game's next write waits for the
        # previous one's commit.
        # A write whose waiter was cancelled before it started is dropped (nobody applies it).
        batch = [(fn, w) for fn, w in batch if _start(w)]
        if not batch:
            return
        self.batches += 1
        self.writes += len(batch)
        outcomes: list[tuple[Waiter, bool, Any]] = []
        plain = [fn for fn, _ in batch if isinstance(fn, MoveWrite) and not fn.has_extras()]
        if len(plain) == len(batch):  # the common batch: moves only, on the writer's connection
            try:
                self._commit_moves(plain)
            except Exception:  # (rolled back) the general path below tells each its error
                pass
            else:
                _settle([(w, True, None) for _, w in batch])
                return
        try:
            with self._sessions.begin() as session:
                results: list[Any] = [None] * len(batch)
                now = utcnow()
                moves = [fn for fn, _ in batch if isinstance(fn, MoveWrite)]
                if moves:
                    touched = self._insert_moves(session.connection(), moves, now)
                    for m in moves:
                        if m.has_extras():
                            m.extras(session, now)
                    notify_change(session, touched)
                for i, (fn, _) in enumerate(batch):
                    if not isinstance(fn, MoveWrite):
                        results[i] = fn(session)
                        session.flush()
        except Exception:
            # Isolate the failing write: each on its own transaction.
            for fn, w in batch:
                try:
                    with self._sessions.begin() as session:
                        res = fn(session)
                except Exception as e:  # reported to the waiting coroutine
                    outcomes.append((w, False, e))
                else:
                    outcomes.append((w, True, res))
        else:
            outcomes = [(w, True, res) for (_, w), res in zip(batch, results, strict=True)]
        _settle(outcomes)

    def _commit_moves(self, moves: list[MoveWrite]) -> None:
        """Commit a batch of moves that change nothing else, on a connection the writer
        keeps (an ORM session's set-up, pool checkout and reset cost more CPU than the
        statements); a failed batch drops the connection (the next one opens another)."""
        conn = self._move_conn
        if conn is None:
            conn = self._move_conn = self.engine.connect()
        try:
            with conn.begin():
                notify_change(conn, self._insert_moves(conn, moves, utcnow()))
        except Exception:
            self._drop_move_conn()
            raise

    def _drop_move_conn(self) -> None:
        conn, self._move_conn = self._move_conn, None
        if conn is not None:
            with contextlib.suppress(SQLAlchemyError):
                conn.close()


class WalCheckpointer:
    """A thread that copies SQLite's write-ahead log into the database file once a
    second (the store's connections turn SQLite's own checkpoints off, so that none runs
    inside a move's commit)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """Copy the write-ahead log into the database file now (``PASSIVE``: as far as
        readers allow; ``TRUNCATE``: all of it, and empty the log)."""
        assert mode in ("PASSIVE", "TRUNCATE")
        with self.engine.connect() as conn:
            conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")

    def start(self) -> None:
        """Start the thread (once)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._checkpoint_loop, name="lostcities-db-checkpoint", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread and empty the log (``TRUNCATE``), if it was started."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=30)
            self._thread = None
            with contextlib.suppress(SQLAlchemyError):
                self.checkpoint("TRUNCATE")

    def _checkpoint_loop(self) -> None:
        while not self._stop.wait(1.0):
            with contextlib.suppress(SQLAlchemyError):  # busy or locked: next time
                self.checkpoint()
