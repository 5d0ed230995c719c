"""The bot API under load (issue 39): B connected bot accounts play B/2 games at once on two
``lostcities serve`` processes sharing one PostgreSQL database. Each bot keeps its event
stream open, answers the challenge it is sent there, opens its game's stream on
``gameStart`` and, at each of its turns, thinks for a while (``--think``) and posts a random
legal move with its round and ply. Half the games have their two bots on the same process,
half on different ones (every move of those crosses processes through PostgreSQL's
notifications).

What it measures: every move is acknowledged (``{"ok": true}``; any refusal is counted by
its code), and the **move-to-opponent latency**: from just before a bot's move POST to the
moment the opponent's game stream delivers the state after the move. Its percentiles are
given over all moves, and apart for the games on one process and across the two.

    python benchmarks/bot_load.py --db postgresql+psycopg://... --bots 100 --think 0.5 1.5

The bots are one asyncio client in this process (raw sockets, HTTP/1.1 keep-alive and the
NDJSON streams' chunked encoding read by hand), not 100 ``lostcities connect`` processes:
those (a Python interpreter and the bots each) would swamp a 2-core machine and measure
themselves. On a small machine this client's own CPU still adds to the latency measured
(the figures are an upper bound). The servers run without per-client limits (every bot
comes from one address: the bot API's per-address limit would throttle them). With
``--processes 1`` (and SQLite, e.g. ``--db sqlite:///tmp/b.db``) one server process serves
every bot. Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import webharness

HOST = webharness.HOST


# -- HTTP/1.1 by hand ------------------------------------------------------------------------


async def read_head(r: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """An answer's status and its headers (names in lower case)."""
    line = await r.readline()
    if not line:
        raise ConnectionError("connection closed")
    status = int(line.split()[1])
    headers: dict[str, str] = {}
    while True:
        h = await r.readline()
        if h in (b"\r\n", b"\n", b""):
            return status, headers
        k, _, v = h.decode("latin-1").partition(":")
        headers[k.strip().lower()] = v.strip()


async def read_chunk(r: asyncio.StreamReader) -> bytes:
    """One chunk of a chunked body (``b""``: the last)."""
    size = int((await r.readline()).split(b";")[0], 16)
    data = await r.readexactly(size + 2)
    return data[:-2]


