"""The bot API's data access (issue 39): API tokens, bot accounts, challenges and the event
stream's events. Every query and write of those tables is here; the logic that uses them is
:mod:`lostcities.web.bot_api`.

Reads are ``*_sync`` functions on the store's engine (run them off the event loop); writes
are ``op_*`` functions for :meth:`GameStore.write <lostcities.web.store.GameStore.write>`,
one transaction each.

Events (:func:`add_events`) are stored with ids that grow in commit order per account (on
PostgreSQL each account's events are written one transaction at a time, under an advisory
lock held to the commit), and announced to every server process with a
:data:`~lostcities.web.repositories.games.BOT_NOTICE` notification (``bot:ev:<account
id>``); a revoked token is announced as ``bot:tok:<token id>`` so that its streams close on
every process.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from lostcities.web.models.accounts import AccountRow
from lostcities.web.models.base import utcnow
from lostcities.web.models.bots import ApiTokenRow, BotChallengeRow, BotEventRow
from lostcities.web.models.games import GameRow
from lostcities.web.models.lobby import PresenceRow
from lostcities.web.models.ratings import RatingRow
from lostcities.web.repositories import accounts as account_data
from lostcities.web.repositories.base import row_by_key
from lostcities.web.repositories.games import BOT_NOTICE, NOTIFY_CHANNEL, notify_change

__all__ = [
    "EVENT_NOTICE",
    "STREAM_PRESENCE",
    "TOKEN_NOTICE",
    "account_by_id_sync",
    "active_games_sync",
    "bot_account_ids_sync",
    "bot_accounts_sync",
    "add_events",
    "challenge_sync",
    "events_after_sync",
    "expired_challenges_sync",
    "last_event_id_sync",
    "notify_bots",
    "op_accept_challenge",
    "op_add_events",
    "op_create_challenge",
    "op_create_token",
    "op_drop_game",
    "op_end_challenge",
    "op_mod_log",
    "op_prune_events",
    "op_revoke_account_tokens",
    "op_revoke_token",
    "op_stream_gone",
    "op_stream_seen",
    "op_touch_token",
    "op_upgrade_to_bot",
    "pending_challenges_sync",
    "rated_games_sync",
    "rating_sync",
    "streaming_bots_sync",
    "token_by_hash_sync",
    "tokens_of_sync",
]

EVENT_NOTICE = "ev:"
"""After :data:`~lostcities.web.repositories.games.BOT_NOTICE`: an account has new events
(its id follows)."""
TOKEN_NOTICE = "tok:"
"""After :data:`~lostcities.web.repositories.games.BOT_NOTICE`: a token was revoked (its
id follows)."""


def notify_bots(s: Session, payloads: Iterable[str]) -> None:
    """Announce bot-API changes (``ev:<account>``, ``tok:<token>``) to every server process
    at the commit (PostgreSQL; nothing on SQLite, one process)."""
    if s.get_bind().dialect.name != "postgresql":
        return
    for p in sorted(set(payloads)):
        s.execute(select(func.pg_notify(NOTIFY_CHANNEL, BOT_NOTICE + p)))


def _event_lock_key(account_id: int) -> int:
    digest = hashlib.blake2b(f"lostcities-botev:{account_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


# -- tokens ----------------------------------------------------------------------------------


def op_create_token(
    account_id: int, token_hash: str, description: str, scopes: Sequence[str], actor: str
) -> Callable[[Session], ApiTokenRow]:
    """Store a new token (its hash); returns its row."""

    def fn(s: Session) -> ApiTokenRow:
        row = ApiTokenRow(
            account_id=account_id,
            token_hash=token_hash,
            description=description,
            scopes=" ".join(scopes),
        )
        s.add(row)
        s.flush()
        _mod_log(s, actor, "token_create", actor, f"token #{row.id} {' '.join(scopes)}")
        s.expunge(row)
        return row

    return fn


def tokens_of_sync(engine: Engine, account_id: int) -> list[ApiTokenRow]:
    """The account's tokens that are not revoked, oldest first."""
    with Session(engine) as s:
        rows = list(
            s.scalars(
                select(ApiTokenRow)
                .where(ApiTokenRow.account_id == account_id, ApiTokenRow.revoked_at.is_(None))
                .order_by(ApiTokenRow.id)
            ).all()
        )
        s.expunge_all()
        return rows


