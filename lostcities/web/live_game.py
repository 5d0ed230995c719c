"""A live game: one game in memory, its match under a referee, its connections, its move
clock and its bot's turns.

The server holds every game's :class:`~lostcities.Match` under a
:class:`~lostcities.referee.Referee` (both seats submit from outside: people over the
network, bots from the worker pool); clients only ever get the view of their own seat
(spectators: the public part). A move is checked by the rules core, stored (committed) and
only then applied through the referee and acknowledged. A per-game lock applies moves one at a
time, and each move names the round and ply it was made at, so a stale or repeated
submission (double click, two tabs) is rejected instead of applied twice.
"""

from __future__ import annotations

import asyncio
import datetime
import hmac
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.exc import IntegrityError

from lostcities.match import Match, round_seed
from lostcities.referee import Referee
from lostcities.rules import Move, PlayerView, Round
from lostcities.web import abandon, clocks, schemas
from lostcities.web.chatroom import ChatRoom
from lostcities.web.conns import Conn, send
from lostcities.web.errors import (
    CannotAbortError,
    CannotClaimError,
    GameError,
    GameOverError,
    IllegalMoveRequestError,
    InvalidTokenError,
    NotYourTurnError,
    OpponentPresentError,
    StaleMoveError,
    TimeOutError,
    WaitingForFriendError,
)
from lostcities.web.models.base import utcnow
from lostcities.web.models.games import GameRow, RoundRow
from lostcities.web.peers import Peers
from lostcities.web.presenter import BroadcastMemo, StatePresenter
from lostcities.web.repositories.games import StoredGame, op_forfeit, op_move
from lostcities.web.scheduler import BotTurns, ClockScheduler
from lostcities.web.store import GameStore, hash_token

__all__ = ["GameHost", "LiveGame", "SeatPresence"]

log = logging.getLogger("lostcities.web")


class SeatPresence(Protocol):
    """Who is at the table (:class:`~lostcities.web.presence.Presence`), as a game's
    state and claims read it."""

    @property
    def after(self) -> float: ...
    def here(self, g: LiveGame, seat: int) -> bool: ...
    def away_for(self, g: LiveGame, seat: int) -> float | None: ...
    def claim_after(self, g: LiveGame) -> float | None: ...


