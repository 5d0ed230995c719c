"""The games' queries and writes: games, their rounds, moves, chat and analysis
(:mod:`lostcities.web.models.games`).

A game is stored as its settings, each round's deal order and the list of accepted moves;
loading a game (:func:`load`) replays nothing: :mod:`lostcities.web.live_game` replays the
moves with the rules core. Reads take the store's engine; writes are ``op_`` functions of
an open session, handed to the store's writer (:meth:`GameStore.write
<lostcities.web.store.GameStore.write>`). A committed change of a game is announced to the
other server processes (:func:`notify_change`).
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from lostcities.web.models.base import utcnow
from lostcities.web.models.games import AnalysisRow, ChatRow, GameRow, MoveRow, RoundRow

__all__ = [
    "BOT_NOTICE",
    "CHAT_NOTICE",
    "NOTIFY_CHANNEL",
    "MoveInserter",
    "MoveWrite",
    "StoredGame",
    "StoredRound",
    "accounts_of",
    "analysis",
    "finish",
    "get",
    "move_count",
    "my_games",
    "lock_game",
    "moves_and_rounds",
    "running_clocks",
    "set_round_forfeit",
    "chat",
    "chat_after",
    "load",
    "notify_change",
    "op_add_chat",
    "op_claim_seat",
    "op_delete_game",
    "op_forfeit",
    "op_insert_game",
    "op_move",
    "op_save_analysis",
    "op_seen",
    "op_update_game",
    "release_seats",
    "resumable",
    "seen",
    "version",
]


NOTIFY_CHANNEL = "lostcities_games"
"""The PostgreSQL channel on which a committed change of a game is announced (the payload
is the game id), so that every server process sharing the database refreshes its copy
(:mod:`lostcities.web.peers`)."""


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


# -- reads -------------------------------------------------------------------------------------


def load(engine: Engine, game_id: str) -> StoredGame | None:
    """A game with its rounds and moves, or ``None``."""
    with Session(engine) as s:
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


def version(engine: Engine, game_id: str) -> tuple[object, ...] | None:
    """What other server processes can change of a game, as stored (one small query):
    its moves and rounds counted, status, result, seats and names; ``None``: no such
    game. :meth:`LiveGame.version <lostcities.web.live_game.LiveGame.version>` is the same
    of a copy in memory: when the two differ, the copy is behind."""
    moves = select(func.count()).select_from(MoveRow).where(MoveRow.game_id == game_id)
    rounds = select(func.count()).select_from(RoundRow).where(RoundRow.game_id == game_id)
    with Session(engine) as s:
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


def seen(
    engine: Engine, ids: Sequence[str]
) -> dict[str, tuple[datetime.datetime | None, datetime.datetime | None]]:
    """When each seat of the games ``ids`` was last known at its table, as stored
    (:func:`op_seen`; unknown ids are left out)."""
    if not ids:
        return {}
    with Session(engine) as s:
        rows = s.execute(
            select(GameRow.id, GameRow.seen0, GameRow.seen1).where(GameRow.id.in_(list(ids)))
        ).all()
    return {str(gid): (a, b) for gid, a, b in rows}


def analysis(engine: Engine, game_id: str) -> str | None:
    """The stored analysis of a game (JSON text), or ``None``."""
    with Session(engine) as s:
        row = s.get(AnalysisRow, game_id)
        return None if row is None else row.data


def resumable(engine: Engine) -> list[str]:
    """Ids of unfinished games with a bot seat (the bot may be to move)."""
    with Session(engine) as s:
        return list(
            s.scalars(
                select(GameRow.id).where(
                    GameRow.status == "active",
                    (GameRow.bot0.is_not(None)) | (GameRow.bot1.is_not(None)),
                )
            ).all()
        )


def chat(engine: Engine, game_id: str) -> list[tuple[int, str]]:
    """A game's chat as stored: ``(seat, phrase)`` in the order said."""
    with Session(engine) as s:
        rows = s.execute(
            select(ChatRow.seat, ChatRow.phrase)
            .where(ChatRow.game_id == game_id)
            .order_by(ChatRow.id)
        ).all()
    return [(int(seat), str(phrase)) for seat, phrase in rows]


def chat_after(engine: Engine, game_id: str, after: int) -> list[tuple[int, int, str]]:
    """A game's phrases stored after the one numbered ``after`` (0: all), as ``(number,
    seat, phrase)`` in the order said (:func:`op_add_chat`: numbers grow in commit
    order)."""
    with Session(engine) as s:
        rows = s.execute(
            select(ChatRow.id, ChatRow.seat, ChatRow.phrase)
            .where(ChatRow.game_id == game_id, ChatRow.id > after)
            .order_by(ChatRow.id)
        ).all()
    return [(int(i), int(seat), str(phrase)) for i, seat, phrase in rows]


def running_clocks(engine: Engine, at_least: int) -> list[tuple[str, datetime.datetime, int]]:
    """Each running game with a per-move clock of at least ``at_least`` seconds and no
    increment (correspondence games): its id, last change and clock."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(GameRow.id, GameRow.updated_at, GameRow.clock).where(
                GameRow.status == "active",
                GameRow.clock >= at_least,
                GameRow.clock_increment.is_(None),
            )
        ).all()
    return [(str(gid), updated, int(clock or 0)) for gid, updated, clock in rows]


def accounts_of(engine: Engine, game_ids: list[str]) -> list[tuple[str, int | None, int | None]]:
    """Each game's id and the accounts of its two seats, for the games of ``game_ids``
    (the first 1,000) with an account at either seat (unknown ids left out)."""
    with Session(engine) as s:
        rows = s.execute(
            select(GameRow.id, GameRow.account0, GameRow.account1).where(
                GameRow.id.in_(game_ids[:1000]),
                or_(GameRow.account0.is_not(None), GameRow.account1.is_not(None)),
            )
        ).all()
    return [(str(g), a0, a1) for g, a0, a1 in rows]


def my_games(engine: Engine, account_id: int, limit: int) -> list[tuple[str, str]]:
    """The id and status of an account's newest ``limit`` games, newest first."""
    with Session(engine) as conn:
        rows = conn.execute(
            select(GameRow.id, GameRow.status)
            .where(or_(GameRow.account0 == account_id, GameRow.account1 == account_id))
            .order_by(GameRow.updated_at.desc())
            .limit(limit)
        ).all()
    return [(str(gid), str(status)) for gid, status in rows]