def token_by_hash_sync(engine: Engine, token_hash: str) -> tuple[ApiTokenRow, AccountRow] | None:
    """The token with this hash and its account (revoked ones too: the caller refuses them),
    or ``None``."""
    with Session(engine) as s:
        row = s.execute(
            select(ApiTokenRow, AccountRow)
            .join(AccountRow, AccountRow.id == ApiTokenRow.account_id)
            .where(ApiTokenRow.token_hash == token_hash)
        ).first()
        if row is None:
            return None
        s.expunge_all()
        return row[0], row[1]


def op_touch_token(token_id: int, now: datetime.datetime) -> Callable[[Session], None]:
    """Note a token's use."""

    def fn(s: Session) -> None:
        s.execute(update(ApiTokenRow).where(ApiTokenRow.id == token_id).values(last_used=now))

    return fn


def op_revoke_token(
    account_id: int, token_id: int, actor: str, now: datetime.datetime
) -> Callable[[Session], bool]:
    """Revoke one token of the account; returns whether it was a working token of it."""

    def fn(s: Session) -> bool:
        res = s.execute(
            update(ApiTokenRow)
            .where(
                ApiTokenRow.id == token_id,
                ApiTokenRow.account_id == account_id,
                ApiTokenRow.revoked_at.is_(None),
            )
            .values(revoked_at=now)
        )
        done = bool(res.rowcount)  # type: ignore[attr-defined]
        if done:
            _mod_log(s, actor, "token_revoke", actor, f"token #{token_id}")
            notify_bots(s, [f"{TOKEN_NOTICE}{token_id}"])
        return done

    return fn


def op_revoke_account_tokens(
    account_id: int, actor: str, now: datetime.datetime
) -> Callable[[Session], list[int]]:
    """Revoke every token of the account (a ban); returns their ids."""

    def fn(s: Session) -> list[int]:
        ids = list(
            s.scalars(
                select(ApiTokenRow.id).where(
                    ApiTokenRow.account_id == account_id, ApiTokenRow.revoked_at.is_(None)
                )
            ).all()
        )
        if ids:
            s.execute(update(ApiTokenRow).where(ApiTokenRow.id.in_(ids)).values(revoked_at=now))
            _mod_log(s, actor, "token_revoke", f"#{account_id}", f"{len(ids)} tokens")
            notify_bots(s, [f"{TOKEN_NOTICE}{i}" for i in ids])
        return ids

    return fn


# -- accounts --------------------------------------------------------------------------------


def account_by_id_sync(engine: Engine, account_id: int) -> AccountRow | None:
    """The stored account ``account_id``, or ``None``."""
    return row_by_key(engine, AccountRow, account_id)


def bot_account_ids_sync(engine: Engine, account_ids: Iterable[int]) -> set[int]:
    """Which of ``account_ids`` are bot accounts."""
    ids = sorted(set(account_ids))
    if not ids:
        return set()
    with Session(engine) as s:
        rows = s.scalars(
            select(AccountRow.id).where(AccountRow.id.in_(ids), AccountRow.is_bot.is_(True))
        ).all()
    return {int(i) for i in rows}


def bot_accounts_sync(engine: Engine, account_ids: Iterable[int]) -> list[AccountRow]:
    """The bot accounts among ``account_ids`` that are not banned, by name."""
    ids = sorted(set(account_ids))
    if not ids:
        return []
    with Session(engine) as s:
        rows = list(
            s.scalars(
                select(AccountRow)
                .where(
                    AccountRow.id.in_(ids),
                    AccountRow.is_bot.is_(True),
                    AccountRow.status == "active",
                )
                .order_by(AccountRow.username)
            ).all()
        )
        s.expunge_all()
        return rows


