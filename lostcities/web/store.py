"""Storage: SQLAlchemy 2 models and the game store (SQLite by default, PostgreSQL alike).

A game is stored as its settings, each round's deal order and the list of accepted moves;
loading a game replays the moves with the rules core, so a restarted server resumes every
game exactly. Writes go through one writer thread that commits a batch of pending writes in
one transaction (group commit): a move is acknowledged only after its transaction committed.
The schema is made and upgraded by the Alembic migrations of :mod:`lostcities.web.migrations`
(:meth:`GameStore.create_tables`); a change of the models here goes with a new revision there.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import os
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeAlias

from sqlalchemy import (
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from lostcities.web import migrations
from lostcities.web.models.base import utcnow
from lostcities.web.models.comments import CommentRow, comment_digest
from lostcities.web.models.games import AnalysisRow, ChatRow, GameRow, MoveRow, RoundRow

__all__ = [
    "GameStore",
    "StoredGame",
    "StorageError",
    "NOTIFY_CHANNEL",
    "BOT_NOTICE",
    "CHAT_NOTICE",
    "hash_token",
    "normalize_db_url",
    "require_existing_database",
    "notify_change",
]


class StorageError(ValueError):
    """A database URL that cannot be used, or a database that cannot be opened."""


def hash_token(token: str) -> str:
    """The stored form of a seat token (only hashes are stored)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass
class StoredRound:
    """A round as loaded from the database."""

    index: int
    starter: int
    deck: list[str]
    moves: list[str]
    forfeit: int | None
    forfeit_reason: str


@dataclass
class StoredGame:
    """A game as loaded from the database (settings, seats, rounds and moves)."""

    row: GameRow
    rounds: list[StoredRound]


def normalize_db_url(url: str) -> str:
    """Check a database URL and map plain PostgreSQL URLs to the psycopg 3 driver.

    >>> normalize_db_url("postgresql://u@localhost/db")
    'postgresql+psycopg://u@localhost/db'
    >>> normalize_db_url("sqlite:///lostcities.db")
    'sqlite:///lostcities.db'

    :raises StorageError: for a URL that is not SQLite or PostgreSQL.
    """
    text = url.strip()
    for prefix in ("postgres://", "postgresql://"):
        if text.startswith(prefix):
            text = "postgresql+psycopg://" + text[len(prefix) :]
    try:
        parsed: URL = make_url(text)
    except ArgumentError:
        raise StorageError(
            f"invalid database URL: {url!r} (expected sqlite:///FILE or postgresql://...)"
        ) from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StorageError(
            f"unsupported database: {url!r} (expected sqlite:///FILE or postgresql://...)"
        )
    return text


def require_existing_database(url: str) -> None:
    """Refuse a SQLite URL whose file does not exist, before anything opens it (SQLite
    would create an empty database): the operator commands (``lostcities users``,
    ``lostcities comments``) read and change a database the web app made, and a typo in
    ``--db`` must not leave a new empty one behind. Other databases (PostgreSQL, SQLite
    in memory) pass.

    >>> require_existing_database("sqlite:////no/such/typo.db")
    Traceback (most recent call last):
    ...
    lostcities.web.store.StorageError: no database at '/no/such/typo.db' (lostcities serve --db sqlite:////no/such/typo.db makes one)

    :raises StorageError: for a missing SQLite file (or a URL that is not SQLite or
        PostgreSQL).
    """
    parsed = make_url(normalize_db_url(url))
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return
    if not os.path.isfile(parsed.database):
        raise StorageError(
            f"no database at {parsed.database!r} (lostcities serve --db {url} makes one)"
        )


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    # Checkpoints run in the store's background thread, never inside a move's commit.
    cur.execute("PRAGMA wal_autocheckpoint=0")
    cur.close()


_STOP = object()

Waiter: TypeAlias = Future[Any] | asyncio.Future[Any]
"""Who waits for a write's commit: a thread (:meth:`GameStore.write_sync`) or a coroutine
(:meth:`GameStore.write`)."""


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


