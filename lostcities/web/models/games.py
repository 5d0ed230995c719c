"""The tables of games: a game, its rounds, moves, chat and analysis."""

from __future__ import annotations

import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from lostcities.web.models.base import Base, utcnow

__all__ = ["AnalysisRow", "ChatRow", "GameRow", "MoveRow", "RoundRow"]


class GameRow(Base):
    """A game: a match of 1 or more rounds between two seats."""

    __tablename__ = "lc_games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    variant: Mapped[str] = mapped_column(String(16))
    num_rounds: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    first_starter: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), index=True)  # waiting | active | finished
    result: Mapped[str] = mapped_column(String(8), default="*")
    level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    name0: Mapped[str] = mapped_column(String(40))
    name1: Mapped[str] = mapped_column(String(40))
    bot0: Mapped[str | None] = mapped_column(String(80), nullable=True)
    bot1: Mapped[str | None] = mapped_column(String(80), nullable=True)
    mistakes: Mapped[float] = mapped_column(Float, default=0.0)
    """How often the bot plays a random legal move instead (the easy level)."""
    token0: Mapped[str | None] = mapped_column(String(64), nullable=True)
    token1: Mapped[str | None] = mapped_column(String(64), nullable=True)
    invite: Mapped[str | None] = mapped_column(String(64), nullable=True)
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The seat that created the rematch."""
    tie_break: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """``youngest`` when equal totals go to the :attr:`younger` seat; ``None``: a draw."""
    younger: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The seat marked as the younger player (with ``tie_break == "youngest"``)."""
    hints: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Hints the human seat asked the engine for (any: the game is *assisted*)."""
    achievements: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """``default`` for the achievements variant (goals from the default pool, drawn by each
    round's seed, so the rounds rebuild exactly); ``None``: the classic game."""
    clock: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Seconds per move of a friend game's move clock (``None``: no clock); the player to
    move ran out when that long has passed since :attr:`updated_at` (the last move). With
    :attr:`clock_increment`: each player's starting time on the match clock."""
    clock_increment: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Seconds added to a player's time after each of their moves: a Fischer-style match
    clock (``None``: the clock, if any, is per move)."""
    clock_left0: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Seat 0's time left on the match clock as of :attr:`updated_at` (``None``: no match
    clock); the player to move's time runs from :attr:`updated_at`."""
    clock_left1: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Seat 1's, likewise."""
    account0: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    """The account (:class:`AccountRow` id) playing seat 0, if its player was signed in
    (or claimed the game later); ``None``: a guest, a bot, or a deleted account."""
    account1: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    """Seat 1's, likewise."""
    rated: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    """Whether the match is rated (:mod:`lostcities.web.ratings`); ``None``: casual."""
    seen0: Mapped[datetime.datetime | None] = mapped_column(DateTime, nullable=True)
    """When seat 0 was last known at the table: a connection of its opened or closed, or
    one was open (each process with one open says so every few seconds:
    :mod:`lostcities.web.abandon`); ``None``: never since the game began."""
    seen1: Mapped[datetime.datetime | None] = mapped_column(DateTime, nullable=True)
    """Seat 1's, likewise."""
    ending: Mapped[str | None] = mapped_column(String(16), nullable=True)
    """How a game ended off the board (:mod:`lostcities.web.abandon`): ``aborted`` (before
    both players moved: no result) or ``abandoned`` (a player left and the other claimed
    the win or a draw: :attr:`result`); ``None``: the match's own end, a resignation or a
    time-out, or not ended."""


class AnalysisRow(Base):
    """The analysis of a finished game (``lostcities analyse --json``'s object), computed
    once and kept."""

    __tablename__ = "lc_analyses"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("lc_games.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    bot: Mapped[str] = mapped_column(String(80))
    data: Mapped[str] = mapped_column(Text)


class RoundRow(Base):
    """One round of a game: its deal order (secret) and starter."""

    __tablename__ = "lc_rounds"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("lc_games.id", ondelete="CASCADE"), primary_key=True
    )
    index: Mapped[int] = mapped_column(Integer, primary_key=True)
    starter: Mapped[int] = mapped_column(Integer)
    deck: Mapped[str] = mapped_column(Text)
    forfeit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    forfeit_reason: Mapped[str | None] = mapped_column(String(200), nullable=True)


class MoveRow(Base):
    """One accepted move. The primary key makes a move at a given ply unique."""

    __tablename__ = "lc_moves"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("lc_games.id", ondelete="CASCADE"), primary_key=True
    )
    round_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    move: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class ChatRow(Base):
    """A quick-chat phrase said at a game's table (a phrase id of
    :data:`lostcities.web.schemas.CHAT_PHRASES`, never free text), kept with the game so
    that a reload shows the chat again, in order."""

    __tablename__ = "lc_chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("lc_games.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    seat: Mapped[int] = mapped_column(Integer)
    phrase: Mapped[str] = mapped_column(String(32))
