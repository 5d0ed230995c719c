"""The timed work of a live game: the wait for the move clock's time-out
(:class:`ClockScheduler`) and the computer's turns (:class:`BotTurns`), each one task at a
time. Both act on the game through its own entry points (a forfeit, a submitted move, a
broadcast), as a client would."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import Protocol

from lostcities.rules import Move, PlayerView
from lostcities.web.errors import GameError, GameOverError
from lostcities.web.peers import Peers
from lostcities.web.ports import LiveFacts

__all__ = ["BotTurns", "ClockScheduler", "ScheduledGame", "SchedulerHost"]

log = logging.getLogger("lostcities.web")


class SchedulerHost(Protocol):
    """What the timed work needs of the server process: the peers (which process runs a
    game's bots and clock) and the bots' moves."""

    @property
    def peers(self) -> Peers: ...
    async def bot_move(self, spec: str, seed: int, view: PlayerView, mistakes: float) -> Move: ...
    @property
    def bot_min_delay(self) -> float: ...


class ScheduledGame(LiveFacts, Protocol):
    """What the timed work reads of a live game and the entry points it acts through
    (:class:`~lostcities.web.live_game.LiveGame`)."""

    @property
    def id(self) -> str: ...
    @property
    def grace(self) -> float: ...
    def is_over(self) -> bool: ...
    async def time_out(self, key: tuple[int, int]) -> bool | None: ...
    async def submit(self, seat: int, round_index: int, ply: int, move_text: str) -> Move: ...
    async def resign(self, seat: int, reason: str = "resigned") -> None: ...
    async def broadcast(self) -> None: ...


class ClockScheduler:
    """Waits for the current move's time-out of ``game`` and then ends the game on time
    (on the process that runs the game's bots)."""

    def __init__(self, game: ScheduledGame, host: SchedulerHost) -> None:
        self.game = game
        self.host = host
        self.task: asyncio.Task[None] | None = None
        self.key: tuple[int, int] | None = None
        """The round and ply :attr:`task` waits on."""
        self.due = 0.0
        """When (the event loop's time) :attr:`task` looks again."""

    def schedule(self) -> None:
        """Wait for the current move's time-out (one wait per round and ply, set again if
        the time-out moved, e.g. the game's last change came from another process)."""
        g = self.game
        left = g.clock_left()
        if left is None:
            return
        key = (g.round_index, g.round.ply)
        loop = asyncio.get_running_loop()
        delay = left + g.grace + 0.05
        due = loop.time() + delay
        if key == self.key and self.task is not None and abs(due - self.due) < 1:
            return
        if self.task is not None:
            self.task.cancel()
        self.key, self.due = key, due
        self.task = loop.create_task(self._wait(key, delay))

    async def _wait(self, key: tuple[int, int], delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            if not await self.host.peers.own_bots(self.game.id):
                return  # the process running this game's bots also runs its clock
            ended = await self.game.time_out(key)
        finally:
            if self.key == key:
                self.task = None
                self.key = None
        if ended is None:
            return  # (the game is over, or the move was made)
        if ended:
            await self.game.broadcast()
        else:  # too early (the wall clock and the loop's clock disagree a little)
            self.schedule()


class BotTurns:
    """Plays the computer's seat of ``game``: one turn at a time, each move submitted as a
    person's is; a bot that fails loses the match."""

    def __init__(self, game: ScheduledGame, host: SchedulerHost) -> None:
        self.game = game
        self.host = host
        self.task: asyncio.Task[None] | None = None
        """The bot's turn being played, or ``None``."""

    def thinking(self) -> bool:
        """Whether a bot's turn is being played."""
        return self.task is not None and not self.task.done()

    def schedule(self) -> None:
        """Start the bot's turn if a bot is to move and none is thinking."""
        g = self.game
        if g.is_over() or self.thinking():
            return
        seat = g.round.to_move
        spec = g.bot_spec(seat)
        if spec is None:
            return
        self.task = asyncio.get_running_loop().create_task(self._turn(seat, spec))

    async def _turn(self, seat: int, spec: str) -> None:
        g, host = self.game, self.host
        try:
            if not await host.peers.own_bots(g.id):
                return  # another server process runs this game's bots
            if g.is_over() or g.round.to_move != seat:
                return  # the game moved on meanwhile
            t0 = time.monotonic()
            ri, ply = g.round_index, g.round.ply
            view = g.match.view(seat)  # with the match's context: it plays for the match
            seed = random.Random(f"{g.match.seed}:{ri}:{ply}").randrange(2**31)
            try:
                move = await host.bot_move(spec, seed, view, g.row.mistakes or 0.0)
            except Exception as e:
                log.warning("bot %r failed in game %s: %s", spec, g.id, e)
                if not g.is_over():
                    await self.forfeit(seat, f"bot failed: {e}")
                    await g.broadcast()
                return
            wait = host.bot_min_delay - (time.monotonic() - t0)
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                await g.submit(seat, ri, ply, str(move))
            except GameError as e:
                log.warning("bot move rejected in game %s: %s", g.id, e)
                return
            await g.broadcast()
        finally:
            self.task = None
        self.schedule()

    async def forfeit(self, seat: int, reason: str) -> None:
        """A bot that cannot move loses the match."""
        with contextlib.suppress(GameOverError):
            await self.game.resign(seat, reason)
