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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from lostcities.web.models.base import utcnow
from lostcities.web.models.games import GameRow, MoveRow, RoundRow

__all__ = [
    "NOTIFY_CHANNEL",
    "MoveInserter",
    "MoveWrite",
    "notify_change",
]


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
