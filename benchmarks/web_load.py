"""Load benchmark of ``lostcities serve``: many concurrent friend games of scripted clients.

Starts the server as a subprocess on a temp SQLite database (or uses ``--url``), creates
``--games`` friend games over HTTP, connects both seats of every game over WebSockets (all on
loopback), then lets each seat play random legal moves after a think time for ``--duration``
seconds. It reports the move-acknowledgement latency (a client sends a move; the server
checks it, commits it to the database and answers with the new state carrying ``ack``) and
the server's memory per idle game (RSS growth with every game loaded and both seats
connected, before any move). Bots are not involved: thinking time is excluded by design.

    nice -n 10 python benchmarks/web_load.py --games 1000 --duration 60

Target (issue 5): 1,000 concurrent games, p99 acknowledgement under 100 ms; (issue 28)
at most 1.0 ms of server CPU per move (``server_cpu_ms_per_move``: the server process's
user + system CPU time over the measured window divided by the moves acknowledged in it).

``--profile FILE`` samples the server with py-spy (``py-spy record --nonblocking``, the
measured window only) into FILE (collapsed stacks) and prints the functions holding most
samples; ``--server-path DIR`` runs the server from another checkout (its ``DIR`` first on
``PYTHONPATH``, e.g. ``git worktree add /tmp/old <commit>``), for a before/after in one
session.

So that the latency says what the server does, not what the scripted client (one process
for every seat, on the same machine) does: ``--server-cpus 0 --client-cpus 1`` pins each
to its own core (``taskset``), ``--client-nice N`` lowers the client's priority. The client's
own event-loop lag is reported beside the acknowledgement (``client_loop_lag_ms_p99``), and
a spectator's ``ping`` every 50 ms measures the server's answer time alone
(``server_ping_ms_*``: no database, no state). ``--gc-log`` records the server's garbage
collections (``sitecustomize`` on its ``PYTHONPATH``): how many, and the longest pauses.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
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


def profile_top(path: Path, n: int = 25) -> dict[str, list[tuple[str, float]]]:
    """The ``n`` functions with most of py-spy's samples in the collapsed-stack file
    ``path``: by own samples (``self``, the leaf frame) and by samples anywhere on the stack
    (``total``, each function counted once a stack), as percentages of all samples."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        k = int(count)
        samples += k
        frames = [
            f.split(" (", 1)[0] + " (" + f.split(" (", 1)[1].rsplit(":", 1)[0] + ")"
            if " (" in f
            else f
            for f in stack.split(";")
        ]
        own[frames[-1]] += k
        for f in set(frames):
            total[f] += k
    if not samples:
        return {"self": [], "total": []}
    return {
        key: [(f, round(100 * c / samples, 1)) for f, c in ctr.most_common(n)]
        for key, ctr in (("self", own), ("total", total))
    }


def start_profiler(pid: int, path: Path, seconds: float) -> subprocess.Popen[bytes]:
    """py-spy recording ``pid`` for ``seconds`` into ``path`` (collapsed stacks)."""
    exe = shutil.which("py-spy")
    if exe is None:
        raise SystemExit("--profile needs py-spy (pip install py-spy)")
    cmd = [
        exe,
        "record",
        "--pid",
        str(pid),
        "--duration",
        str(max(1, round(seconds))),
        "--rate",
        "200",
        "--nonblocking",
        "--gil",
        "--format",
        "raw",
        "--output",
        str(path),
    ]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of ``pid``: user and system time, and the main thread's (the event
    loop's) share of them, from ``/proc``."""

    def read(path: str) -> tuple[float, float]:
        with open(path) as f:
            parts = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(parts[11]) / tick, int(parts[12]) / tick

    user, system = read(f"/proc/{pid}/stat")
    mu, ms = read(f"/proc/{pid}/task/{pid}/stat")
    return {"user": user, "system": system, "main": mu + ms}


GC_HOOK = """
import atexit, gc, os, time
_log = open(os.environ["LOSTCITIES_GC_LOG"], "a", buffering=1)
_t = [0.0]
def _gc(phase, info):
    if phase == "start":
        _t[0] = time.perf_counter()
    else:
        ms = 1000 * (time.perf_counter() - _t[0])
        if info["generation"] == 2 or ms >= 1.0:
            _log.write(f"{os.getpid()} {time.monotonic():.4f} {info['generation']} {ms:.3f}\\n")
gc.callbacks.append(_gc)
atexit.register(_log.close)
"""
"""The server's ``sitecustomize`` with ``--gc-log``: one line per full collection, or per
pause of 1 ms or more (``pid monotonic_time generation ms``)."""


def gc_pauses(path: Path, pid: int, t0: float, t1: float) -> dict[str, Any]:
    """The collections of process ``pid`` between the monotonic times ``t0`` and ``t1``."""
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            who, t, gen, ms = line.split()
            if int(who) == pid and t0 <= float(t) <= t1:
                rows.append((int(gen), float(ms)))
    full = [ms for gen, ms in rows if gen == 2]
    return {
        "full_collections": len(full),
        "full_ms_max": round(max(full), 1) if full else None,
        "pauses_over_1ms": len(rows),
        "pause_ms_total": round(sum(ms for _, ms in rows), 1),
        "pause_ms_max": round(max(ms for _, ms in rows), 1) if rows else None,
    }