class GameStore:
    """The database: synchronous SQLAlchemy 2 used from worker threads.

    Reads run in a small thread pool (``asyncio.to_thread``); writes go through
    :meth:`write`, which hands them to one writer thread that commits pending writes in
    batches. Every coroutine that awaits :meth:`write` resumes only after the commit.
    """

    def __init__(self, url: str, *, schema: str | None = None, echo: bool = False) -> None:
        self.url = normalize_db_url(url)
        kwargs: dict[str, Any] = {"echo": echo, "future": True}
        backend = make_url(self.url).get_backend_name()
        self.is_sqlite = backend == "sqlite"
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            if make_url(self.url).database in (None, "", ":memory:"):
                kwargs["poolclass"] = StaticPool  # one shared in-memory database
        else:
            kwargs["pool_pre_ping"] = True
            kwargs["pool_size"] = 8
        try:
            engine: Engine = create_engine(self.url, **kwargs)
        except (ArgumentError, ModuleNotFoundError, ImportError) as e:
            raise StorageError(f"cannot use database {url!r}: {e}") from None
        if self.is_sqlite:
            event.listen(engine, "connect", _sqlite_pragmas)
        if schema is not None:
            engine = engine.execution_options(schema_translate_map={None: schema})
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._move_sql: tuple[str, str, Callable[[Any], Any]] | None = None
        """The writer's move insert and ``updated_at`` update, and how a time is bound."""
        self._move_conn: Connection | None = None
        """The writer thread's own connection for batches of plain moves."""
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        self.batches = 0
        self.writes = 0

    @property
    def safe_url(self) -> str:
        """The URL with any password masked (for messages)."""
        return make_url(self.url).render_as_string(hide_password=True)

    # -- lifecycle --------------------------------------------------------------------

    def create_tables(self) -> migrations.Upgrade:
        """Make the database's tables, or upgrade them to this version's schema (and say
        what was done): the
        Alembic migrations of :mod:`lostcities.web.migrations`, under a lock, so several
        processes may call this at once (one upgrades, the others find it done). A
        database made before the migrations is adopted (the columns it lacks are added).

        :raises StorageError: if the database cannot be reached, is at a schema revision
            newer than this version knows, or holds tables that are not lostcities'.
        """
        try:
            return migrations.upgrade(self.engine)
        except (migrations.NewerSchemaError, migrations.UnknownLayoutError) as e:
            raise StorageError(f"cannot use database {self.safe_url!r}: {e}") from None
        except SQLAlchemyError as e:
            orig = getattr(e, "orig", None) or e
            reason = " ".join(str(orig).split("\n")[0].split()) or orig.__class__.__name__
            raise StorageError(f"cannot open database {self.safe_url!r}: {reason}") from None

    def schema_revision(self) -> str | None:
        """The schema revision the database is at (``None``: empty, or from before the
        migrations)."""
        with self.engine.connect() as conn:
            heads = migrations.current(conn)
        return heads[0] if heads else None

    def start(self) -> None:
        """Start the writer thread (and, for SQLite, the WAL checkpointer)."""
        if self._writer is None:
            self._writer = threading.Thread(
                target=self._write_loop, name="lostcities-db-writer", daemon=True
            )
            self._writer.start()
        if self.is_sqlite and self._checkpointer is None:
            self._stop_checkpoints.clear()
            self._checkpointer = threading.Thread(
                target=self._checkpoint_loop, name="lostcities-db-checkpoint", daemon=True
            )
            self._checkpointer.start()

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """Copy the SQLite write-ahead log into the database file (no-op elsewhere)."""
        if not self.is_sqlite:
            return
        assert mode in ("PASSIVE", "TRUNCATE")
        with self.engine.connect() as conn:
            conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")

    def _checkpoint_loop(self) -> None:
        while not self._stop_checkpoints.wait(1.0):
            with contextlib.suppress(SQLAlchemyError):  # busy or locked: next time
                self.checkpoint()

    def close(self) -> None:
        """Finish pending writes, stop the writer and close the connections."""
        if self._writer is not None:
            self._queue.put(_STOP)
            self._writer.join(timeout=30)
            self._writer = None
        if self._checkpointer is not None:
            self._stop_checkpoints.set()
            self._checkpointer.join(timeout=30)
            self._checkpointer = None
            with contextlib.suppress(SQLAlchemyError):
                self.checkpoint("TRUNCATE")
        self.engine.dispose()

    # -- writes -----------------------------------------------------------------------

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

    def _insert_moves(
        self, conn: Connection, moves: list[MoveWrite], now: datetime.datetime
    ) -> list[str]:
        """Store a batch's moves (one ``executemany``) and set their games' ``updated_at``;
        returns the games touched. Plain driver SQL, built once: the ORM's statement
        building and bookkeeping cost several times the CPU of the commit itself."""
        if self._move_sql is None:
            d = self.engine.dialect
            mark = "?" if d.paramstyle == "qmark" else "%s"  # sqlite3 | psycopg
            schema = self.engine.get_execution_options().get("schema_translate_map", {})
            prefix = (
                d.identifier_preparer.quote_schema(schema[None]) + "." if schema.get(None) else ""
            )
            bind = MoveRow.__table__.c.created_at.type.bind_processor(d)
            self._move_sql = (
                f"INSERT INTO {prefix}lc_moves (game_id, round_index, ply, move, created_at)"
                f" VALUES ({mark}, {mark}, {mark}, {mark}, {mark})",
                f"UPDATE {prefix}lc_games SET updated_at = {mark} WHERE id = {mark}",
                bind or (lambda v: v),
            )
        insert_sql, update_sql, stamp = self._move_sql
        at = stamp(now)
        touched = sorted({m.game_id for m in moves})
        # The driver's own cursor, in the connection's transaction: what exec_driver_sql
        # sends, without its execution context and result object (~10 us a batch).
        cur = conn.connection.cursor()
        try:
            cur.executemany(
                insert_sql, [(m.game_id, m.round_index, m.ply, m.move, at) for m in moves]
            )
            cur.executemany(update_sql, [(at, g) for g in touched])
        finally:
            cur.close()
        return touched

    def write_sync(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn(session)`` in a transaction and commit (blocking; for scripts and tests)."""
        if self._writer is None:
            with self._sessions.begin() as session:
                return fn(session)
        fut: Future[Any] = Future()
        self._queue.put((fn, fut))
        return fut.result()

    async def write(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn(session)`` in the writer's next transaction; returns after the commit.

        :raises Exception: whatever ``fn`` or the commit raised (nothing was written).
        """
        if self._writer is None:
            return await asyncio.to_thread(self.write_sync, fn)
        # An event loop's own future, resolved by the loop itself once the batch committed
        # (one hand-off per batch, not a thread-safe future and a callback per write).
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put((fn, fut))
        return await fut

    # -- reads ------------------------------------------------------------------------

    def load_sync(self, game_id: str) -> StoredGame | None:
        """A game with its rounds and moves, or ``None``."""
        with self._sessions() as s:
            row = s.get(GameRow, game_id)
            if row is None:
                return None
            rounds = s.scalars(
                select(RoundRow).where(RoundRow.game_id == game_id).order_by(RoundRow.index)
            ).all()
            moves = s.execute(
                select(MoveRow.round_index, MoveRow.ply, MoveRow.move)
                .where(MoveRow.game_id == game_id)
                .order_by(MoveRow.round_index, MoveRow.ply)
            ).all()
            s.expunge(row)
        by_round: dict[int, list[str]] = {}
        for ri, _ply, mv in moves:
            by_round.setdefault(ri, []).append(mv)
        out = [
            StoredRound(
                r.index,
                r.starter,
                r.deck.split(),
                by_round.get(r.index, []),
                r.forfeit,
                r.forfeit_reason or "",
            )
            for r in rounds
        ]
        return StoredGame(row, out)

    async def load(self, game_id: str) -> StoredGame | None:
        """:meth:`load_sync` in a worker thread."""
        return await asyncio.to_thread(self.load_sync, game_id)

    def version_sync(self, game_id: str) -> tuple[object, ...] | None:
        """What other server processes can change of a game, as stored (one small query):
        its moves and rounds counted, status, result, seats and names; ``None``: no such
        game. :meth:`LiveGame.version <lostcities.web.live_game.LiveGame.version>` is the same
        of a copy in memory: when the two differ, the copy is behind."""
        moves = select(func.count()).select_from(MoveRow).where(MoveRow.game_id == game_id)
        rounds = select(func.count()).select_from(RoundRow).where(RoundRow.game_id == game_id)
        with self._sessions() as s:
            row = s.execute(
                select(
                    moves.scalar_subquery(),
                    rounds.scalar_subquery(),
                    GameRow.status,
                    GameRow.result,
                    GameRow.token0,
                    GameRow.token1,
                    GameRow.name0,
                    GameRow.name1,
                    GameRow.rematch_id,
                    GameRow.hints,
                    GameRow.account0,
                    GameRow.account1,
                ).where(GameRow.id == game_id)
            ).first()
        return None if row is None else tuple(row)

    def seen_sync(
        self, ids: Sequence[str]
    ) -> dict[str, tuple[datetime.datetime | None, datetime.datetime | None]]:
        """When each seat of the games ``ids`` was last known at its table, as stored
        (:func:`op_seen`; unknown ids are left out)."""
        if not ids:
            return {}
        with self._sessions() as s:
            rows = s.execute(
                select(GameRow.id, GameRow.seen0, GameRow.seen1).where(GameRow.id.in_(list(ids)))
            ).all()
        return {str(gid): (a, b) for gid, a, b in rows}

    def analysis_sync(self, game_id: str) -> str | None:
        """The stored analysis of a game (JSON text), or ``None``."""
        with self._sessions() as s:
            row = s.get(AnalysisRow, game_id)
            return None if row is None else row.data

    def resumable_sync(self) -> list[str]:
        """Ids of unfinished games with a bot seat (the bot may be to move)."""
        with self._sessions() as s:
            return list(
                s.scalars(
                    select(GameRow.id).where(
                        GameRow.status == "active",
                        (GameRow.bot0.is_not(None)) | (GameRow.bot1.is_not(None)),
                    )
                ).all()
            )

    # -- comments -----------------------------------------------------------------------

    def comments_page_sync(
        self, page: int, per_page: int, *, hidden: bool = False
    ) -> tuple[list[CommentRow], int]:
        """Page ``page`` (1-based) of the comments, newest first, and how many there are
        (hidden ones only with ``hidden``)."""
        with self._sessions() as s:
            where = [] if hidden else [CommentRow.hidden.is_(False)]
            total = s.scalar(select(func.count()).select_from(CommentRow).where(*where)) or 0
            rows = list(
                s.scalars(
                    select(CommentRow)
                    .where(*where)
                    .order_by(CommentRow.created_at.desc(), CommentRow.id.desc())
                    .offset((page - 1) * per_page)
                    .limit(per_page)
                ).all()
            )
            for r in rows:
                s.expunge(r)
        return rows, int(total)

    def chat_sync(self, game_id: str) -> list[tuple[int, str]]:
        """A game's chat as stored: ``(seat, phrase)`` in the order said."""
        with self._sessions() as s:
            rows = s.execute(
                select(ChatRow.seat, ChatRow.phrase)
                .where(ChatRow.game_id == game_id)
                .order_by(ChatRow.id)
            ).all()
        return [(int(seat), str(phrase)) for seat, phrase in rows]

    async def chat(self, game_id: str) -> list[tuple[int, str]]:
        """:meth:`chat_sync` off the event loop."""
        return await asyncio.to_thread(self.chat_sync, game_id)

    def chat_after_sync(self, game_id: str, after: int) -> list[tuple[int, int, str]]:
        """A game's phrases stored after the one numbered ``after`` (0: all), as ``(number,
        seat, phrase)`` in the order said (:func:`op_add_chat`: numbers grow in commit
        order)."""
        with self._sessions() as s:
            rows = s.execute(
                select(ChatRow.id, ChatRow.seat, ChatRow.phrase)
                .where(ChatRow.game_id == game_id, ChatRow.id > after)
                .order_by(ChatRow.id)
            ).all()
        return [(int(i), int(seat), str(phrase)) for i, seat, phrase in rows]

    async def chat_after(self, game_id: str, after: int) -> list[tuple[int, int, str]]:
        """:meth:`chat_after_sync` off the event loop."""
        return await asyncio.to_thread(self.chat_after_sync, game_id, after)

    def comment_by_digest_sync(self, digest: str) -> CommentRow | None:
        """The stored comment with this :func:`comment_digest`, if any."""
        with self._sessions() as s:
            row = s.scalars(select(CommentRow).where(CommentRow.digest == digest)).first()
            if row is not None:
                s.expunge(row)
            return row


# -- write operations (run by the writer thread inside its transaction) ---------------------


NOTIFY_CHANNEL = "lostcities_games"
"""The PostgreSQL channel on which a committed change of a game is announced (the payload
is the game id), so that every server process sharing the database refreshes its copy
(:mod:`lostcities.web.peers`)."""


def notify_change(s: Session | Connection, game_ids: Iterable[str]) -> None:
    """Announce a change of ``game_ids`` to the other server processes: a PostgreSQL
    ``NOTIFY`` in the write's own transaction, so it is delivered only if, and once, the
    change is committed (nothing on SQLite: one process)."""
    dialect = s.get_bind().dialect if isinstance(s, Session) else s.dialect
    if dialect.name != "postgresql":
        return
    for game_id in sorted(set(game_ids)):
        s.execute(select(func.pg_notify(NOTIFY_CHANNEL, game_id)))


def op_insert_game(row: GameRow, rounds: Iterable[RoundRow]) -> Callable[[Session], None]:
    """Insert a new game and its first round."""

    def fn(s: Session) -> None:
        s.add(row)
        s.flush()
        for r in rounds:
            s.add(r)

    return fn


@dataclass
class MoveWrite:
    """A move to record (and, when it ends a round, the next round's deal or the result).

    Callable like every write operation; the writer also recognises these and stores all
    moves of a batch with one multi-row insert.
    """

    game_id: str
    round_index: int
    ply: int
    move: str
    new_round: RoundRow | None = None
    status: str | None = None
    result: str | None = None
    clock_left: tuple[float, float] | None = None
    """Both players' match-clock times after the move (``None``: no match clock)."""

    def has_extras(self) -> bool:
        """Whether the game row or the rounds change beyond ``updated_at``."""
        return (
            self.new_round is not None
            or self.status is not None
            or self.result is not None
            or self.clock_left is not None
        )

    def row(self, now: datetime.datetime) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "round_index": self.round_index,
            "ply": self.ply,
            "move": self.move,
            "created_at": now,
        }

    def extras(self, s: Session, now: datetime.datetime) -> None:
        """Everything but the move row itself."""
        if self.new_round is not None:
            s.add(self.new_round)
        values: dict[str, Any] = {"updated_at": now}
        if self.status is not None:
            values["status"] = self.status
        if self.result is not None:
            values["result"] = self.result
        if self.clock_left is not None:
            values["clock_left0"], values["clock_left1"] = self.clock_left
        s.execute(update(GameRow).where(GameRow.id == self.game_id).values(**values))

    def __call__(self, s: Session) -> None:
        now = utcnow()
        s.execute(insert(MoveRow), [self.row(now)])
        self.extras(s, now)
        notify_change(s, [self.game_id])


