"""Leak scan at scale (issue 14): every message both seats and a spectator receive over many
complete games against a real ``lostcities serve`` is checked for a card the receiver may not
know (tests/web/leakcheck.py: the same check as the suite's).

Friend games, both seats scripted (random legal moves, no think time), a spectator on each;
after each game its truth (the deal orders and moves) is read from the database and every
message checked against the position it was sent at.

    python benchmarks/web_leak_scan.py --games 10000 --concurrency 16
    python benchmarks/web_leak_scan.py --games 200 --plant      # the control: must find a leak

``--plant`` adds one card the receiver may not know to one message of the first game before
the check: the scan must report it (a scan that cannot fail proves nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

try:
    from orjson import loads
except ImportError:  # pragma: no cover
    loads = json.loads  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from leakcheck import Positions, check_message  # noqa: E402
from loopback import on_loopback  # noqa: E402
from webharness import Server, cpu_seconds  # noqa: E402

from lostcities.web.game_manager import GameManager  # noqa: E402
from lostcities.web.store import GameStore  # noqa: E402


async def receiver(
    ws: Any,
    i: int,
    out: list[dict[str, Any]],
    latest: list[Any],
    changed: asyncio.Event,
    done: asyncio.Event,
) -> None:
    async for raw in ws:
        m = loads(raw)
        out.append(m)
        if m["type"] == "state":
            latest[i] = m
            changed.set()
            if m["match"]["over"]:
                done.set()


RETRIES = [0]


async def post(h: httpx.AsyncClient, path: str, body: dict[str, Any]) -> httpx.Response:
    """POST, again (at most 3 times) after a transport error: a kept-alive connection that the
    server closed as it was reused (uvicorn closes idle ones after 5 s) is not the server's
    answer. A retried create may leave an unused game behind: harmless here."""
    for attempt in range(4):
        try:
            r = await h.post(path, json=body)
            r.raise_for_status()
            return r
        except httpx.TransportError:
            if attempt == 3:
                raise
            RETRIES[0] += 1
            await asyncio.sleep(0.2)
    raise AssertionError("unreachable")


async def play(
    h: httpx.AsyncClient, ws_url: str, rng_seed: int, rounds: int
) -> tuple[str, list[list[dict[str, Any]]]]:
    import random

    rng = random.Random(rng_seed)
    g = (await post(h, "/api/games", {"opponent": "friend", "rounds": rounds})).json()
    invite = g["invite_url"].split("#", 1)[1]
    j = (await post(h, f"/api/games/{g['id']}/join", {"invite": invite})).json()
    tokens = [g["token"], j["token"], None]
    msgs: list[list[dict[str, Any]]] = [[], [], []]
    latest: list[Any] = [None, None, None]
    changed = asyncio.Event()
    conns = []
    for t in tokens:
        ws = await connect(
            f"{ws_url}/ws/games/{g['id']}", max_size=2**22, ping_interval=None, open_timeout=60
        )
        await ws.send(json.dumps({"type": "hello", "token": t}))
        conns.append(ws)
    done = [asyncio.Event() for _ in conns]
    tasks = [
        asyncio.create_task(receiver(ws, i, msgs[i], latest, changed, done[i]))
        for i, ws in enumerate(conns)
    ]
    try:
        last: tuple[int, int] | None = None
        while not done[0].is_set():
            await asyncio.wait_for(changed.wait(), 30)
            changed.clear()
            s = latest[0]
            if s is None or s["match"]["over"]:
                continue
            p = s["game"]["to_move"]
            mine = latest[p]
            key = (s["round"], s["view"]["ply"])
            if mine is None or (mine["round"], mine["view"]["ply"]) != key or key == last:
                continue
            if not mine["view"]["legal"]:
                continue
            last = key
            await conns[p].send(
                json.dumps(
                    {
                        "type": "move",
                        "move": rng.choice(mine["view"]["legal"]),
                        "round": s["round"],
                        "ply": mine["view"]["ply"],
                    }
                )
            )
        await asyncio.wait_for(asyncio.gather(*(d.wait() for d in done)), 30)
    finally:
        for ws in conns:
            await ws.close()
        for t in tasks:
            t.cancel()
    return g["id"], msgs


SCAN_CPU = [0.0]
SCAN_LOCK = threading.Lock()


def scan(
    store: GameStore, gid: str, msgs: list[list[dict[str, Any]]], plant: bool
) -> tuple[int, list[str]]:
    c0 = time.thread_time()
    try:
        return _scan(store, gid, msgs, plant)
    finally:
        with SCAN_LOCK:
            SCAN_CPU[0] += time.thread_time() - c0


def _scan(
    store: GameStore, gid: str, msgs: list[list[dict[str, Any]]], plant: bool
) -> tuple[int, list[str]]:
    loaded = store.load_sync(gid)
    assert loaded is not None
    match = GameManager.build(loaded)
    positions = Positions(match.rounds)
    if plant:  # the control: a card of seat 1's hand in one of seat 0's messages
        for m in msgs[0]:
            if m["type"] == "state" and not m["match"]["over"]:
                r = positions.at(m["round"], m["view"]["ply"])
                hidden = next(
                    c for c in r.hands[1] if c not in r.hands[0] and not r.known_cards(1).count(c)
                )
                m["view"]["extra"] = [str(hidden)]
                break
    found: list[str] = []
    n = 0
    for seat, received in zip((0, 1, None), msgs, strict=True):
        for m in received:
            n += 1
            try:
                check_message(m, seat, positions)
            except AssertionError as e:
                found.append(f"game {gid}: {e}")
    return n, found


async def run(args: argparse.Namespace) -> dict[str, Any]:
    # the database in memory where there is a tmpfs: what is scanned is the messages, and a
    # commit's fsync would only make the run slower
    tmp = Path(
        tempfile.mkdtemp(
            prefix="lc-leak-",
            dir=getattr(args, "tmp", None) or ("/dev/shm" if os.path.isdir("/dev/shm") else None),
        )
    )
    db = f"sqlite:///{tmp / 'leaks.db'}"
    server = Server(db, tmp / "server.log", {"LOSTCITIES_BOT_EXECUTOR": "thread"})
    server.start(timeout=600)  # a loaded machine can take minutes to start it
    store = GameStore(db)
    base = server.url
    ws_url = base.replace("http", "ws", 1)
    t0 = time.monotonic()
    messages = 0
    leaks: list[str] = []
    games = 0
    sem = asyncio.Semaphore(args.concurrency)

    # idle connections dropped after 1 s, before the server's 5 s keep-alive limit
    http = httpx.AsyncClient(
        base_url=base,
        timeout=60,
        limits=httpx.Limits(max_connections=args.concurrency, keepalive_expiry=1.0),
    )

    async def one(i: int) -> None:
        nonlocal messages, games
        async with sem:
            if getattr(args, "max_seconds", 0) and time.monotonic() - t0 > args.max_seconds:
                return  # out of time: this game is not started (the report counts the games played)
            gid, msgs = await play(http, ws_url, i, args.rounds)
        n, found = await asyncio.to_thread(scan, store, gid, msgs, args.plant and i == 0)
        messages += n
        leaks.extend(found)
        games += 1
        if args.progress and games % args.progress == 0:
            print(
                f"{games} games, {messages} messages, {len(leaks)} leaks, {time.monotonic() - t0:.0f} s",
                file=sys.stderr,
            )

    assert server.proc is not None
    spid = server.proc.pid
    scpu0, ccpu0 = cpu_seconds(spid), time.process_time()
    try:
        await asyncio.gather(*(one(i) for i in range(args.games)))
        scpu, ccpu = cpu_seconds(spid) - scpu0, time.process_time() - ccpu0
    finally:
        await http.aclose()
        store.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "games": games,
        "rounds_per_game": args.rounds,
        "receivers_per_game": 3,
        "messages_checked": messages,
        "leaks": len(leaks),
        "first_leaks": leaks[:3],
        "planted": args.plant,
        "seconds": round(time.monotonic() - t0, 1),
        "server_cpu_s": round(scpu, 1),
        "harness_cpu_s": round(ccpu, 1),
        "checker_cpu_s": round(SCAN_CPU[0], 1),
        "games_asked": args.games,
        "http_retries": RETRIES[0],
        "database": db,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=1, choices=[1, 3])
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--plant", action="store_true", help="plant one leak (the control)")
    ap.add_argument("--progress", type=int, default=0, help="print progress every N games")
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=0.0,
        help="start no game after this many seconds (the games in flight finish; 0: no limit)",
    )
    ap.add_argument(
        "--tmp", default=None, help="folder for the database (default: /dev/shm if present)"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = asyncio.run(run(args))
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0 if (out["leaks"] > 0) == args.plant else 1


if __name__ == "__main__":
    sys.exit(on_loopback(main))
