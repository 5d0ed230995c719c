"""A small in-memory stand-in for the server's bot API (docs/bot-api.md), for the tests of
``lostcities connect`` while the real server is being written: the two NDJSON streams,
moves, resign, challenges (create, get, accept, decline), Bearer tokens, a few refusals.

It follows the doc, not the real server's code (which it must not import). Real games are
played: each game is a :class:`~lostcities.Match` and each seat's ``position`` is the
protocol's :func:`~lostcities.protocol.position_lines` of that seat's view. Accounts in
``house`` are played by the fake itself (a seeded random legal move, at once).

Served by uvicorn on 127.0.0.1 on a free port, in a thread; :meth:`FakeBotServer.restart`
stops it and starts it again on the same port with the same games (a server restart),
:meth:`FakeBotServer.drop_streams` ends every open stream (a network loss),
``stall`` keeps streams open but silent. Everything is guarded by one lock: the tests read
the fake from their own thread.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from lostcities import Match
from lostcities.errors import IllegalMoveError, InvalidMoveError, NotYourTurnError
from lostcities.protocol import position_lines

POLL = 0.01
"""Seconds between the streams' looks at the state."""
KEEPALIVE = 0.5
"""Seconds between keep-alive lines (the real server: 7)."""


@dataclass
class FakeGame:
    """One game between two accounts."""

    id: str
    players: tuple[str, str]
    variant: str
    rounds: int
    rated: bool
    clock: str | None
    match: Match
    status: str = "started"
    ending: str = ""
    version: int = 0
    streamed: dict[int, int] = field(default_factory=dict)
    """Per seat: the latest version its game stream has sent."""
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def over(self) -> bool:
        return self.status in ("finished", "aborted")


