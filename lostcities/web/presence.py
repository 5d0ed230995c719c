"""Who is at which table, for one server process (:mod:`lostcities.web.abandon` has the
rules this measures for): each seat's ``seen`` time kept in the database, written when a
connection says hello, when a seat's last connection here closes, and every
:attr:`Presence.beat` seconds for the seats connected here."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from lostcities.web.abandon import (
    ABANDON_AFTER,
    BEAT,
    abortable,
    away_since,
    claims_apply,
    seen_at,
)
from lostcities.web.peers import Peers
from lostcities.web.repositories.games import op_seen
from lostcities.web.store import GameStore

if TYPE_CHECKING:
    from lostcities.web.conns import Conn
    from lostcities.web.live_game import LiveGame

__all__ = ["Presence", "PresenceHost"]

log = logging.getLogger("lostcities.web")


class PresenceHost(Protocol):
    """What presence reads of the server process (the game manager): its clock (tests
    shift it), the games held here, the store and whether other processes share it."""

    @property
    def now(self) -> Callable[[], datetime.datetime]: ...
    @property
    def games(self) -> Mapping[str, LiveGame]: ...
    @property
    def store(self) -> GameStore: ...
    @property
    def peers(self) -> Peers: ...


class Presence:
    """Who is at which table, for one server process (module docs): each seat's ``seen``
    time kept in the database, and the claims and aborts it allows."""

    def __init__(self, mgr: PresenceHost, after: float = ABANDON_AFTER) -> None:
        if after <= 0:
            raise ValueError(f"invalid abandon time: {after!r} (expected seconds above 0)")
        self.mgr = mgr
        self.after = float(after)
        """Seconds a player must have been away before the opponent may claim."""
        self.beat = min(BEAT, self.after / 4)
        """Seconds between two writes of the seats connected here."""
        self._task: asyncio.Task[None] | None = None
        self._shown: dict[str, tuple[bool, bool]] = {}
        """Per game held here, which seats were away at the last beat (several processes)."""

    @property
    def now(self) -> Callable[[], datetime.datetime]:
        """The clock (naive UTC): the game manager's (tests shift it)."""
        return self.mgr.now

    @staticmethod
    def here(g: LiveGame, seat: int) -> bool:
        """Whether a connection of ``seat`` is open on this process."""
        return any(c.alive and c.seat == seat for c in g.conns)

    def away_for(self, g: LiveGame, seat: int) -> float | None:
        """Seconds ``seat`` has been away from its table (module docs), or ``None`` while
        it is there, or where no claim may come (:meth:`claim_after`: a bot's seat, a game
        not running, or one that can still be aborted)."""
        row = g.row
        if row.status != "active" or self.here(g, seat) or self.claim_after(g) is None:
            return None
        gone = max(0.0, (self.now() - away_since(row, seat)).total_seconds())
        if self.mgr.peers.shared and gone <= 2 * self.beat:
            return None  # (another process may hold a connection: it writes every beat)
        return round(gone, 1)

    def claim_after(self, g: LiveGame) -> float | None:
        """The seconds of absence after which a claim is allowed in ``g``, or ``None`` where
        there are no claims (:func:`claims_apply`), or not yet (it can still be aborted)."""
        if not claims_apply(g.row) or abortable(g.match):
            return None
        return self.after

    async def _mark(self, g: LiveGame, seat: int) -> None:
        now = self.now()
        await self.mgr.store.write(op_seen([(g.id, seat)], now))
        if seat == 0:
            g.row.seen0 = now
        else:
            g.row.seen1 = now

    async def arrived(self, g: LiveGame, conn: Conn) -> None:
        """The connection ``conn`` of a seat said hello: the seat is at the table from now
        on. If it was away where a claim may come, the other connections get the state (the
        opponent's page drops its countdown)."""
        seat = conn.seat
        if seat is None or g.is_over():
            return
        shown = self.claim_after(g) is not None and self.away_for(g, seat) is not None
        others = [c for c in g.conns if c is not conn]
        if any(c.alive and c.seat == seat for c in others):
            shown = False  # (it was at the table already)
        await self._mark(g, seat)
        if shown:
            for c in others:
                await g.send(c, g.presenter.state(c.seat))

    async def left(self, g: LiveGame, seat: int) -> None:
        """A connection of ``seat`` closed: if it was the seat's last one here, the seat
        was last seen now, and (where a claim may come) every connection gets the state:
        the opponent's page shows how long until it may claim."""
        if self.here(g, seat) or g.is_over():
            return
        await self._mark(g, seat)
        if self.claim_after(g) is not None:
            await g.broadcast()

    # -- the beat --------------------------------------------------------------------------

    def start(self) -> None:
        """Write the seats connected here every :attr:`beat` seconds (and, with several
        processes, read the others' times), until :meth:`close`."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        """Stop the beat."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.beat)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the database is away: the next beat tries again
                log.warning("presence beat failed: %s", e)

    async def tick(self) -> None:
        """One beat: mark every seat connected here as seen now; with several processes,
        read the stored times of the games held here (the seats connected elsewhere), and
        send the state of each game whose absent seat changed."""
        games = [g for g in list(self.mgr.games.values()) if g.row.status == "active"]
        seats = sorted(
            {(g.id, c.seat) for g in games for c in g.conns if c.alive and c.seat is not None}
        )
        now = self.now()
        if seats:
            await self.mgr.store.write(op_seen(seats, now))
            for g in games:
                for seat in (0, 1):
                    if (g.id, seat) in seats:
                        setattr(g.row, f"seen{seat}", now)
        if not self.mgr.peers.shared:
            return
        held = [g for g in games if g.conns and self.claim_after(g) is not None]
        shown, self._shown = self._shown, {}
        if not held:
            return
        stored = await asyncio.to_thread(self.mgr.store.seen_sync, [g.id for g in held])
        for g in held:
            for seat, theirs in enumerate(stored.get(g.id, (None, None))):
                mine = seen_at(g.row, seat)
                if theirs is not None and (mine is None or theirs > mine):
                    setattr(g.row, f"seen{seat}", theirs)
            away = (self.away_for(g, 0) is not None, self.away_for(g, 1) is not None)
            self._shown[g.id] = away
            if shown.get(g.id, (False, False)) != away:
                await g.broadcast()
