"""The lobby: open tables, "play now" seeks, who is online, one lobby for every server
process.

The database holds the lobby (``lc_lobby``, ``lc_presence``), so every process sees the same
one. A write that changes it sends ``NOTIFY lostcities_lobby`` in its own transaction
(PostgreSQL; delivered at commit); each process listens and, on a notification (or after
its own write, on SQLite), reads the lobby again and pushes it to its lobby pages (a
server-sent event stream, :meth:`LobbyHub.events`).

Taking a seat is one conditional update (``WHERE status = 'open'``) in the same transaction
that seats both players in the new game, so of two players joining one table (on one
process or two) one gets it and the other is told it is gone; a pair of seeks is claimed
the same way. Each entry carries the hash of its owner's token, which becomes the owner's
seat token once the game starts: the owner's page learns the game id from the lobby and
plays with the token it already has.

An entry lives as long as the lobby page that opened it: the page names itself (a random
id) when it opens the entry, and its event stream keeps the entry (:meth:`LobbyHub.events`).
When that stream closes, the entry is away at once (neither listed nor paired, nor can its
table be joined) and dropped :data:`STALE_SECONDS` - :data:`PRESENT_SECONDS` seconds later
unless the page comes back (a reload, a reconnection). An entry whose page is on a process
that died is away after :data:`PRESENT_SECONDS`. A player counts once among those waiting,
whatever the number of their seeks, and when a game starts, each seated player's other
open seeks with the game's settings go to it too (status ``playing``: every page of theirs
that waits for the same game follows it).

"Play now" pairs two waiting seeks with the same settings. A casual pair is any two; a
rated pair needs ratings within both seekers' ranges: a range starts at
:data:`RANGE_START` points and widens by :data:`RANGE_WIDEN` points a second to
:data:`RANGE_MAX` (:func:`rating_range`). Every process runs the pairing every :data:`TICK`
seconds (and at once when a seek arrives).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from lostcities.web import correspondence_timeouts as correspondence
from lostcities.web import ratings, schemas
from lostcities.web.accounts import blocked_between
from lostcities.web.clocks import parse_clock
from lostcities.web.errors import (
    BlockedError,
    EntryGoneError,
    NeedsAccountError,
    TooManyEntriesError,
)
from lostcities.web.game_manager import GameManager, new_token
from lostcities.web.models.base import utcnow
from lostcities.web.models.lobby import LobbyRow
from lostcities.web.repositories import lobby as lobby_data
from lostcities.web.repositories import ratings as rating_data
from lostcities.web.repositories.games import op_delete_game
from lostcities.web.repositories.lobby import LOBBY_CHANNEL, notify_lobby
from lostcities.web.store import GameStore, hash_token

__all__ = [
    "LOBBY_CHANNEL",
    "HEARTBEAT",
    "ONLINE_SECONDS",
    "PRESENT_SECONDS",
    "RANGE_MAX",
    "RANGE_START",
    "RANGE_WIDEN",
    "STALE_SECONDS",
    "TICK",
    "LobbyHub",
    "NewEntry",
    "Opened",
    "Player",
    "HIDDEN",
    "rating_range",
    "seen_by",
]

log = logging.getLogger("lostcities.web")

TICK = 1.0
"""Seconds between two pairing rounds (and clean-ups) of a process."""
STALE_SECONDS = 45.0
"""An open entry whose page has not been seen for this long is dropped."""
ONLINE_SECONDS = 40.0
"""A player seen on a lobby page within this many seconds is online."""
HEARTBEAT = 15.0
"""A lobby page's stream says its player (and its entries) are there every this many
seconds, and sends a comment after this many seconds without a change (which keeps proxies
from closing it)."""
PRESENT_SECONDS = 2 * HEARTBEAT
"""An open entry whose page has not been seen for this long (or whose page closed) is away:
not listed, not paired, its table not joined."""
RANGE_START, RANGE_WIDEN, RANGE_MAX = 100.0, 10.0, 600.0
"""The rating range of a seek (points either side), its widening a second, its limit."""
MAX_ENTRIES = 3
"""Open entries one player may have at once."""
HIDDEN = "_hidden"
"""The key of a lobby table's private list of the accounts it is hidden from (its owner
blocked them, or they blocked its owner): :func:`seen_by` takes it out of every message."""


def seen_by(msg: dict[str, Any], account_id: int | None) -> dict[str, Any]:
    """The lobby message ``msg`` (the whole lobby, or a delta) as the page of the account
    ``account_id`` (``None``: a guest) gets it: without the tables of players it blocked or
    who blocked it (a changed table that is now hidden from it is removed instead: a block
    made while the page is open), and without the private :data:`HIDDEN` lists.

    >>> delta = {"type": "delta", "added": [{"id": "t", HIDDEN: [7]}], "removed": []}
    >>> seen_by(delta, 7)["added"], seen_by(delta, 7)["removed"], seen_by(delta, 8)["added"]
    ([], ['t'], [{'id': 't'}])
    """
    out = dict(msg)
    key = "added" if "added" in msg else "tables"
    shown: list[dict[str, Any]] = []
    gone: list[str] = []
    for t in msg.get(key, []):
        if account_id is not None and account_id in t.get(HIDDEN, ()):
            gone.append(t["id"])
        else:
            shown.append({k: v for k, v in t.items() if k != HIDDEN})
    out[key] = shown
    if key == "added" and gone:
        out["removed"] = [*msg.get("removed", []), *gone]
    return out


def _hides(msg: dict[str, Any], account_id: int | None) -> bool:
    """Whether ``msg`` has a table hidden from ``account_id``."""
    if account_id is None:
        return False
    return any(account_id in t.get(HIDDEN, ()) for t in msg.get("added", msg.get("tables", [])))


def _chunk(msg: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(msg)}\n\n".encode()


def rating_range(waited: float) -> float:
    """The points either side of a seek's rating it accepts after ``waited`` seconds.

    >>> rating_range(0), rating_range(10), rating_range(3600)
    (100.0, 200.0, 600.0)
    """
    return min(RANGE_MAX, RANGE_START + RANGE_WIDEN * max(0.0, waited))


@dataclass(frozen=True)
class Player:
    """Who asks: a signed-in account or a guest's browser."""

    key: str
    """``a:<account id>``, or ``g:<hash of the browser's id>``."""
    name: str
    account_id: int | None = None

    @classmethod
    def guest(cls, browser_id: str, name: str) -> Player:
        """A guest, known by a random id its browser keeps (only a hash is stored)."""
        return cls("g:" + hash_token(browser_id)[:32], name or "Guest")

    @classmethod
    def account(cls, account_id: int, username: str) -> Player:
        """A signed-in player."""
        return cls(f"a:{account_id}", username, account_id)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class NewEntry(_In):
    """``POST /api/lobby/tables`` (an open table) or ``/api/lobby/seeks`` ("play now")."""

    variant: schemas.VariantName = "classic"
    rounds: Literal[1, 3] = 3
    clock: schemas.ClockChoice | None = None
    rated: bool = False
    achievements: bool = False
    name: schemas.Name = ""
    """A guest's name (a signed-in player plays under the username)."""
    browser: str = Field(default="", max_length=64)
    """The guest browser's random id (who is online; a guest's own entries)."""
    page: str = Field(default="", max_length=32, pattern=r"^[A-Za-z0-9_-]*$")
    """The lobby page's random id (as it names itself to ``/api/lobby/events``): the entry
    lives as long as that page; ``""``: as long as any lobby page of its owner."""


