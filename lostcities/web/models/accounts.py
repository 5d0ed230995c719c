"""The tables of accounts: accounts, sessions, passkeys and their challenges, sign-in failures, secrets, blocks, reports and the moderation log."""

from __future__ import annotations

import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from lostcities.web.models.base import Base, utcnow

__all__ = [
    "AccountRow",
    "AuthFailureRow",
    "BlockRow",
    "ChallengeRow",
    "ModLogRow",
    "PasskeyRow",
    "ReportRow",
    "SecretRow",
    "SessionRow",
    "account_fk",
]


def account_fk(ondelete: str = "CASCADE") -> ForeignKey:
    """A column's foreign key to an account (``lc_accounts.id``)."""
    return ForeignKey("lc_accounts.id", ondelete=ondelete)


class AccountRow(Base):
    """An account (optional: guests play without one). The username is public; the rest is
    personal data, deleted with the account (:mod:`lostcities.web.accounts`)."""

    __tablename__ = "lc_accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    username: Mapped[str] = mapped_column(String(24))
    """As the player typed it (NFC); shown everywhere."""
    username_key: Mapped[str] = mapped_column(String(24), unique=True)
    """The case-folded username: unique, what look-ups compare."""
    password_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """argon2id hash (``None``: passkeys only)."""
    recovery_hash: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """argon2id hash of the recovery code (shown once; a use replaces it)."""
    user_handle: Mapped[str] = mapped_column(String(64), unique=True)
    """Random WebAuthn user handle (base64url), never the username."""
    status: Mapped[str] = mapped_column(String(16), default="active", index=True)
    """``active`` or ``banned`` (``lostcities users ban``)."""
    status_reason: Mapped[str | None] = mapped_column(String(200), nullable=True)
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """A bot account (issue 39, docs/bot-api.md): it plays through the bot API, never in
    the lobby's pairing; irreversible."""
    bot_about: Mapped[str | None] = mapped_column(String(300), nullable=True)
    """A bot account's description: who runs it and which engine (free text)."""


class SessionRow(Base):
    """A signed-in browser: only the hash of its random cookie token is stored."""

    __tablename__ = "lc_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, account_fk(), index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    last_seen: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class PasskeyRow(Base):
    """A WebAuthn credential (passkey) of an account."""

    __tablename__ = "lc_passkeys"

    credential_id: Mapped[str] = mapped_column(String(400), primary_key=True)
    """base64url."""
    account_id: Mapped[int] = mapped_column(Integer, account_fk(), index=True)
    public_key: Mapped[str] = mapped_column(Text)
    """The COSE public key, base64url."""
    sign_count: Mapped[int] = mapped_column(BigInteger, default=0)
    name: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)
    last_used: Mapped[datetime.datetime | None] = mapped_column(DateTime, nullable=True)


class ChallengeRow(Base):
    """A WebAuthn challenge between its options and its answer (any server process may get
    the answer, so it is stored; used once, expires after a few minutes)."""

    __tablename__ = "lc_auth_challenges"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))
    """``signup``, ``add`` (a passkey for a signed-in account) or ``login``."""
    challenge: Mapped[str] = mapped_column(String(200))
    username: Mapped[str | None] = mapped_column(String(24), nullable=True)
    account_id: Mapped[int | None] = mapped_column(Integer, account_fk(), nullable=True)
    expires_at: Mapped[datetime.datetime] = mapped_column(DateTime, index=True)


class AuthFailureRow(Base):
    """A failed log-in (or recovery): what the throttle counts, per account name and per
    client (``key`` is a hash of either, never the address)."""

    __tablename__ = "lc_auth_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(64), index=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)


class SecretRow(Base):
    """A random value every server process shares, made once on first use: the salt of the
    log-in throttle's client keys (:func:`lostcities.web.accounts.throttle_salt_sync`)."""

    __tablename__ = "lc_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class BlockRow(Base):
    """``blocker`` blocked ``blocked``: no chat between them, no pairing."""

    __tablename__ = "lc_blocks"

    blocker_id: Mapped[int] = mapped_column(Integer, account_fk(), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(Integer, account_fk(), primary_key=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow)


class ReportRow(Base):
    """A report of a player to the operator (``lostcities users reports``)."""

    __tablename__ = "lc_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    reporter_id: Mapped[int | None] = mapped_column(Integer, account_fk("SET NULL"), nullable=True)
    target_id: Mapped[int] = mapped_column(Integer, account_fk(), index=True)
    reason: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(String(500), default="")
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)


class ModLogRow(Base):
    """One moderation or account action (sign-up, ban, report...): who, what, whom."""

    __tablename__ = "lc_mod_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(40))
    """A username, ``operator`` (the CLI) or ``deleted player``."""
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(40), default="")
    detail: Mapped[str] = mapped_column(String(500), default="")
