"""Abuse benchmark of ``lostcities serve``: one client floods, the others play (issue 14).

Starts the server (default per-client limits, docs/web.md "Abuse limits") on a temp SQLite
database, then:

1. ``--games`` friend games, each seat a well-behaved client with its own loopback address
   (127.0.1.x: the server tells clients apart by address), play with a think time; their
   move-acknowledgement latency is measured for ``--duration`` seconds without a flood
   (baseline), then for ``--duration`` seconds while
2. one client (127.0.0.2) floods as fast as it can: new games, wrong invites, garbage moves
   over HTTP, sockets opened and held, WebSocket message floods.

It reports the other clients' p50/p99 in both phases, what the flooder got (429s, 4429
closes, anything it got through) and the server's CPU and memory.

    python benchmarks/web_flood.py --games 20 --duration 20
    python benchmarks/web_flood.py --json

Target (issue 14): the limits hold (the flooder is refused) and the other clients' p99 stays
under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loopback import on_loopback
from web_load import pct
from webharness import Server, cpu_seconds, rss_kib


def http_from(base: str, addr: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base, timeout=30, transport=httpx.AsyncHTTPTransport(local_address=addr)
    )


class Phase:
    def __init__(self) -> None:
        self.name = "warm-up"
        self.latencies: dict[str, list[float]] = collections.defaultdict(list)


async def seat_conn(ws_url: str, gid: str, token: str, addr: str) -> Any:
    ws = await connect(
        f"{ws_url}/ws/games/{gid}",
        local_addr=(addr, 0),
        max_size=2**22,
        ping_interval=None,
        open_timeout=30,
    )
    await ws.send(json.dumps({"type": "hello", "token": token}))
    while True:
        m = json.loads(await ws.recv())
        if m["type"] == "state":
            return ws, m


async def play_game(
    base: str, ws_url: str, i: int, phase: Phase, stop: asyncio.Event, think: float
) -> int:
    addrs = [f"127.0.1.{2 * i + 1}", f"127.0.1.{2 * i + 2}"]
    rng = random.Random(i)
    moves = 0
    while not stop.is_set():
        async with http_from(base, addrs[0]) as h0, http_from(base, addrs[1]) as h1:
            g = (await h0.post("/api/games", json={"opponent": "friend", "rounds": 1})).json()
            invite = g["invite_url"].split("#", 1)[1]
            j = (await h1.post(f"/api/games/{g['id']}/join", json={"invite": invite})).json()
        seats = [
            await seat_conn(ws_url, g["id"], t, a)
            for t, a in zip((g["token"], j["token"]), addrs, strict=True)
        ]
        wss = [s[0] for s in seats]
        states = [s[1] for s in seats]
        try:
            while not stop.is_set() and not states[0]["match"]["over"]:
                p = states[0]["game"]["to_move"]
                s = states[p]
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                mid = moves + 1
                t0 = time.perf_counter()
                await wss[p].send(
                    json.dumps(
                        {
                            "type": "move",
                            "move": rng.choice(s["view"]["legal"]),
                            "round": s["round"],
                            "ply": s["view"]["ply"],
                            "id": mid,
                        }
                    )
                )
                while True:
                    m = json.loads(await wss[p].recv())
                    if m["type"] == "state":
                        states[p] = m
                        if m.get("ack") == mid:
                            break
                    elif m["type"] == "error":
                        raise RuntimeError(f"a well-behaved client was refused: {m}")
                phase.latencies[phase.name].append(time.perf_counter() - t0)
                moves += 1
                while True:  # the other seat's copy
                    m = json.loads(await wss[1 - p].recv())
                    if m["type"] == "state" and m["view"]["ply"] == states[p]["view"]["ply"]:
                        states[1 - p] = m
                        break
        finally:
            for w in wss:
                await w.close()
    return moves


async def flood(
    base: str, ws_url: str, gid: str, stop: asyncio.Event, counts: collections.Counter[str]
) -> None:
    addr = "127.0.0.2"

    async def http_flood(kind: str) -> None:
        async with http_from(base, addr) as h:
            while not stop.is_set():
                if kind == "create":
                    r = await h.post("/api/games", json={"opponent": "friend", "rounds": 1})
                elif kind == "join":
                    r = await h.post(
                        f"/api/games/{gid}/join", json={"invite": "guess" + str(random.random())}
                    )
                else:
                    r = await h.post(
                        f"/api/games/{gid}/moves",
                        json={"token": "x", "move": "+y2.", "round": 0, "ply": 0},
                    )
                counts[f"{kind} {r.status_code}"] += 1

    async def socket_flood() -> None:
        held = []
        while not stop.is_set():
            try:
                ws = await connect(
                    f"{ws_url}/ws/games/{gid}",
                    local_addr=(addr, 0),
                    ping_interval=None,
                    open_timeout=30,
                )
            except (OSError, InvalidStatus):
                counts["socket refused"] += 1
                await asyncio.sleep(0.01)
                continue
            held.append(ws)
            try:
                while not stop.is_set():
                    await ws.send('{"type": "ping"}')
                    await asyncio.wait_for(ws.recv(), 5)
                    counts["ws message answered"] += 1
            except ConnectionClosed as e:
                counts[f"socket closed {e.rcvd.code if e.rcvd else None}"] += 1
                held.remove(ws)
            except TimeoutError:
                counts["ws timeout"] += 1
        for ws in held:
            await ws.close()

    await asyncio.gather(
        *(http_flood(k) for k in ("create", "join", "moves", "create", "moves")),
        socket_flood(),
        socket_flood(),
    )


def server_usage(pid: int) -> dict[str, float]:
    return {"cpu_s": cpu_seconds(pid), "rss_mib": rss_kib(pid) / 1024}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    tmp = tempfile.mkdtemp(prefix="lc-flood-")
    server = Server(
        f"sqlite:///{Path(tmp) / 'flood.db'}",
        Path(tmp) / "server.log",
        limits=True,
        env={"LOSTCITIES_BOT_EXECUTOR": "thread"},
    ).start()
    base, ws_url = server.url, server.ws_url
    phase = Phase()
    stop, stop_flood = asyncio.Event(), asyncio.Event()
    counts: collections.Counter[str] = collections.Counter()
    out: dict[str, Any] = {"games": args.games, "duration_s": args.duration, "think_s": args.think}
    try:
        async with http_from(base, "127.0.0.3") as h:
            target = (await h.post("/api/games", json={"opponent": "friend", "rounds": 1})).json()[
                "id"
            ]
        players = [
            asyncio.create_task(play_game(base, ws_url, i, phase, stop, args.think))
            for i in range(args.games)
        ]
        await asyncio.sleep(3)
        phase.name = "baseline"
        u0 = server_usage(server.pid)
        await asyncio.sleep(args.duration)
        phase.name = "flood"
        u1 = server_usage(server.pid)
        flooder = asyncio.create_task(flood(base, ws_url, target, stop_flood, counts))
        await asyncio.sleep(args.duration)
        u2 = server_usage(server.pid)
        phase.name = "after"
        stop_flood.set()
        stop.set()
        await asyncio.wait_for(flooder, 30)
        moves = await asyncio.gather(*players, return_exceptions=True)
        errors = [repr(m) for m in moves if isinstance(m, BaseException)]
        for name in ("baseline", "flood"):
            xs = phase.latencies[name]
            out[name] = {
                "moves": len(xs),
                "p50_ms": round(1000 * pct(xs, 50), 1),
                "p99_ms": round(1000 * pct(xs, 99), 1),
                "max_ms": round(1000 * max(xs, default=float("nan")), 1),
            }
        out["server_cpu_share"] = {
            "baseline": round((u1["cpu_s"] - u0["cpu_s"]) / args.duration, 2),
            "flood": round((u2["cpu_s"] - u1["cpu_s"]) / args.duration, 2),
        }
        out["server_rss_mib"] = round(u2["rss_mib"], 1)
        out["flooder"] = dict(sorted(counts.items()))
        out["player_errors"] = errors
    finally:
        server.stop(wait=10)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--games", type=int, default=20, help="friend games of well-behaved clients (20)"
    )
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of each phase (20)")
    ap.add_argument("--think", type=float, default=0.5, help="mean think time of a player, s (0.5)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = asyncio.run(run(args))
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(on_loopback(main))