async def ping_probe(
    ws_url: str, gid: str, stop: asyncio.Event, stats: Stats, rtts: list[float]
) -> None:
    """A spectator of game ``gid`` that sends ``ping`` every 50 ms and times each ``pong``
    (while measuring): the server's answer time, without the database or a state."""
    async with connect(f"{ws_url}/ws/games/{gid}", ping_interval=None, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        sent: list[float] = []

        async def read() -> None:
            async for raw in ws:
                if '"pong"' in raw and sent:
                    dt = (time.perf_counter() - sent.pop(0)) * 1000
                    if stats.measuring:
                        rtts.append(dt)

        reader = asyncio.create_task(read())
        while not stop.is_set():
            if not sent:
                sent.append(time.perf_counter())
                await ws.send('{"type":"ping"}')
            await asyncio.sleep(0.05)
        reader.cancel()


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
    gc_log = Path(tmp) / "gc.log"
    if args.client_cpus:
        os.sched_setaffinity(0, {int(c) for c in args.client_cpus.split(",")})
    if args.client_nice:
        os.nice(args.client_nice)
    if args.url:
        base = require_loopback(args.url).rstrip("/")
        pid = None
    else:
        db = args.db or f"sqlite:///{Path(tmp) / 'load.db'}"
        env = {}
        path = [str(Path(args.server_path).resolve())] if args.server_path else []
        if args.gc_log:
            hook = Path(tmp) / "hook"
            hook.mkdir()
            (hook / "sitecustomize.py").write_text(GC_HOOK)
            path.append(str(hook))
            env["LOSTCITIES_GC_LOG"] = str(gc_log)
        if path:
            env["PYTHONPATH"] = os.pathsep.join(
                [*path, *filter(None, [os.environ.get("PYTHONPATH")])]
            )
        server = Server(
            db,
            Path(tmp) / "server.log",
            env,
            nice=args.server_nice,
            cpus=args.server_cpus,
            cwd=Path(tmp) if args.server_path else None,  # (not a checkout: see Server)
        ).start()
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
    if args.server_path:
        out["server_path"] = str(Path(args.server_path).resolve())
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
        rtts: list[float] = []
        pinger = asyncio.create_task(ping_probe(ws_url, games[0][0], stop, stats, rtts))
        await asyncio.sleep(args.warmup)
        profiler = None
        if args.profile and pid:
            profiler = start_profiler(pid, Path(args.profile), args.duration)
        stats.measuring = True
        cpu0 = cpu_seconds(pid) if pid else 0.0
        split0 = thread_cpu(pid) if pid else {}
        client0 = time.process_time()
        load0 = os.getloadavg()[0]
        t_measure = time.monotonic()
        await asyncio.sleep(args.duration)
        stats.measuring = False
        elapsed = time.monotonic() - t_measure
        cpu1 = cpu_seconds(pid) if pid else 0.0
        split1 = thread_cpu(pid) if pid else {}
        client1 = time.process_time()
        out["load_average"] = [round(load0, 2), round(os.getloadavg()[0], 2)]
        stop.set()
        await probe
        await pinger
        out["server_ping_ms_p50"] = round(pct(rtts, 50), 2)
        out["server_ping_ms_p99"] = round(pct(rtts, 99), 2)
        out["server_ping_ms_max"] = round(max(rtts), 2) if rtts else None
        if args.gc_log and pid:
            out["server_gc"] = gc_pauses(gc_log, pid, t_measure, t_measure + elapsed)
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
                "server_cpu_ms_per_move": (
                    round(1000 * (cpu1 - cpu0) / len(lat), 3) if pid and lat else None
                ),
                "client_cpu_percent": round(100 * (client1 - client0) / elapsed, 1),
            }
        )
        if pid and lat:
            out["server_cpu_ms_per_move_split"] = {
                k: round(1000 * (split1[k] - split0[k]) / len(lat), 3) for k in split1
            }
        if profiler is not None:
            profiler.wait(timeout=60)
            out["profile"] = profile_top(Path(args.profile))
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
    ap.add_argument("--server-cpus", default=None, help="pin the server to these CPUs (taskset -c)")
    ap.add_argument("--client-cpus", default=None, help="pin this client to these CPUs (0,1)")
    ap.add_argument("--client-nice", type=int, default=0, help="lower this client's priority by N")
    ap.add_argument(
        "--gc-log", action="store_true", help="record the server's garbage-collection pauses"
    )
    ap.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="sample the server with py-spy over the measured window into FILE",
    )
    ap.add_argument(
        "--server-path",
        default=None,
        metavar="DIR",
        help="run the server from the checkout DIR (put first on PYTHONPATH)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    out = asyncio.run(run(args))
    if args.json:
        print(json.dumps(out))
    else:
        prof = out.pop("profile", None)
        for k, v in out.items():
            print(f"{k:24} {v}")
        if prof:
            for key in ("self", "total"):
                print(f"\nserver profile, % of samples ({key}):")
                for name, share in prof[key]:
                    print(f"  {share:5.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(on_loopback(main))
