"""Live games in memory, their seats, connections and bots.

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
import concurrent.futures
import contextlib
import ctypes
import datetime
import hmac
import importlib
import json
import logging
import multiprocessing
import os
import random
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from sqlalchemy.exc import IntegrityError

from lostcities.bots import BotSpecError, make
from lostcities.bots.analysis import (
    DEFAULT_BOT,
    DEFAULT_WORLDS,
    MoveReview,
    Position,
    positions,
    report,
    review,
)
from lostcities.bots.base import one_core_per_bot
from lostcities.cards import get_variant
from lostcities.match import Match, round_seed
from lostcities.referee import Referee
from lostcities.rules import Move, PlayerView, Round
from lostcities.web import schemas
from lostcities.web.peers import Peers, SingleProcess
from lostcities.web.store import (
    GameRow,
    GameStore,
    RoundRow,
    StoredGame,
    hash_token,
    op_claim_seat,
    op_forfeit,
    op_insert_game,
    op_move,
    op_save_analysis,
    op_update_game,
    utcnow,
)

__all__ = [
    "LEVELS",
    "Level",
    "BotRunner",
    "GameError",
    "TimeOutError",
    "GameManager",
    "LiveGame",
    "ANALYSIS_BOT",
    "ANALYSIS_WORLDS",
    "HINT_WORLDS",
    "bot_choose",
    "bot_hint",
    "bot_review",
    "clock_choice",
    "die_with_parent",
    "parse_clock",
    "prepare_search",
]

log = logging.getLogger("lostcities.web")
T = TypeVar("T")

@dataclass(frozen=True)
class Level:
    """A computer level: the bot spec it plays, its label, and how often it blunders."""

    spec: str
    label: str
    mistakes: float = 0.0
    """Probability of playing a uniformly random legal move instead of the bot's choice."""
    fallback: str | None = None
    """Spec to play if ``spec`` (or a module in :attr:`requires`) is not installed here."""
    requires: tuple[str, ...] = ()
    """Modules the level needs beyond what its bot imports (``expert`` runs without numba,
    but its search is then pure Python and far weaker in its second)."""
    about: str = ""
    """One line saying what the level plays (the level picker, ``/api/levels``)."""


LEVELS: dict[str, Level] = {
    "easy": Level(
        "heuristic", "Easy", mistakes=0.4, fallback="random",
        about="the heuristic bot, playing a random move 40% of the time",
    ),
    "medium": Level("heuristic", "Medium", about="the heuristic bot: sound rules of thumb, instant"),
    "hard": Level("ismcts:time=1", "Hard", about="Monte Carlo search over the hidden cards, 1 s a move"),
    "expert": Level(
        "expert:time=1", "Expert", fallback="ismcts:time=1", requires=("numba",),
        about="a trained network guiding a compiled search, 1 s a move",
    ),
}
"""The default computer levels (``LOSTCITIES_LEVEL_<NAME>=SPEC`` overrides one)."""


class GameError(ValueError):
    """A request the referee refuses; ``code`` names the kind, ``status`` the HTTP status."""

    code = "bad_request"
    status = 400


class GameNotFoundError(GameError):
    """No game with that id."""

    code = "not_found"
    status = 404


class InvalidTokenError(GameError):
    """The token is not one of this game's seat tokens."""

    code = "invalid_token"
    status = 403


class NotYourTurnError(GameError):
    """The seat tried to move while the other player is to move."""

    code = "not_your_turn"
    status = 409


class StaleMoveError(GameError):
    """The move was made at a round/ply that is not the current one (duplicate or stale)."""

    code = "stale"
    status = 409


class GameOverError(GameError):
    """The game (or round) is over."""

    code = "game_over"
    status = 409


class SeatTakenError(GameError):
    """The invite was already used."""

    code = "seat_taken"
    status = 409


class BotUnavailableError(GameError):
    """The level's bot is not installed on this server."""

    code = "bot_unavailable"
    status = 400


class IllegalMoveRequestError(GameError):
    """The rules forbid the move (message from the core)."""

    code = "illegal_move"
    status = 422


class HintNotAllowedError(GameError):
    """A hint asked for in a game between people, or for the computer's seat."""

    code = "hint_not_allowed"
    status = 403


class NotFinishedError(GameError):
    """Replays and records exist only for finished games."""

    code = "not_finished"
    status = 409


class TimeOutError(GameError):
    """The move came after the move clock ran out (the round is forfeited for it)."""

    code = "time_out"
    status = 409


class PositionNotFoundError(GameError):
    """The game has no such round, or the round no such ply."""

    code = "no_such_position"
    status = 404


# -- clocks ------------------------------------------------------------------------------------


def parse_clock(choice: int | str | None) -> tuple[int | None, int | None]:
    """The stored form of a clock choice (:data:`schemas.ClockChoice`): its seconds (per
    move, or each player's starting time) and the match clock's increment (``None``: a
    per-move clock, or none).

    >>> parse_clock("300+5"), parse_clock(60), parse_clock(None)
    ((300, 5), (60, None), (None, None))
    """
    if isinstance(choice, str):
        base, _, inc = choice.partition("+")
        return int(base), int(inc)
    return choice, None


def clock_choice(row: GameRow) -> int | str | None:
    """The clock of a stored game as it was chosen (:func:`parse_clock` undone).

    >>> clock_choice(GameRow(clock=300, clock_increment=5)), clock_choice(GameRow(clock=60))
    ('300+5', 60)
    """
    if row.clock is not None and row.clock_increment is not None:
        return f"{row.clock}+{row.clock_increment}"
    return row.clock


def _move_limit(row: GameRow) -> int | None:
    """The referee's per-move time limit: the clock unless it is a match clock."""
    return row.clock if row.clock_increment is None else None