class FakeBotServer:
    """The fake (see the module's docstring).

    Args:
        tokens: token -> account name.
        bots: the accounts that are bots (the others are people).
        house: the accounts whose moves the fake makes.
    """

    def __init__(
        self,
        tokens: dict[str, str],
        bots: set[str] | frozenset[str] = frozenset(),
        house: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        self.tokens = dict(tokens)
        self.bots = set(bots)
        self.house = set(house)
        self.lock = threading.RLock()
        self.games: dict[str, FakeGame] = {}
        self.challenges: dict[str, dict[str, Any]] = {}
        self.events: dict[str, list[dict[str, Any]]] = {}
        self.requests: list[tuple[str, str, str, dict[str, Any]]] = []
        """Every request: (account, method, path, JSON body)."""
        self.stream_opens: list[tuple[str, str, str | None]] = []
        """Every stream opened: (account, path, ``since``)."""
        self.refuse_moves = 0
        """Refuse the next this many moves as illegal (422), legal or not."""
        self.fail_moves = 0
        """Answer the next this many moves with a server error (503), making none."""
        self.stall = False
        """Streams stay open but send nothing, not even keep-alives."""
        self.hold = False
        """The house players do not move (until :meth:`release`)."""
        self.hold_after: int | None = None
        """The house players do not move once a round has this many moves (a game parked
        mid-round at the house's turn, until :meth:`release`)."""
        self.ack_after_state = False
        """A move is answered only once the mover's game stream has sent the state after
        it (the real server wakes the streams before it answers the move's request)."""
        self.generation = 0
        self._ids = itertools.count(1)
        self._event_ids = itertools.count(1)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    # -- serving --------------------------------------------------------------------------

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/api/bot/stream/event", self._event_stream),
                Route("/api/bot/game/stream/{id}", self._game_stream),
                Route("/api/bot/game/{id}/move", self._move, methods=["POST"]),
                Route("/api/bot/game/{id}/resign", self._resign, methods=["POST"]),
                Route("/api/bot/challenge/{id}/accept", self._accept, methods=["POST"]),
                Route("/api/bot/challenge/{id}/decline", self._decline, methods=["POST"]),
                Route("/api/bot/challenge/{name}", self._create, methods=["POST"]),
                Route("/api/bot/challenge/{id}", self._get_challenge, methods=["GET"]),
            ]
        )

    def start(self) -> None:
        """Serve (returns once the port is listening)."""
        config = uvicorn.Config(
            self.app(),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="fake-bot-api", daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the fake bot API did not start")
            time.sleep(0.01)
        self._server, self._thread = server, thread

    def stop(self) -> None:
        """Stop serving (every stream ends; the state stays)."""
        self.drop_streams()
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(20)
        self._server = self._thread = None

    def restart(self, down: float = 0.0) -> None:
        """A server restart: stop, stay down ``down`` seconds, start on the same port."""
        self.stop()
        time.sleep(down)
        self.start()

    def drop_streams(self) -> None:
        """End every open stream (the clients see the connection close)."""
        with self.lock:
            self.generation += 1

    def __enter__(self) -> FakeBotServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what tests set up and read -----------------------------------------------------

    def offer(
        self,
        challenger: str,
        dest: str,
        *,
        variant: str = "classic",
        rounds: int = 1,
        clock: str | None = "300+5",
        rated: bool = False,
    ) -> str:
        """A challenge from ``challenger`` to ``dest``; its id."""
        with self.lock:
            return self._new_challenge(challenger, dest, variant, rounds, clock, rated)["id"]

    def start_game(
        self,
        players: tuple[str, str],
        *,
        rounds: int = 1,
        variant: str = "classic",
        seed: int = 1,
        rated: bool = False,
        clock: str | None = "300+5",
    ) -> str:
        """A game that starts now (``gameStart`` to both); its id."""
        with self.lock:
            return self._new_game(players, variant, rounds, rated, clock, seed).id

    def release(self) -> None:
        """Let the house players move again, and make the moves they owe."""
        with self.lock:
            self.hold, self.hold_after = False, None
            for game in self.games.values():
                self._house_moves(game)

    def parked(self, game_id: str) -> bool:
        """Whether the game waits on a held house player."""
        with self.lock:
            game = self.games[game_id]
            r = game.match.current
            return r is not None and not game.over() and game.players[r.to_move] in self.house

    def game(self, game_id: str) -> FakeGame:
        with self.lock:
            return self.games[game_id]

    def posted(self, path_part: str) -> list[tuple[str, str, str, dict[str, Any]]]:
        """The requests whose path holds ``path_part``."""
        with self.lock:
            return [r for r in self.requests if path_part in r[2]]

    # -- the model ------------------------------------------------------------------------

    def _player(self, name: str) -> dict[str, Any]:
        return {"name": name, "bot": name in self.bots, "rating": 1500}

    def _emit(self, account: str, event: dict[str, Any]) -> None:
        event = {**event, "event_id": next(self._event_ids)}
        self.events.setdefault(account, []).append(event)

    def _new_challenge(
        self, challenger: str, dest: str, variant: str, rounds: int, clock: Any, rated: bool
    ) -> dict[str, Any]:
        cid = f"c{next(self._ids)}"
        challenge = {
            "id": cid,
            "challenger": self._player(challenger),
            "dest": self._player(dest),
            "variant": variant,
            "rounds": rounds,
            "clock": clock,
            "rated": rated,
            "status": "created",
        }
        self.challenges[cid] = challenge
        self._emit(dest, {"type": "challenge", "challenge": dict(challenge)})
        return challenge

    def _game_info(self, game: FakeGame, seat: int) -> dict[str, Any]:
        return {
            "id": game.id,
            "variant": game.variant,
            "rounds": game.rounds,
            "rated": game.rated,
            "clock": game.clock,
            "seat": seat,
            "opponent": self._player(game.players[seat ^ 1]),
        }

    def _new_game(
        self,
        players: tuple[str, str],
        variant: str,
        rounds: int,
        rated: bool,
        clock: Any,
        seed: int,
    ) -> FakeGame:
        gid = f"g{next(self._ids)}"
        match = Match(rounds=rounds, variant=variant, seed=seed, starter=0)
        match.new_round()
        game = FakeGame(gid, players, variant, rounds, rated, clock, match)
        game.rng.seed(seed)
        self.games[gid] = game
        for seat, name in enumerate(players):
            self._emit(name, {"type": "gameStart", "game": self._game_info(game, seat)})
        self._house_moves(game)
        return game

    def _house_moves(self, game: FakeGame) -> None:
        while not game.over() and not self.hold:
            r = game.match.current
            if r is None:
                break
            name = game.players[r.to_move]
            if name not in self.house or (self.hold_after is not None and r.ply >= self.hold_after):
                break
            r.push(game.rng.choice(list(r.legal_moves())))
            self._after_move(game)

    def _after_move(self, game: FakeGame) -> None:
        m = game.match
        if m.current is None and not m.is_over():
            m.new_round()
        if m.is_over() and game.status == "started":
            self._end(game, "finished", "normal")
        game.version += 1

    def _end(self, game: FakeGame, status: str, ending: str) -> None:
        game.status, game.ending = status, ending
        for seat, name in enumerate(game.players):
            info = {**self._game_info(game, seat), "result": self._result(game)}
            self._emit(name, {"type": "gameFinish", "game": info})

    def _result(self, game: FakeGame) -> dict[str, Any] | None:
        if not game.over():
            return None
        return {
            "winner": game.match.winner(),
            "scores": list(game.match.totals()),
            "ending": game.ending,
        }

    def state(self, game: FakeGame, seat: int) -> dict[str, Any]:
        m = game.match
        r = m.rounds[-1]
        to_move = None if game.over() or r.is_over() else r.to_move
        return {
            "round": len(m.rounds),
            "ply": r.ply,
            "to_move": to_move,
            "position": position_lines(m.view(seat)),
            "legal": [str(x) for x in r.legal_moves()] if to_move == seat else [],
            "clock": {"0": 250_000, "1": 250_000} if game.clock else None,
            "totals": list(m.totals()),
            "status": game.status,
            "result": self._result(game),
        }

    # -- HTTP -----------------------------------------------------------------------------

    @staticmethod
    def _refuse(status: int, code: str, detail: str) -> JSONResponse:
        return JSONResponse({"detail": detail, "code": code}, status_code=status)

    async def _auth(self, request: Request) -> tuple[str | None, dict[str, Any]]:
        header = request.headers.get("authorization", "")
        token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
        body: dict[str, Any] = {}
        if request.method == "POST":
            raw = await request.body()
            if raw:
                try:
                    loaded = json.loads(raw)
                except ValueError:
                    loaded = {"_bad": True}
                body = loaded if isinstance(loaded, dict) else {"_bad": True}
        with self.lock:
            name = self.tokens.get(token)
            self.requests.append((name or "?", request.method, request.url.path, body))
        return name, body

    def _ndjson(self, lines: Callable[[], AsyncIterator[str]]) -> StreamingResponse:
        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def _event_stream(self, request: Request) -> Response:
        name, _ = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        if name not in self.bots:
            return self._refuse(403, "not_a_bot", "this account is not a bot")
        since_text = request.query_params.get("since")
        with self.lock:
            self.stream_opens.append((name, request.url.path, since_text))
            generation = self.generation
            events = self.events.get(name, [])
            cursor = int(since_text) if since_text else (events[-1]["event_id"] if events else 0)
            first = [
                {"type": "gameStart", "game": self._game_info(g, g.players.index(name))}
                for g in self.games.values()
                if name in g.players and not g.over()
            ] + [
                {"type": "challenge", "challenge": dict(c)}
                for c in self.challenges.values()
                if c["dest"]["name"] == name and c["status"] == "created"
            ]

        async def lines() -> AsyncIterator[str]:
            nonlocal cursor
            for item in first:
                yield json.dumps(item) + "\n"
            quiet_since = time.monotonic()
            while True:
                await asyncio.sleep(POLL)
                with self.lock:
                    if self.generation != generation:
                        return
                    if self.stall:
                        continue
                    new = [e for e in self.events.get(name, []) if e["event_id"] > cursor]
                for e in new:
                    cursor = e["event_id"]
                    yield json.dumps(e) + "\n"
                    quiet_since = time.monotonic()
                if time.monotonic() - quiet_since > KEEPALIVE:
                    quiet_since = time.monotonic()
                    yield "\n"

        return self._ndjson(lines)

    async def _game_stream(self, request: Request) -> Response:
        name, _ = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        gid = request.path_params["id"]
        with self.lock:
            self.stream_opens.append((name, request.url.path, None))
            game = self.games.get(gid)
            if game is None:
                return self._refuse(404, "not_found", "no such game")
            if name not in game.players:
                return self._refuse(403, "not_your_game", "not your game")
            seat = game.players.index(name)
            generation = self.generation
            full = {
                "type": "gameFull",
                **{k: v for k, v in self._game_info(game, seat).items() if k != "opponent"},
                "players": [self._player(p) for p in game.players],
                "state": self.state(game, seat),
            }
            version = game.version
            over = game.over()

        async def lines() -> AsyncIterator[str]:
            nonlocal version
            yield json.dumps(full) + "\n"
            if over:
                return
            quiet_since = time.monotonic()
            while True:
                await asyncio.sleep(POLL)
                with self.lock:
                    if self.generation != generation:
                        return
                    if self.stall:
                        continue
                    changed = game.version != version
                    version = game.version
                    state = self.state(game, seat) if changed else None
                if state is not None:
                    yield json.dumps({"type": "gameState", "state": state}) + "\n"
                    with self.lock:
                        game.streamed[seat] = max(game.streamed.get(seat, 0), version)
                    quiet_since = time.monotonic()
                    if state["status"] != "started":
                        return
                if time.monotonic() - quiet_since > KEEPALIVE:
                    quiet_since = time.monotonic()
                    yield "\n"

        return self._ndjson(lines)

    async def _move(self, request: Request) -> Response:
        name, body = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        with self.lock:
            game = self.games.get(request.path_params["id"])
            if game is None or name not in game.players:
                return self._refuse(403, "not_your_game", "not your game")
            seat = game.players.index(name)
            r = game.match.current
            if game.over() or r is None:
                return self._refuse(409, "game_over", "the game is over")
            if r.to_move != seat:
                return self._refuse(409, "not_your_turn", "not your turn")
            if ("round" in body and body["round"] != len(game.match.rounds)) or (
                "ply" in body and body["ply"] != r.ply
            ):
                return self._refuse(409, "stale_move", "the game has moved on")
            if self.fail_moves > 0:
                self.fail_moves -= 1
                return self._refuse(503, "unavailable", "down for a moment (the fake's knob)")
            if self.refuse_moves > 0:
                self.refuse_moves -= 1
                return self._refuse(422, "illegal_move", "refused (the fake's knob)")
            try:
                r.push(str(body.get("move")))
            except (IllegalMoveError, InvalidMoveError, NotYourTurnError) as e:
                return self._refuse(422, "illegal_move", str(e))
            self._after_move(game)
            self._house_moves(game)
            made = game.version
        if self.ack_after_state:
            deadline = time.monotonic() + 10.0
            while time.monotonic() < deadline:
                with self.lock:
                    if game.streamed.get(seat, 0) >= made:
                        break
                await asyncio.sleep(POLL)
        return JSONResponse({"ok": True})

    async def _resign(self, request: Request) -> Response:
        name, _ = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        with self.lock:
            game = self.games.get(request.path_params["id"])
            if game is None or name not in game.players:
                return self._refuse(403, "not_your_game", "not your game")
            if game.over():
                return self._refuse(409, "game_over", "the game is over")
            seat = game.players.index(name)
            r = game.match.rounds[-1]
            if r.is_over():
                r = game.match.new_round()
            r.forfeit(seat, "resigned")
            self._end(game, "finished", "resigned")
            game.version += 1
        return JSONResponse({"ok": True})

    async def _create(self, request: Request) -> Response:
        name, body = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        dest = request.path_params["name"]
        with self.lock:
            challenge = self._new_challenge(
                name,
                dest,
                str(body.get("variant", "classic")),
                int(body.get("rounds", 3)),
                body.get("clock"),
                bool(body.get("rated")),
            )
        return JSONResponse({"challenge": challenge}, status_code=201)

    async def _get_challenge(self, request: Request) -> Response:
        name, _ = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        with self.lock:
            challenge = self.challenges.get(request.path_params["id"])
            if challenge is None:
                return self._refuse(404, "not_found", "no such challenge")
            return JSONResponse({"challenge": dict(challenge)})

    async def _accept(self, request: Request) -> Response:
        name, _ = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        with self.lock:
            challenge = self.challenges.get(request.path_params["id"])
            if challenge is None or challenge["dest"]["name"] != name:
                return self._refuse(404, "not_found", "no such challenge")
            if challenge["status"] != "created":
                return self._refuse(409, "challenge_closed", "no longer open")
            game = self._new_game(
                (challenge["challenger"]["name"], name),
                challenge["variant"],
                challenge["rounds"],
                challenge["rated"],
                challenge["clock"],
                seed=7,
            )
            challenge["status"], challenge["game_id"] = "accepted", game.id
            return JSONResponse({"ok": True, "game_id": game.id})

    async def _decline(self, request: Request) -> Response:
        name, body = await self._auth(request)
        if name is None:
            return self._refuse(401, "bad_token", "no such token")
        with self.lock:
            challenge = self.challenges.get(request.path_params["id"])
            if challenge is None or challenge["dest"]["name"] != name:
                return self._refuse(404, "not_found", "no such challenge")
            challenge["status"] = "declined"
            challenge["decline_reason"] = body.get("reason", "generic")
            self._emit(
                challenge["challenger"]["name"],
                {"type": "challengeDeclined", "challenge": dict(challenge)},
            )
        return JSONResponse({"ok": True})
