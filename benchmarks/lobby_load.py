"""The lobby under load: N players watching the lobby (server-sent events, spread over two
server processes on one PostgreSQL database) with T open tables, while a prober opens and
cancels tables, alternately on either process; each change's *lobby update latency* is the
time from just before the request to the moment a watcher's stream delivers it, over every
watcher and change (and, per change, to its first delivery: the request, the commit, the
notification and one process's refresh, before the fan-out to every stream).

    python benchmarks/lobby_load.py --db postgresql://... --players 1000 --tables 300

With ``--playing P`` the lobby is measured while P players are *in games*: P/2 friend games
(half on each process) whose two seats (WebSockets, :mod:`web_load`'s scripted players) play
random legal moves after ``--think`` seconds each, a new game started as one ends, for the
whole measurement; their moves' acknowledgement latency is reported beside the lobby's.

    python benchmarks/lobby_load.py --db postgresql://... --players 1000 --tables 300
    python benchmarks/lobby_load.py --db postgresql://... --players 1000 --tables 300 --playing 1000

One client process (asyncio, raw sockets) plays every watcher: on a small machine its own
CPU adds to the latency measured (the figures are an upper bound). Prints a JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import web_load
import webharness


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


class Watcher:
    """One lobby page: its event stream, and when each table id first came or went."""

    def __init__(self, port: int, browser: str) -> None:
        self.port, self.browser = port, browser
        self.seen: dict[str, float] = {}
        self.ready = asyncio.Event()
        self.messages = 0

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection(webharness.HOST, self.port, limit=1 << 22)
        path = f"/api/lobby/events?browser={self.browser}&name=w"
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {webharness.HOST}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        while True:
            line = await reader.readline()
            if not line:
                return
            if not line.startswith(b"data: "):
                continue
            now = time.monotonic()
            msg = json.loads(line[6:])
            self.messages += 1
            if msg.get("type") == "full":
                for t in msg["tables"]:
                    self.seen.setdefault(t["id"], now)
                self.ready.set()
                continue
            for t in msg.get("added", []):
                self.seen.setdefault(t["id"], now)
            for i in msg.get("removed", []):
                self.seen.setdefault("-" + i, now)


async def main_async(args: argparse.Namespace, servers: list[webharness.Server]) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    owners = [secrets.token_hex(8) for _ in range(args.tables)]
    for i, b in enumerate(owners):  # the open tables (kept open by their owners' streams)
        srv = servers[i % 2]
        await loop.run_in_executor(
            None, post, srv.url + "/api/lobby/tables", {"name": f"p{i}", "browser": b}
        )
    watchers = [
        Watcher(servers[i % 2].port, owners[i] if i < len(owners) else secrets.token_hex(8))
        for i in range(args.players)
    ]
    tasks = [asyncio.create_task(w.run()) for w in watchers]
    games = web_load.Stats()
    stop = asyncio.Event()
    seated: set[int] = set()
    playing = [
        asyncio.create_task(keep_playing(servers[k % 2], games, args, k, stop, seated))
        for k in range(args.playing // 2)
    ]
    while len(seated) < len(playing):  # every game under way before measuring
        await asyncio.sleep(0.2)
    games.measuring = True
    t0 = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in watchers)), 300)
    connect_s = time.monotonic() - t0
    prober = secrets.token_hex(8)
    sent: list[tuple[str, float]] = []
    for k in range(args.changes):
        srv = servers[k % 2]
        start = time.monotonic()
        e = await loop.run_in_executor(
            None, post, srv.url + "/api/lobby/tables", {"name": "probe", "browser": prober}
        )
        sent.append((e["id"], start))
        await asyncio.sleep(args.gap)
        start = time.monotonic()
        other = servers[(k + 1) % 2]
        await loop.run_in_executor(
            None, post, f"{other.url}/api/lobby/{e['id']}/cancel", {"token": e["token"]}
        )
        sent.append(("-" + e["id"], start))
        await asyncio.sleep(args.gap)
    await asyncio.sleep(3.0)
    games.measuring = False
    stop.set()
    for t in playing:
        t.cancel()
    lat: list[float] = []
    first: list[float] = []  # per change: its first delivery (the server's part, mostly)
    missing = 0
    for key, start in sent:
        times = [w.seen[key] for w in watchers if key in w.seen]
        missing += len(watchers) - len(times)
        lat.extend((at - start) * 1000 for at in times)
        if times:
            first.append((min(times) - start) * 1000)
    for t in tasks:
        t.cancel()
    lat.sort()

    def q(p: float) -> float:
        return round(lat[min(len(lat) - 1, int(p * len(lat)))], 1)

    return {
        "players": args.players,
        "open_tables": args.tables,
        "changes": len(sent),
        "deliveries": len(lat),
        "missing": missing,
        "connect_s": round(connect_s, 1),
        "latency_ms": {
            "p50": q(0.5),
            "p90": q(0.9),
            "p99": q(0.99),
            "max": round(lat[-1], 1),
            "mean": round(statistics.fmean(lat), 1),
        },
        "first_delivery_ms": {
            "p50": round(statistics.median(first), 1),
            "max": round(max(first), 1),
        },
        **(
            {
                "players_in_games": 2 * len(playing),
                "game_moves": len(games.latencies),
                "game_move_errors": games.errors,
                "game_ack_ms_p99": round(1000 * web_load.pct(games.latencies, 99), 1)
                if games.latencies
                else None,
            }
            if playing
            else {}
        ),
    }


async def keep_playing(
    srv: webharness.Server,
    stats: web_load.Stats,
    args: argparse.Namespace,
    k: int,
    stop: asyncio.Event,
    seated: set[int],
) -> None:
    """One table of two players in games on ``srv`` for the whole run: a friend game played
    by both seats over WebSockets, the next one started when it ends."""
    rng = random.Random(k)
    sem = asyncio.Semaphore(4)
    ws_url = srv.url.replace("http://", "ws://")
    async with web_load.httpx.AsyncClient(base_url=srv.url, timeout=60) as http:
        while not stop.is_set():
            try:
                gid, t0, t1 = await web_load.create_game(http)
                seats = [
                    await web_load.open_seat(ws_url, gid, t0, sem),
                    await web_load.open_seat(ws_url, gid, t1, sem),
                ]
                seated.add(k)
                try:
                    await web_load.play_pair(seats, stats, tuple(args.think), rng, stop)
                finally:
                    for seat in seats:
                        await seat.ws.close()
            except (OSError, RuntimeError, web_load.httpx.HTTPError):
                stats.errors += 1
                await asyncio.sleep(1.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="postgresql://... (an empty database)")
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--changes", type=int, default=50, help="tables opened (and cancelled)")
    ap.add_argument("--gap", type=float, default=0.5, help="seconds between changes")
    ap.add_argument("--playing", type=int, default=0, help="players in games meanwhile (0)")
    ap.add_argument(
        "--think", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"),
        help="the players' seconds per move (1 3)",
    )  # fmt: skip
    args = ap.parse_args()
    env = {"LOSTCITIES_BOT_EXECUTOR": "thread"}
    servers = [webharness.Server(args.db, env=env), webharness.Server(args.db, env=env)]
    try:
        servers[0].start(timeout=120)
        servers[1].start(timeout=120)
        out = asyncio.run(main_async(args, servers))
    finally:
        for s in servers:
            s.stop()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
