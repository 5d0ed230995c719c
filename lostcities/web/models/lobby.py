"""The tables of the lobby: its open seeks and who is online."""

from __future__ import annotations

import datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    Integer,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from lostcities.web.models.base import Base, utcnow

__all__ = ["LobbyRow", "PresenceRow"]


class LobbyRow(Base):
    """An open table of the lobby, or a "play now" seek (:mod:`lostcities.web.lobby`)."""

    __tablename__ = "lc_lobby"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    seen_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    """The owner's page last said it is there (an entry nobody watches is dropped)."""
    kind: Mapped[str] = mapped_column(String(8))  # table | seek
    # open | matched | cancelled | playing (the owner's twin seek was matched: that game)
    status: Mapped[str] = mapped_column(String(12), index=True)
    variant: Mapped[str] = mapped_column(String(16))
    rounds: Mapped[int] = mapped_column(Integer)
    clock: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """The clock choice as the API names it (``300+5``, ``60``, ``3d``); ``None``: none."""
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    achievements: Mapped[bool] = mapped_column(Boolean, default=False)
    owner: Mapped[str] = mapped_column(String(40), index=True)
    """``a:<account id>``, or ``g:<hash>`` for a guest's browser."""
    owner_name: Mapped[str] = mapped_column(String(40))
    owner_rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    """Hash of the owner's token: the owner's seat token once the game starts."""
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    page: Mapped[str | None] = mapped_column(String(32), nullable=True)
    """The lobby page that opened the entry (a random id of that page): the entry lives as
    long as that page does; ``None`` (an API client): as long as any lobby page of its owner."""


class PresenceRow(Base):
    """Who is online: a lobby page says so every few seconds."""

    __tablename__ = "lc_presence"

    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    account_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seen_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)