STREAM_PRESENCE = "s:"
"""The key prefix of a bot's open event stream in the presence table
(:class:`~lostcities.web.models.lobby.PresenceRow`; the lobby's own keys are ``a:`` and
``g:``): ``s:<account id>``, so that every server process sees the bots online."""


def op_stream_seen(account_id: int, name: str, now: datetime.datetime) -> Callable[[Session], None]:
    """Note that the bot account ``account_id`` has an event stream open now."""

    def fn(s: Session) -> None:
        key = f"{STREAM_PRESENCE}{account_id}"
        row = s.get(PresenceRow, key)
        if row is None:
            s.add(PresenceRow(player=key, name=name[:40], account_id=account_id, seen_at=now))
        else:
            row.seen_at, row.name = now, name[:40]

    return fn


def op_stream_gone(account_id: int) -> Callable[[Session], None]:
    """The bot account's event stream closed (on this process: another process's stream
    notes it again at its next keep-alive)."""

    def fn(s: Session) -> None:
        s.execute(delete(PresenceRow).where(PresenceRow.player == f"{STREAM_PRESENCE}{account_id}"))

    return fn


def streaming_bots_sync(engine: Engine, since: datetime.datetime) -> set[int]:
    """The accounts whose event stream was noted open since ``since``
    (:func:`op_stream_seen`)."""
    with Session(engine) as s:
        rows = s.scalars(
            select(PresenceRow.account_id).where(
                PresenceRow.player.startswith(STREAM_PRESENCE),
                PresenceRow.seen_at >= since,
                PresenceRow.account_id.is_not(None),
            )
        ).all()
    return {int(i) for i in rows if i is not None}


def rated_games_sync(engine: Engine, account_id: int) -> int:
    """How many rated games the account has played or plays (as a person, before it became
    a bot)."""
    with Session(engine) as s:
        n = s.scalar(
            select(func.count())
            .select_from(GameRow)
            .where(
                GameRow.rated.is_(True),
                or_(GameRow.account0 == account_id, GameRow.account1 == account_id),
            )
        )
    return int(n or 0)


def op_upgrade_to_bot(account_id: int, about: str | None, actor: str) -> Callable[[Session], bool]:
    """Make the account a bot account (irreversible; ``about``: its description, kept if
    ``None``); returns whether it was a person's account until now. The caller checked
    that it played no rated game (:func:`rated_games_sync`); it is checked again here."""

    def fn(s: Session) -> bool:
        row = s.get(AccountRow, account_id)
        if row is None:
            return False
        was = not row.is_bot
        row.is_bot = True
        if about is not None:
            row.bot_about = about[:300] or None
        _mod_log(s, actor, "bot_upgrade" if was else "bot_about", row.username, (about or "")[:200])
        return was

    return fn


def rating_sync(
    engine: Engine, keys: Sequence[str], variant: str, speed: str
) -> dict[str, RatingRow]:
    """The stored ratings of the players ``keys`` in a variant and speed (missing: none yet)."""
    if not keys:
        return {}
    with Session(engine) as s:
        rows = s.scalars(
            select(RatingRow).where(
                RatingRow.player.in_(list(keys)),
                RatingRow.variant == variant,
                RatingRow.speed == speed,
            )
        ).all()
        s.expunge_all()
        return {r.player: r for r in rows}


def active_games_sync(engine: Engine, account_id: int) -> list[GameRow]:
    """The games the account plays now (started, not over), oldest first."""
    with Session(engine) as s:
        rows = list(
            s.scalars(
                select(GameRow)
                .where(
                    GameRow.status == "active",
                    or_(GameRow.account0 == account_id, GameRow.account1 == account_id),
                )
                .order_by(GameRow.created_at)
                .limit(200)
            ).all()
        )
        s.expunge_all()
        return rows


