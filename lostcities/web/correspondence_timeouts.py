"""Correspondence games (days per move): a game whose player to move let the clock run
out is timed out even if nobody opened it since the server started.

A live game runs its own clock (:meth:`LiveGame.schedule_clock
<lostcities.web.live_game.LiveGame.schedule_clock>`) once it is in memory; a correspondence game
may sit in the database only, across restarts, for days. :func:`time_out_due` (run by the
lobby's tick every :data:`SWEEP_SECONDS`) loads each such game that is past its time: the
live game's clock then forfeits the player to move, on the process that runs the game's
bots (one process of several).
"""

from __future__ import annotations

import asyncio
import datetime

from lostcities.web.clocks import DAY
from lostcities.web.game_manager import GameManager
from lostcities.web.repositories import games
from lostcities.web.store import GameStore

__all__ = ["SWEEP_SECONDS", "due_sync", "time_out_due"]

SWEEP_SECONDS = 30.0
"""How often a process looks for correspondence games past their time."""


def due_sync(store: GameStore, now: datetime.datetime) -> list[str]:
    """Ids of running correspondence games whose player to move is past the clock."""
    return [
        gid
        for gid, updated, clock in games.running_clocks(store.engine, DAY)
        if updated + datetime.timedelta(seconds=clock) < now
    ]


async def time_out_due(mgr: GameManager) -> int:
    """Load every correspondence game past its time, so that its clock times it out;
    returns how many were found."""
    ids = await asyncio.to_thread(due_sync, mgr.store, mgr.now())
    for gid in ids:
        g = await mgr.get(gid)
        g.schedule_clock()
    return len(ids)
