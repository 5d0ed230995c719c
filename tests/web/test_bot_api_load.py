"""benchmarks/bot_load.py at a tiny size (2 bots, 1 game), so that it cannot rot: on one
server process and SQLite, and on two processes sharing PostgreSQL (the game's two bots on
different processes) when the tests have one. Every move acknowledged and delivered to the
opponent's game stream."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bot_load
import webharness


def test_the_bot_load_benchmark_plays_a_game(db_url: str, tmp_path: Path) -> None:
    processes = 2 if db_url.startswith("postgresql") else 1
    env = {"LOSTCITIES_BOT_EXECUTOR": "thread"}
    servers = [
        webharness.Server(db_url, tmp_path / f"server{i}.log", env) for i in range(processes)
    ]
    try:
        for s in servers:
            s.start(timeout=120)
        args = argparse.Namespace(
            db=db_url, bots=2, rounds=1, think=(0.0, 0.0), seed=39, timeout=120
        )
        out = asyncio.run(bot_load.main_async(args, servers))
    finally:
        for s in servers:
            s.stop()
    assert out["games"] == out["finished"] == 1 and out["processes"] == processes, out
    assert out["moves"] == out["acked"] == out["delivered"] >= 44 and out["refused"] == {}, out
    lat = out["latency_ms"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["max"], out
    where = "p99_across_processes" if processes == 2 else "p99_one_process"
    assert lat[where] == lat["p99"], out
