"""The accounts' queries and writes (:mod:`lostcities.web.models.accounts`): accounts and
their sessions, passkeys and passkey challenges, blocks, reports, the moderation log, the
log-in throttle's failures and the shared secrets. The rules (usernames, passwords, who may
do what, the errors) are :mod:`lostcities.web.accounts`' and
:mod:`lostcities.web.auth_passkeys`'; their ``op_`` writes run these parts inside their
transactions."""

from __future__ import annotations

import datetime
import logging
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, aliased

from lostcities.web.models.accounts import (
    AccountRow,
    AuthFailureRow,
    BlockRow,
    ChallengeRow,
    ModLogRow,
    PasskeyRow,
    ReportRow,
    SecretRow,
    SessionRow,
)
from lostcities.web.repositories.base import first_row

__all__ = [
    "account_by_key",
    "account_by_session",
    "account_details",
    "accounts_by_id",
    "accounts_listing",
    "add_account",
    "add_block",
    "add_challenge",
    "add_failure",
    "add_mod_log",
    "add_passkey",
    "add_report",
    "add_secret",
    "add_session",
    "block",
    "bot_ids",
    "blocked_between",
    "clear_failures",
    "delete_account",
    "delete_block",
    "delete_passkey",
    "detach",
    "end_session",
    "end_sessions",
    "failures",
    "forget_challenges_before",
    "forget_failures_before",
    "get",
    "mod_log_listing",
    "other_passkey",
    "passkey",
    "passkey_ids",
    "passkey_row",
    "passkeys_of",
    "reports_listing",
    "secret",
    "set_account",
    "take_challenge",
    "username_taken",
]


log = logging.getLogger("lostcities.web")

# -- reads -------------------------------------------------------------------------------------


def account_by_session(
    engine: Engine, token_hash: str, since: datetime.datetime
) -> AccountRow | None:
    """The active account of the session ``token_hash`` made after ``since``, or
    ``None``."""
    with Session(engine) as s:
        return s.execute(
            select(AccountRow)
            .join(SessionRow, SessionRow.account_id == AccountRow.id)
            .where(
                SessionRow.token_hash == token_hash,
                SessionRow.created_at > since,
                AccountRow.status == "active",
            )
        ).scalar_one_or_none()


def account_by_key(engine: Engine, key: str) -> AccountRow | None:
    """The account whose username key is ``key``, or ``None``."""
    return first_row(engine, select(AccountRow).where(AccountRow.username_key == key))


def account_details(
    engine: Engine, account_id: int
) -> tuple[AccountRow | None, list[PasskeyRow], list[str]]:
    """An account, its passkeys (oldest first) and the usernames of the players it
    blocked (by username key)."""
    with Session(engine) as s:
        row = s.get(AccountRow, account_id)
        keys = s.scalars(
            select(PasskeyRow)
            .where(PasskeyRow.account_id == account_id)
            .order_by(PasskeyRow.created_at)
        ).all()
        blocked = s.scalars(
            select(AccountRow.username)
            .join(BlockRow, BlockRow.blocked_id == AccountRow.id)
            .where(BlockRow.blocker_id == account_id)
            .order_by(AccountRow.username_key)
        ).all()
        return row, list(keys), list(blocked)


def accounts_by_id(engine: Engine, ids: list[int]) -> list[AccountRow]:
    """The accounts of ``ids`` (unknown ids left out)."""
    with Session(engine) as s:
        return list(s.scalars(select(AccountRow).where(AccountRow.id.in_(ids))).all())


def blocked_between(engine: Engine, a: int, b: int) -> bool:
    """Whether either of the accounts ``a``, ``b`` blocked the other."""
    with Session(engine) as s:
        hit = s.execute(
            select(BlockRow.blocker_id).where(
                or_(
                    (BlockRow.blocker_id == a) & (BlockRow.blocked_id == b),
                    (BlockRow.blocker_id == b) & (BlockRow.blocked_id == a),
                )
            )
        ).first()
        return hit is not None


def secret(engine: Engine, name: str) -> str | None:
    """The shared secret ``name`` (``lc_secrets``), or ``None``."""
    with Session(engine) as s:
        return s.scalar(select(SecretRow.value).where(SecretRow.name == name))


def add_secret(engine: Engine, name: str, value: str, at: datetime.datetime) -> None:
    """Store the shared secret ``name`` in a transaction of its own.

    :raises sqlalchemy.exc.IntegrityError: if another process stored it first.
    """
    with Session(engine) as s, s.begin():
        s.add(SecretRow(name=name, value=value, created_at=at))


