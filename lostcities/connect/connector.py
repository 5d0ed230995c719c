"""``lostcities connect``: an engine online as a bot account (docs/bot-api.md).

The core is asyncio (:class:`Connector`: the account's event stream, the challenge
policy, a :class:`~lostcities.connect.game.GameRunner` per game); :func:`run` is the
blocking entry over it, as python-chess's ``SimpleEngine`` sits over its asyncio engine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lostcities.bots import Bot, BotError, make, parse_spec
from lostcities.connect.client import (
    ApiError,
    BotApiClient,
    ConnectionLost,
    check_server_url,
    read_token_file,
)
from lostcities.connect.game import Backoff, GameResult, GameRunner
from lostcities.connect.policy import VARIANTS, ChallengePolicy, parse_clocks
from lostcities.connect.progress import Reporter

__all__ = [
    "ChallengeRefusedError",
    "ChallengeRequest",
    "ConnectConfig",
    "ConnectSummary",
    "Connector",
    "EngineError",
    "ServerRefusedError",
    "ServerUnreachableError",
    "cli_main",
    "run",
]

EXIT_INTERRUPTED = 130
"""The exit code after Ctrl-C (as ``lostcities.cli`` ends every command)."""
CHALLENGE_POLL = 1.0
"""Seconds between looks at a challenge this bot sent."""


class EngineError(ValueError):
    """The engine spec names an engine that does not start (a ``cmd:`` program that dies
    or fails the handshake)."""


class ServerUnreachableError(OSError):
    """The server could not be reached when ``lostcities connect`` started."""


class ServerRefusedError(ValueError):
    """The server refused this client for good: a bad or revoked token, a missing scope,
    an account that is not a bot, a ban, no bot API at that address."""


class ChallengeRefusedError(ValueError):
    """The challenge ``--challenge`` sent was refused, declined, cancelled or expired."""


@dataclass(frozen=True)
class ChallengeRequest:
    """The one challenge to send (``--challenge USER``)."""

    username: str
    variant: str = "classic"
    rounds: int = 3
    clock: str | None = "300+5"
    rated: bool = False


@dataclass(frozen=True)
class ConnectConfig:
    """Everything a :class:`Connector` needs (the token is never shown in its ``repr``)."""

    url: str
    token: str = field(repr=False)
    engine: str
    policy: ChallengePolicy = field(default_factory=ChallengePolicy)
    on_exit: Literal["finish", "resign"] = "finish"
    games: int | None = None
    """Stop after this many games (``None``: run until stopped)."""
    challenge: ChallengeRequest | None = None
    seed: int | None = None
    """Seeds the engines and the back-off's jitter."""
    retry_base: float = 1.0
    """The first wait before a reconnection, in seconds (doubling up to ``retry_max``)."""
    retry_max: float = 60.0
    stream_timeout: float = 20.0
    """Seconds a stream may stay silent before it is reopened (keep-alives come every 7)."""
    move_time: float = 10.0
    """The most seconds the engine is given for a move."""


@dataclass
class ConnectSummary:
    """What a run did."""

    results: list[GameResult] = field(default_factory=list)
    accepted: int = 0
    declined: int = 0
    interrupted: bool = False