# -- bots --------------------------------------------------------------------------------------


def bot_available(spec: str) -> str | None:
    """``None`` if the bot of ``spec`` can be built here, else why not."""
    try:
        make(spec, 0).close()
    except (BotSpecError, ImportError, AttributeError) as e:
        return str(e) or e.__class__.__name__
    return None


def bot_choose(
    spec: str, seed: int, view: PlayerView, time_limit: float | None, mistakes: float = 0.0
) -> str:
    """What a worker of :class:`BotRunner` runs: build the bot of ``spec`` and choose a move
    for ``view`` (its only input), in notation; with probability ``mistakes`` (drawn from
    ``seed``) a uniformly random legal move instead."""
    rng = random.Random(seed)
    if mistakes > 0 and rng.random() < mistakes:
        moves = view.legal_moves()
        return str(moves[rng.randrange(len(moves))])
    bot = make(spec, seed)
    try:
        bot.restart(view.variant, view.player)
        return str(bot.choose(view, time_limit))
    finally:
        bot.close()


ANALYSIS_BOT = DEFAULT_BOT
"""The bot behind hints and the analysis page (:meth:`lostcities.bots.Bot.analyse`)."""
HINT_WORLDS = DEFAULT_WORLDS
"""Sampled worlds per hint (about 0.1 s with numba)."""
ANALYSIS_WORLDS = DEFAULT_WORLDS
"""Sampled worlds per move of a game's analysis (``lostcities analyse``'s default)."""


def bot_hint(spec: str, seed: int, view: PlayerView, worlds: int) -> dict[str, object]:
    """What a worker runs for a hint: the analysis of ``view`` (its only input) by the bot
    of ``spec`` (:meth:`Analysis.to_dict <lostcities.bots.analysis.Analysis.to_dict>`)."""
    bot = make(spec, seed)
    try:
        return bot.analyse(view, worlds=worlds, seed=seed).to_dict()
    finally:
        bot.close()


def bot_review(spec: str, pos: Position, worlds: int) -> MoveReview:
    """What a worker runs for one move of a game's analysis (from the mover's view)."""
    bot = make(spec, 0)
    try:
        return review(bot, pos, worlds=worlds)
    finally:
        bot.close()


NO_NUMBA = "numba is not installed: nothing to compile (the bots search in pure Python)"
"""What :func:`prepare_search` says without the ``fast`` extra."""


def prepare_search(progress: Callable[[str], None] | None = None) -> float:
    """Compile the search kernels, or load them from numba's on-disk cache
    (:func:`lostcities.fast.warmup.warm_up`), so that no bot move waits on the JIT; returns
    the seconds spent. Without numba there is nothing to do (``progress`` is told so)."""
    try:
        from lostcities.fast.warmup import warm_up
    except ImportError:
        if progress is not None:
            progress(NO_NUMBA)
        return 0.0
    return warm_up(progress)


PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when its parent dies."""


def die_with_parent(parent: int, poll: float = 1.0) -> None:
    """Make this process end when process ``parent`` does (a bot worker must never outlive
    the server, not even a ``kill -9`` of it, which runs no shutdown code).

    Two layers: on Linux the kernel sends SIGKILL at the parent's death
    (``prctl(PR_SET_PDEATHSIG)``, through ctypes); everywhere a daemon thread checks every
    ``poll`` seconds that the parent is still this process's parent and ends the process
    (``os._exit``) when it is not. A parent already gone at the call ends it at once.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread does it
            pass
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="lostcities-parent-watch", daemon=True).start()


def _prepare_worker(specs: tuple[str, ...], parent: int | None = None) -> None:
    """Start-up of each bot worker process: die with the server (:func:`die_with_parent`),
    load the compiled search and build each level's bot once (the network's weights),
    before the worker takes its first move."""
    if parent is not None:
        die_with_parent(parent)
    try:
        prepare_search()
        for spec in specs:
            bot_available(spec)
    except Exception:  # never break the pool: a move will say what is wrong
        log.warning("bot worker warm-up failed", exc_info=True)


def _ready() -> int:
    return os.getpid()


class BotRunner:
    """Runs bot searches off the event loop: a process pool (default) or a thread pool.

    Each worker process first loads the compiled search (:func:`prepare_search`) and builds
    the bots of :attr:`specs`, so a move never waits on a compile or a weights file.
    """

    def __init__(
        self, kind: str = "process", workers: int = 2, specs: Sequence[str] = ()
    ) -> None:
        self.kind = kind
        self.workers = max(1, workers)
        self.specs = tuple(specs)
        """Bot specs each worker process builds once at start (the levels' bots)."""
        self._pool: concurrent.futures.Executor | None = None

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            if self.kind == "process":
                one_core_per_bot()
                ctx = multiprocessing.get_context("spawn")
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.workers, mp_context=ctx, initializer=_prepare_worker,
                    initargs=(self.specs, os.getpid()),
                )
            else:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    self.workers, thread_name_prefix="lostcities-bot"
                )
        return self._pool

    async def warm_up(self) -> None:
        """Start the workers now and wait until they are ready (each has loaded the compiled
        search and the levels' bots) rather than on the first bot move."""
        ex = self._executor()
        futures = [asyncio.wrap_future(ex.submit(_ready)) for _ in range(self.workers)]
        await asyncio.gather(*futures, return_exceptions=True)

    async def choose(
        self,
        spec: str,
        seed: int,
        view: PlayerView,
        time_limit: float | None,
        mistakes: float = 0.0,
    ) -> Move:
        """The bot's move for ``view``.

        :raises Exception: whatever the bot raised.
        """
        loop = asyncio.get_running_loop()
        args = (spec, seed, view, time_limit, mistakes)
        try:
            text = await loop.run_in_executor(self._executor(), bot_choose, *args)
        except concurrent.futures.BrokenExecutor:
            # a worker died (killed, out of memory): start a fresh pool and try once more
            log.warning("bot worker pool broke; restarting it")
            self.close()
            text = await loop.run_in_executor(self._executor(), bot_choose, *args)
        return Move.parse(text)

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in a worker (hints, analyses), with :meth:`choose`'s restart of a
        broken pool.

        :raises Exception: whatever ``fn`` raised.
        """
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), fn, *args)
        except concurrent.futures.BrokenExecutor:
            log.warning("bot worker pool broke; restarting it")
            self.close()
            return await loop.run_in_executor(self._executor(), fn, *args)

    def close(self) -> None:
        """Stop the workers."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