def _mod_log(s: Session, actor: str, action: str, target: str = "", detail: str = "") -> None:
    account_data.add_mod_log(s, utcnow(), actor, action, target, detail)


def op_mod_log(
    actor: str, action: str, target: str = "", detail: str = ""
) -> Callable[[Session], None]:
    """One line of the moderation log (as :func:`lostcities.web.accounts.mod_log` writes it)."""

    def fn(s: Session) -> None:
        _mod_log(s, actor, action, target, detail)

    return fn


# -- events ----------------------------------------------------------------------------------


def add_events(
    s: Session, events: Iterable[tuple[int, dict[str, Any]]], now: datetime.datetime
) -> None:
    """Store events ``(account id, event)`` in the caller's transaction, and announce them
    at its commit (module docs)."""
    items = [(a, e) for a, e in events]
    if not items:
        return
    accounts = sorted({a for a, _ in items})
    if s.get_bind().dialect.name == "postgresql":
        for a in accounts:  # (in one order: two writes never wait on each other's locks)
            s.execute(select(func.pg_advisory_xact_lock(_event_lock_key(a))))
    for a, e in items:
        s.add(BotEventRow(account_id=a, created_at=now, data=json.dumps(e, separators=(",", ":"))))
    s.flush()
    notify_bots(s, [f"{EVENT_NOTICE}{a}" for a in accounts])


def op_add_events(
    events: Sequence[tuple[int, dict[str, Any]]], now: datetime.datetime
) -> Callable[[Session], None]:
    """:func:`add_events` as a write of its own."""

    def fn(s: Session) -> None:
        add_events(s, events, now)

    return fn


def events_after_sync(
    engine: Engine, account_id: int, after: int, limit: int = 500
) -> list[tuple[int, str]]:
    """The account's stored events after the one numbered ``after``: ``(id, JSON)`` in
    order."""
    with Session(engine) as s:
        rows = s.execute(
            select(BotEventRow.id, BotEventRow.data)
            .where(BotEventRow.account_id == account_id, BotEventRow.id > after)
            .order_by(BotEventRow.id)
            .limit(limit)
        ).all()
    return [(int(i), str(d)) for i, d in rows]


def last_event_id_sync(engine: Engine, account_id: int) -> int:
    """The id of the account's newest stored event (0: none)."""
    with Session(engine) as s:
        n = s.scalar(select(func.max(BotEventRow.id)).where(BotEventRow.account_id == account_id))
    return int(n or 0)


def op_prune_events(before: datetime.datetime) -> Callable[[Session], int]:
    """Drop the events stored before ``before``; returns how many."""

    def fn(s: Session) -> int:
        res = s.execute(delete(BotEventRow).where(BotEventRow.created_at < before))
        return int(res.rowcount or 0)  # type: ignore[attr-defined]

    return fn


# -- challenges ------------------------------------------------------------------------------


def op_create_challenge(
    row: BotChallengeRow, events: Sequence[tuple[int, dict[str, Any]]], actor: str, dest: str
) -> Callable[[Session], None]:
    """Store a new challenge, its events and its line of the moderation log."""

    def fn(s: Session) -> None:
        s.add(row)
        s.flush()
        add_events(s, events, row.created_at)
        _mod_log(s, actor, "challenge", dest, f"challenge {row.id}")
        s.expunge(row)

    return fn


def challenge_sync(engine: Engine, challenge_id: str) -> BotChallengeRow | None:
    """The challenge ``challenge_id``, or ``None``."""
    return row_by_key(engine, BotChallengeRow, challenge_id[:16])


