"""Load benchmark of ``lostcities serve``: many concurrent friend games of scripted clients.

Starts the server as a subprocess on a temp SQLite database (or uses ``--url``), creates
``--games`` friend games over HTTP, connects both seats of every game over WebSockets (all on
loopback), then lets each seat play random legal moves after a think time for ``--duration``
seconds. It reports the move-acknowledgement latency (a client sends a move; the server
checks it, commits it to the database and answers with the new state carrying ``ack``) and
the server's memory per idle game (RSS growth with every game loaded and both seats
connected, before any move). Bots are not involved: thinking time is excluded by design.

    nice -n 10 python benchmarks/web_load.py --games 1000 --duration 60

Target (issue 5): 1,000 concurrent games, p99 acknowledgement under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import orjson

    def loads(text: str | bytes) -> Any:
        return orjson.loads(text)
except ImportError:  # pragma: no cover
    loads = json.loads

import httpx
from loopback import on_loopback, require_loopback
from webharness import Server, cpu_seconds, rss_kib
from websockets.asyncio.client import ClientConnection, connect


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    games_finished: int = 0
    moves: int = 0
    measuring: bool = False


class Seat:
    """One scripted player: a WebSocket and the last state it saw."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.next_id = 0

    async def recv_state(self) -> dict[str, Any]:
        while True:
            msg = loads(await self.ws.recv())
            if msg.get("type") == "state":
                self.state = msg
                return msg  # type: ignore[no-any-return]
            if msg.get("type") == "error":
                raise RuntimeError(msg.get("message"))


async def create_game(http: httpx.AsyncClient) -> tuple[str, str, str]:
    r = await http.post("/api/games", json={"opponent": "friend", "rounds": 1})
    r.raise_for_status()
    g = r.json()
    invite = g["invite_url"].split("#", 1)[1]
    j = await http.post(f"/api/games/{g['id']}/join", json={"invite": invite})
    j.raise_for_status()
    return g["id"], g["token"], j.json()["token"]


async def open_seat(ws_url: str, gid: str, token: str, sem: asyncio.Semaphore) -> Seat:
    async with sem:
        ws = await connect(
            f"{ws_url}/ws/games/{gid}", max_size=2**22, ping_interval=None, open_timeout=60
        )
        seat = Seat(ws)
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await seat.recv_state()
        return seat