# -- connections -------------------------------------------------------------------------------


class Sender(Protocol):
    """What the referee needs of a connection: send one text message."""

    async def send_text(self, data: str) -> None: ...


@dataclass(eq=False)
class Conn:
    """A connected client of a game."""

    sender: Sender
    seat: int | None
    alive: bool = True


# -- the live game -----------------------------------------------------------------------------


@dataclass(eq=False)
class LiveGame:
    """One game in memory: its match under a referee, and its connections."""

    row: GameRow
    match: Match
    manager: GameManager
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: list[Conn] = field(default_factory=list)
    bot_task: asyncio.Task[None] | None = None
    last_active: float = field(default_factory=time.monotonic)
    rematch_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clock_task: asyncio.Task[None] | None = None
    clock_key: tuple[int, int] | None = None
    """The round and ply :attr:`clock_task` waits on."""
    clock_due: float = 0.0
    """When (the event loop's time) :attr:`clock_task` looks again."""
    referee: Referee = field(init=False)
    """Applies the stored moves, forfeits and new rounds to :attr:`match` (both seats
    submit: the bots' moves come from the :class:`BotRunner`); its
    :attr:`~lostcities.referee.Referee.time_limit` and ``grace`` are the move clock."""

    def __post_init__(self) -> None:
        self.referee = Referee(self.match, time_limit=_move_limit(self.row))

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
        return self.match.is_over()

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

    # -- state for clients ---------------------------------------------------------------

    def summary(self, seat: int | None = None) -> schemas.GameSummary:
        """Public facts (no cards)."""
        row = self.row
        connected = [False, False]
        for c in self.conns:
            if c.seat is not None and c.alive:
                connected[c.seat] = True
        players = []
        for s in (0, 1):
            bot = self.bot_spec(s)
            name = row.name0 if s == 0 else row.name1
            token = row.token0 if s == 0 else row.token1
            players.append(
                schemas.PlayerOut(
                    name=name,
                    kind="bot" if bot else "human",
                    level=row.level if bot else None,
                    joined=bool(bot) or token is not None,
                    connected=True if bot else connected[s],
                )
            )
        over = self.is_over()
        to_move = None if over else self.round.to_move
        return schemas.GameSummary(
            id=row.id,
            variant=row.variant,
            colors=schemas.colors_of(self.match.variant),
            num_rounds=row.num_rounds,
            status=row.status,
            result=self.match.result(),
            players=players,
            round=self.round_index,
            totals=list(self.match.totals()),
            to_move=to_move,
            seat=seat,
            # a game still waiting for the friend is nobody's turn yet
            your_turn=seat is not None and to_move == seat and row.status != "waiting",
            updated_at=row.updated_at.isoformat() + "Z" if row.updated_at else None,
            rematch_id=row.rematch_id,
            assisted=bool(row.hints),
            hints=row.hints or 0,
            clock=clock_choice(row),
            clock_left=self.clock_left(),
            clock_times=self.clock_times(),
        )

    def _illegal(self, seat: int) -> dict[str, str]:
        r = self.round
        if r.is_over() or r.to_move != seat:
            return {}
        out: dict[str, str] = {}
        for card in r.hands[seat]:
            text = f"+{card}."
            if not r.is_legal(text):
                try:
                    r.parse_move(text)
                except ValueError as e:
                    msg = str(e)
                    if "(" in msg and msg.endswith(")"):
                        msg = msg[msg.index("(") + 1 : -1]
                    out[str(card)] = msg
        return out

    def state(self, seat: int | None, ack: int | str | None = None) -> str:
        """The ``state`` message for ``seat`` (``None``: a spectator), as JSON text."""
        r = self.round
        if seat is None:
            view = schemas.view_out(r.view(0), reveal_hand=False)
        else:
            view = schemas.view_out(r.view(seat), reveal_hand=True, illegal=self._illegal(seat))
        m = self.match
        rounds = [schemas.round_summary(i, x) for i, x in enumerate(m.rounds) if x.is_over()]
        match = schemas.MatchOut(
            totals=list(m.totals()),
            rounds=rounds,
            over=m.is_over(),
            result=m.result(),
            winner=m.winner(),
            reason=m.reason(),
            tie_break=m.tie_break,
            younger=m.younger,
            achievements=m.achievements is not None,
        )
        msg = schemas.StateOut(
            game=self.summary(seat),
            seat=seat,
            round=self.round_index,
            starter=r.starter,
            view=view,
            match=match,
            ack=ack,
        )
        return msg.model_dump_json()

    async def broadcast(self, ack_conn: Conn | None = None, ack: int | str | None = None) -> None:
        """Send every connection its own state (the submitter's carries ``ack``)."""
        self.schedule_clock()
        cache: dict[int | None, str] = {}
        for c in list(self.conns):
            if c is ack_conn:
                text = self.state(c.seat, ack)
            else:
                if c.seat not in cache:
                    cache[c.seat] = self.state(c.seat)
                text = cache[c.seat]
            await self.send(c, text)

    async def send(self, c: Conn, text: str) -> None:
        """Send to one connection; a dead connection is dropped."""
        if not c.alive:
            return
        try:
            await c.sender.send_text(text)
        except Exception:
            c.alive = False
            if c in self.conns:
                self.conns.remove(c)

    async def send_all(self, text: str) -> None:
        """Send the same message to every connection."""
        for c in list(self.conns):
            await self.send(c, text)

    # -- moves ---------------------------------------------------------------------------

    async def submit(self, seat: int, round_index: int, ply: int, move_text: str) -> Move:
        """Check, store and apply a move of ``seat`` made at ``round_index``/``ply``.

        The work runs in its own task, shielded: once a move is being stored, cancelling the
        caller (a dropped connection, shutdown) cannot leave it stored but not applied.

        :raises GameError: (stale, not your turn, game over, illegal move) - nothing changed.
        """
        task = asyncio.ensure_future(self._submit(seat, round_index, ply, move_text))
        return await asyncio.shield(task)

    async def _submit(self, seat: int, round_index: int, ply: int, move_text: str) -> Move:
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
                await self.manager.store.write(
                    op_move(
                        self.id, round_index, ply, str(move),
                        new_round=new_round, status=status, result=result, clock_left=times,
                    )
                )
            except IntegrityError:
                # another server process stored this ply first: ours is stale
                self.manager.background(self.refresh())
                raise StaleMoveError(
                    f"stale move: round {round_index} ply {ply} was already played"
                ) from None
            self.referee.submit(move, player=seat, seconds=self.thinking_time())
            self.row.updated_at = utcnow()  # the next move's clock starts (as stored)
            if times is not None:
                self.row.clock_left0, self.row.clock_left1 = times
            if next_deck is not None:
                self.referee.start_round(next_deck)
            if status is not None:
                self.row.status = status
            if result is not None:
                self.row.result = result
            return move

    def _leads_to(
        self, move: Move
    ) -> tuple[RoundRow | None, list[str] | None, str | None, str | None]:
        """What the legal ``move`` leads to, for the store: the next round's row and deck
        (if it ends a round but not the match), and the match's new status and result (if
        it ends the match). A probe: the move is made and taken back at once (no await in
        between, so nobody sees it); the referee makes it only once it is stored."""
        r = self.round
        r.push(move)
        try:
            if not r.is_over():
                return None, None, None, None
            m = self.match
            if m.is_over():
                return None, None, "finished", m.result()
            idx = len(m.rounds)
            deck = [str(c) for c in Round.deal(round_seed(m.seed, idx), m.variant).deal_order]
            row = RoundRow(game_id=self.id, index=idx, starter=m.next_starter(), deck=" ".join(deck))
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
        await self.manager.store.write(
            op_forfeit(self.id, self.round_index, seat, reason, status="finished", result=result)
        )
        self.referee.forfeit(seat, reason)
        self.row.status = "finished"
        self.row.result = result

    async def refresh(self) -> bool:
        """Take the game as the database has it, if another server process changed it (a
        move, a forfeit, a seat claimed), and send every connection its state; returns
        whether anything changed."""
        async with self.lock:
            stored = await self.manager.store.load(self.id)
            if stored is None:
                return False
            match = self.manager.build(stored)
            if _signature(stored.row, match) == _signature(self.row, self.match):
                return False
            self.row, self.match = stored.row, match
            self.referee = Referee(match, time_limit=_move_limit(stored.row))
        await self.broadcast()
        self.schedule_bot()
        return True

    # -- the move clock ----------------------------------------------------------------------

    def thinking_time(self) -> float:
        """Seconds since the move to make became due (the last stored change of the game)."""
        return max(0.0, (self.manager.now() - self.row.updated_at).total_seconds())

    def has_match_clock(self) -> bool:
        """Whether the game has a Fischer-style match clock (each player's time, plus an
        increment after each move) rather than a per-move clock or none."""
        return self.row.clock is not None and self.row.clock_increment is not None

    def _stored_times(self) -> list[float]:
        """Both players' match-clock times as of the last stored change."""
        base = float(self.row.clock or 0)
        stored = (self.row.clock_left0, self.row.clock_left1)
        return [base if t is None else t for t in stored]

    def _running(self) -> bool:
        return self.row.status == "active" and not self.is_over()

    def _allowed(self) -> float | None:
        """Seconds the player to move may think in all (their match time, or the per-move
        limit), or ``None`` while no clock runs."""
        if not self._running():
            return None
        if self.has_match_clock():
            return self._stored_times()[self.round.to_move]
        return self.referee.time_limit

    def clock_times(self) -> list[float] | None:
        """With a match clock, each player's time left (the player to move's as of now,
        while the game runs); else ``None``."""
        if not self.has_match_clock():
            return None
        times = self._stored_times()
        if self._running():
            p = self.round.to_move
            times[p] = max(0.0, times[p] - self.thinking_time())
        return [round(t, 2) for t in times]

    def _times_after_move(self, seat: int) -> tuple[float, float] | None:
        """Both match-clock times once ``seat`` moves now: its thinking time taken off, the
        increment added (``None`` without a match clock)."""
        if not self.has_match_clock():
            return None
        times = self._stored_times()
        spent = self.thinking_time()
        times[seat] = max(0.0, times[seat] - spent) + float(self.row.clock_increment or 0)
        return round(times[0], 3), round(times[1], 3)

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
        if self.has_match_clock():
            return f"timeout: no time left on the {clock_choice(self.row)} match clock"
        return f"timeout: no move within {self.referee.time_limit or 0:g} s"

    def schedule_clock(self) -> None:
        """Wait for the current move's time-out (one wait per round and ply, set again if
        the time-out moved, e.g. the game's last change came from another process)."""
        left = self.clock_left()
        if left is None:
            return
        key = (self.round_index, self.round.ply)
        loop = asyncio.get_running_loop()
        delay = left + self.referee.grace + 0.05
        due = loop.time() + delay
        if key == self.clock_key and self.clock_task is not None and abs(due - self.clock_due) < 1:
            return
        if self.clock_task is not None:
            self.clock_task.cancel()
        self.clock_key, self.clock_due = key, due
        self.clock_task = loop.create_task(self._clock(key, delay))

    async def _clock(self, key: tuple[int, int], delay: float) -> None:
        early = False
        try:
            await asyncio.sleep(delay)
            if not await self.manager.peers.own_bots(self.id):
                return  # the process running this game's bots also runs its clock
            async with self.lock:
                if self.is_over() or (self.round_index, self.round.ply) != key:
                    return
                early = not self.timed_out()
                if not early:
                    await self._forfeit_match(self.round.to_move, self.timeout_reason())
        finally:
            if self.clock_key == key:
                self.clock_task = None
                self.clock_key = None
        if early:  # (the wall clock and the loop's clock disagree a little)
            self.schedule_clock()
        else:
            await self.broadcast()

    # -- bots ----------------------------------------------------------------------------

    def schedule_bot(self) -> None:
        """Start the bot's turn if a bot is to move and none is thinking."""
        if self.is_over() or (self.bot_task is not None and not self.bot_task.done()):
            return
        seat = self.round.to_move
        spec = self.bot_spec(seat)
        if spec is None:
            return
        self.bot_task = asyncio.get_running_loop().create_task(self._bot_turn(seat, spec))

    async def _bot_turn(self, seat: int, spec: str) -> None:
        mgr = self.manager
        try:
            if not await mgr.peers.own_bots(self.id):
                return  # another server process runs this game's bots
            if self.is_over() or self.round.to_move != seat:
                return  # the game moved on meanwhile
            t0 = time.monotonic()
            r = self.round
            ri, ply = self.round_index, r.ply
            view = r.view(seat)
            seed = random.Random(f"{self.match.seed}:{ri}:{ply}").randrange(2**31)
            try:
                move = await mgr.bots.choose(
                    spec, seed, view, mgr.settings.bot_time_limit, self.row.mistakes or 0.0
                )
            except Exception as e:
                log.warning("bot %r failed in game %s: %s", spec, self.id, e)
                if not self.is_over():
                    await self.forfeit_bot(seat, f"bot failed: {e}")
                    await self.broadcast()
                return
            wait = mgr.settings.bot_min_delay - (time.monotonic() - t0)
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                await self.submit(seat, ri, ply, str(move))
            except GameError as e:
                log.warning("bot move rejected in game %s: %s", self.id, e)
                return
            await self.broadcast()
        finally:
            self.bot_task = None
        self.schedule_bot()

    async def forfeit_bot(self, seat: int, reason: str) -> None:
        """A bot that cannot move loses the match."""
        with contextlib.suppress(GameOverError):
            await self.resign(seat, reason)