class EntryToken(_In):
    """``POST /api/lobby/{id}/cancel``, ``/join``, ``/status``: the entry and a token."""

    token: schemas.Token = ""
    """The owner's token (cancel, status)."""
    name: schemas.Name = ""
    browser: str = Field(default="", max_length=64)


def _clock_text(clock: int | str | None) -> str | None:
    return None if clock is None else str(clock)


def _speed(clock: str | None) -> str:
    choice: int | str | None = clock
    if clock is not None and clock.isdigit():
        choice = int(clock)
    base, inc = parse_clock(choice)
    return ratings.speed_of(base, inc)


def rating_of(
    s: Session, player: Player, variant: str, speed: str, now: datetime.datetime | None = None
) -> ratings.Rating:
    """``player``'s rating as of ``now`` (the default for a guest or a newcomer; the
    deviation grown for the periods they were idle: :func:`ratings.rating_now`)."""
    if player.account_id is None:
        return ratings.DEFAULT
    row = rating_data.rating(s, player.key, variant, speed)
    return ratings.DEFAULT if row is None else ratings.rating_now(row, now or utcnow())


@dataclass(frozen=True)
class Opened:
    """A new table or seek: its id, its owner's token, the owner's rating (a guest: none)."""

    id: str
    token: str
    rating: float | None