def op_move(
    game_id: str,
    round_index: int,
    ply: int,
    move: str,
    *,
    new_round: RoundRow | None = None,
    status: str | None = None,
    result: str | None = None,
    clock_left: tuple[float, float] | None = None,
) -> MoveWrite:
    """Record a move (and, when it ends a round, the next round's deal or the result; with
    a match clock, both players' times after it)."""
    return MoveWrite(game_id, round_index, ply, move, new_round, status, result, clock_left)


def op_forfeit(
    game_id: str,
    round_index: int,
    player: int,
    reason: str,
    *,
    status: str,
    result: str,
) -> Callable[[Session], None]:
    """Record a resignation / forfeit that ends the round and the match."""

    def fn(s: Session) -> None:
        s.execute(
            update(RoundRow)
            .where(RoundRow.game_id == game_id, RoundRow.index == round_index)
            .values(forfeit=player, forfeit_reason=reason[:200])
        )
        s.execute(
            update(GameRow)
            .where(GameRow.id == game_id)
            .values(status=status, result=result, updated_at=utcnow())
        )
        notify_change(s, [game_id])

    return fn


def op_update_game(game_id: str, **values: Any) -> Callable[[Session], int]:
    """Update columns of a game row; returns the number of rows changed."""

    def fn(s: Session) -> int:
        values.setdefault("updated_at", utcnow())
        res = s.execute(update(GameRow).where(GameRow.id == game_id).values(**values))
        notify_change(s, [game_id])
        return int(res.rowcount or 0)  # type: ignore[attr-defined]

    return fn