# -- parts of writes (a service's ``op_`` runs them inside its transaction) ---------------------


def lock_game(s: Session, game_id: str) -> GameRow | None:
    """The game row, locked for the rest of the transaction (``None``: no such game)."""
    return s.get(GameRow, game_id, with_for_update=True)


def get(s: Session, game_id: str) -> GameRow | None:
    """The game row (``None``: no such game)."""
    return s.get(GameRow, game_id)


def move_count(s: Session, game_id: str) -> int:
    """How many moves of the game are stored."""
    return (
        s.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.game_id == game_id)) or 0
    )


def moves_and_rounds(s: Session, game_id: str) -> tuple[int, int]:
    """How many moves and rounds of the game are stored."""
    moves = s.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.game_id == game_id))
    rounds = s.scalar(select(func.count()).select_from(RoundRow).where(RoundRow.game_id == game_id))
    return moves or 0, rounds or 0


def set_round_forfeit(s: Session, game_id: str, round_index: int, player: int, reason: str) -> None:
    """Record that ``player`` forfeited the round ``round_index`` of the game."""
    s.execute(
        update(RoundRow)
        .where(RoundRow.game_id == game_id, RoundRow.index == round_index)
        .values(forfeit=player, forfeit_reason=reason)
    )


def release_seats(s: Session, account_id: int, name: str) -> list[str]:
    """Take the account ``account_id`` off the seats of its games, which are named
    ``name`` instead; returns the games changed (a game where it sat twice twice)."""
    games: list[str] = []
    for seat in (0, 1):
        col = GameRow.account0 if seat == 0 else GameRow.account1
        ids = list(s.scalars(select(GameRow.id).where(col == account_id)).all())
        if ids:
            s.execute(
                update(GameRow)
                .where(GameRow.id.in_(ids))
                .values({col.key: None, f"name{seat}": name})
            )
            games += ids
    return games


def finish(s: Session, row: GameRow, result: str, ending: str, now: datetime.datetime) -> None:
    """End the (locked) game ``row`` with ``result`` and ``ending`` at ``now``, and
    announce it."""
    row.status, row.result, row.ending, row.updated_at = "finished", result, ending, now
    notify_change(s, [row.id])


# -- writes (run by the store's writer inside its transaction) ---------------------------------


def notify_change(s: Session | Connection, game_ids: Iterable[str]) -> None:
    """Announce a change of ``game_ids`` to the other server processes: a PostgreSQL
    ``NOTIFY`` in the write's own transaction, so it is delivered only if, and once, the
    change is committed (nothing on SQLite: one process)."""
    dialect = s.get_bind().dialect if isinstance(s, Session) else s.dialect
    if dialect.name != "postgresql":
        return
    for game_id in sorted(set(game_ids)):
        s.execute(select(func.pg_notify(NOTIFY_CHANNEL, game_id)))


@dataclass
class MoveWrite:
    """A move to record (and, when it ends a round, the next round's deal or the result).

    Callable like every write operation; the writer also recognises these and stores all
    moves of a batch with one multi-row insert (:class:`MoveInserter`).
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
        """The move's row (``lc_moves``), stored at ``now``."""
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


class MoveInserter:
    """Stores a batch's moves on a connection: one ``executemany`` of the move rows, one
    of their games' ``updated_at``; returns the games touched. Plain driver SQL, built
    once for the engine: the ORM's statement building and bookkeeping cost several times
    the CPU of the commit itself."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sql: tuple[str, str, Callable[[Any], Any]] | None = None
        """The move insert and ``updated_at`` update, and how a time is bound."""

    def __call__(
        self, conn: Connection, moves: list[MoveWrite], now: datetime.datetime
    ) -> list[str]:
        if self._sql is None:
            d = self.engine.dialect
            mark = "?" if d.paramstyle == "qmark" else "%s"  # sqlite3 | psycopg
            schema = self.engine.get_execution_options().get("schema_translate_map", {})
            prefix = (
                d.identifier_preparer.quote_schema(schema[None]) + "." if schema.get(None) else ""
            )
            bind = MoveRow.__table__.c.created_at.type.bind_processor(d)
            self._sql = (
                f"INSERT INTO {prefix}lc_moves (game_id, round_index, ply, move, created_at)"
                f" VALUES ({mark}, {mark}, {mark}, {mark}, {mark})",
                f"UPDATE {prefix}lc_games SET updated_at = {mark} WHERE id = {mark}",
                bind or (lambda v: v),
            )
        insert_sql, update_sql, stamp = self._sql
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


def op_insert_game(row: GameRow, rounds: Iterable[RoundRow]) -> Callable[[Session], None]:
    """Insert a new game and its first round."""

    def fn(s: Session) -> None:
        s.add(row)
        s.flush()
        for r in rounds:
            s.add(r)

    return fn


def op_delete_game(game_id: str) -> Callable[[Session], None]:
    """Delete a game that never started (a lobby game whose seats were taken meanwhile)."""

    def fn(s: Session) -> None:
        s.execute(delete(GameRow).where(GameRow.id == game_id))

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