def pending_challenges_sync(
    engine: Engine, account_id: int, now: datetime.datetime
) -> list[BotChallengeRow]:
    """The challenges to the account still waiting for an answer, oldest first."""
    with Session(engine) as s:
        rows = list(
            s.scalars(
                select(BotChallengeRow)
                .where(
                    BotChallengeRow.dest_id == account_id,
                    BotChallengeRow.status == "created",
                    BotChallengeRow.expires_at > now,
                )
                .order_by(BotChallengeRow.created_at)
                .limit(200)
            ).all()
        )
        s.expunge_all()
        return rows


def op_end_challenge(
    challenge_id: str,
    status: str,
    reason: str | None,
    now: datetime.datetime,
    events: Sequence[tuple[int, dict[str, Any]]],
    actor: str,
) -> Callable[[Session], BotChallengeRow | None]:
    """Decline, cancel or expire a waiting challenge, with its ``events``; returns it, or
    ``None`` if it was no longer waiting (nothing is written then)."""

    def fn(s: Session) -> BotChallengeRow | None:
        res = s.execute(
            update(BotChallengeRow)
            .where(BotChallengeRow.id == challenge_id, BotChallengeRow.status == "created")
            .values(status=status, decline_reason=reason)
        )
        if not res.rowcount:  # type: ignore[attr-defined]
            return None
        row = s.get(BotChallengeRow, challenge_id)
        assert row is not None
        s.refresh(row)
        add_events(s, events, now)
        _mod_log(
            s, actor, f"challenge_{status}"[:32], "", f"challenge {challenge_id} {reason or ''}"
        )
        s.expunge(row)
        return row

    return fn


def expired_challenges_sync(
    engine: Engine, now: datetime.datetime, limit: int = 200
) -> list[BotChallengeRow]:
    """Challenges still waiting past their time (:func:`op_end_challenge` expires each)."""
    with Session(engine) as s:
        rows = list(
            s.scalars(
                select(BotChallengeRow)
                .where(BotChallengeRow.status == "created", BotChallengeRow.expires_at <= now)
                .order_by(BotChallengeRow.expires_at)
                .limit(limit)
            ).all()
        )
        s.expunge_all()
        return rows


def op_accept_challenge(
    challenge_id: str,
    now: datetime.datetime,
    game_id: str,
    seats: tuple[tuple[str, str, int | None], tuple[str, str, int | None]],
    rated: bool,
    events: Sequence[tuple[int, dict[str, Any]]],
    actor: str,
) -> Callable[[Session], bool]:
    """Accept a waiting challenge (not expired) and seat its game ``game_id`` (each seat: its
    token hash, name and account), with its events, in one transaction; returns whether
    the challenge was still waiting (else nothing is written)."""

    def fn(s: Session) -> bool:
        res = s.execute(
            update(BotChallengeRow)
            .where(
                BotChallengeRow.id == challenge_id,
                BotChallengeRow.status == "created",
                BotChallengeRow.expires_at > now,
            )
            .values(status="accepted", game_id=game_id)
        )
        if not res.rowcount:  # type: ignore[attr-defined]
            return False
        (t0, n0, a0), (t1, n1, a1) = seats
        s.execute(
            update(GameRow)
            .where(GameRow.id == game_id)
            .values(
                token0=t0,
                token1=t1,
                name0=n0[:40],
                name1=n1[:40],
                account0=a0,
                account1=a1,
                invite=None,
                status="active",
                rated=True if rated else None,
                updated_at=now,
            )
        )
        add_events(s, events, now)
        _mod_log(s, actor, "challenge_accept", "", f"challenge {challenge_id} game {game_id}")
        notify_change(s, [game_id])
        return True

    return fn


def op_drop_game(game_id: str) -> Callable[[Session], None]:
    """Delete the game made for a challenge that could not be accepted after all (nobody
    ever saw it)."""

    def fn(s: Session) -> None:
        s.execute(delete(GameRow).where(GameRow.id == game_id, GameRow.status == "waiting"))

    return fn
