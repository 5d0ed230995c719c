"""Players who leave a game: abort it before both have moved, or claim the win or a draw once
the opponent has been gone long enough (issue 37), as lichess rules them.

**Who is at the table** is measured by the server, never told by a client: a seat is at
the table while one of its WebSocket connections is open, on any server process. Each game
row keeps, per seat, when the seat was last known there (``seen0``, ``seen1``): written when
a connection says hello, when the seat's last connection on a process closes, and every
:attr:`Presence.beat <lostcities.web.presence.Presence.beat>` seconds by each process for the seats connected to it
(:meth:`Presence.tick <lostcities.web.presence.Presence.tick>`). A seat with no connection on this process is *away* since its
``seen`` time (since the game's last change if it was never seen); with several processes
(PostgreSQL) it counts as away only once that time is older than two beats, since another
process holding a connection of it writes it every beat.

**The rules**:

- *Abort*: until both players have moved (the first two moves of the first round), either
  player may abort the game. It ends with no result (``ending`` ``aborted``, result ``*``)
  and changes no rating.
- *Claim*: in a game between two people without a correspondence clock (a correspondence
  game's clock ends it: :mod:`lostcities.web.correspondence_timeouts`), once both have moved, when
  the opponent has been away for :attr:`Presence.after <lostcities.web.presence.Presence.after>` seconds (default
  :data:`ABANDON_AFTER`, two minutes; ``LOSTCITIES_ABANDON_SECONDS``), the other player may
  claim the win (the leaver forfeits the match with the reason :data:`ABANDONED`: rated as a
  win) or call it a draw (``1/2-1/2``: rated as a draw). Either way the game's ``ending``
  is ``abandoned``. A claim is checked again inside its write, against the stored time: a
  process that saw the opponent come back meanwhile has written it.
"""

from __future__ import annotations

import datetime
import logging
from typing import TYPE_CHECKING, Literal

from sqlalchemy.orm import Session

from lostcities.match import Match
from lostcities.web import clocks
from lostcities.web.errors import ClaimTooEarlyError, GameOverError
from lostcities.web.models.games import GameRow
from lostcities.web.repositories import games

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "ABANDONED",
    "ABANDON_AFTER",
    "BEAT",
    "Claim",
    "abortable",
    "away_since",
    "claims_apply",
    "op_abort",
    "op_claim",
    "seen_at",
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


def seen_at(row: GameRow, seat: int) -> datetime.datetime | None:
    """When ``seat`` was last known at the table (its ``seen`` column), or ``None``."""
    return row.seen0 if seat == 0 else row.seen1


def away_since(row: GameRow, seat: int) -> datetime.datetime:
    """Since when ``seat`` counts as away if it is: its last ``seen`` time, else (never
    seen) the game's last change."""
    seen = seen_at(row, seat)
    if seen is not None:
        return seen
    return row.updated_at or row.created_at


def op_abort(game_id: str, now: datetime.datetime) -> Callable[[Session], bool]:
    """End a game with no result (``ending`` ``aborted``) at ``now`` if it is still going
    and not both players have moved, as stored; returns whether it did."""

    def fn(s: Session) -> bool:
        row = games.lock_game(s, game_id)
        if row is None or row.status == "finished":
            return False
        moves, rounds = games.moves_and_rounds(s, game_id)
        if moves >= 2 or rounds > 1:
            return False
        games.finish(s, row, "*", "aborted", now)
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
        row = games.lock_game(s, game_id)
        if row is None or row.status != "active":
            raise GameOverError("the game is over")
        gone = (now - away_since(row, leaver)).total_seconds()
        if gone < after:
            raise ClaimTooEarlyError(_too_early(gone, after))
        if claim == "win":
            result = "0-1" if leaver == 0 else "1-0"
            games.set_round_forfeit(s, game_id, round_index, leaver, ABANDONED)
        else:
            result = "1/2-1/2"
        games.finish(s, row, result, "abandoned", now)
        return result

    return fn


def _too_early(gone: float, after: float) -> str:
    left = max(1, int(after - gone + 0.999))
    return f"your opponent has been away {int(gone)} s: you can claim in {left} s"