def op_seen(seats: Sequence[tuple[str, int]], now: datetime.datetime) -> Callable[[Session], None]:
    """Mark the seats ``(game id, seat)`` as at their tables at ``now`` (``seen0``,
    ``seen1``; no notification: :mod:`lostcities.web.abandon` reads them when it needs
    them)."""

    def fn(s: Session) -> None:
        for seat, col in ((0, "seen0"), (1, "seen1")):
            ids = sorted({gid for gid, x in seats if x == seat})
            if ids:
                s.execute(update(GameRow).where(GameRow.id.in_(ids)).values({col: now}))

    return fn


def op_save_analysis(game_id: str, bot: str, data: str) -> Callable[[Session], bool]:
    """Store a game's analysis once; returns whether it was new (a second save changes
    nothing)."""

    def fn(s: Session) -> bool:
        if s.get(AnalysisRow, game_id) is not None:
            return False
        s.add(AnalysisRow(game_id=game_id, bot=bot, data=data))
        return True

    return fn


def op_claim_seat(
    game_id: str, seat: int, invite: str, token_hash: str, name: str, account: int | None = None
) -> Callable[[Session], int]:
    """Bind an invited seat to a token (and the account of a signed-in player), once: only
    while the invite is still open."""

    def fn(s: Session) -> int:
        col = GameRow.token1 if seat == 1 else GameRow.token0
        name_col = "name1" if seat == 1 else "name0"
        res = s.execute(
            update(GameRow)
            .where(GameRow.id == game_id, GameRow.invite == invite, col.is_(None))
            .values(
                {
                    col.key: token_hash,
                    name_col: name,
                    f"account{seat}": account,
                    "invite": None,
                    "status": "active",
                    "updated_at": utcnow(),
                }
            )
        )
        notify_change(s, [game_id])
        return int(res.rowcount or 0)  # type: ignore[attr-defined]

    return fn


