"""The game store: the database's engine and its lifecycle (SQLite by default, PostgreSQL
alike), the writes of every area and the games' reads.

A game is stored as its settings, each round's deal order and the list of accepted moves;
loading a game replays the moves with the rules core, so a restarted server resumes every
game exactly. Writes go through one writer thread that commits a batch of pending writes in
one transaction (group commit, :mod:`lostcities.web.writer`): a move is acknowledged only
after its transaction committed. The queries and writes themselves live in the
repositories, one module per area (:mod:`lostcities.web.repositories`); the tables in
:mod:`lostcities.web.models`. The schema is made and upgraded by the Alembic migrations of
:mod:`lostcities.web.migrations` (:meth:`GameStore.create_tables`); a change of a model goes
with a new revision there.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import os
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from lostcities.web import migrations
from lostcities.web.repositories import games
from lostcities.web.repositories.games import StoredGame
from lostcities.web.writer import BatchWriter, WalCheckpointer

__all__ = [
    "GameStore",
    "StorageError",
    "hash_token",
    "normalize_db_url",
    "require_existing_database",
]


class StorageError(ValueError):
    """A database URL that cannot be used, or a database that cannot be opened."""


def hash_token(token: str) -> str:
    """The stored form of a seat token (only hashes are stored)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


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
        self._writer = BatchWriter(engine, self._sessions)
        self._checkpointer = WalCheckpointer(engine) if self.is_sqlite else None

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
        self._writer.start()
        if self._checkpointer is not None:
            self._checkpointer.start()

    def checkpoint(self, mode: str = "PASSIVE") -> None:
        """Copy the SQLite write-ahead log into the database file (no-op elsewhere)."""
        if self._checkpointer is not None:
            self._checkpointer.checkpoint(mode)

    def close(self) -> None:
        """Finish pending writes, stop the writer and close the connections."""
        self._writer.stop()
        if self._checkpointer is not None:
            self._checkpointer.stop()
        self.engine.dispose()

    @property
    def batches(self) -> int:
        """Transactions the writer committed (or tried)."""
        return self._writer.batches

    @property
    def writes(self) -> int:
        """Writes the writer ran."""
        return self._writer.writes

    # -- writes -----------------------------------------------------------------------

    def write_sync(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn(session)`` in a transaction and commit (blocking; for scripts and tests)."""
        if not self._writer.running:
            with self._sessions.begin() as session:
                return fn(session)
        return self._writer.submit_sync(fn)

    async def write(self, fn: Callable[[Session], Any]) -> Any:
        """Run ``fn(session)`` in the writer's next transaction; returns after the commit.

        :raises Exception: whatever ``fn`` or the commit raised (nothing was written).
        """
        if not self._writer.running:
            return await asyncio.to_thread(self.write_sync, fn)
        return await self._writer.submit(fn)

    # -- reads (the queries of :mod:`lostcities.web.repositories.games`) -------------

    def load_sync(self, game_id: str) -> StoredGame | None:
        """A game with its rounds and moves, or ``None`` (:func:`games.load`)."""
        return games.load(self.engine, game_id)

    async def load(self, game_id: str) -> StoredGame | None:
        """:meth:`load_sync` in a worker thread."""
        return await asyncio.to_thread(self.load_sync, game_id)

    def version_sync(self, game_id: str) -> tuple[object, ...] | None:
        """What other server processes can change of a game, as stored
        (:func:`games.version`)."""
        return games.version(self.engine, game_id)

    def seen_sync(
        self, ids: Sequence[str]
    ) -> dict[str, tuple[datetime.datetime | None, datetime.datetime | None]]:
        """When each seat of the games ``ids`` was last known at its table, as stored
        (:func:`games.seen`)."""
        return games.seen(self.engine, ids)

    def analysis_sync(self, game_id: str) -> str | None:
        """The stored analysis of a game (JSON text), or ``None``."""
        return games.analysis(self.engine, game_id)

    def resumable_sync(self) -> list[str]:
        """Ids of unfinished games with a bot seat (the bot may be to move)."""
        return games.resumable(self.engine)

    def chat_sync(self, game_id: str) -> list[tuple[int, str]]:
        """A game's chat as stored: ``(seat, phrase)`` in the order said."""
        return games.chat(self.engine, game_id)

    async def chat(self, game_id: str) -> list[tuple[int, str]]:
        """:meth:`chat_sync` off the event loop."""
        return await asyncio.to_thread(self.chat_sync, game_id)

    def chat_after_sync(self, game_id: str, after: int) -> list[tuple[int, int, str]]:
        """A game's phrases stored after the one numbered ``after`` (0: all), as ``(number,
        seat, phrase)`` in the order said (:func:`games.chat_after`)."""
        return games.chat_after(self.engine, game_id, after)

    async def chat_after(self, game_id: str, after: int) -> list[tuple[int, int, str]]:
        """:meth:`chat_after_sync` off the event loop."""
        return await asyncio.to_thread(self.chat_after_sync, game_id, after)
