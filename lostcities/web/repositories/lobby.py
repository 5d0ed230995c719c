"""The lobby's queries and writes (:mod:`lostcities.web.models.lobby`): its open tables and
seeks, who is on its pages, and the parts of the lobby's writes
(:class:`lostcities.web.lobby.LobbyHub` runs them inside its transactions). A committed
change of the lobby is announced to every server process (:func:`notify_lobby`)."""

from __future__ import annotations

import datetime
from typing import Any

from sqlalchemy import delete, func, not_, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from lostcities.web.models.accounts import AccountRow, BlockRow
from lostcities.web.models.games import GameRow
from lostcities.web.models.lobby import LobbyRow, PresenceRow
from lostcities.web.repositories.bots import STREAM_PRESENCE
from lostcities.web.repositories.games import notify_change

__all__ = [
    "LOBBY_CHANNEL",
    "add_entry",
    "cancel",
    "claim_entries",
    "count_open",
    "drop_stale",
    "entry",
    "mark_away",
    "mark_present",
    "notify_lobby",
    "open_seeks",
    "snapshot",
    "touch_presence",
]

LOBBY_CHANNEL = "lostcities_lobby"
"""The PostgreSQL channel on which a committed change of the lobby is announced."""


def notify_lobby(s: Session) -> None:
    """Announce a lobby change to every process (PostgreSQL; at commit)."""
    if s.get_bind().dialect.name == "postgresql":
        s.execute(select(func.pg_notify(LOBBY_CHANNEL, "lobby")))


# -- reads -------------------------------------------------------------------------------------


def snapshot(
    engine: Engine, present_since: datetime.datetime, online_since: datetime.datetime
) -> tuple[list[Any], list[tuple[str, int | None, bool]], int, list[tuple[int, int]]]:
    """What the lobby shows, as stored: the open entries seen since ``present_since``
    (oldest first), the names, accounts and bot marks of the first 200 players on its pages
    since ``online_since`` and how many there are (a bot's open event stream, noted by the
    bot API, is not one: the lobby lists those apart), and the blocks (blocker, blocked)
    that involve an account owning one of those tables."""
    people_here = not_(PresenceRow.player.startswith(STREAM_PRESENCE))
    with engine.connect() as conn:
        rows = conn.execute(
            select(LobbyRow)
            .where(LobbyRow.status == "open", LobbyRow.seen_at > present_since)
            .order_by(LobbyRow.created_at)
        ).all()
        people = conn.execute(
            select(PresenceRow.name, PresenceRow.account_id, AccountRow.is_bot)
            .outerjoin(AccountRow, AccountRow.id == PresenceRow.account_id)
            .where(PresenceRow.seen_at >= online_since, people_here)
            .order_by(PresenceRow.name)
            .limit(200)
        ).all()
        online = conn.scalar(
            select(func.count())
            .select_from(PresenceRow)
            .where(PresenceRow.seen_at >= online_since, people_here)
        )
        owners = {int(r.owner[2:]) for r in rows if r.kind == "table" and r.owner.startswith("a:")}
        blocks = (
            conn.execute(
                select(BlockRow.blocker_id, BlockRow.blocked_id).where(
                    or_(BlockRow.blocker_id.in_(owners), BlockRow.blocked_id.in_(owners))
                )
            ).all()
            if owners
            else []
        )
    return (
        list(rows),
        [(str(n), a, bool(b)) for n, a, b in people],
        int(online or 0),
        [(int(a), int(b)) for a, b in blocks],
    )


def entry(engine: Engine, entry_id: str) -> Any | None:
    """The stored entry ``entry_id`` (a row of ``lc_lobby``'s columns), or ``None``."""
    with engine.connect() as conn:
        return conn.execute(select(LobbyRow).where(LobbyRow.id == entry_id)).first()