def op_add_comment(
    nickname: str, kind: str, text: str, client_hash: str
) -> Callable[[Session], tuple[CommentRow, bool]]:
    """Store a comment once: returns it and whether it is new (``False``: the same
    submission was already stored, and that one is returned)."""
    digest = comment_digest(nickname, kind, text)

    def fn(s: Session) -> tuple[CommentRow, bool]:
        old = s.scalars(select(CommentRow).where(CommentRow.digest == digest)).first()
        if old is not None:
            s.expunge(old)
            return old, False
        row = CommentRow(
            created_at=utcnow(),
            nickname=nickname,
            kind=kind,
            text=text,
            digest=digest,
            client_hash=client_hash,
            hidden=False,
        )
        s.add(row)
        s.flush()
        s.expunge(row)
        return row, True

    return fn


CHAT_NOTICE = "chat:"
"""The prefix of a :data:`NOTIFY_CHANNEL` payload that announces new chat of a game (the
game id follows): the processes holding it send the new phrases to their connections."""


BOT_NOTICE = "bot:"
"""The prefix of a :data:`NOTIFY_CHANNEL` payload about the bot API (new events of an
account, a revoked token: :mod:`lostcities.web.repositories.bots`), which the game manager
hands to its bot hooks instead of refreshing a game."""