async def read_body(r: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", ""):
        parts = []
        while chunk := await read_chunk(r):
            parts.append(chunk)
        await r.readline()  # (the blank line after the last chunk)
        return b"".join(parts)
    return await r.readexactly(int(headers.get("content-length", "0")))


def request_bytes(method: str, path: str, headers: dict[str, str], body: Any = None) -> bytes:
    data = b"" if body is None else json.dumps(body).encode()
    head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", f"Content-Length: {len(data)}"]
    if body is not None:
        head.append("Content-Type: application/json")
    head += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


class Http:
    """One keep-alive connection for a bot's requests (one at a time)."""

    def __init__(self, port: int, headers: dict[str, str]) -> None:
        self.port, self.headers = port, headers
        self.lock = asyncio.Lock()
        self.r: asyncio.StreamReader | None = None
        self.w: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """The status and the JSON answer."""
        async with self.lock:
            for attempt in (0, 1):
                if self.w is None:
                    self.r, self.w = await asyncio.open_connection(HOST, self.port)
                assert self.r is not None
                try:
                    self.w.write(request_bytes(method, path, self.headers, body))
                    status, headers = await read_head(self.r)
                    raw = await read_body(self.r, headers)
                except (ConnectionError, asyncio.IncompleteReadError):
                    self.close()
                    if attempt:
                        raise
                    continue  # (a keep-alive connection the server had closed)
                if headers.get("connection", "").lower() == "close":
                    self.close()
                return status, json.loads(raw) if raw else None
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.w is not None:
            self.w.close()
        self.r = self.w = None


async def ndjson(
    port: int, path: str, headers: dict[str, str], opened: asyncio.Event | None = None
) -> AsyncIterator[tuple[float, bytes]]:
    """The lines of an NDJSON stream (keep-alives too, as ``b""``), each with the
    ``time.monotonic()`` of its arrival; ``opened`` is set once the server answered 200."""
    r, w = await asyncio.open_connection(HOST, port, limit=1 << 22)
    try:
        w.write(request_bytes("GET", path, {**headers, "Accept": "application/x-ndjson"}))
        status, head = await read_head(r)
        if status != 200:
            raise RuntimeError(f"{path}: {status} {(await read_body(r, head))[:200]!r}")
        if opened is not None:
            opened.set()
        chunked = "chunked" in head.get("transfer-encoding", "")
        buf = b""
        while True:
            data = await read_chunk(r) if chunked else await r.read(1 << 16)
            if not data:
                return
            at = time.monotonic()
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                yield at, line.strip()
    finally:
        w.close()


# -- the bots --------------------------------------------------------------------------------


@dataclass
class Stats:
    """Everything measured, over every bot."""

    latency: list[tuple[float, bool]] = field(default_factory=list)
    """Per move: milliseconds to the opponent's stream, and whether it crossed processes."""
    ack: list[float] = field(default_factory=list)
    """Per move: milliseconds to the POST's answer."""
    moves: int = 0
    acked: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    pending: dict[str, tuple[float, tuple[int, int], int, bool]] = field(default_factory=dict)
    """Per game: the move on its way (sent at, its round and ply, by seat, crossing)."""
    ready: set[tuple[str, int]] = field(default_factory=set)
    """The game streams open: (game, seat)."""
    finished: set[tuple[str, int]] = field(default_factory=set)
    """The game streams that delivered their game's end: (game, seat)."""
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    """Every stream's task (a failure is raised by :meth:`check`)."""

    def check(self) -> None:
        """Raise the failure of any stream that failed."""
        for task in self.tasks:
            if task.done() and not task.cancelled():
                task.result()


@dataclass
class LoadBot:
    """One bot account: its name, its token's header, its server's port."""

    name: str
    auth: dict[str, str]
    port: int
    rng: random.Random
    http: Http = field(init=False)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    games: set[str] = field(default_factory=set)
    cross: bool = False

    def __post_init__(self) -> None:
        self.http = Http(self.port, self.auth)


async def events(bot: LoadBot, play: asyncio.Event, stats: Stats, args: argparse.Namespace) -> None:
    """The bot's event stream: a challenge is accepted, a game started is played."""
    answered: set[str] = set()
    async for _, line in ndjson(bot.port, "/api/bot/stream/event", bot.auth, bot.opened):
        if not line:
            continue
        ev = json.loads(line)
        ch = ev.get("challenge") or {}
        if (
            ev["type"] == "challenge"
            and ch["dest"]["name"] == bot.name
            and ch["id"] not in answered
        ):
            answered.add(ch["id"])
            status, out = await bot.http.request(
                "POST", f"/api/bot/challenge/{ev['challenge']['id']}/accept"
            )
            assert status == 200, out
        elif ev["type"] == "gameStart" and ev["game"]["id"] not in bot.games:
            bot.games.add(ev["game"]["id"])
            stats.tasks.append(asyncio.create_task(game(bot, ev["game"]["id"], play, stats, args)))


async def game(
    bot: LoadBot, gid: str, play: asyncio.Event, stats: Stats, args: argparse.Namespace
) -> None:
    """The bot's game stream: the latency of each opponent's move; a move at each turn."""
    seat: int | None = None
    turn: asyncio.Task[None] | None = None
    async for at, line in ndjson(bot.port, f"/api/bot/game/stream/{gid}", bot.auth):
        if not line:
            continue
        msg = json.loads(line)
        if msg["type"] == "gameFull":
            seat = msg["seat"]
            stats.ready.add((gid, msg["seat"]))
        elif msg["type"] != "gameState":
            continue
        st = msg["state"]
        key = (st["round"], st["ply"])
        sent = stats.pending.get(gid)
        if sent is not None and sent[2] != seat and (key > sent[1] or st["status"] != "started"):
            del stats.pending[gid]
            stats.latency.append(((at - sent[0]) * 1000.0, sent[3]))
        if st["status"] != "started":
            assert seat is not None
            stats.finished.add((gid, seat))
            break
        if st["to_move"] == seat and (turn is None or turn.done()):
            assert seat is not None
            turn = asyncio.create_task(move(bot, gid, seat, st, play, stats, args))
    if turn is not None:
        await turn


async def move(
    bot: LoadBot,
    gid: str,
    seat: int,
    st: dict[str, Any],
    play: asyncio.Event,
    stats: Stats,
    args: argparse.Namespace,
) -> None:
    await play.wait()
    low, high = args.think
    if high > 0:
        await asyncio.sleep(bot.rng.uniform(low, high))
    body = {"move": bot.rng.choice(st["legal"]), "round": st["round"], "ply": st["ply"]}
    t0 = time.monotonic()
    stats.pending[gid] = (t0, (st["round"], st["ply"]), seat, bot.cross)
    stats.moves += 1
    status, out = await bot.http.request("POST", f"/api/bot/game/{gid}/move", body)
    stats.ack.append((time.monotonic() - t0) * 1000.0)
    if status == 200 and out == {"ok": True}:
        stats.acked += 1
    else:
        code = str(out.get("code") if isinstance(out, dict) else status)
        stats.refused[code] = stats.refused.get(code, 0) + 1
        stats.pending.pop(gid, None)


# -- the run ---------------------------------------------------------------------------------


def make_bots(servers: list[webharness.Server], db_url: str, n: int, seed: int) -> list[LoadBot]:
    """``n`` bot accounts (``lb0``, ...), each with a token and upgraded. The bots of game
    ``k`` (``2k`` challenges ``2k+1``) are on processes ``k % 2`` and ``(k + 1 - k // 2 % 2)
    % 2``: different ones for games 0 and 1, the same for 2 and 3, and so on (with two
    processes)."""
    from lostcities.web.store import GameStore

    store = GameStore(db_url)
    try:
        browsers = [webharness.signed_in(store, f"lb{i}") for i in range(n)]
    finally:
        store.engine.dispose()
    bots = []
    for i, who in enumerate(browsers):
        k = i // 2
        srv = servers[(k if i % 2 == 0 else k + 1 - k // 2 % 2) % len(servers)]
        status, made = srv.request(
            "POST", "/api/account/tokens", {"scopes": ["bot:play", "challenge:write"]}, who
        )
        assert status == 201, made
        auth = {"Authorization": f"Bearer {made['token']}"}
        status, out = srv.request("POST", "/api/bot/account/upgrade", None, auth)
        assert status == 200, out
        bots.append(LoadBot(f"lb{i}", auth, srv.port, random.Random(seed * 100_003 + i)))
    for i in range(0, n, 2):
        bots[i].cross = bots[i + 1].cross = bots[i].port != bots[i + 1].port
    return bots


def pct(xs: list[float], p: float) -> float | None:
    """The ``p`` quantile of ``xs`` (nearest rank), rounded to 0.1 (``None``: none)."""
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(p * len(s)))], 1) if s else None