def open_seeks(engine: Engine, present_since: datetime.datetime) -> list[Any]:
    """The open seeks seen since ``present_since``, oldest first."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(LobbyRow)
                .where(
                    LobbyRow.status == "open",
                    LobbyRow.kind == "seek",
                    LobbyRow.seen_at > present_since,
                )
                .order_by(LobbyRow.created_at)
            ).all()
        )


# -- parts of writes (inside the lobby's transactions) -----------------------------------------


def touch_presence(
    s: Session,
    player: str,
    name: str,
    account_id: int | None,
    now: datetime.datetime,
    online_since: datetime.datetime,
) -> bool:
    """Mark ``player`` on a lobby page at ``now``; returns whether it is new there (not
    seen since ``online_since``)."""
    row = s.get(PresenceRow, player)
    new = row is None or row.seen_at < online_since
    if row is None:
        s.add(PresenceRow(player=player, name=name, account_id=account_id, seen_at=now))
    else:
        row.seen_at, row.name = now, name
    return new


def mark_present(
    s: Session, owner: str, page: str, now: datetime.datetime, present_since: datetime.datetime
) -> int:
    """Mark the open entries of ``owner`` on the page ``page`` (and those that name no
    page; ``""``: only those) seen at ``now``; returns how many of them were away (not
    seen since ``present_since``)."""
    mine = (LobbyRow.owner == owner, LobbyRow.status == "open")
    pages = or_(LobbyRow.page == page, LobbyRow.page.is_(None)) if page else LobbyRow.page.is_(None)
    back = s.scalar(
        select(func.count())
        .select_from(LobbyRow)
        .where(*mine, pages, LobbyRow.seen_at <= present_since)
    )
    s.execute(update(LobbyRow).where(*mine, pages).values(seen_at=now))
    return int(back or 0)


def mark_away(s: Session, owner: str, page: str, away: datetime.datetime) -> bool:
    """Mark the open entries of ``owner`` on the page ``page`` last seen at ``away`` (if
    seen since); returns whether there were any."""
    res = s.execute(
        update(LobbyRow)
        .where(
            LobbyRow.owner == owner,
            LobbyRow.page == page,
            LobbyRow.status == "open",
            LobbyRow.seen_at > away,
        )
        .values(seen_at=away)
    )
    return bool(res.rowcount)  # type: ignore[attr-defined]


def count_open(s: Session, owner: str) -> int:
    """How many open entries ``owner`` has."""
    n = s.scalar(
        select(func.count())
        .select_from(LobbyRow)
        .where(LobbyRow.owner == owner, LobbyRow.status == "open")
    )
    return int(n or 0)


def add_entry(s: Session, row: LobbyRow) -> None:
    """Store a new table or seek."""
    s.add(row)


def cancel(s: Session, entry_id: str, token_hash: str) -> bool:
    """Cancel the open entry ``entry_id`` if ``token_hash`` is its owner's; returns whether
    it was open."""
    res = s.execute(
        update(LobbyRow)
        .where(
            LobbyRow.id == entry_id,
            LobbyRow.token_hash == token_hash,
            LobbyRow.status == "open",
        )
        .values(status="cancelled")
    )
    return bool(res.rowcount)  # type: ignore[attr-defined]


def claim_entries(
    s: Session,
    game_id: str,
    entries: list[str],
    present_since: datetime.datetime,
    twins: dict[str, Any],
    game: dict[str, Any],
) -> bool:
    """Seat a lobby game: the entries ``entries`` (open, seen since ``present_since``)
    are matched to the game ``game_id``; the open seeks of its players with its settings
    (``twins``: ``owners``, ``variant``, ``rounds``, ``clock``, ``rated``,
    ``achievements``) go to it too; the game row takes the values ``game``; both the lobby
    and the game are announced. Returns ``False``, having changed nothing else, if not
    every entry could be claimed (taken, cancelled or away meanwhile)."""
    res = s.execute(
        update(LobbyRow)
        .where(
            LobbyRow.id.in_(entries),
            LobbyRow.status == "open",
            LobbyRow.seen_at > present_since,
        )
        .values(status="matched", game_id=game_id)
    )
    if res.rowcount != len(entries):  # type: ignore[attr-defined]
        return False
    clock = twins["clock"]
    # (a player waiting in two pages for the same game: both pages go to this one)
    s.execute(
        update(LobbyRow)
        .where(
            LobbyRow.owner.in_(twins["owners"]),
            LobbyRow.kind == "seek",
            LobbyRow.status == "open",
            LobbyRow.variant == twins["variant"],
            LobbyRow.rounds == twins["rounds"],
            LobbyRow.clock.is_(None) if clock is None else LobbyRow.clock == clock,
            LobbyRow.rated == twins["rated"],
            LobbyRow.achievements == twins["achievements"],
        )
        .values(status="playing", game_id=game_id)
    )
    s.execute(update(GameRow).where(GameRow.id == game_id).values(**game))
    notify_lobby(s)
    notify_change(s, [game_id])
    return True


def drop_stale(s: Session, stale: datetime.datetime) -> int:
    """Cancel the open entries not seen since ``stale`` and forget the players not seen
    since then; returns how many entries were cancelled."""
    res = s.execute(
        update(LobbyRow)
        .where(LobbyRow.status == "open", LobbyRow.seen_at < stale)
        .values(status="cancelled")
    )
    s.execute(delete(PresenceRow).where(PresenceRow.seen_at < stale))
    return int(res.rowcount or 0)  # type: ignore[attr-defined]