def _chat_lock_key(game_id: str) -> int:
    digest = hashlib.blake2b(f"lostcities-chat:{game_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def op_add_chat(game_id: str, seat: int, phrase: str) -> Callable[[Session], None]:
    """Store a chat phrase said at ``game_id``'s table by ``seat``. On PostgreSQL the game's
    phrases are stored one transaction at a time (an advisory lock held to the commit), so
    their numbers grow in commit order, and :data:`CHAT_NOTICE` tells the other server
    processes at the commit."""

    def fn(s: Session) -> None:
        if s.get_bind().dialect.name == "postgresql":
            s.execute(select(func.pg_advisory_xact_lock(_chat_lock_key(game_id))))
            s.execute(select(func.pg_notify(NOTIFY_CHANNEL, CHAT_NOTICE + game_id)))
        s.add(ChatRow(game_id=game_id, seat=seat, phrase=phrase))

    return fn


def op_hide_comment(comment_id: int, hidden: bool) -> Callable[[Session], int]:
    """Hide or show a comment again; returns the number of rows changed (0: no such id)."""

    def fn(s: Session) -> int:
        res = s.execute(update(CommentRow).where(CommentRow.id == comment_id).values(hidden=hidden))
        return int(res.rowcount or 0)  # type: ignore[attr-defined]

    return fn
