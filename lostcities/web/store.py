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
import datetime
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    create_engine,
    event,
    func,
    select,
    update,
)
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from lostcities.web import migrations
from lostcities.web.models.base import utcnow
from lostcities.web.models.comments import CommentRow, comment_digest
from lostcities.web.models.games import AnalysisRow, ChatRow, GameRow, MoveRow, RoundRow
from lostcities.web.repositories.games import NOTIFY_CHANNEL, MoveWrite, notify_change
from lostcities.web.writer import BatchWriter, WalCheckpointer

__all__ = [
    "GameStore",
    "StoredGame",
    "StorageError",
    "CHAT_NOTICE",
    "hash_token",
    "normalize_db_url",
    "require_existing_database",
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


def op_insert_game(row: GameRow, rounds: Iterable[RoundRow]) -> Callable[[Session], None]:
    """Insert a new game and its first round."""

    def fn(s: Session) -> None:
        s.add(row)
        s.flush()
        for r in rounds:
            s.add(r)

    return fn


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
