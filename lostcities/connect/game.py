"""One game of ``lostcities connect``: its stream followed (and reopened after a network
loss or a server restart: the first line, ``gameFull``, says where the game stands), the
engine asked for a move at each of the bot's turns, the move sent with its round and ply.

The engine is a :class:`~lostcities.bots.Bot` made from the spec for this game alone (a
``cmd:`` spec: a program of its own). It is given the :class:`~lostcities.PlayerView` that
the state's position lines describe (:class:`~lostcities.protocol.PositionReader`); a
``cmd:`` engine gets those same lines back from it (``lostcities.protocol.host``). Every
call into the engine runs on a worker thread, one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lostcities.bots import Bot, BotError
from lostcities.connect.client import ApiError, BotApiClient, ConnectionLost
from lostcities.connect.progress import Reporter
from lostcities.protocol import PositionError, PositionReader
from lostcities.rules import Move, PlayerView

__all__ = ["Backoff", "GameResult", "GameRunner", "move_time"]

NETWORK_MARGIN = 0.3
"""Seconds kept back from every move's clock for the request to reach the server."""
MIN_MOVE_TIME = 0.05
"""The least time an engine is given for a move."""
ENGINE_TRIES = 2
"""Moves asked of the engine at one turn before the legal fallback is sent instead."""
MOVE_TRIES = 8
"""Moves refused as illegal at one turn before the turn is left to the clock (a move that
could not be delivered, for a network loss or a server error, is sent again after the
back-off for as long as it is the bot's turn, and counts for none)."""
RESIGN_TRIES = 5
"""Attempts to deliver a resignation before the game is left."""
SEND_WAIT = 20.0
"""Seconds a game's end waits for the answers to moves still on their way."""
FINAL_STATES = frozenset({"finished", "aborted"})
"""The ``status`` of a game that is over."""
CARDS_AFTER_DEAL = {"classic": 44, "long": 56}
"""Cards in the draw pile when a round starts (for the time budget of a match clock)."""


class Backoff:
    """Exponential back-off with jitter, capped: the ``n``-th wait after a failure is
    drawn from ``[d/2, d]`` with ``d = min(cap, base * 2**n)``; :meth:`reset` after a
    success.

    >>> b = Backoff(1.0, 8.0, random.Random(1))
    >>> [round(b.next_delay(), 2) for _ in range(6)]
    [0.57, 1.85, 3.53, 5.02, 5.98, 5.8]
    """

    def __init__(self, base: float, cap: float, rng: random.Random) -> None:
        self.base = base
        self.cap = cap
        self.rng = rng
        self.attempt = 0

    def next_delay(self) -> float:
        """The next wait, in seconds."""
        d = min(self.cap, self.base * 2.0 ** min(self.attempt, 60))
        self.attempt += 1
        return d / 2 + self.rng.uniform(0.0, d / 2)

    def reset(self) -> None:
        """The next failure waits as little as the first."""
        self.attempt = 0

    async def sleep(self) -> float:
        """Wait :meth:`next_delay` seconds; returns how long."""
        delay = self.next_delay()
        await asyncio.sleep(delay)
        return delay


def move_time(
    clock_ms: float | None,
    clock: object,
    deck: int,
    round_: int,
    rounds: int,
    variant: str,
    cap: float,
) -> float:
    """Seconds to give the engine for a move: ``cap`` without a clock; with a per-move
    clock (``60``, ``3d``), what is left of it; with a match clock (``300+5``), what is
    left shared out over the moves still to come in the match (about half the draw pile in
    this round, half a full pile in each later one), plus most of the increment. Always
    ``NETWORK_MARGIN`` short of the clock, at least ``MIN_MOVE_TIME``, at most ``cap``.

    >>> move_time(None, None, 40, 1, 3, "classic", 5.0)
    5.0
    >>> move_time(60_000, "60", 40, 1, 3, "classic", 5.0), move_time(2_000, 60, 40, 1, 1, "classic", 5.0)
    (5.0, 1.7)
    >>> round(move_time(300_000, "300+5", 44, 1, 3, "classic", 30.0), 2)
    8.34
    """
    if clock_ms is None or not math.isfinite(clock_ms):
        return cap
    left = clock_ms / 1000.0 - NETWORK_MARGIN
    name = str(clock)
    if "+" in name:
        try:
            increment = float(name.partition("+")[2])
        except ValueError:
            increment = 0.0
        full = CARDS_AFTER_DEAL.get(variant, 44)
        moves = deck / 2 + 1 + max(0, rounds - round_) * (full / 2 + 1)
        left = left / max(moves, 1.0) + 0.8 * increment
    return max(MIN_MOVE_TIME, min(cap, left))