async def play_pair(
    seats: list[Seat],
    stats: Stats,
    think: tuple[float, float],
    rng: random.Random,
    stop: asyncio.Event,
) -> None:
    """Both seats of one game: the seat to move thinks, moves, waits for its ack; the other
    seat receives the new state."""
    while not stop.is_set():
        s = seats[0].state
        if s["match"]["over"]:
            stats.games_finished += 1
            return
        mover_i = s["game"]["to_move"]
        mover, other = seats[mover_i], seats[1 - mover_i]
        legal = mover.state["view"]["legal"]
        await asyncio.sleep(rng.uniform(*think))
        if stop.is_set():
            return
        mover.next_id += 1
        mid = mover.next_id
        msg = json.dumps(
            {
                "type": "move",
                "move": rng.choice(legal),
                "round": mover.state["round"],
                "ply": mover.state["view"]["ply"],
                "id": mid,
            }
        )
        t0 = time.perf_counter()
        await mover.ws.send(msg)
        while True:
            st = await mover.recv_state()
            if st.get("ack") == mid:
                break
        dt = time.perf_counter() - t0
        if stats.measuring:
            stats.latencies.append(dt)
            stats.moves += 1
        await other.recv_state()


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, round(q / 100 * (len(xs) - 1))))
    return xs[k]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * args.games + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    tmp = tempfile.mkdtemp(prefix="lc-load-")
    server = None
    if args.url:
        base = require_loopback(args.url).rstrip("/")
        pid = None
    else:
        db = args.db or f"sqlite:///{Path(tmp) / 'load.db'}"
        server = Server(db, Path(tmp) / "server.log", nice=args.server_nice).start()
        base = server.url
        pid = server.pid
    ws_url = base.replace("http", "ws", 1)
    rng = random.Random(args.seed)
    stats = Stats()
    out: dict[str, Any] = {
        "games": args.games,
        "think_s": list(args.think),
        "duration_s": args.duration,
    }
    try:
        await asyncio.sleep(1.0)
        rss0 = rss_kib(pid) if pid else 0
        limits = httpx.Limits(max_connections=32)
        t0 = time.monotonic()
        async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as http:
            sem = asyncio.Semaphore(32)

            async def make() -> tuple[str, str, str]:
                async with sem:
                    return await create_game(http)

            games = await asyncio.gather(*(make() for _ in range(args.games)))
        out["create_s"] = round(time.monotonic() - t0, 2)
        t0 = time.monotonic()
        csem = asyncio.Semaphore(64)
        pairs = await asyncio.gather(
            *(
                asyncio.gather(open_seat(ws_url, g, a, csem), open_seat(ws_url, g, b, csem))
                for g, a, b in games
            )
        )
        out["connect_s"] = round(time.monotonic() - t0, 2)
        await asyncio.sleep(2.0)
        if pid:
            rss1 = rss_kib(pid)
            out["server_rss_mib_before"] = round(rss0 / 1024, 1)
            out["server_rss_mib_loaded"] = round(rss1 / 1024, 1)
            out["kib_per_idle_game"] = round((rss1 - rss0) / args.games, 1)
        stop = asyncio.Event()
        tasks = [
            asyncio.create_task(
                play_pair(list(p), stats, args.think, random.Random(rng.random()), stop)
            )
            for p in pairs
        ]
        lags: list[float] = []

        async def lag_probe() -> None:
            while not stop.is_set():
                t = time.perf_counter()
                await asyncio.sleep(0.05)
                if stats.measuring:
                    lags.append((time.perf_counter() - t - 0.05) * 1000)

        probe = asyncio.create_task(lag_probe())
        await asyncio.sleep(args.warmup)
        stats.measuring = True
        cpu0 = cpu_seconds(pid) if pid else 0.0
        t_measure = time.monotonic()
        await asyncio.sleep(args.duration)
        stats.measuring = False
        elapsed = time.monotonic() - t_measure
        cpu1 = cpu_seconds(pid) if pid else 0.0
        stop.set()
        await probe
        out["client_loop_lag_ms_p99"] = round(pct(lags, 99), 1)
        out["client_loop_lag_ms_max"] = round(max(lags), 1) if lags else None
        done, pending = await asyncio.wait(tasks, timeout=30)
        for t in pending:
            t.cancel()
        errors = [t.exception() for t in done if not t.cancelled() and t.exception()]
        lat = [x * 1000 for x in stats.latencies]
        out.update(
            {
                "moves": len(lat),
                "moves_per_s": round(len(lat) / elapsed, 1),
                "ack_ms_p50": round(pct(lat, 50), 2),
                "ack_ms_p95": round(pct(lat, 95), 2),
                "ack_ms_p99": round(pct(lat, 99), 2),
                "ack_ms_max": round(max(lat), 2) if lat else None,
                "ack_ms_mean": round(statistics.fmean(lat), 2) if lat else None,
                "games_finished": stats.games_finished,
                "client_errors": len(errors),
                "server_cpu_percent": round(100 * (cpu1 - cpu0) / elapsed, 1) if pid else None,
            }
        )
        if pid:
            out["server_rss_mib_end"] = round(rss_kib(pid) / 1024, 1)
        for p in pairs:
            for s in p:
                await s.ws.close()
    finally:
        if server is not None:
            server.stop(wait=20)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="concurrent friend games (1000)")
    ap.add_argument("--duration", type=float, default=60.0, help="measured seconds (60)")
    ap.add_argument(
        "--warmup", type=float, default=10.0, help="seconds of play before measuring (10)"
    )
    ap.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(2.0, 6.0),
        metavar=("MIN", "MAX"),
        help="seconds a scripted player waits before each move, uniform (2 6)",
    )
    ap.add_argument("--url", default=None, help="use a running server instead of starting one")
    ap.add_argument("--db", default=None, help="database URL for the started server (temp SQLite)")
    ap.add_argument("--server-nice", type=int, default=0, help="run the server under nice -n N")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    out = asyncio.run(run(args))
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:24} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(on_loopback(main))