class Connector:
    """The bot account online: :meth:`run` until :meth:`stop` (or ``games`` games).

    Args:
        config: the settings.
        reporter: where progress goes (default: lines on stderr).
        transport: an httpx transport (tests).
    """

    def __init__(
        self,
        config: ConnectConfig,
        reporter: Reporter | None = None,
        *,
        transport: Any = None,
    ) -> None:
        self.config = config
        self.reporter = reporter or Reporter()
        self.transport = transport
        self.summary = ConnectSummary()
        self.games: dict[str, GameRunner] = {}
        self.started = 0
        self.stopping = False
        self.resigning = False
        self.interrupts = 0
        self.connected = asyncio.Event()
        self._rng = random.Random(config.seed)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._done_ids: set[str] = set()
        self._seen_challenges: set[str] = set()
        self._sent_challenges: set[str] = set()
        self._since: int | None = None
        self._fatal: BaseException | None = None
        self._done = asyncio.Event()
        self._client: BotApiClient | None = None

    # -- public -------------------------------------------------------------------------

    def stop(self, resign: bool | None = None) -> None:
        """Stop accepting challenges; finish the games being played, or resign them
        (``resign``; default: the config's ``on_exit``). Safe to call again (a second call
        may turn finishing into resigning)."""
        if resign is None:
            resign = self.config.on_exit == "resign"
        self.stopping = True
        if resign and not self.resigning:
            self.resigning = True
            for runner in list(self.games.values()):
                self._resign(runner)
        self._check_done()

    def interrupt(self) -> None:
        """Ctrl-C: the first stops as ``on_exit`` says, a second resigns what is left,
        later ones are ignored."""
        self.interrupts += 1
        self.summary.interrupted = True
        if self.interrupts == 1:
            running = len(self.games)
            how = "resigning" if self.config.on_exit == "resign" else "finishing"
            hint = "" if self.config.on_exit == "resign" else " (Ctrl-C again to resign)"
            self.reporter.report(
                "stopping",
                f"stopping: no more challenges; {how} {running} game"
                f"{'s' if running != 1 else ''}{hint}",
                running=running,
                mode=how,
            )
            self.stop()
        elif self.interrupts == 2 and not self.resigning:
            self.reporter.report("stopping", "resigning the games left", mode="resigning")
            self.stop(resign=True)

    async def run(self) -> ConnectSummary:
        """Connect, play, and return when stopped (or after ``games`` games).

        :raises ServerUnreachableError: if the server cannot be reached at the start.
        :raises ServerRefusedError: if the server refuses the token or the account.
        :raises ChallengeRefusedError: if the challenge to send was refused or declined.
        """
        client = BotApiClient(
            self.config.url,
            self.config.token,
            stream_timeout=self.config.stream_timeout,
            transport=self.transport,
        )
        self._client = client
        events = asyncio.create_task(self._events(client))
        challenge = None
        if self.config.challenge is not None:
            challenge = asyncio.create_task(self._challenge(client, self.config.challenge))
        try:
            await self._done.wait()
        finally:
            for task in (events, challenge):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            for task in list(self._tasks.values()):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await client.aclose()
        if self._fatal is not None:
            raise self._fatal
        return self.summary

    # -- the event stream -----------------------------------------------------------------

    async def _events(self, client: BotApiClient) -> None:
        backoff = self._backoff()
        while True:
            try:
                async for event in client.stream(
                    "/api/bot/stream/event",
                    None if self._since is None else {"since": str(self._since)},
                    on_open=lambda: self._on_open(backoff),
                ):
                    event_id = event.get("event_id")
                    if isinstance(event_id, int):
                        # the last one seen, not the highest: a server whose numbering
                        # started again is followed (its first lines name every game and
                        # challenge still open in any case)
                        self._since = event_id
                    await self._on_event(client, event)
                raise ConnectionLost("the event stream ended")
            except ConnectionLost as e:
                if not self.connected.is_set():
                    self._fail(ServerUnreachableError(f"cannot reach {client.url}: {e}"))
                    return
                delay = backoff.next_delay()
                self.reporter.report(
                    "reconnect",
                    f"event stream: {e}; reconnecting in {delay:.1f} s",
                    "warning",
                    delay=round(delay, 3),
                )
                await asyncio.sleep(delay)
            except ApiError as e:
                if e.transient and self.connected.is_set():
                    delay = max(backoff.next_delay(), e.retry_after or 0.0)
                    self.reporter.report(
                        "reconnect",
                        f"event stream: {e}; reconnecting in {delay:.1f} s",
                        "warning",
                        delay=round(delay, 3),
                    )
                    await asyncio.sleep(delay)
                    continue
                self._fail(ServerRefusedError(_refusal(client.url, e)))
                return

    def _on_open(self, backoff: Backoff) -> None:
        backoff.reset()
        if not self.connected.is_set():
            self.connected.set()
            assert self._client is not None
            self.reporter.report(
                "connected",
                f"connected to {self._client.url} as {self.config.engine}",
                url=self._client.url,
                engine=self.config.engine,
            )
        else:
            self.reporter.report("connected", "event stream reopened", "warning")

    async def _on_event(self, client: BotApiClient, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "challenge":
            challenge = event.get("challenge")
            if isinstance(challenge, Mapping):
                await self._on_challenge(client, challenge)
        elif kind == "gameStart":
            game = event.get("game")
            if isinstance(game, Mapping) and game.get("id") is not None:
                self._start_game(client, str(game["id"]), game)
        elif kind in ("challengeDeclined", "challengeCanceled"):
            challenge = event.get("challenge")
            if isinstance(challenge, Mapping) and challenge.get("id") in self._sent_challenges:
                self._challenge_failed(challenge, kind)

    async def _on_challenge(self, client: BotApiClient, challenge: Mapping[str, Any]) -> None:
        cid = str(challenge.get("id"))
        if cid in self._seen_challenges or cid in self._sent_challenges:
            return
        request = self.config.challenge
        dest = challenge.get("dest")
        if (
            request is not None
            and isinstance(dest, Mapping)
            and str(dest.get("name", "")).lower() == request.username.lower()
        ):
            return  # the one this bot sent, seen before the answer to its POST came

        if challenge.get("status") not in (None, "created"):
            return
        self._seen_challenges.add(cid)
        challenger = challenge.get("challenger")
        who = _player(challenger)
        rounds = challenge.get("rounds")
        what = (
            f"{challenge.get('variant')}, {rounds} round{'' if rounds == 1 else 's'},"
            f" {'rated' if challenge.get('rated') else 'casual'},"
            f" clock {challenge.get('clock') if challenge.get('clock') is not None else 'none'}"
        )
        reason = self.config.policy.decline_reason(challenge, len(self.games))
        if reason is None and (self.stopping or self._quota_reached()):
            reason = "later"
        try:
            if reason is not None:
                await client.decline(cid, reason)
                self.summary.declined += 1
                self.reporter.report(
                    "challenge",
                    f"declined {who}'s challenge ({what}): {reason}",
                    challenge=cid,
                    challenger=who,
                    decision="declined",
                    reason=reason,
                )
                return
            answer = await client.accept(cid)
        except (ApiError, ConnectionLost) as e:
            self.reporter.report(
                "challenge",
                f"{who}'s challenge could not be answered: {e}",
                "warning",
                challenge=cid,
            )
            return
        self.summary.accepted += 1
        game_id = answer.get("game_id")
        self.reporter.report(
            "challenge",
            f"accepted {who}'s challenge ({what})" + (f": game {game_id}" if game_id else ""),
            challenge=cid,
            challenger=who,
            decision="accepted",
            game=game_id,
        )
        if game_id is not None:
            info = {**challenge, "opponent": challenger}
            info.pop("id", None)
            self._start_game(client, str(game_id), info)

    # -- games --------------------------------------------------------------------------

    def _quota_reached(self) -> bool:
        return self.config.games is not None and self.started >= self.config.games

    def _start_game(self, client: BotApiClient, game_id: str, info: Mapping[str, Any]) -> None:
        if game_id in self.games or game_id in self._done_ids:
            return
        seed = None if self.config.seed is None else self._rng.randrange(2**31)
        spec = self.config.engine

        def make_engine() -> Bot:
            return make(spec, seed=seed)

        runner = GameRunner(
            client,
            game_id,
            info,
            make_engine,
            self.reporter,
            self._backoff(),
            self.config.move_time,
        )
        self.games[game_id] = runner
        self.started += 1
        self._tasks[game_id] = asyncio.create_task(self._play(runner))
        if self.resigning:
            self._resign(runner)

    async def _play(self, runner: GameRunner) -> None:
        result = GameResult(runner.id, runner.opponent, "left", (0, 0))
        try:
            result = await runner.run()
        except asyncio.CancelledError:
            raise
        except Exception as e:  # one game's failure does not end the others
            self.reporter.report(
                "game", f"game {runner.id}: failed: {type(e).__name__}: {e}", "error"
            )
        finally:
            if runner.result is None:
                self.reporter.game_line(runner.summary(), "left (not seen to its end)", "error")
            self.games.pop(runner.id, None)
            self._tasks.pop(runner.id, None)
            self._done_ids.add(runner.id)
            self.summary.results.append(runner.result or result)
            self._check_done()

    def _resign(self, runner: GameRunner) -> None:
        task = self._tasks.get(runner.id)

        def give_up() -> None:
            if task is not None:
                task.cancel()

        runner.resign(give_up)

    def _check_done(self) -> None:
        if self.games:
            return
        if self.stopping or self._quota_reached():
            self._done.set()

    def _fail(self, error: BaseException) -> None:
        if self._fatal is None:
            self._fatal = error
        self._done.set()

    # -- the challenge sent ---------------------------------------------------------------

    async def _challenge(self, client: BotApiClient, request: ChallengeRequest) -> None:
        await self.connected.wait()
        backoff = self._backoff()
        while True:
            try:
                challenge = await client.challenge(
                    request.username, request.variant, request.rounds, request.clock, request.rated
                )
                break
            except ConnectionLost as e:
                await asyncio.sleep(backoff.next_delay())
                self.reporter.report("challenge", f"challenge not sent: {e}", "warning")
            except ApiError as e:
                if e.transient:
                    await asyncio.sleep(max(backoff.next_delay(), e.retry_after or 0.0))
                    continue
                self._challenge_error(f"cannot challenge {request.username}: {e}")
                return
        cid = str(challenge.get("id"))
        self._sent_challenges.add(cid)
        self.reporter.report(
            "challenge",
            f"challenged {request.username} ({request.variant}, {request.rounds}"
            f" round{'' if request.rounds == 1 else 's'},"
            f" {'rated' if request.rated else 'casual'}, clock {request.clock or 'none'})",
            challenge=cid,
            dest=request.username,
            decision="sent",
        )
        while True:
            status = str(challenge.get("status") or "created")
            if status == "accepted":
                game_id = challenge.get("game_id")
                if game_id is not None:
                    info = {**challenge, "opponent": challenge.get("dest")}
                    info.pop("id", None)
                    self._start_game(client, str(game_id), info)
                return
            if status in ("declined", "canceled", "expired"):
                self._challenge_failed(challenge, status)
                return
            await asyncio.sleep(CHALLENGE_POLL)
            try:
                challenge = await client.get_challenge(cid)
            except ConnectionLost:
                continue
            except ApiError as e:
                if not e.transient:
                    self._challenge_error(f"challenge {cid} lost: {e}")
                    return

    def _challenge_failed(self, challenge: Mapping[str, Any], status: str) -> None:
        request = self.config.challenge
        who = request.username if request is not None else "the opponent"
        reason = challenge.get("decline_reason")
        if status in ("declined", "challengeDeclined"):
            text = f"{who} declined the challenge" + (f" ({reason})" if reason else "")
        elif status == "expired":
            text = f"{who} did not answer the challenge (it expired)"
        else:
            text = f"the challenge to {who} was cancelled"
        self._challenge_error(text)

    def _challenge_error(self, text: str) -> None:
        # the command prints it as its error line; reported here for --log-json and callers
        self.reporter.report("challenge", text, "debug", decision="failed")
        if self._fatal is None:
            self._fatal = ChallengeRefusedError(text)
        self.stop()

    def _backoff(self) -> Backoff:
        rng = random.Random(self._rng.random()) if self.config.seed is not None else random.Random()
        return Backoff(self.config.retry_base, self.config.retry_max, rng)


def _player(player: object) -> str:
    if isinstance(player, Mapping):
        name = str(player.get("name") or "?")
        rating = player.get("rating")
        name = f"BOT {name}" if player.get("bot") else name
        return f"{name} ({rating})" if rating is not None else name
    return "?"


def _refusal(url: str, e: ApiError) -> str:
    hints = {
        "bad_token": "the token is not known or was revoked: make a new one (Account -> API tokens)",
        "missing_scope": "the token lacks the bot:play scope",
        "not_a_bot": "the account is not a bot account: POST /api/bot/account/upgrade"
        " (docs/bot-api.md)",
        "banned": "the account is banned",
    }
    if e.status == 404:
        return f"{url} has no bot API (404 at /api/bot/stream/event)"
    return f"the server refused the connection: {hints.get(e.code, e.detail)} ({e.status} {e.code})"


# -- the blocking entry -------------------------------------------------------------------


def run(config: ConnectConfig, reporter: Reporter | None = None) -> ConnectSummary:
    """Run a :class:`Connector` until it stops (blocking). In the main thread, SIGINT
    (Ctrl-C) and SIGTERM stop it cleanly (:meth:`Connector.interrupt`)."""
    return asyncio.run(_main(config, reporter))


async def _main(config: ConnectConfig, reporter: Reporter | None) -> ConnectSummary:
    connector = Connector(config, reporter)
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, connector.interrupt)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            installed.append(sig)
    try:
        return await connector.run()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        if signal.SIGINT in installed:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the clean-up is not cut short


