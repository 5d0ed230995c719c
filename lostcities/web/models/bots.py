"""The tables of the bot API (issue 39): personal API tokens, challenges and the bot
event stream's events. A bot account is an account with ``is_bot`` set
(:class:`~lostcities.web.models.accounts.AccountRow`)."""

from __future__ import annotations

import datetime

from sqlalchemy import Boolean, DateTime, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from lostcities.web.models.accounts import account_fk
from lostcities.web.models.base import Base, utcnow

__all__ = ["ApiTokenRow", "BotChallengeRow", "BotEventRow"]


class ApiTokenRow(Base):
    """A personal API token (``lct_...``): only its SHA-256 is stored; shown once."""

    __tablename__ = "lc_api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(Integer, account_fk(), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    description: Mapped[str] = mapped_column(String(100), default="")
    scopes: Mapped[str] = mapped_column(String(200))
    """The scopes, space-separated (``bot:play challenge:write``...)."""
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    last_used: Mapped[datetime.datetime | None] = mapped_column(DateTime, nullable=True)
    """Its last request (written at most once a minute)."""
    revoked_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, nullable=True)
    """When it was revoked (``None``: it works); a revoked token is refused at once."""


class BotChallengeRow(Base):
    """A challenge to play (a bot, or a person by a bot): who challenges whom, with which
    settings, and what became of it."""

    __tablename__ = "lc_bot_challenges"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime.datetime] = mapped_column(DateTime, index=True)
    """Unanswered by then, it has expired."""
    challenger_id: Mapped[int | None] = mapped_column(Integer, account_fk(), nullable=True)
    """The challenging account (``None``: a guest)."""
    challenger_name: Mapped[str] = mapped_column(String(40))
    dest_id: Mapped[int] = mapped_column(Integer, account_fk(), index=True)
    variant: Mapped[str] = mapped_column(String(16))
    rounds: Mapped[int] = mapped_column(Integer)
    clock: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """The clock as the API names it (``60``, ``300+5``, ``3d``); ``None``: none."""
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(12), index=True)
    """``created``, ``accepted``, ``declined``, ``canceled`` or ``expired``."""
    decline_reason: Mapped[str | None] = mapped_column(String(16), nullable=True)
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """Hash of a person's (or guest's) challenge token, which becomes their seat token once
    the challenge is accepted; ``None`` for a challenge sent with an API token."""


class BotEventRow(Base):
    """One event of an account's event stream (``GET /api/bot/stream/event``), kept a few
    minutes so that a stream resumes with ``?since=``; ids grow in commit order per account."""

    __tablename__ = "lc_bot_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(Integer, account_fk(), index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    data: Mapped[str] = mapped_column(Text)
    """The event's JSON, without its ``event_id``."""