class GameHost(Protocol):
    """The ports a live game is given by the server process that holds it (the
    :class:`~lostcities.web.game_manager.GameManager` is one), instead of its owner: the store it
    writes its changes to, the clock, the peers and the presence it reads, the event sink
    it reports to, and the bots' moves. A live game never imports its holder."""

    @property
    def store(self) -> GameStore:
        """The store writer (the write-batching thread) and reader."""
        ...

    @property
    def now(self) -> Callable[[], datetime.datetime]:
        """The clock (naive UTC, as the store writes it; tests shift it)."""
        ...

    @property
    def peers(self) -> Peers:
        """The other server processes sharing the database."""
        ...

    @property
    def presence(self) -> SeatPresence:
        """Who is at which table."""
        ...

    def build(self, stored: StoredGame) -> Match:
        """Replay a stored game (a refresh)."""
        ...

    def match_ended(self, g: LiveGame) -> None:
        """Event: ``g``'s match ended here (its result committed)."""
        ...

    def changed_here(self, game_id: str) -> None:
        """Event: a change of ``game_id`` committed here was broadcast."""
        ...

    def background(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` as a task of its own (a refresh after a conflict)."""
        ...

    async def bot_move(self, spec: str, seed: int, view: PlayerView, mistakes: float) -> Move:
        """The move of the bot ``spec`` (seeded) from ``view``, once its level is ready."""
        ...

    @property
    def bot_min_delay(self) -> float:
        """Seconds a bot's move takes at least (so that people see it come)."""
        ...


# -- the live game -----------------------------------------------------------------------------


@dataclass(eq=False)
class LiveGame:
    """One game in memory: its match under a referee, and its connections."""

    row: GameRow
    match: Match
    host: GameHost
    """What the server process gives the game (its ports, :class:`GameHost`)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: list[Conn] = field(default_factory=list)
    last_active: float = field(default_factory=time.monotonic)
    rematch_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_seats: tuple[bool, bool] = (False, False)
    """Which seats bot accounts play (their names are marked BOT), as the holder read them
    (:meth:`GameManager.bot_seats <lostcities.web.game_manager.GameManager.bot_seats>`)."""
    clock: ClockScheduler = field(init=False)
    """Waits for the move clock's time-out (:mod:`~lostcities.web.scheduler`)."""
    bots: BotTurns = field(init=False)
    """Plays the computer's turns (:mod:`~lostcities.web.scheduler`)."""
    chat: ChatRoom = field(init=False)
    """The game's quick chat (:mod:`~lostcities.web.chatroom`)."""
    presenter: StatePresenter = field(init=False)
    """Writes the game's state for clients (:mod:`~lostcities.web.presenter`)."""
    referee: Referee = field(init=False)
    """Applies the stored moves, forfeits and new rounds to :attr:`match` (both seats
    submit: the bots' moves come from the :class:`BotRunner`); its
    :attr:`~lostcities.referee.Referee.time_limit` and ``grace`` are the move clock."""

    def __post_init__(self) -> None:
        self.referee = Referee(self.match, time_limit=clocks.move_limit(self.row))
        self.chat = ChatRoom(self.row.id, self.conns, self.host)
        self.presenter = StatePresenter(self)
        self.clock = ClockScheduler(self, self.host)
        self.bots = BotTurns(self, self.host)

    @property
    def id(self) -> str:
        """The game id."""
        return self.row.id

    @property
    def round(self) -> Round:
        """The current round (the last one dealt)."""
        return self.referee.round

    @property
    def round_index(self) -> int:
        """0-based index of the current round."""
        return self.referee.round_index

    def bot_spec(self, seat: int) -> str | None:
        """The bot spec playing ``seat``, or ``None`` for a human."""
        return self.row.bot0 if seat == 0 else self.row.bot1

    def is_over(self) -> bool:
        """Whether the match is over."""
        return self.presenter.match_part()[0]

    def seat_for(self, token: str | None) -> int | None:
        """The seat bound to ``token``; ``None`` for no token.

        :raises InvalidTokenError: for a token that is not one of this game's.
        """
        if token is None or token == "":
            return None
        h = hash_token(token)
        for seat, stored in ((0, self.row.token0), (1, self.row.token1)):
            if stored is not None and hmac.compare_digest(stored, h):
                return seat
        raise InvalidTokenError("invalid token for this game")

    # -- state for clients (lostcities.web.presenter) --------------------------------------

    def summary(self, seat: int | None = None) -> schemas.GameSummary:
        """Public facts (no cards)."""
        return self.presenter.summary(seat)

    def away_for(self, seat: int) -> float | None:
        """Seconds ``seat`` has been away from the table where a claim may come, else
        ``None`` (:meth:`Presence.away_for <lostcities.web.presence.Presence.away_for>`)."""
        return self.host.presence.away_for(self, seat)

    def claim_after(self) -> float | None:
        """Seconds of absence after which a claim is allowed here, or ``None``."""
        return self.host.presence.claim_after(self)

    async def broadcast(self, ack_conn: Conn | None = None, ack: int | str | None = None) -> None:
        """Send every connection its own state (the submitter's carries ``ack``)."""
        self.schedule_clock()
        self.host.changed_here(self.id)  # ("my games" alerts)
        cache: dict[int | None, str] = {}
        memo = BroadcastMemo()
        for c in list(self.conns):
            if c is ack_conn:
                text = self.presenter.state(c.seat, ack, memo=memo)
            else:
                if c.seat not in cache:
                    cache[c.seat] = self.presenter.state(c.seat, memo=memo)
                text = cache[c.seat]
            await self.send(c, text)

    async def send(self, c: Conn, text: str) -> None:
        """Send to one connection; a dead connection is dropped."""
        await send(self.conns, c, text)

    async def send_all(self, text: str) -> None:
        """Send the same message to every connection."""
        for c in list(self.conns):
            await self.send(c, text)

    # -- moves ---------------------------------------------------------------------------

    async def play(
        self,
        seat: int,
        round_index: int,
        ply: int,
        move_text: str,
        *,
        ack_conn: Conn | None = None,
        ack: int | str | None = None,
    ) -> Move:
        """A person's move, from the HTTP API or a WebSocket: :meth:`submit` it, send every
        connection its new state (``ack_conn``'s carries ``ack``), then start the bot's
        turn if the bot is to move.

        :raises GameError: (stale, not your turn, game over, illegal move) - nothing changed,
            nothing sent.
        """
        move = await self.submit(seat, round_index, ply, move_text)
        await self.broadcast(ack_conn, ack)
        self.schedule_bot()
        return move

    async def submit(self, seat: int, round_index: int, ply: int, move_text: str) -> Move:
        """Check, store and apply a move of ``seat`` made at ``round_index``/``ply``.

        The work runs in its own task, shielded: once a move is being stored, cancelling the
        caller (a dropped connection, shutdown) cannot leave it stored but not applied.

        :raises GameError: (stale, not your turn, game over, illegal move) - nothing changed.
        """
        task = asyncio.ensure_future(self._submit(seat, round_index, ply, move_text))
        return await asyncio.shield(task)

    async def _submit(self, seat: int, round_index: int, ply: int, move_text: str) -> Move:
        if self.host.peers.shared and (
            (round_index, ply) > (self.round_index, self.round.ply) or self.row.status == "waiting"
        ):
            # the move names a ply this copy has not reached (or the friend's seat may be
            # taken): another process stored it, its notification is not here yet
            await self.refresh()
        async with self.lock:
            self.last_active = time.monotonic()
            if self.is_over():
                raise GameOverError("the game is over")
            r = self.round
            if round_index != self.round_index or ply != r.ply:
                raise StaleMoveError(
                    # rounds and plies counted from 0, as the API's ``round`` and ``ply`` are
                    f"stale move: made at round {round_index} ply {ply}, but the game is at "
                    f"round {self.round_index} ply {r.ply} (state re-sent)"
                )
            if self.row.status == "waiting":
                # (another server process may have seated the friend: look, and re-send the state)
                self.host.background(self.refresh())
                raise WaitingForFriendError("waiting for your friend to join: no moves until then")
            if r.to_move != seat:
                raise NotYourTurnError("it is not your turn")
            if self.timed_out():
                raise TimeOutError("your time for this move has run out")
            try:
                move = r.parse_move(move_text)
            except ValueError as e:
                raise IllegalMoveRequestError(str(e)) from None
            new_round, next_deck, status, result = self._leads_to(move)
            times = self._times_after_move(seat)
            try:
                await self.host.store.write(
                    op_move(
                        self.id,
                        round_index,
                        ply,
                        str(move),
                        new_round=new_round,
                        status=status,
                        result=result,
                        clock_left=times,
                    )
                )
            except IntegrityError:
                # another server process stored this ply first: ours is stale
                self.host.background(self.refresh())
                raise StaleMoveError(
                    f"stale move: round {round_index} ply {ply} was already played"
                ) from None
            # checked once above (the turn, parse_move): made once, trusting
            self.referee.submit_unchecked(move, seconds=self.thinking_time())
            self.row.updated_at = utcnow()  # the next move's clock starts (as stored)
            if times is not None:
                self.row.clock_left0, self.row.clock_left1 = times
            if next_deck is not None:
                self.referee.start_round(next_deck)
            if status is not None:
                self.row.status = status
            if result is not None:
                self.row.result = result
                self.host.match_ended(self)
            return move

    def _leads_to(
        self, move: Move
    ) -> tuple[RoundRow | None, list[str] | None, str | None, str | None]:
        """What the legal ``move`` leads to, for the store: the next round's row and deck
        (if it ends a round but not the match), and the match's new status and result (if
        it ends the match). A move that does not end the round leads to nothing (the
        rules core says so without making it: :meth:`Round.ends_round
        <lostcities.Round.ends_round>`). The last move of a round is probed: made unchecked
        and taken back at once (no await in between, so nobody sees it), for the round's
        scores; the referee makes it only once it is stored."""
        r = self.round
        if not r.ends_round(move):
            return None, None, None, None
        r.push_unchecked(move)
        try:
            if not r.is_over():
                return None, None, None, None
            m = self.match
            if m.is_over():
                return None, None, "finished", m.result()
            idx = len(m.rounds)
            deck = [str(c) for c in Round.deal(round_seed(m.seed, idx), m.variant).deal_order]
            row = RoundRow(
                game_id=self.id, index=idx, starter=m.next_starter(), deck=" ".join(deck)
            )
            return row, deck, None, None
        finally:
            r.pop()

    async def resign(self, seat: int, reason: str = "resigned") -> None:
        """``seat`` gives up (or its bot failed): the round is forfeited and the match ends.

        :raises GameOverError: if the game is already over.
        """
        await asyncio.shield(asyncio.ensure_future(self._resign(seat, reason)))

    async def _resign(self, seat: int, reason: str) -> None:
        async with self.lock:
            await self._forfeit_match(seat, reason)

    async def _forfeit_match(self, seat: int, reason: str) -> None:
        # (the caller holds the lock)
        if self.is_over():
            raise GameOverError("the game is over")
        result = "0-1" if seat == 0 else "1-0"
        await self.host.store.write(
            op_forfeit(self.id, self.round_index, seat, reason, status="finished", result=result)
        )
        self.referee.forfeit(seat, reason)
        self.row.status = "finished"
        self.row.result = result
        self.host.match_ended(self)

    # -- a player leaves: abort and claims (lostcities.web.abandon) ------------------------

    async def abort(self, seat: int) -> None:
        """``seat`` aborts the game before both players have moved: it ends with no result
        (and changes no rating).

        :raises GameOverError: if the game is over.
        :raises CannotAbortError: once both players have moved.
        """
        await asyncio.shield(asyncio.ensure_future(self._abort(seat)))

    async def _abort(self, seat: int) -> None:
        async with self.lock:
            if self.is_over():
                raise GameOverError("the game is over")
            late = CannotAbortError(
                "both players have moved: the game can no longer be aborted (resign instead)"
            )
            if not abandon.abortable(self.match):
                raise late
            now = self.host.now()
            if not await self.host.store.write(abandon.op_abort(self.id, now)):
                self.host.background(self.refresh())  # (another process moved or ended it)
                raise late
            row = self.row
            row.status, row.result, row.ending, row.updated_at = "finished", "*", "aborted", now
            self.host.match_ended(self)

    async def claim(self, seat: int, claim: abandon.Claim) -> str:
        """``seat``'s opponent left the table long enough ago (:mod:`~lostcities.web.abandon`):
        ``seat`` claims the win (the opponent forfeits the match) or a draw; returns the
        result.

        :raises GameOverError: if the game is over.
        :raises CannotClaimError: where the rules allow no claim (a game against the
            computer, a correspondence game, one that can still be aborted).
        :raises OpponentPresentError: while the opponent is at the table.
        :raises ClaimTooEarlyError: before the opponent has been away long enough.
        """
        task = asyncio.ensure_future(self._claim(seat, claim))
        result: str = await asyncio.shield(task)
        return result

    async def _claim(self, seat: int, claim: abandon.Claim) -> str:
        presence = self.host.presence
        async with self.lock:
            if self.is_over():
                raise GameOverError("the game is over")
            if self.row.status != "active":
                raise CannotClaimError("the game has not begun: your friend has not joined")
            if not abandon.claims_apply(self.row):
                raise CannotClaimError(
                    "no claims in this game: a game against the computer, or one whose "
                    "correspondence clock ends it"
                )
            if abandon.abortable(self.match):
                raise CannotClaimError("not both players have moved yet: abort the game instead")
            other = 1 - seat
            if presence.here(self, other):
                raise OpponentPresentError("your opponent is at the table")
            now = self.host.now()
            try:
                result: str = await self.host.store.write(
                    abandon.op_claim(self.id, self.round_index, other, claim, presence.after, now)
                )
            except GameError:
                self.host.background(self.refresh())  # (another process saw a change)
                raise
            if claim == "win":
                self.referee.forfeit(other, abandon.ABANDONED)
            row = self.row
            row.status, row.result, row.ending, row.updated_at = (
                "finished",
                result,
                "abandoned",
                now,
            )
            self.host.match_ended(self)
            return result

    async def refresh(self) -> bool:
        """Take the game as the database has it, if another server process changed it (a
        move, a forfeit, a seat claimed), and send every connection its state; returns
        whether anything changed."""
        async with self.lock:
            stored = await self.host.store.load(self.id)
            if stored is None:
                return False
            match = self.host.build(stored)
            if _signature(stored.row, match) == _signature(self.row, self.match):
                return False
            self.row, self.match = stored.row, match
            self.referee = Referee(match, time_limit=clocks.move_limit(stored.row))
        await self.broadcast()
        self.schedule_bot()
        return True

    def version(self) -> tuple[object, ...]:
        """This copy's :meth:`GameStore.version_sync <lostcities.web.store.GameStore.version_sync>`."""
        row = self.row
        moves = sum(len(r.history) for r in self.match.rounds)
        return (moves, len(self.match.rounds), row.status, row.result, row.token0, row.token1,
                row.name0, row.name1, row.rematch_id, row.hints, row.account0, row.account1)  # fmt: skip

    async def sync(self) -> bool:
        """Refresh this copy if the database is ahead of it (another server process stored a
        change whose notification has not come yet), so that an answer made from it
        includes every write acknowledged anywhere; returns whether it changed."""
        stored = await asyncio.to_thread(self.host.store.version_sync, self.id)
        if stored is None or stored == self.version():
            return False
        return await self.refresh()

    # -- the move clock ----------------------------------------------------------------------

    def thinking_time(self) -> float:
        """Seconds since the move to make became due (the last stored change of the game)."""
        return max(0.0, (self.host.now() - self.row.updated_at).total_seconds())

    def has_match_clock(self) -> bool:
        """Whether the game has a Fischer-style match clock (each player's time, plus an
        increment after each move) rather than a per-move clock or none."""
        return bool(self.presenter.fixed()[3])

    def _running(self) -> bool:
        return self.row.status == "active" and not self.is_over()

    def _allowed(self) -> float | None:
        """Seconds the player to move may think in all (their match time, or the per-move
        limit), or ``None`` while no clock runs."""
        if not self._running():
            return None
        if self.has_match_clock():
            return clocks.stored_times(self.row)[self.round.to_move]
        return self.referee.time_limit

    def clock_times(self) -> list[float] | None:
        """With a match clock, each player's time left (the player to move's as of now,
        while the game runs); else ``None``."""
        if not self.has_match_clock():
            return None
        times = clocks.stored_times(self.row)
        if self._running():
            p = self.round.to_move
            times[p] = max(0.0, times[p] - self.thinking_time())
        return [round(t, 2) for t in times]

    def _times_after_move(self, seat: int) -> tuple[float, float] | None:
        """Both match-clock times once ``seat`` moves now (``None`` without a match clock)."""
        if not self.has_match_clock():
            return None
        return clocks.times_after_move(self.row, seat, self.thinking_time())

    def clock_left(self) -> float | None:
        """Seconds the player to move has left, or ``None`` while no clock runs (no clock,
        the game waiting for the friend, or over)."""
        allowed = self._allowed()
        if allowed is None:
            return None
        return max(0.0, allowed - self.thinking_time())

    def timed_out(self) -> bool:
        """Whether the player to move overran the clock by more than the referee's grace."""
        allowed = self._allowed()
        if allowed is None:
            return False
        return self.thinking_time() > allowed + self.referee.grace

    def timeout_reason(self) -> str:
        """Why the player to move lost on time (the round's forfeit reason)."""
        return clocks.timeout_reason(self.row, self.referee.time_limit)

    @property
    def grace(self) -> float:
        """Seconds a player may overrun the move clock (the referee's)."""
        return self.referee.grace

    async def time_out(self, key: tuple[int, int]) -> bool | None:
        """The clock's wait for the move at ``key`` (round, ply) ended: if that move is
        still to make and its time is up, the player to move loses the match on time
        (``True``); ``False`` if its time is not up yet (wait again); ``None`` if the game
        is over or has moved on (nothing to do)."""
        async with self.lock:
            if self.is_over() or (self.round_index, self.round.ply) != key:
                return None
            if not self.timed_out():
                return False
            await self._forfeit_match(self.round.to_move, self.timeout_reason())
            return True

    def schedule_clock(self) -> None:
        """Wait for the current move's time-out (:class:`~lostcities.web.scheduler.ClockScheduler`)."""
        self.clock.schedule()

    # -- bots (lostcities.web.scheduler) -------------------------------------------------

    def schedule_bot(self) -> None:
        """Start the bot's turn if a bot is to move and none is thinking
        (:class:`~lostcities.web.scheduler.BotTurns`)."""
        self.bots.schedule()


def _signature(row: GameRow, match: Match) -> tuple[object, ...]:
    """What other processes can change of a game: its moves, forfeits, seats and status."""
    rounds = tuple((len(r.history), r.is_over()) for r in match.rounds)
    return (
        rounds,
        match.is_over(),
        row.status,
        row.result,
        row.token0,
        row.token1,
        row.name0,
        row.name1,
        row.rematch_id,
        row.hints,
        row.account0,
        row.account1,
        row.ending,
    )