def check_engine(spec: str) -> None:
    """Make the engine once and close it: a bad spec, or a ``cmd:`` program that does not
    start, fails here, before anything is sent to a server.

    :raises BotSpecError: for a bad spec.
    :raises EngineError: for an engine that does not start.
    """
    parse_spec(spec)
    try:
        make(spec, seed=0).close()
    except BotError as e:
        raise EngineError(f"the engine {spec!r} did not start: {e}") from None


def config_from_args(args: argparse.Namespace) -> ConnectConfig:
    """The :class:`ConnectConfig` of ``lostcities connect``'s arguments (the token read
    from its file).

    :raises ValueError: for a bad URL, token file or option (one line each).
    """
    url = check_server_url(args.url)
    token = read_token_file(args.token_file)
    variants = frozenset(v.strip() for v in args.variants.split(",") if v.strip())
    unknown = sorted(variants - set(VARIANTS))
    if unknown or not variants:
        raise ValueError(f"invalid --variants: {args.variants!r} (expected classic, long or both)")
    rounds = None
    if args.rounds is not None:
        try:
            rounds = frozenset(int(r) for r in args.rounds.split(",") if r.strip())
        except ValueError:
            raise ValueError(f"invalid --rounds: {args.rounds!r} (expected e.g. 1,3)") from None
        if not rounds or min(rounds) < 1:
            raise ValueError(f"invalid --rounds: {args.rounds!r} (expected e.g. 1,3)")
    policy = ChallengePolicy(
        variants=variants,
        clocks=parse_clocks(args.clocks),
        rounds=rounds,
        rated=args.mode != "casual",
        casual=args.mode != "rated",
        bots=args.opponents != "people",
        people=args.opponents != "bots",
        max_games=args.max_games,
    )
    challenge = None
    if args.challenge is not None:
        challenge = ChallengeRequest(
            username=args.challenge,
            variant=args.challenge_variant,
            rounds=args.challenge_rounds,
            clock=None if args.challenge_clock == "none" else args.challenge_clock,
            rated=args.challenge_rated,
        )
    if args.retry_base > args.retry_max:
        raise ValueError("--retry-base must not be above --retry-max")
    return ConnectConfig(
        url=url,
        token=token,
        engine=args.engine,
        policy=policy,
        on_exit=args.on_exit,
        games=args.games,
        challenge=challenge,
        seed=args.seed,
        retry_base=args.retry_base,
        retry_max=args.retry_max,
        stream_timeout=args.stream_timeout,
        move_time=args.move_time,
    )


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities connect URL --token-file FILE ENGINE``."""
    config = config_from_args(args)
    check_engine(config.engine)
    level = "error" if args.quiet else "debug" if args.verbose else "info"
    reporter = Reporter(level, json_lines=args.log_json)
    summary = run(config, reporter)
    played = len(summary.results)
    reporter.report(
        "stopped",
        f"stopped: {played} game{'s' if played != 1 else ''} played",
        games=played,
        interrupted=summary.interrupted,
    )
    if summary.interrupted:
        return EXIT_INTERRUPTED
    return 0
