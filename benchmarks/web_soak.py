"""Soak benchmark of ``lostcities serve`` (issue 14): ``--games`` concurrent friend games for
``--duration`` seconds (the target: 1,000 games for an hour), every finished game replaced
by a new one, so the server keeps creating, playing, finishing and unloading games.

Every ``--sample`` seconds it records the server's RSS, its open file descriptors and the
window's move-acknowledgement p99; at the end it reports the RSS slope (least squares over
the samples after the warm-up, MiB per hour), the fd count at the start and end of the
measurement and its maximum, and the p99 over the whole run and the worst window.

    nice -n 10 python benchmarks/web_soak.py --games 1000 --duration 3600
    python benchmarks/web_soak.py --games 200 --duration 300 --json    # a short run

Targets: memory flat (slope near 0), p99 under 100 ms, no growth of open fds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loopback import on_loopback
from web_load import Stats, create_game, open_seat, pct, play_pair
from webharness import Server, cpu_seconds, rss_kib


def server_log_lines(path: Path, start: int) -> int:
    """Lines of the server's log after byte ``start`` (its start-up banner is before it)."""
    with path.open("rb") as f:
        f.seek(start)
        return sum(1 for _ in f)


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def slope_per_hour(ts: list[float], ys: list[float]) -> float:
    """Least-squares slope of ``ys`` against ``ts`` (seconds), per hour."""
    if len(ts) < 2:
        return float("nan")
    mt, my = statistics.fmean(ts), statistics.fmean(ys)
    var = sum((t - mt) ** 2 for t in ts)
    return (
        3600 * sum((t - mt) * (y - my) for t, y in zip(ts, ys, strict=True)) / var if var else 0.0
    )