@dataclass
class Seated:
    """A started lobby game: its id and the token of the player who took the seat."""

    game_id: str
    token: str
    seat: int


class LobbyHub:
    """One process's lobby: its writes, its view of the lobby, its pages' streams."""

    def __init__(self, mgr: GameManager) -> None:
        self.mgr = mgr
        self.store: GameStore = mgr.store
        self.version = 0
        self.snapshot: dict[str, Any] = {"version": 0, "tables": [], "seeks": 0, "online": []}
        self._subscribers: set[_Subscriber] = set()
        self._refreshing = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._listener: threading.Thread | None = None
        self._stop = threading.Event()
        self._dirty = asyncio.Event()
        self.now: Callable[[], datetime.datetime] = utcnow
        """The lobby's clock (tests move it)."""
        self.refreshes = 0
        self.settler = ratings.Settler(mgr)
        """Settles the rated matches of this process (and those a dead one left)."""
        self._ticks = 0
        self._pages: dict[tuple[str, str], int] = {}
        """The event streams open here of each (player, page)."""
        self._closing: set[asyncio.Task[None]] = set()

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self, *, tick: float | None = TICK) -> None:
        """Read the lobby, listen for other processes' changes (PostgreSQL) and, unless
        ``tick`` is ``None``, pair and clean up every ``tick`` seconds."""
        self._loop = asyncio.get_running_loop()
        self.mgr.on_match_end.append(self.settler.on_match_end)
        await self.refresh()
        if self.mgr.peers.shared:
            self._listen()
        self._task = self._loop.create_task(self._run(tick))

    def _listen(self) -> None:
        import psycopg
        from sqlalchemy.engine import make_url

        url = make_url(self.store.url).set(drivername="postgresql")
        plain = url.render_as_string(hide_password=False)
        loop = self._loop
        assert loop is not None

        def listen() -> None:
            while not self._stop.is_set():
                try:
                    with psycopg.connect(plain, autocommit=True) as conn:
                        conn.execute(f"LISTEN {LOBBY_CHANNEL}")
                        loop.call_soon_threadsafe(self._dirty.set)
                        while not self._stop.is_set():
                            for _ in conn.notifies(timeout=0.5):
                                loop.call_soon_threadsafe(self._dirty.set)
                except Exception as e:  # the database went away: listen again
                    if self._stop.is_set():
                        return
                    log.warning("listening for lobby changes failed: %s; retrying", e)
                    self._stop.wait(1.0)

        self._listener = threading.Thread(target=listen, name="lostcities-lobby", daemon=True)
        self._listener.start()

    async def _run(self, tick: float | None) -> None:
        waited = 0.0
        while True:
            timeout = 0.5 if tick is None else min(tick, 0.5)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._dirty.wait(), timeout)
            if self._dirty.is_set():
                self._dirty.clear()
                await self._safe(self.refresh())
            waited += timeout
            if tick is not None and waited >= tick:
                waited = 0.0
                await self._safe(self.tick())

    async def _safe(self, work: Any) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("lobby: %s", e)

    async def close(self) -> None:
        """Stop listening and pairing."""
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        if self._listener is not None:
            await asyncio.to_thread(self._listener.join, 2.0)
        if self._closing:  # the last pages' entries, marked away before the store closes
            await asyncio.wait(set(self._closing), timeout=2.0)

    # -- the view -----------------------------------------------------------------------

    def _present_since(self, now: datetime.datetime) -> datetime.datetime:
        return now - datetime.timedelta(seconds=PRESENT_SECONDS)

    def _read(self) -> dict[str, Any]:
        now = self.now()
        online_since = now - datetime.timedelta(seconds=ONLINE_SECONDS)
        rows, people, online, blocks = lobby_data.snapshot(
            self.store.engine, self._present_since(now), online_since
        )
        shunned: dict[int, set[int]] = {}
        for a, b in blocks:
            shunned.setdefault(a, set()).add(b)
            shunned.setdefault(b, set()).add(a)
        tables = []
        seekers: set[str] = set()  # (a player with two seeks waits once)
        for r in rows:
            if r.kind == "seek":
                seekers.add(r.owner)
                continue
            owner = _account(r.owner)
            tables.append(
                {
                    "id": r.id,
                    "variant": r.variant,
                    "rounds": r.rounds,
                    "clock": r.clock,
                    "rated": r.rated,
                    "achievements": r.achievements,
                    "owner": r.owner_name,
                    "owner_account": r.owner.startswith("a:"),
                    "rating": None if r.owner_rating is None else round(r.owner_rating),
                    "created_at": r.created_at.isoformat() + "Z",
                    # (never sent: the accounts this table is hidden from, seen_by)
                    HIDDEN: sorted(shunned.get(owner, ())) if owner is not None else [],
                }
            )
        return {
            "tables": tables,
            "seeks": len(seekers),
            "online": [{"name": n, "account": a is not None, "bot": b} for n, a, b in people],
            "online_count": online,
        }

    async def refresh(self) -> None:
        """Read the lobby again and, if it changed, send the change to every page here
        (:meth:`events`)."""
        async with self._refreshing:  # one at a time: the versions go up in order
            view = await asyncio.to_thread(self._read)
            self.refreshes += 1
            old = self.snapshot
            if self.version and all(view[k] == old.get(k) for k in view):
                return
            self.version += 1
            self.snapshot = {"version": self.version, **view}
            delta = _delta(old, self.snapshot)
            chunk = _chunk(seen_by(delta, None))
            for sub in list(self._subscribers):  # (encoded once for every page it suits)
                who = sub.account_id
                sub.push(_chunk(seen_by(delta, who)) if _hides(delta, who) else chunk)

    async def events(self, player: Player | None, page: str = "") -> AsyncIterator[bytes]:
        """The server-sent events of one lobby page: the lobby now, then each change (and
        a comment after :data:`HEARTBEAT` quiet seconds, so proxies keep the stream open).
        Meanwhile the page's player is marked online and the entries the page opened (and
        those its player opened without a page) are kept; when the stream closes, the
        page's entries are away (:meth:`page_closed`). A signed-in player's page never
        gets the tables of players they blocked or who blocked them (:func:`seen_by`)."""
        sub = _Subscriber(None if player is None else player.account_id)
        self._subscribers.add(sub)
        key = None if player is None or not page else (player.key, page)
        if key is not None:
            self._pages[key] = self._pages.get(key, 0) + 1
        loop = asyncio.get_running_loop()
        try:
            if player is not None:
                await self.seen(player, page)
            said = loop.time()
            yield _chunk(seen_by({"type": "full", **self.snapshot}, sub.account_id))
            while True:
                try:
                    await asyncio.wait_for(sub.ready.wait(), HEARTBEAT)
                    chunks, full = sub.take()
                    if full:  # this page fell behind: the whole lobby again
                        chunks = [
                            _chunk(seen_by({"type": "full", **self.snapshot}, sub.account_id))
                        ]
                except TimeoutError:
                    chunks = [b": keep-alive\n\n"]
                if player is not None and loop.time() - said >= HEARTBEAT:
                    # (a busy lobby's changes leave no quiet time: the page is there all the same)
                    await self.seen(player, page)
                    said = loop.time()
                yield b"".join(chunks)
        finally:
            self._subscribers.discard(sub)
            if key is not None:
                self._pages[key] -= 1
                if not self._pages[key]:
                    del self._pages[key]
                    assert player is not None
                    # (a task of its own: this stream is being cancelled, and any await here
                    # would be too)
                    task = loop.create_task(self._safe(self.page_closed(player, page)))
                    self._closing.add(task)
                    task.add_done_callback(self._closing.discard)

    async def blocks_changed(self) -> None:
        """A player blocked or unblocked another: every process reads its lobby again (the
        tables each page may see changed, :func:`seen_by`)."""
        await self.store.write(notify_lobby)
        loop = self._loop
        if loop is not None and loop is not asyncio.get_running_loop():
            # called from another event loop than the hub's (a test client's second
            # portal): the hub's lock and pages live on its own loop, so read there
            asyncio.run_coroutine_threadsafe(self._changed(), loop)
            return
        await self._changed()

    async def _changed(self) -> None:
        # (with PostgreSQL the notification also comes back to this process; reading now
        # makes this process's pages and answers see its own write at once)
        await self.refresh()

    # -- presence -----------------------------------------------------------------------

    async def seen(self, player: Player, page: str = "") -> None:
        """``player`` is on a lobby page now: the page ``page`` (``""``: one that names no
        page); the open entries of that page and those of the player that name none are
        kept (and come back if they were away)."""
        now = self.now()
        online_since = now - datetime.timedelta(seconds=ONLINE_SECONDS)

        def fn(s: Session) -> bool:
            new = lobby_data.touch_presence(
                s, player.key, player.name[:40], player.account_id, now, online_since
            )
            back = lobby_data.mark_present(s, player.key, page, now, self._present_since(now))
            if new or back:
                notify_lobby(s)
            return new or bool(back)

        if await self.store.write(fn):
            await self._changed()

    async def page_closed(self, player: Player, page: str) -> None:
        """The lobby page ``page`` of ``player`` closed (its event stream ended): the open
        entries it opened are away at once, and dropped unless it comes back
        (:data:`PRESENT_SECONDS`, :data:`STALE_SECONDS`)."""
        if (player.key, page) in self._pages:  # another stream of the page is open here
            return
        now = self.now()
        away = self._present_since(now)

        def fn(s: Session) -> bool:
            done = lobby_data.mark_away(s, player.key, page, away)
            if done:
                notify_lobby(s)
            return done

        if await self.store.write(fn):
            await self._changed()

    # -- entries ------------------------------------------------------------------------

    async def open(self, player: Player, req: NewEntry, kind: str) -> Opened:
        """Open a table (``kind`` ``table``) or a seek (``seek``) of the page ``req.page``;
        returns its id, the owner's token and rating.

        :raises NeedsAccountError: for a rated entry of a guest.
        :raises TooManyEntriesError: for a player with :data:`MAX_ENTRIES` open already.
        """
        if req.rated and player.account_id is None:
            raise NeedsAccountError("sign in to play rated games (guests play casual games)")
        token = new_token()
        entry_id = secrets.token_urlsafe(9)
        clock = _clock_text(req.clock)
        speed = _speed(clock)
        now = self.now()

        def fn(s: Session) -> float | None:
            if lobby_data.count_open(s, player.key) >= MAX_ENTRIES:
                raise TooManyEntriesError(
                    f"you have {MAX_ENTRIES} open tables or seeks already: cancel one first"
                )
            rating = rating_of(s, player, req.variant, speed, now).rating
            owner_rating = rating if player.account_id is not None else None
            lobby_data.add_entry(
                s,
                LobbyRow(
                    id=entry_id,
                    created_at=now,
                    seen_at=now,
                    kind=kind,
                    status="open",
                    variant=req.variant,
                    rounds=req.rounds,
                    clock=clock,
                    rated=req.rated,
                    achievements=req.achievements,
                    owner=player.key,
                    owner_name=player.name[:40],
                    owner_rating=owner_rating,
                    token_hash=hash_token(token),
                    page=req.page or None,
                ),
            )
            notify_lobby(s)
            return owner_rating

        rating: float | None = await self.store.write(fn)
        await self._changed()
        if kind == "seek":
            await self.pair()
        return Opened(entry_id, token, rating)

    async def cancel(self, entry_id: str, token: str) -> bool:
        """Cancel an open entry with its owner's token; returns whether it was open."""
        h = hash_token(token)

        def fn(s: Session) -> bool:
            done = lobby_data.cancel(s, entry_id, h)
            if done:
                notify_lobby(s)
            return done

        done: bool = await self.store.write(fn)
        if done:
            await self._changed()
        return done

    def status_sync(self, entry_id: str, token: str) -> dict[str, Any]:
        """An entry's status for its owner: ``open``, ``matched`` (with the game id),
        ``playing`` (its owner's twin seek was matched: the game id; their seat there has
        the twin's token, or their account) or ``cancelled``.

        :raises EntryGoneError: for an unknown entry or a wrong token.
        """
        row = lobby_data.entry(self.store.engine, entry_id)
        if row is None or not secrets.compare_digest(row.token_hash, hash_token(token)):
            raise EntryGoneError("no such table or seek")
        return {"id": row.id, "status": row.status, "game_id": row.game_id}

    async def join(self, entry_id: str, player: Player) -> Seated:
        """Take the other seat at an open table: the game starts at once.

        :raises EntryGoneError: if the table is gone (taken, cancelled) or is the player's own.
        :raises NeedsAccountError: for a rated table and a guest.
        """
        row = lobby_data.entry(self.store.engine, entry_id)
        away = row is not None and row.seen_at <= self._present_since(self.now())
        if row is None or row.status != "open" or row.kind != "table" or away:
            raise EntryGoneError("this table is gone: someone else took the seat, or it closed")
        if row.owner == player.key:
            raise EntryGoneError("this is your own table: wait for someone to join it")
        if row.rated and player.account_id is None:
            raise NeedsAccountError("sign in to play rated games (guests play casual games)")
        if await blocked_between(self.store, _account(row.owner), player.account_id):
            raise BlockedError("you cannot join this player's table")
        token = new_token()
        game_id = await self._start(
            row.variant,
            row.rounds,
            row.clock,
            row.rated,
            row.achievements,
            (row.id, row.owner, row.owner_name, row.token_hash),
            (None, player.key, player.name, hash_token(token)),
        )
        return Seated(game_id, token, 1)

    async def _start(
        self,
        variant: str,
        rounds: int,
        clock: str | None,
        rated: bool,
        achievements: bool,
        seat0: tuple[str | None, str, str, str],
        seat1: tuple[str | None, str, str, str],
    ) -> str:
        """Create the game and seat both (each seat: its entry id or ``None``, player key,
        name, token hash), claiming the entries (open and present) in the same transaction;
        the two players' other open seeks with these settings go to the game too."""
        choice: int | str | None = clock
        if clock is not None and clock.isdigit():
            choice = int(clock)
        req = schemas.CreateGame(
            opponent="friend",
            variant=variant,  # type: ignore[arg-type]
            rounds=rounds,  # type: ignore[arg-type]
            name=seat0[2],
            achievements=achievements,
            clock=choice,  # type: ignore[arg-type]
        )
        g, _, _ = await self.mgr.create(req)
        entries = [e[0] for e in (seat0, seat1) if e[0] is not None]
        accounts = [_account(seat0[1]), _account(seat1[1])]
        now = utcnow()
        present = self._present_since(self.now())
        twins = {
            "owners": (seat0[1], seat1[1]),
            "variant": variant,
            "rounds": rounds,
            "clock": clock,
            "rated": rated,
            "achievements": achievements,
        }
        seated = {
            "token0": seat0[3],
            "token1": seat1[3],
            "name1": seat1[2][:40],
            "invite": None,
            "status": "active",
            "account0": accounts[0],
            "account1": accounts[1],
            "rated": rated,
            "updated_at": now,
        }

        def fn(s: Session) -> None:
            if not lobby_data.claim_entries(s, g.id, entries, present, twins, seated):
                raise EntryGoneError("this table is gone: someone else took the seat, or it closed")

        try:
            await self.store.write(fn)
        except EntryGoneError:
            await self.store.write(op_delete_game(g.id))
            self.mgr.games.pop(g.id, None)
            raise
        row = g.row
        row.token0, row.token1, row.name1, row.invite = seat0[3], seat1[3], seat1[2][:40], None
        row.status, row.account0, row.account1, row.rated = "active", *accounts, rated
        row.updated_at = now
        await self._changed()
        await g.broadcast()
        return g.id

    # -- pairing and clean-up -----------------------------------------------------------

    async def pair(self) -> int:
        """Start a game for every two waiting seeks that fit (module docs); returns how
        many started."""
        now = self.now()
        seeks = lobby_data.open_seeks(self.store.engine, self._present_since(now))
        started = 0
        busy: set[str] = set()  # (the players seated by this round: their twins went too)
        for i, a in enumerate(seeks):
            if a.owner in busy:
                continue
            for b in seeks[i + 1 :]:
                if b.owner in busy or b.owner == a.owner:
                    continue
                if not _fits(a, b, now):
                    continue
                if await blocked_between(self.store, _account(a.owner), _account(b.owner)):
                    continue  # a blocked pair is never paired
                try:
                    await self._start(
                        a.variant,
                        a.rounds,
                        a.clock,
                        a.rated,
                        a.achievements,
                        (a.id, a.owner, a.owner_name, a.token_hash),
                        (b.id, b.owner, b.owner_name, b.token_hash),
                    )
                except EntryGoneError:  # another process paired one of them first
                    continue
                busy |= {a.owner, b.owner}
                started += 1
                break
        return started

    async def tick(self) -> None:
        """Pair seeks; drop entries whose owners left; every so often settle the ratings a
        dead process left and time out correspondence games past their time."""
        self._ticks += 1
        await self.pair()
        if self._ticks % 10 == 1:
            await self.settler.sweep()
        if self._ticks % int(correspondence.SWEEP_SECONDS / TICK) == 1:
            await correspondence.time_out_due(self.mgr)
        stale = self.now() - datetime.timedelta(seconds=STALE_SECONDS)

        def fn(s: Session) -> int:
            n = lobby_data.drop_stale(s, stale)
            if n:
                notify_lobby(s)
            return n

        if await self.store.write(fn):
            await self._changed()


