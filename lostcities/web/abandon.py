"""Players who leave a game: abort it before both have moved, or claim the win or a draw once
the opponent has been gone long enough (issue 37), as lichess rules them.

**Who is at the table** is measured by the server, never told by a client: a seat is at
the table while one of its WebSocket connections is open, on any server process. Each game
row keeps, per seat, when the seat was last known there (``seen0``, ``seen1``): written when
a connection says hello, when the seat's last connection on a process closes, and every
:attr:`Presence.beat` seconds by each process for the seats connected to it
(:meth:`Presence.tick`). A seat with no connection on this process is *away* since its
``seen`` time (since the game's last change if it was never seen); with several processes
(PostgreSQL) it counts as away only once that time is older than two beats, since another
process holding a connection of it writes it every beat.

**The rules**:

- *Abort*: until both players have moved (the first two moves of the first round), either
  player may abort the game. It ends with no result (``ending`` ``aborted``, result ``*``)
  and changes no rating.
- *Claim*: in a game between two people without a correspondence clock (a correspondence
  game's clock ends it: :mod:`lostcities.web.correspondence`), once both have moved, when
  the opponent has been away for :attr:`Presence.after` seconds (default
  :data:`ABANDON_AFTER`, two minutes; ``LOSTCITIES_ABANDON_SECONDS``), the other player may
  claim the win (the leaver forfeits the match with the reason :data:`ABANDONED`: rated as a
  win) or call it a draw (``1/2-1/2``: rated as a draw). Either way the game's ``ending``
  is ``abandoned``. A claim is checked again inside its write, against the stored time: a
  process that saw the opponent come back meanwhile has written it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
from typing import TYPE_CHECKING, Literal

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from lostcities.match import Match
from lostcities.web import clocks
from lostcities.web.errors import ClaimTooEarlyError, GameOverError
from lostcities.web.store import GameRow, MoveRow, RoundRow, notify_change, op_seen

if TYPE_CHECKING:
    from collections.abc import Callable

    from lostcities.web.games import GameManager
    from lostcities.web.live import Conn, LiveGame

__all__ = [
    "ABANDONED",
    "ABANDON_AFTER",
    "BEAT",
    "Claim",
    "Presence",
    "abortable",
    "claims_apply",
    "op_abort",
    "op_claim",
]

log = logging.getLogger("lostcities.web")

ABANDON_AFTER = 120.0
"""Seconds a player must have been away before the opponent may claim (lichess: about the
same for live games)."""
BEAT = 20.0
"""Seconds between two writes of the seats connected to a process (at most a quarter of
the claim's wait, so that a player connected elsewhere is never taken for away)."""
ABANDONED = "abandoned: left the game"
"""The forfeit reason of a player whose opponent claimed the win."""

Claim = Literal["win", "draw"]
"""What a player may claim once the opponent left: the win, or a draw."""


def abortable(match: Match) -> bool:
    """Whether the match may still be aborted: the first round has fewer than two moves
    (not both players have moved) and nothing ended it.

    >>> m = Match(rounds=1, seed=3)
    >>> r = m.new_round()
    >>> abortable(m)
    True
    >>> r.push(r.legal_moves()[0]); abortable(m)
    True
    >>> r.push(r.legal_moves()[0]); abortable(m)
    False
    """
    rounds = match.rounds
    return len(rounds) == 1 and rounds[0].ply < 2 and not match.is_over()


def claims_apply(row: GameRow) -> bool:
    """Whether a player of this game may claim when the other leaves: two people (no bot
    seat) and no correspondence clock (which ends the game itself).

    >>> claims_apply(GameRow(bot0=None, bot1=None, clock=None))
    True
    >>> claims_apply(GameRow(bot0=None, bot1="heuristic")), claims_apply(GameRow(clock=86400))
    (False, False)
    """
    return row.bot0 is None and row.bot1 is None and not clocks.is_correspondence(row)


def _seen(row: GameRow, seat: int) -> datetime.datetime | None:
    return row.seen0 if seat == 0 else row.seen1


def _away_since(row: GameRow, seat: int) -> datetime.datetime:
    """Since when ``seat`` counts as away if it is: its last ``seen`` time, else (never
    seen) the game's last change."""
    seen = _seen(row, seat)
    if seen is not None:
        return seen
    return row.updated_at or row.created_at


def op_abort(game_id: str, now: datetime.datetime) -> Callable[[Session], bool]:
    """End a game with no result (``ending`` ``aborted``) at ``now`` if it is still going
    and not both players have moved, as stored; returns whether it did."""

    def fn(s: Session) -> bool:
        row = s.get(GameRow, game_id, with_for_update=True)
        if row is None or row.status == "finished":
            return False
        moves = s.scalar(
            select(func.count()).select_from(MoveRow).where(MoveRow.game_id == game_id)
        )
        rounds = s.scalar(
            select(func.count()).select_from(RoundRow).where(RoundRow.game_id == game_id)
        )
        if (moves or 0) >= 2 or (rounds or 0) > 1:
            return False
        row.status, row.result, row.ending, row.updated_at = "finished", "*", "aborted", now
        notify_change(s, [game_id])
        return True

    return fn


def op_claim(
    game_id: str,
    round_index: int,
    leaver: int,
    claim: Claim,
    after: float,
    now: datetime.datetime,
) -> Callable[[Session], str]:
    """The leaver's opponent ends the game: the leaver forfeits the round and the match
    (``win``) or the match is drawn (``draw``), ``ending`` ``abandoned``; only if the game
    is still going and ``leaver`` has been away ``after`` seconds as stored (checked here,
    inside the write). Returns the result.

    :raises GameOverError: if the game ended meanwhile.
    :raises ClaimTooEarlyError: if the leaver was seen since.
    """

    def fn(s: Session) -> str:
        row = s.get(GameRow, game_id, with_for_update=True)
        if row is None or row.status != "active":
            raise GameOverError("the game is over")
        gone = (now - _away_since(row, leaver)).total_seconds()
        if gone < after:
            raise ClaimTooEarlyError(_too_early(gone, after))
        if claim == "win":
            result = "0-1" if leaver == 0 else "1-0"
            s.execute(
                update(RoundRow)
                .where(RoundRow.game_id == game_id, RoundRow.index == round_index)
                .values(forfeit=leaver, forfeit_reason=ABANDONED)
            )
        else:
            result = "1/2-1/2"
        row.status, row.result, row.ending, row.updated_at = "finished", result, "abandoned", now
        notify_change(s, [game_id])
        return result

    return fn


def _too_early(gone: float, after: float) -> str:
    left = max(1, int(after - gone + 0.999))
    return f"your opponent has been away {int(gone)} s: you can claim in {left} s"


class Presence:
    """Who is at which table, for one server process (module docs): each seat's ``seen``
    time kept in the database, and the claims and aborts it allows."""

    def __init__(self, mgr: GameManager, after: float = ABANDON_AFTER) -> None:
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
        gone = max(0.0, (self.now() - _away_since(row, seat)).total_seconds())
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
                await g.send(c, g.state(c.seat))

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
                mine = _seen(g.row, seat)
                if theirs is not None and (mine is None or theirs > mine):
                    setattr(g.row, f"seen{seat}", theirs)
            away = (self.away_for(g, 0) is not None, self.away_for(g, 1) is not None)
            self._shown[g.id] = away
            if shown.get(g.id, (False, False)) != away:
                await g.broadcast()