def failures(engine: Engine, key: str, since: datetime.datetime) -> tuple[int, Any]:
    """How many failed log-ins are counted under ``key`` since ``since``, and when the
    oldest of them was (``None``: none)."""
    with Session(engine) as s:
        n, oldest = s.execute(
            select(func.count(), func.min(AuthFailureRow.created_at)).where(
                AuthFailureRow.key == key, AuthFailureRow.created_at > since
            )
        ).one()
    return int(n), oldest


def passkey_ids(engine: Engine, account_id: int) -> list[str]:
    """The credential ids of an account's passkeys."""
    with Session(engine) as s:
        return list(
            s.scalars(
                select(PasskeyRow.credential_id).where(PasskeyRow.account_id == account_id)
            ).all()
        )


def passkey(engine: Engine, credential_id: str) -> tuple[str, int, int] | None:
    """A stored passkey's public key, signature count and account, or ``None``."""
    with Session(engine) as s:
        row = s.get(PasskeyRow, credential_id)
        if row is None:
            return None
        return row.public_key, row.sign_count, row.account_id


def passkeys_of(engine: Engine, account_id: int) -> list[PasskeyRow]:
    """An account's passkeys, oldest first."""
    with Session(engine) as s:
        rows = list(
            s.scalars(
                select(PasskeyRow)
                .where(PasskeyRow.account_id == account_id)
                .order_by(PasskeyRow.created_at)
            ).all()
        )
        for r in rows:
            s.expunge(r)
        return rows


def accounts_listing(engine: Engine) -> list[tuple[AccountRow, int, int]]:
    """Every account with how often it was reported and how many passkeys it has."""
    reported = aliased(ReportRow)
    with Session(engine) as s:
        rows = s.execute(
            select(
                AccountRow,
                select(func.count())
                .select_from(reported)
                .where(reported.target_id == AccountRow.id)
                .scalar_subquery(),
                select(func.count())
                .select_from(PasskeyRow)
                .where(PasskeyRow.account_id == AccountRow.id)
                .scalar_subquery(),
            ).order_by(AccountRow.id)
        ).all()
    return [(row, int(reports), int(keys)) for row, reports, keys in rows]


def reports_listing(engine: Engine) -> list[tuple[ReportRow, str | None, str]]:
    """Every report, newest first, with its reporter's (``None``: deleted) and target's
    usernames."""
    reporter, target = aliased(AccountRow), aliased(AccountRow)
    with Session(engine) as s:
        rows = s.execute(
            select(ReportRow, reporter.username, target.username)
            .join(target, target.id == ReportRow.target_id)
            .outerjoin(reporter, reporter.id == ReportRow.reporter_id)
            .order_by(ReportRow.created_at.desc(), ReportRow.id.desc())
        ).all()
    return [(r, by, whom) for r, by, whom in rows]


def mod_log_listing(engine: Engine, limit: int = 500) -> list[ModLogRow]:
    """The moderation log's newest ``limit`` entries, newest first."""
    with Session(engine) as s:
        return list(s.scalars(select(ModLogRow).order_by(ModLogRow.id.desc()).limit(limit)).all())


# -- parts of writes (inside a service's transaction) ------------------------------------------


def get(s: Session, account_id: int) -> AccountRow | None:
    """The account ``account_id``, or ``None``."""
    return s.get(AccountRow, account_id)


def bot_ids(s: Session, account_ids: list[int]) -> set[int]:
    """Which of ``account_ids`` are bot accounts (:mod:`lostcities.web.bot_api`)."""
    if not account_ids:
        return set()
    return set(
        s.scalars(
            select(AccountRow.id).where(AccountRow.id.in_(account_ids), AccountRow.is_bot.is_(True))
        ).all()
    )


def detach(s: Session, row: Any) -> None:
    """Detach a row from the session (it is returned to a caller outside it)."""
    s.expunge(row)


def forget_failures_before(s: Session, before: datetime.datetime) -> None:
    """Forget the failed log-ins counted before ``before``."""
    s.execute(delete(AuthFailureRow).where(AuthFailureRow.created_at < before))


def add_failure(s: Session, key: str, at: datetime.datetime) -> None:
    """Count a failed log-in under ``key``."""
    s.add(AuthFailureRow(key=key, created_at=at))


def clear_failures(s: Session, key: str) -> None:
    """Forget the failed log-ins counted under ``key``."""
    s.execute(delete(AuthFailureRow).where(AuthFailureRow.key == key))


def add_mod_log(
    s: Session, at: datetime.datetime, actor: str, action: str, target: str, detail: str
) -> None:
    """Add an entry to the moderation log (each field cut to its column); also logged at
    INFO to the ``lostcities.web`` logger, which ``lostcities serve`` does not print (it
    shows warnings and errors only: docs/web.md, Moderation)."""
    log.info("account action: %s %s %s %s", actor, action, target, detail)
    s.add(
        ModLogRow(
            created_at=at,
            actor=actor[:40],
            action=action[:32],
            target=target[:40],
            detail=detail[:500],
        )
    )