async def main_async(args: argparse.Namespace, servers: list[webharness.Server]) -> dict[str, Any]:
    """Play the games (``args``: bots, rounds, think, seed, db) on running ``servers``; the
    summary."""
    t_setup = time.monotonic()
    bots = make_bots(servers, args.db, args.bots, args.seed)
    stats = Stats()
    play = asyncio.Event()
    stats.tasks += [asyncio.create_task(events(b, play, stats, args)) for b in bots]
    await asyncio.wait_for(asyncio.gather(*(b.opened.wait() for b in bots)), 300)
    games = args.bots // 2
    for k in range(games):
        c, d = bots[2 * k], bots[2 * k + 1]
        body = {"variant": "classic", "rounds": args.rounds, "clock": None, "rated": False}
        status, out = await c.http.request("POST", f"/api/bot/challenge/{d.name}", body)
        assert status == 201, out
    deadline = time.monotonic() + 300
    while len(stats.ready) < 2 * games:  # (both seats' streams of every game open)
        assert time.monotonic() < deadline, "the games did not start"
        stats.check()
        await asyncio.sleep(0.05)
    setup_s = time.monotonic() - t_setup
    cpu0 = [webharness.cpu_seconds(s.pid) for s in servers]
    t0 = time.monotonic()
    play.set()
    deadline = t0 + args.timeout
    while len(stats.finished) < 2 * games:  # (the end seen by both seats of every game)
        assert time.monotonic() < deadline, "games unfinished"
        stats.check()
        await asyncio.sleep(0.05)
    wall = time.monotonic() - t0
    cpu = [webharness.cpu_seconds(s.pid) - c for s, c in zip(servers, cpu0, strict=True)]
    for task in stats.tasks:
        task.cancel()
    await asyncio.gather(*stats.tasks, return_exceptions=True)
    for b in bots:
        b.http.close()
    lat = [ms for ms, _ in stats.latency]
    cross = [ms for ms, x in stats.latency if x]
    same = [ms for ms, x in stats.latency if not x]
    return {
        "bots": len(bots),
        "games": games,
        "processes": len(servers),
        "rounds": args.rounds,
        "think_s": list(args.think),
        "finished": len({gid for gid, _ in stats.finished}),
        "moves": stats.moves,
        "acked": stats.acked,
        "refused": stats.refused,
        "delivered": len(lat),
        "setup_s": round(setup_s, 1),
        "wall_s": round(wall, 1),
        "moves_per_s": round(stats.moves / wall, 1),
        "server_cpu_ms_per_move": round(1000 * sum(cpu) / max(stats.moves, 1), 2),
        "latency_ms": {
            "p50": pct(lat, 0.5),
            "p90": pct(lat, 0.9),
            "p99": pct(lat, 0.99),
            "max": round(max(lat), 1) if lat else None,
            "mean": round(statistics.fmean(lat), 1) if lat else None,
            "p99_one_process": pct(same, 0.99),
            "p99_across_processes": pct(cross, 0.99),
        },
        "ack_ms": {"p50": pct(stats.ack, 0.5), "p99": pct(stats.ack, 0.99)},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="postgresql+psycopg://... (an empty database)")
    ap.add_argument("--bots", type=int, default=100, help="bot accounts, two a game (100)")
    ap.add_argument("--processes", type=int, choices=[1, 2], default=2, help="server processes")
    ap.add_argument("--rounds", type=int, choices=[1, 3], default=1, help="rounds a game (1)")
    ap.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=[0.5, 1.5],
        metavar=("LOW", "HIGH"),
        help="seconds a bot thinks before each move, drawn from [LOW, HIGH] (0.5 1.5)",
    )
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds the games may take")
    args = ap.parse_args()
    if args.bots < 2 or args.bots % 2:
        ap.error("--bots must be even and at least 2")
    env = {"LOSTCITIES_BOT_EXECUTOR": "thread"}
    servers = [webharness.Server(args.db, env=env) for _ in range(args.processes)]
    try:
        for s in servers:
            s.start(timeout=120)
        out = asyncio.run(main_async(args, servers))
    finally:
        for s in servers:
            s.stop()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
