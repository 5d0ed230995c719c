"""The tables of ratings: each player's rating, the rated results and the changes they made."""

from __future__ import annotations

import datetime

from sqlalchemy import (
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from lostcities.web.models.base import Base, utcnow

__all__ = ["RatingChangeRow", "RatingResultRow", "RatingRow"]


class RatingRow(Base):
    """A player's Glicko-2 rating in one variant and speed (:mod:`lostcities.web.ratings`);
    ``player`` is ``a:<account id>`` or ``bot:<level>``."""

    __tablename__ = "lc_ratings"

    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    variant: Mapped[str] = mapped_column(String(16), primary_key=True)
    speed: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("lc_accounts.id", ondelete="CASCADE"), nullable=True, index=True
    )
    name: Mapped[str] = mapped_column(String(40), default="")
    """The name last played under (a bot's label; an account's username is looked up)."""
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    vol: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class RatingResultRow(Base):
    """A finished game whose ratings were settled (once: the primary key), and how
    (``rated``, ``aborted``, ``casual``, ``unrated``)."""

    __tablename__ = "lc_rating_results"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("lc_games.id", ondelete="CASCADE"), primary_key=True
    )
    state: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class RatingChangeRow(Base):
    """One seat's rating change by one rated game (the profile's history and plot)."""

    __tablename__ = "lc_rating_changes"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("lc_games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player: Mapped[str] = mapped_column(String(40), index=True)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("lc_accounts.id", ondelete="SET NULL"), nullable=True
    )
    opponent: Mapped[str] = mapped_column(String(40))
    variant: Mapped[str] = mapped_column(String(16))
    speed: Mapped[str] = mapped_column(String(16))
    score: Mapped[float] = mapped_column(Float)
    rating_before: Mapped[float] = mapped_column(Float)
    rd_before: Mapped[float] = mapped_column(Float)
    rating_after: Mapped[float] = mapped_column(Float)
    rd_after: Mapped[float] = mapped_column(Float)
    vol_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)