def username_taken(s: Session, key: str) -> bool:
    """Whether an account has the username key ``key``."""
    return (
        s.execute(select(AccountRow.id).where(AccountRow.username_key == key)).first() is not None
    )


def add_account(s: Session, row: AccountRow) -> None:
    """Store a new account (flushed at once).

    :raises sqlalchemy.exc.IntegrityError: if its username key was taken meanwhile.
    """
    s.add(row)
    s.flush()


def add_session(s: Session, token_hash: str, account_id: int, at: datetime.datetime) -> None:
    """Store a session of an account."""
    s.add(SessionRow(token_hash=token_hash, account_id=account_id, created_at=at, last_seen=at))


def end_session(s: Session, token_hash: str) -> None:
    """Delete the session ``token_hash``."""
    s.execute(delete(SessionRow).where(SessionRow.token_hash == token_hash))


def end_sessions(
    s: Session,
    *,
    account_id: int | None = None,
    keep: str | None = None,
    before: datetime.datetime | None = None,
) -> None:
    """Delete the sessions of ``account_id`` but ``keep`` (a token hash), or every one
    made before ``before``."""
    q = delete(SessionRow)
    if account_id is not None:
        q = q.where(SessionRow.account_id == account_id)
    if keep is not None:
        q = q.where(SessionRow.token_hash != keep)
    if before is not None:
        q = q.where(SessionRow.created_at < before)
    s.execute(q)


def set_account(s: Session, account_id: int, **values: Any) -> None:
    """Set columns of the account ``account_id``."""
    s.execute(update(AccountRow).where(AccountRow.id == account_id).values(**values))


def delete_account(s: Session, account_id: int) -> None:
    """Delete an account with its sessions, passkeys, blocks and the reports about it
    (its own reports stay, without a reporter)."""
    for table in (SessionRow, PasskeyRow):
        s.execute(delete(table).where(table.account_id == account_id))
    s.execute(
        delete(BlockRow).where(
            or_(BlockRow.blocker_id == account_id, BlockRow.blocked_id == account_id)
        )
    )
    s.execute(delete(ReportRow).where(ReportRow.target_id == account_id))
    s.execute(update(ReportRow).where(ReportRow.reporter_id == account_id).values(reporter_id=None))
    s.execute(delete(AccountRow).where(AccountRow.id == account_id))


def block(s: Session, blocker: int, blocked: int) -> BlockRow | None:
    """The block of ``blocked`` by ``blocker``, or ``None``."""
    return s.get(BlockRow, (blocker, blocked))


def add_block(s: Session, blocker: int, blocked: int, at: datetime.datetime) -> None:
    """Store a block."""
    s.add(BlockRow(blocker_id=blocker, blocked_id=blocked, created_at=at))


def delete_block(s: Session, row: BlockRow) -> None:
    """Delete a block."""
    s.delete(row)


def add_report(s: Session, row: ReportRow) -> int:
    """Store a report; returns its id."""
    s.add(row)
    s.flush()
    return int(row.id)


def add_challenge(s: Session, row: ChallengeRow) -> None:
    """Store a passkey ceremony's challenge."""
    s.add(row)


def forget_challenges_before(s: Session, before: datetime.datetime) -> None:
    """Delete the challenges that expired before ``before``."""
    s.execute(delete(ChallengeRow).where(ChallengeRow.expires_at < before))


def take_challenge(s: Session, id_hash: str) -> ChallengeRow | None:
    """The challenge ``id_hash``, deleted (one answer only), or ``None``."""
    row = s.get(ChallengeRow, id_hash)
    if row is not None:
        s.delete(row)
    return row


def add_passkey(s: Session, row: PasskeyRow) -> bool:
    """Store a passkey; returns ``False`` (storing nothing) if its credential is stored
    already."""
    if s.get(PasskeyRow, row.credential_id) is not None:
        return False
    s.add(row)
    return True


def passkey_row(s: Session, credential_id: str) -> PasskeyRow | None:
    """The stored passkey ``credential_id``, or ``None``."""
    return s.get(PasskeyRow, credential_id)


def other_passkey(s: Session, account_id: int, credential_id: str) -> bool:
    """Whether the account has a passkey other than ``credential_id``."""
    return (
        s.scalars(
            select(PasskeyRow.credential_id).where(
                PasskeyRow.account_id == account_id, PasskeyRow.credential_id != credential_id
            )
        ).first()
        is not None
    )


def delete_passkey(s: Session, credential_id: str) -> None:
    """Delete the passkey ``credential_id``."""
    s.execute(delete(PasskeyRow).where(PasskeyRow.credential_id == credential_id))