def _signature(row: GameRow, match: Match) -> tuple[object, ...]:
    """What other processes can change of a game: its moves, forfeits, seats and status."""
    rounds = tuple((len(r.history), r.is_over()) for r in match.rounds)
    return (
        rounds, match.is_over(), row.status, row.result, row.token0, row.token1, row.name0,
        row.name1, row.rematch_id, row.hints,
    )


# -- the manager -------------------------------------------------------------------------------


def new_id() -> str:
    """A short, unguessable game id."""
    return secrets.token_urlsafe(9)


def new_invite() -> str:
    """A fresh invite code: 128 random bits from the OS's CSPRNG (``secrets``), URL-safe;
    only its hash (:func:`~lostcities.web.store.hash_token`) is stored."""
    return secrets.token_urlsafe(16)


def invite_matches(stored: str, invite: str) -> bool:
    """Whether ``invite`` is the code whose stored form is ``stored``, compared in
    constant time (``hmac.compare_digest``). Rows written before invites were hashed hold
    the code itself (16 characters, never 64 hex digits like a hash): still accepted."""
    if len(stored) == 64:
        return hmac.compare_digest(stored, hash_token(invite))
    return hmac.compare_digest(stored.encode(), invite.encode())


def new_token() -> str:
    """A seat token (256 bits)."""
    return secrets.token_urlsafe(32)