async def slot(
    base: str,
    ws_url: str,
    stats: Stats,
    think: tuple[float, float],
    rng: random.Random,
    stop: asyncio.Event,
    http: httpx.AsyncClient,
    sem: asyncio.Semaphore,
    csem: asyncio.Semaphore,
    counts: dict[str, int],
) -> None:
    """One of the concurrent games, replaced by a fresh one whenever it finishes."""
    while not stop.is_set():
        async with sem:
            for attempt in range(4):
                try:
                    gid, a, b = await create_game(http)
                    break
                except httpx.TransportError:  # a kept-alive connection the server had just closed
                    if attempt == 3:
                        raise
                    counts["http_retries"] += 1
                    await asyncio.sleep(0.2)
        seats = list(
            await asyncio.gather(open_seat(ws_url, gid, a, csem), open_seat(ws_url, gid, b, csem))
        )
        counts["created"] += 1
        try:
            await play_pair(seats, stats, think, rng, stop)
        finally:
            for s in seats:
                await s.ws.close()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.games + 512)), hard))
    tmp = tempfile.mkdtemp(prefix="lc-soak-")
    log_path = Path(args.server_log) if args.server_log else Path(tmp) / "server.log"
    server = Server(
        f"sqlite:///{Path(tmp) / 'soak.db'}", log_path, nice=args.server_nice, cpus=args.server_cpus
    )
    server.start()
    log_start = log_path.stat().st_size  # what it logs from here on: warnings and errors of the run
    pid = server.pid
    base, ws_url = server.url, server.ws_url
    stats = Stats()
    counts = {"created": 0, "http_retries": 0}
    stop = asyncio.Event()
    samples: list[dict[str, float]] = []
    out: dict[str, Any] = {
        "games": args.games,
        "duration_s": args.duration,
        "think_s": list(args.think),
    }
    rng = random.Random(args.seed)
    try:
        async with httpx.AsyncClient(
            base_url=base,
            timeout=120,
            # idle connections dropped before the server's 5 s keep-alive limit
            limits=httpx.Limits(max_connections=32, keepalive_expiry=1.0),
        ) as http:
            sem, csem = asyncio.Semaphore(32), asyncio.Semaphore(64)
            tasks = [
                asyncio.create_task(
                    slot(
                        base,
                        ws_url,
                        stats,
                        tuple(args.think),
                        random.Random(rng.random()),
                        stop,
                        http,
                        sem,
                        csem,
                        counts,
                    )
                )
                for _ in range(args.games)
            ]
            t0 = time.monotonic()
            stats.measuring = True
            seen = 0
            warm_idx: int | None = None
            cpu0 = cpu_seconds(pid)
            ccpu0 = time.process_time()
            while time.monotonic() - t0 < args.warmup + args.duration:
                await asyncio.sleep(args.sample)
                lat = stats.latencies[seen:]
                seen = len(stats.latencies)
                if warm_idx is None and time.monotonic() - t0 > args.warmup:
                    warm_idx = seen
                s = {
                    "t": round(time.monotonic() - t0, 1),
                    "rss_mib": rss_kib(pid) / 1024,
                    "fds": open_fds(pid),
                    "load1": os.getloadavg()[0],
                    "moves": len(lat),
                    "p99_ms": 1000 * pct(lat, 99) if lat else float("nan"),
                    "games_created": counts["created"],
                    "games_finished": stats.games_finished,
                }
                samples.append(s)
                if args.progress:
                    print(
                        json.dumps({k: round(v, 1) for k, v in s.items()}),
                        file=sys.stderr,
                        flush=True,
                    )
            elapsed = time.monotonic() - t0
            cpu1 = cpu_seconds(pid)
            ccpu1 = time.process_time()
            stop.set()
            done, pending = await asyncio.wait(tasks, timeout=60)
            for t in pending:
                t.cancel()
            errors = [repr(t.exception()) for t in done if not t.cancelled() and t.exception()]
        measured = [s for s in samples if s["t"] > args.warmup]
        lat_ms = [1000 * x for x in stats.latencies]
        meas_ms = lat_ms[warm_idx:] if warm_idx is not None else []
        loads = [s["load1"] for s in measured]
        out.update(
            {
                "samples": len(samples),
                "moves": len(lat_ms),
                "moves_per_s": round(len(lat_ms) / elapsed, 1),
                "games_created": counts["created"],
                "games_finished": stats.games_finished,
                "ack_ms_p50": round(pct(lat_ms, 50), 1),
                "ack_ms_p99": round(pct(lat_ms, 99), 1),
                "measured_moves": len(meas_ms),
                "measured_ack_ms_p50": round(pct(meas_ms, 50), 1),
                "measured_ack_ms_p99": round(pct(meas_ms, 99), 1),
                "measured_ack_ms_max": round(max(meas_ms, default=float("nan")), 1),
                "ack_ms_p99_worst_window": round(
                    max((s["p99_ms"] for s in measured if s["moves"]), default=float("nan")), 1
                ),
                "rss_mib_start": round(measured[0]["rss_mib"], 1) if measured else None,
                "rss_mib_end": round(measured[-1]["rss_mib"], 1) if measured else None,
                "rss_slope_mib_per_hour": round(
                    slope_per_hour([s["t"] for s in measured], [s["rss_mib"] for s in measured]), 1
                ),
                "fds_start": measured[0]["fds"] if measured else None,
                "fds_end": measured[-1]["fds"] if measured else None,
                "fds_max": max((s["fds"] for s in measured), default=None),
                "fds_slope_per_hour": round(
                    slope_per_hour([s["t"] for s in measured], [s["fds"] for s in measured]), 1
                ),
                "server_cpu_percent": round(100 * (cpu1 - cpu0) / elapsed, 1),
                "client_cpu_percent": round(100 * (ccpu1 - ccpu0) / elapsed, 1),
                "load1_min_mean_max": [
                    round(min(loads), 2),
                    round(statistics.fmean(loads), 2),
                    round(max(loads), 2),
                ]
                if loads
                else None,
                "server_log_lines": server_log_lines(log_path, log_start),
                "http_retries": counts["http_retries"],
                "client_errors": errors[:3],
                "client_error_count": len(errors),
            }
        )
        if args.samples_out:
            Path(args.samples_out).write_text(json.dumps(samples))
    finally:
        server.stop(wait=30)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="concurrent friend games (1000)")
    ap.add_argument(
        "--duration", type=float, default=3600.0, help="measured seconds after the warm-up (3600)"
    )
    ap.add_argument(
        "--warmup", type=float, default=60.0, help="seconds before the slope is measured (60)"
    )
    ap.add_argument("--sample", type=float, default=10.0, help="seconds between samples (10)")
    ap.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(2.0, 6.0),
        metavar=("MIN", "MAX"),
        help="seconds a scripted player waits before each move, uniform (2 6)",
    )
    ap.add_argument("--server-nice", type=int, default=0)
    ap.add_argument(
        "--server-cpus",
        default=None,
        help="pin the server to these CPUs (taskset -c syntax, e.g. 0); pin the client with taskset yourself",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples-out", default=None, help="write every sample to this JSON file")
    ap.add_argument(
        "--server-log", default=None, help="the server's output goes here (default: the temp dir)"
    )
    ap.add_argument("--progress", action="store_true", help="print each sample to stderr")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = asyncio.run(run(args))
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(on_loopback(main))