class _Subscriber:
    """One lobby page's pending changes (at most :data:`BACKLOG`; past that it gets the
    whole lobby again)."""

    BACKLOG = 32

    def __init__(self, account_id: int | None = None) -> None:
        self.account_id = account_id
        """The page's signed-in account (``None``: a guest)."""
        self.pending: list[bytes] = []
        self.full = False
        self.ready = asyncio.Event()

    def push(self, chunk: bytes) -> None:
        if len(self.pending) >= self.BACKLOG:
            self.pending.clear()
            self.full = True
        elif not self.full:
            self.pending.append(chunk)
        self.ready.set()

    def take(self) -> tuple[list[bytes], bool]:
        chunks, full = self.pending, self.full
        self.pending, self.full = [], False
        self.ready.clear()
        return chunks, full


def _delta(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What changed from the lobby ``old`` to ``new``: the tables added (or changed) and
    removed, and the counts and names that changed (a page applies it to the lobby it has,
    at version ``base``).

    >>> a = {"version": 1, "tables": [{"id": "x"}, {"id": "y"}], "seeks": 0}
    >>> b = {"version": 2, "tables": [{"id": "y"}, {"id": "z"}], "seeks": 1}
    >>> _delta(a, b)
    {'type': 'delta', 'version': 2, 'base': 1, 'added': [{'id': 'z'}], 'removed': ['x'], 'seeks': 1}
    """
    before = {t["id"]: t for t in old.get("tables", [])}
    after = {t["id"]: t for t in new["tables"]}
    out: dict[str, Any] = {
        "type": "delta",
        "version": new["version"],
        "base": old.get("version", 0),
        "added": [t for i, t in after.items() if before.get(i) != t],
        "removed": [i for i in before if i not in after],
    }
    for key in ("seeks", "online", "online_count"):
        if key in new and new[key] != old.get(key):
            out[key] = new[key]
    return out


def _account(key: str) -> int | None:
    return int(key[2:]) if key.startswith("a:") else None


def _fits(a: Any, b: Any, now: datetime.datetime) -> bool:
    """Whether two seeks make a game: the same settings and, for a rated pair, ratings
    within both ranges (a casual pair is any two)."""
    same = (a.variant, a.rounds, a.clock, a.rated, a.achievements) == (
        b.variant,
        b.rounds,
        b.clock,
        b.rated,
        b.achievements,
    )
    if not same:
        return False
    if not a.rated or a.owner_rating is None or b.owner_rating is None:
        return True
    gap = abs(float(a.owner_rating) - float(b.owner_rating))
    wa = (now - a.created_at).total_seconds()
    wb = (now - b.created_at).total_seconds()
    return gap <= min(rating_range(wa), rating_range(wb))