@dataclass
class ManagerSettings:
    """What the manager needs from the app settings."""

    bot_time_limit: float | None = None
    bot_min_delay: float = 0.0
    unload_after: float = 900.0


class GameManager:
    """Every live game, loaded from the store on first use."""

    def __init__(
        self,
        store: GameStore,
        bots: BotRunner,
        settings: ManagerSettings,
        levels: dict[str, Level] | None = None,
        peers: Peers | None = None,
    ) -> None:
        self.levels = dict(LEVELS if levels is None else levels)
        self.peers: Peers = SingleProcess() if peers is None else peers
        """The other server processes sharing the database (:mod:`lostcities.web.peers`)."""
        self._background: set[asyncio.Task[object]] = set()
        self.store = store
        self.bots = bots
        self.settings = settings
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Future[LiveGame | None]] = {}
        self._availability: dict[str, str | None] = {}
        self.clock: Callable[[], float] = time.monotonic
        self.now: Callable[[], datetime.datetime] = utcnow
        """The time as the store writes it (naive UTC): the move clock's (tests shift it)."""
        self.analyses: dict[str, asyncio.Task[None]] = {}
        """Analyses being computed, by game id."""
        self.analysis_progress: dict[str, tuple[int, int]] = {}
        """Moves analysed and to analyse, by game id (while computing)."""

    # -- levels --------------------------------------------------------------------------

    def _available(self, spec: str) -> str | None:
        if spec not in self._availability:
            self._availability[spec] = bot_available(spec)
        return self._availability[spec]

    def _missing(self, modules: tuple[str, ...]) -> str | None:
        for name in modules:
            key = f"module {name}"
            if key not in self._availability:
                try:
                    importlib.import_module(name)
                except ImportError:
                    self._availability[key] = f"{name} is not installed"
                else:
                    self._availability[key] = None
            if self._availability[key] is not None:
                return self._availability[key]
        return None

    def own_bot_missing(self, level: str) -> str | None:
        """``None`` if the level's own bot (not its fallback) plays here, else why not."""
        lv = self.levels[level]
        return self._available(lv.spec) or self._missing(lv.requires)

    def resolve_level(self, level: str) -> tuple[str, float]:
        """The bot spec and mistake rate a level plays here (its fallback if need be).

        :raises BotUnavailableError: if neither the level's bot nor its fallback is installed.
        """
        lv = self.levels[level]
        why = self.own_bot_missing(level)
        if why is None:
            return lv.spec, lv.mistakes
        if lv.fallback is not None and self._available(lv.fallback) is None:
            return lv.fallback, 0.0
        raise BotUnavailableError(f"the {level} level is not available on this server ({why})")

    def level_unavailable(self, level: str) -> str | None:
        """``None`` if the level can be played here, else why not."""
        try:
            self.resolve_level(level)
        except BotUnavailableError as e:
            return str(e)
        return None

    # -- loading -------------------------------------------------------------------------

    @staticmethod
    def build(stored: StoredGame) -> Match:
        """Replay a stored game with the rules core.

        :raises ValueError: if the stored moves do not replay (a corrupt database).
        """
        row = stored.row
        m = Match(
            row.num_rounds,
            variant=row.variant,
            seed=row.seed,
            starter=row.first_starter,
            tie_break=row.tie_break or "draw",
            younger=row.younger,
            achievements=row.achievements == "default",
        )
        for sr in stored.rounds:
            r = m.new_round(sr.deck)
            for mv in sr.moves:
                r.push(mv)
            if sr.forfeit is not None and not r.is_over():
                r.forfeit(sr.forfeit, sr.forfeit_reason)
        return m

    async def get(self, game_id: str) -> LiveGame:
        """The live game ``game_id``, loaded if needed.

        :raises GameNotFoundError: if there is no such game.
        """
        g = self.games.get(game_id)
        if g is not None:
            g.last_active = time.monotonic()
            return g
        if len(game_id) > 32:
            raise GameNotFoundError(f"no game {game_id[:32]!r}...")
        fut = self._loading.get(game_id)
        if fut is None:
            fut = asyncio.get_running_loop().create_future()
            self._loading[game_id] = fut
            try:
                stored = await self.store.load(game_id)
                if stored is None:
                    fut.set_result(None)
                else:
                    live = LiveGame(stored.row, self.build(stored), self)
                    self.games[game_id] = live
                    fut.set_result(live)
                    live.schedule_bot()
                    live.schedule_clock()
            except Exception as e:
                fut.set_exception(e)
            finally:
                del self._loading[game_id]
        loaded = await asyncio.shield(fut)
        if loaded is None:
            raise GameNotFoundError(f"no game {game_id!r}")
        return loaded

    async def resume_all(self) -> int:
        """Load unfinished games with a bot seat so a bot to move carries on after a restart."""
        ids = await asyncio.to_thread(self.store.resumable_sync)
        for gid in ids:
            try:
                await self.get(gid)
            except Exception as e:  # a corrupt game must not stop the server
                log.error("cannot resume game %s: %s", gid, e)
        return len(ids)

    def unload_idle(self) -> int:
        """Drop games nobody watches from memory (they reload from the store on demand)."""
        now = time.monotonic()
        drop = [
            gid
            for gid, g in self.games.items()
            if not g.conns
            and (g.bot_task is None or g.bot_task.done())
            and not g.lock.locked()
            and now - g.last_active > self.settings.unload_after
        ]
        for gid in drop:
            del self.games[gid]
            if self.peers.shared:
                self.background(self.peers.release(gid))
        return len(drop)

    def on_change(self, game_id: str) -> None:
        """Another server process (or this one) committed a change of ``game_id``: refresh
        it if it is in memory here (``"*"``: every game, after listening again)."""
        games = list(self.games.values()) if game_id == "*" else [self.games.get(game_id)]
        for g in games:
            if g is not None:
                self.background(g.refresh())

    def background(self, work: Coroutine[object, object, object]) -> None:
        """Run ``work`` in its own task, kept until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def sweep_bots(self) -> None:
        """Start the bot of every game in memory whose bot is to move and not running (the
        process that ran it may have died)."""
        for g in list(self.games.values()):
            g.schedule_bot()

    # -- creating and joining --------------------------------------------------------------

    async def create(
        self,
        req: schemas.CreateGame,
        *,
        rematch_of: str | None = None,
        seed: int | None = None,
        first_starter: int | None = None,
    ) -> tuple[LiveGame, str, str | None]:
        """Create a game; returns it, seat 0's token and (friend games) the invite code.

        :raises BotUnavailableError: if the level's bot is not installed.
        """
        variant = get_variant(req.variant)
        bot: str | None = None
        level: str | None = None
        mistakes = 0.0
        if req.opponent == "computer":
            level = req.level
            bot, mistakes = self.resolve_level(level)
        m = Match(
            req.rounds,
            variant=variant,
            seed=seed,
            starter=first_starter,
            tie_break=req.tie_break,
            younger=req.younger,
            achievements=req.achievements,
        )
        r = m.new_round()
        token = new_token()
        invite = new_invite() if bot is None else None
        clock, increment = parse_clock(req.clock)
        row = GameRow(
            id=new_id(),
            variant=variant.name,
            num_rounds=req.rounds,
            seed=m.seed,
            first_starter=m.first_starter,
            status="active" if bot else "waiting",
            result="*",
            level=level,
            name0=req.name or "Player 1",
            name1=(f"Computer ({self.levels[level].label})" if level else "Player 2"),
            mistakes=mistakes,
            bot0=None,
            bot1=bot,
            token0=hash_token(token),
            token1=None,
            invite=hash_token(invite) if invite is not None else None,  # stored hashed
            rematch_of=rematch_of,
            tie_break=None if m.tie_break == "draw" else m.tie_break,
            younger=m.younger,
            achievements="default" if req.achievements else None,
            clock=clock,
            clock_increment=increment,
            clock_left0=None if increment is None else float(clock or 0),
            clock_left1=None if increment is None else float(clock or 0),
        )
        row.created_at = row.updated_at = utcnow()
        deck = " ".join(str(c) for c in r.deal_order)
        await self.store.write(
            op_insert_game(row, [RoundRow(game_id=row.id, index=0, starter=r.starter, deck=deck)])
        )
        live = LiveGame(row, m, self)
        self.games[row.id] = live
        live.schedule_bot()
        return live, token, invite

    async def join(self, game_id: str, invite: str, name: str) -> tuple[LiveGame, str]:
        """Claim seat 1 of a friend game with its invite code; returns the seat token.

        :raises SeatTakenError: if the seat is already taken (or the code is wrong).
        """
        return await self._join(game_id, name, invite=invite)

    async def _join(
        self, game_id: str, name: str, *, invite: str | None = None
    ) -> tuple[LiveGame, str]:
        # invite None: the server's own rematch seats the other player (no code to check)
        g = await self.get(game_id)
        async with g.lock:
            if g.row.bot1 is not None:
                # a game against the computer never had an invite: the code is simply wrong
                raise InvalidTokenError("invalid invite code for this game")
            if g.row.token1 is not None:
                raise SeatTakenError("this invite was already used: the seat is taken")
            stored = g.row.invite
            if stored is None or (invite is not None and not invite_matches(stored, invite)):
                raise InvalidTokenError("invalid invite code for this game")
            token = new_token()
            h = hash_token(token)
            pname = name or "Player 2"
            changed = await self.store.write(op_claim_seat(g.id, 1, stored, h, pname))
            if not changed:
                raise SeatTakenError("this invite was already used: the seat is taken")
            g.row.token1 = h
            g.row.invite = None
            g.row.name1 = pname
            g.row.updated_at = utcnow()  # a move clock starts now
            if g.row.status == "waiting":
                g.row.status = "active"
        await g.broadcast()
        return g, token

    async def rematch(self, game_id: str, token: str) -> tuple[LiveGame, int, str]:
        """Create (or join) the rematch of a finished game; returns it, the seat and its token.

        The first player to ask creates it (and sits in seat 0); in a friend game the other
        player's request then takes seat 1.

        :raises NotFinishedError: if the game is not over.
        :raises SeatTakenError: if this player already created it (or both seats are taken).
        """
        g = await self.get(game_id)
        seat = g.seat_for(token)
        if seat is None:
            raise InvalidTokenError("a seat token is needed for a rematch")
        if not g.is_over():
            raise NotFinishedError("the game is not over yet")
        async with g.rematch_lock:
            if g.row.rematch_id is not None:
                other = await self.get(g.row.rematch_id)
                if (
                    seat != g.row.rematch_by
                    and other.row.bot1 is None
                    and other.row.token1 is None
                    and other.row.invite
                ):
                    name = g.row.name1 if seat == 1 else g.row.name0
                    _, tok = await self._join(other.id, name)
                    return other, 1, tok
                raise SeatTakenError(f"the rematch was already created: game {other.id}")
            names = (g.row.name0, g.row.name1)
            # the asker sits in seat 0 of the rematch: the younger player keeps being younger
            old_younger = g.match.younger
            younger = None if old_younger is None else (0 if old_younger == seat else 1)
            req = schemas.CreateGame(
                opponent="computer" if g.row.bot1 else "friend",
                level=g.row.level or "medium",  # type: ignore[arg-type]
                variant=g.row.variant,  # type: ignore[arg-type]
                rounds=g.row.num_rounds,  # type: ignore[arg-type]
                name=names[seat],
                tie_break=g.match.tie_break,
                younger=younger,  # type: ignore[arg-type]
                achievements=g.match.achievements is not None,
                clock=clock_choice(g.row),  # type: ignore[arg-type]
            )
            new, tok, _ = await self.create(req, rematch_of=g.id, first_starter=None)
            await self.store.write(op_update_game(g.id, rematch_id=new.id, rematch_by=seat))
            g.row.rematch_id = new.id
            g.row.rematch_by = seat
        await g.send_all(json.dumps({"type": "rematch", "id": new.id}))
        return new, 0, tok

    async def lookup(self, items: list[schemas.LookupItem]) -> list[schemas.GameSummary]:
        """Summaries of the games a browser remembers (unknown ids and bad tokens skipped)."""
        out = []
        for it in items[:200]:
            try:
                g = await self.get(it.id)
                seat = g.seat_for(it.token)
            except GameError:
                continue
            out.append(g.summary(seat))
        return out

    def replay(self, g: LiveGame) -> schemas.ReplayOut:
        """Every position of a finished game with both hands revealed.

        :raises NotFinishedError: while the game goes on (hands are secret until the end).
        """
        if not g.is_over():
            raise NotFinishedError("replays are available once the game is over")
        rounds = []
        for i, r in enumerate(g.match.rounds):
            board = r.achievements  # the same goal cards, claimed again move by move
            goals = board.goals if board is not None else None
            x = Round.from_deck(r.deal_order, r.starter, r.variant, achievements=goals)
            frames = [schemas.frame_of(x, None)]
            for mv in r.history:
                x.push(mv)
                frames.append(schemas.frame_of(x, str(mv)))
            rounds.append(
                schemas.ReplayRoundOut(
                    index=i, starter=r.starter, frames=frames, summary=schemas.round_summary(i, r)
                )
            )
        return schemas.ReplayOut(game=g.summary(None), rounds=rounds)

    def position_svg(self, g: LiveGame, round_number: int, ply: int) -> str:
        """The picture (:func:`lostcities.svg.position`, both hands shown, as the replay
        shows them) of a finished game's round ``round_number`` (from 1) after ``ply`` moves.

        :raises NotFinishedError: while the game goes on (hands are secret until the end).
        :raises PositionNotFoundError: for a round or ply the game does not have.
        """
        from lostcities.svg import position

        if not g.is_over():
            raise NotFinishedError("positions are available once the game is over")
        rounds = g.match.rounds
        if not 1 <= round_number <= len(rounds):
            raise PositionNotFoundError(
                f"no round {round_number} in this game (it has {len(rounds)})"
            )
        r = rounds[round_number - 1]
        if not 0 <= ply <= len(r.history):
            raise PositionNotFoundError(
                f"no ply {ply} in round {round_number} (it has 0..{len(r.history)})"
            )
        x = Round.from_deck(r.deal_order, r.starter, r.variant)
        for mv in r.history[:ply]:
            x.push(mv)
        return position(x)

    def record_text(self, g: LiveGame) -> str:
        """The game record (PGN-like) of a finished game.

        :raises NotFinishedError: while the game goes on (it holds the decks).
        """
        from lostcities.record import GameRecord

        if not g.is_over():
            raise NotFinishedError("the record is available once the game is over")
        rec = GameRecord.from_match(
            g.match,
            players=(g.row.name0, g.row.name1),
            Event="lostcities web game",
            Site=f"game {g.id}",
            Date=g.row.created_at.strftime("%Y.%m.%d") if g.row.created_at else "????.??.??",
            **({"Assisted": f"{g.row.hints} hints"} if g.row.hints else {}),
        )
        return str(rec)

    # -- hints and analysis ----------------------------------------------------------------

    async def hint(self, g: LiveGame, seat: int) -> schemas.HintOut:
        """The engine's move for ``seat``'s position (a game against the computer, the seat
        to move); the game is marked assisted (:attr:`GameRow.hints`, its record's
        ``Assisted`` tag).

        :raises GameError: for a game without a computer seat, or not this seat's turn.
        """
        if g.row.bot0 is None and g.row.bot1 is None:
            raise HintNotAllowedError("hints are for games against the computer")
        if g.bot_spec(seat) is not None:
            raise HintNotAllowedError("that seat is the computer's")
        if g.is_over() or g.round.is_over():
            raise GameOverError("the round is over")
        if g.round.to_move != seat:
            raise NotYourTurnError("it is not your turn")
        view = g.round.view(seat)
        ri, ply = g.round_index, g.round.ply
        seed = random.Random(f"hint:{self.match_seed(g)}:{ri}:{ply}").randrange(2**31)
        out = await self.bots.run(bot_hint, ANALYSIS_BOT, seed, view, HINT_WORLDS)
        hints = (g.row.hints or 0) + 1
        await self.store.write(op_update_game(g.id, hints=hints))
        g.row.hints = hints
        return schemas.HintOut(round=ri, ply=ply, **out)  # type: ignore[arg-type]

    @staticmethod
    def match_seed(g: LiveGame) -> int:
        """The match's seed (hints and analyses draw their worlds from it)."""
        return g.match.seed or 0

    async def analysis(self, g: LiveGame) -> schemas.AnalysisOut:
        """The analysis of a finished game: stored, or started now in the worker pool (one
        move at a time, so bot moves of other games never wait long) and reported as
        running with its progress.

        :raises NotFinishedError: while the game goes on.
        """
        if not g.is_over():
            raise NotFinishedError("the analysis is available once the game is over")
        text = await asyncio.to_thread(self.store.analysis_sync, g.id)
        if text is not None:
            return schemas.AnalysisOut(status="done", **json.loads(text))
        task = self.analyses.get(g.id)
        if task is None or (task.done() and task.exception() is not None):
            if task is not None:
                log.warning("analysis of game %s failed: %s; retrying", g.id, task.exception())
            self.analyses[g.id] = asyncio.create_task(self._analyse(g))
        done, total = self.analysis_progress.get(g.id, (0, 0))
        return schemas.AnalysisOut(status="running", done=done, total=total)

    async def _analyse(self, g: LiveGame) -> None:
        items = positions(g.match.rounds)
        self.analysis_progress[g.id] = (0, len(items))
        reviews: list[MoveReview] = []
        try:
            for p in items:
                reviews.append(await self.bots.run(bot_review, ANALYSIS_BOT, p, ANALYSIS_WORLDS))
                self.analysis_progress[g.id] = (len(reviews), len(items))
            data = {"bot": ANALYSIS_BOT, "worlds": ANALYSIS_WORLDS,
                    **report(reviews, (g.row.name0, g.row.name1))}
            await self.store.write(op_save_analysis(g.id, ANALYSIS_BOT, json.dumps(data)))
        finally:
            self.analysis_progress.pop(g.id, None)
            if self.analyses.get(g.id) is asyncio.current_task():
                del self.analyses[g.id]

    async def close(self) -> None:
        """Cancel bot turns and analyses; stop listening to the other processes."""
        await self.peers.close()
        for t in list(self.analyses.values()):
            t.cancel()
        for g in list(self.games.values()):
            if g.bot_task is not None:
                g.bot_task.cancel()