def _pair(value: object) -> tuple[int, int]:
    """``[a, b]`` or ``{"0": a, "1": b}`` as ``(a, b)``; anything else ``(0, 0)``."""
    if isinstance(value, Mapping):
        value = [value.get("0", value.get(0, 0)), value.get("1", value.get(1, 0))]
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        try:
            return int(value[0]), int(value[1])
        except (TypeError, ValueError):
            return 0, 0
    return 0, 0


def _name(player: object) -> str:
    """A player object's name (``{"name", "bot", "rating"}``), ``BOT`` marked."""
    if isinstance(player, Mapping):
        name = str(player.get("name") or "?")
        return f"BOT {name}" if player.get("bot") else name
    return str(player) if player else "?"


@dataclass
class GameResult:
    """How a game ended for this bot."""

    id: str
    opponent: str
    outcome: str
    """``won``, ``lost``, ``draw``, ``aborted`` or ``left`` (not seen to its end)."""
    score: tuple[int, int]
    """The match totals, this bot's first."""
    ending: str = ""


class GameRunner:
    """Plays one game to its end (:meth:`run`).

    Args:
        client: the bot API.
        game_id: the game.
        info: what is known of it so far (a ``gameStart`` event's ``game``, or a
            challenge); ``gameFull`` fills in the rest.
        make_engine: builds the engine for this game (called on a worker thread).
        reporter: where progress goes.
        backoff: the back-off of this game's reconnections and retries.
        move_cap: the most seconds the engine is given for a move.
    """

    def __init__(
        self,
        client: BotApiClient,
        game_id: str,
        info: Mapping[str, Any],
        make_engine: Callable[[], Bot],
        reporter: Reporter,
        backoff: Backoff,
        move_cap: float,
    ) -> None:
        self.client = client
        self.id = game_id
        self.make_engine = make_engine
        self.reporter = reporter
        self.backoff = backoff
        self.move_cap = move_cap
        self.seat: int | None = info.get("seat") if isinstance(info.get("seat"), int) else None
        self.variant = str(info.get("variant") or "classic")
        self.rounds = int(info.get("rounds") or 1)
        self.rated = bool(info.get("rated"))
        self.clock: object = info.get("clock")
        self.opponent = _name(info.get("opponent")) if info.get("opponent") else "?"
        self.state: dict[str, Any] = {}
        self.round = 0
        self.status = "started"
        self.result: GameResult | None = None
        self.moves_sent = 0
        self.illegal_refusals = 0
        self.engine: Bot | None = None
        self._engine_round: int | None = None
        self._engine_lock = threading.Lock()
        self._turn: tuple[int, int] | None = None
        self._think: asyncio.Task[None] | None = None
        self._sending: set[asyncio.Task[Any]] = set()
        """Turns whose move is on its way to the server: left to finish, never cancelled
        (the server sends the state after a move before its answer to the move, so a turn
        is over for the stream before it is over for the request)."""
        self._detached: set[asyncio.Task[None]] = set()
        """Turns superseded while their move was on its way: their answers are awaited."""
        self._resigning: asyncio.Task[None] | None = None
        self._announced = False

    # -- what the progress line shows ---------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """The game as its progress line shows it."""
        totals = _pair(self.state.get("totals"))
        seat = self.seat or 0
        return {
            "id": self.id,
            "opponent": self.opponent,
            "variant": self.variant,
            "rounds": self.rounds,
            "rated": self.rated,
            "clock": self.clock,
            "round": self.round or 1,
            "score": (totals[seat], totals[seat ^ 1]),
        }

    def ended(self) -> bool:
        """Whether the game has ended (or was left)."""
        return self.result is not None

    # -- the game -------------------------------------------------------------------------

    async def run(self) -> GameResult:
        """Follow the game to its end, moving at every turn; reopen the stream after a
        network loss. Returns how it ended (``left`` if the server refused the stream)."""
        try:
            self.engine = await asyncio.to_thread(self.make_engine)
        except (BotError, ValueError, OSError) as e:
            self.reporter.report(
                "engine",
                f"game {self.id}: the engine did not start ({e}); legal moves are played for it",
                "error",
                game=self.id,
            )
        try:
            while not self.ended():
                try:
                    async for message in self.client.game_stream(self.id):
                        self.backoff.reset()
                        self._on_message(message)
                        if self.ended():
                            break
                    if not self.ended():
                        raise ConnectionLost("the game stream ended before the game")
                except ConnectionLost as e:
                    await self._wait("reconnecting", str(e))
                except ApiError as e:
                    if not e.transient:
                        self.reporter.report(
                            "game",
                            f"game {self.id}: the server refused its stream: {e}",
                            "error",
                            game=self.id,
                            code=e.code,
                        )
                        self._finish("left")
                    else:
                        await self._wait("retrying", str(e), e.retry_after)
        finally:
            await self._stop_thinking()
            resigning = self._resigning
            if resigning is not None and not resigning.done():
                resigning.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await resigning
            engine, self.engine = self.engine, None
            if engine is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(engine.close)
        assert self.result is not None
        return self.result

    async def _wait(self, what: str, why: str, at_least: float | None = None) -> None:
        delay = self.backoff.next_delay()
        if at_least is not None:
            delay = max(delay, at_least)
        self.reporter.report(
            "reconnect",
            f"game {self.id}: {why}; {what} in {delay:.1f} s",
            "warning",
            game=self.id,
            delay=round(delay, 3),
        )
        await asyncio.sleep(delay)

    def _on_message(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "gameFull":
            seat = message.get("seat")
            if isinstance(seat, int) and seat in (0, 1):
                self.seat = seat
            self.variant = str(message.get("variant") or self.variant)
            self.rounds = int(message.get("rounds") or self.rounds)
            self.rated = bool(message.get("rated", self.rated))
            self.clock = message.get("clock", self.clock)
            players = message.get("players")
            if isinstance(players, Sequence) and len(players) == 2 and self.seat is not None:
                self.opponent = _name(players[self.seat ^ 1])
            state = message.get("state")
            if isinstance(state, Mapping):
                self._on_state(state, fresh=True)
        elif kind == "gameState":
            state = message.get("state")
            if isinstance(state, Mapping):
                self._on_state(state)
        elif kind == "chatLine":
            self.reporter.report(
                "chat",
                f"game {self.id}: {message.get('from')}: {message.get('phrase')}",
                "debug",
                game=self.id,
            )

    def _on_state(self, state: Mapping[str, Any], fresh: bool = False) -> None:
        self.state = dict(state)
        round_ = int(state.get("round") or 1)
        status = str(state.get("status") or "started")
        if not self._announced:
            self._announced = True
            self.round = round_
            self.reporter.game_line(self.summary(), "started")
        elif round_ != self.round:
            self.round = round_
            self.reporter.game_line(self.summary(), "playing")
        self.status = status
        if status in FINAL_STATES:
            self._on_end(state)
            return
        if self.seat is not None and state.get("to_move") == self.seat:
            turn = (round_, int(state.get("ply") or 0))
            # a new turn; or, on a reopened stream, a turn whose move did not hold (the
            # server restarted before it was kept)
            again = fresh and (self._think is None or self._think.done())
            if turn != self._turn or again:
                self._cancel_thinking()
                self._turn = turn
                self._think = asyncio.create_task(self._play_turn(dict(state), turn))
        else:
            self._cancel_thinking()

    def _on_end(self, state: Mapping[str, Any]) -> None:
        self._cancel_thinking()
        seat = self.seat or 0
        result = state.get("result")
        result = result if isinstance(result, Mapping) else {}
        totals = _pair(result.get("scores", state.get("totals")))
        score = (totals[seat], totals[seat ^ 1])
        ending = str(result.get("ending") or "")
        if state.get("status") == "aborted":
            outcome = "aborted"
        elif result.get("winner") is None:
            outcome = "draw"
        else:
            outcome = "won" if result.get("winner") == seat else "lost"
        self._finish(outcome, score, ending)

    def _finish(self, outcome: str, score: tuple[int, int] | None = None, ending: str = "") -> None:
        if self.result is not None:
            return
        if score is None:
            score = self.summary()["score"]
        self.result = GameResult(self.id, self.opponent, outcome, score, ending)
        line = self.summary()
        line["score"] = score
        status = outcome if not ending else f"{outcome} ({ending})"
        self.reporter.game_line(line, status, "info" if outcome != "left" else "error")

    # -- a turn ---------------------------------------------------------------------------

    def _cancel_thinking(self) -> None:
        """Stop the turn being played: its engine, or its wait to send the move again. A
        move already on its way is not cut off: its answer is awaited (and reported)."""
        task, self._think = self._think, None
        if task is None or task.done():
            return
        if task in self._sending:
            self._detached.add(task)
            task.add_done_callback(self._detached.discard)
        else:
            task.cancel()

    async def _stop_thinking(self) -> None:
        task, self._think = self._think, None
        if task is not None and not task.done():
            if task in self._sending:
                self._detached.add(task)
            else:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        detached = set(self._detached)
        if detached:
            _, late = await asyncio.wait(detached, timeout=SEND_WAIT)
            for t in late:
                t.cancel()
            for t in detached:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t

    def view_of(self, state: Mapping[str, Any]) -> PlayerView | None:
        """The engine's view of ``state`` (its position lines), or ``None`` if they do not
        make one."""
        lines = state.get("position")
        if isinstance(lines, str):
            lines = lines.splitlines()
        if not isinstance(lines, Sequence) or self.seat is None:
            return None
        reader = PositionReader()
        try:
            reader.newgame(self.variant, self.seat)
            for line in lines:
                if str(line).strip():
                    reader.feed(str(line))
            return reader.view()
        except PositionError as e:
            self.reporter.report(
                "engine",
                f"game {self.id}: the server's position cannot be read ({e})",
                "warning",
                game=self.id,
            )
            return None

    def _engine_move(self, view: PlayerView, time_limit: float, round_: int) -> Move:
        """On a worker thread: the engine's move (a new round started for it first)."""
        engine = self.engine
        if engine is None:
            raise BotError("no engine")
        with self._engine_lock:
            if self._engine_round != round_:
                engine.restart(view.variant, view.player)
                self._engine_round = round_
            try:
                return engine.choose(view, time_limit)
            except BaseException:
                self._engine_round = None  # started afresh (newgame) at the next turn
                raise

    async def _ask_engine(self, view: PlayerView, time_limit: float, round_: int) -> str | None:
        try:
            move = await asyncio.to_thread(self._engine_move, view, time_limit, round_)
        except Exception as e:  # whatever the engine's fault, the turn is played
            self.reporter.report(
                "engine",
                f"game {self.id}: the engine gave no move ({e}); a legal move is sent for it",
                "warning",
                game=self.id,
            )
            return None
        return str(move)

    async def _play_turn(self, state: Mapping[str, Any], turn: tuple[int, int]) -> None:
        try:
            await self._play(state, turn)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bug here must not end the game unseen
            self.reporter.report(
                "move",
                f"game {self.id}: the turn failed: {type(e).__name__}: {e}",
                "error",
                game=self.id,
            )

    async def _play(self, state: Mapping[str, Any], turn: tuple[int, int]) -> None:
        round_, ply = turn
        view = self.view_of(state)
        legal = [str(m) for m in state.get("legal") or ()]
        if not legal and view is not None:
            legal = [str(m) for m in view.legal_moves()]
        rng = random.Random(f"{self.id}:{round_}:{ply}")
        clock = state.get("clock")
        clock_ms = None
        if isinstance(clock, Mapping) and self.seat is not None:
            raw = clock.get(str(self.seat), clock.get(self.seat))
            clock_ms = float(raw) if isinstance(raw, int | float) else None
        deck = view.deck_size if view is not None else 0
        limit = move_time(
            clock_ms, self.clock, deck, round_, self.rounds, self.variant, self.move_cap
        )
        refused: set[str] = set()
        engine_tries = 0
        move: str | None = None
        while len(refused) < MOVE_TRIES:
            if move is None or move in refused:
                move = None
                usable = view is not None and self.engine is not None
                if usable and engine_tries < ENGINE_TRIES:
                    engine_tries += 1
                    assert view is not None
                    move = await self._ask_engine(view, limit, round_)
                if move is None or move in refused:
                    left = [m for m in legal if m not in refused]
                    if not left:
                        break
                    move = rng.choice(left)
            me = asyncio.current_task()
            assert me is not None  # (a turn is a task)
            try:
                self._sending.add(me)
                try:
                    await self.client.move(self.id, move, round_, ply)
                finally:
                    self._sending.discard(me)
            except ApiError as e:
                if me in self._detached:
                    return  # the game has moved on: the stream says what happens next
                if e.code == "illegal_move":
                    self.illegal_refusals += 1
                    refused.add(move)
                    self.reporter.report(
                        "illegal",
                        f"game {self.id}: {move} refused as illegal ({e.detail}); trying again",
                        "warning",
                        game=self.id,
                        move=move,
                    )
                    continue
                if e.transient:
                    await self._wait("sending the move again", str(e), e.retry_after)
                    continue
                # stale, not our turn, game over, or a refusal of this bot: the stream
                # says what happens next
                self.reporter.report(
                    "move",
                    f"game {self.id}: {move} not taken: {e}",
                    "warning" if e.status != 409 else "debug",
                    game=self.id,
                    code=e.code,
                )
                return
            except ConnectionLost as e:
                if me in self._detached:
                    return
                await self._wait("sending the move again", str(e))
                continue
            self.moves_sent += 1
            self.backoff.reset()
            self.reporter.report(
                "move",
                f"game {self.id}: round {round_}, ply {ply}: {move}",
                "debug",
                game=self.id,
                round=round_,
                ply=ply,
                move=move,
            )
            return
        self.reporter.report(
            "move",
            f"game {self.id}: no move was taken at round {round_}, ply {ply}; left to the clock",
            "error",
            game=self.id,
        )

    # -- leaving ------------------------------------------------------------------------

    def resign(self, on_failure: Callable[[], None]) -> None:
        """Resign the game (once): ``POST .../resign``, tried again after a network loss;
        ``on_failure`` is called if it cannot be delivered."""
        if self._resigning is not None or self.result is not None:
            return
        self._cancel_thinking()
        self._resigning = asyncio.create_task(self._resign(on_failure))

    async def _resign(self, on_failure: Callable[[], None]) -> None:
        for _ in range(RESIGN_TRIES):
            try:
                await self.client.resign(self.id)
            except ApiError as e:
                if e.transient:
                    await self._wait("resigning again", str(e), e.retry_after)
                    continue
                if e.code == "game_over":
                    return
                self.reporter.report(
                    "game", f"game {self.id}: could not resign: {e}", "error", game=self.id
                )
                break
            except ConnectionLost as e:
                await self._wait("resigning again", str(e))
                continue
            self.reporter.report("game", f"game {self.id}: resigned", game=self.id)
            return
        on_failure()
