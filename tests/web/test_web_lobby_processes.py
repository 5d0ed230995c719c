"""The lobby across two real server processes on one PostgreSQL database
(benchmarks/lobby_load.py, small): every change made on either process reaches every
watcher's event stream on both, none missing."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import lobby_load
import webharness


def test_two_processes_stream_one_lobby(pg_url: str, tmp_path: Path) -> None:
    env = {"LOSTCITIES_BOT_EXECUTOR": "thread"}
    servers = [webharness.Server(pg_url, tmp_path / f"server{i}.log", env) for i in range(2)]
    try:
        for s in servers:
            s.start(timeout=120)
        args = argparse.Namespace(players=8, tables=4, changes=4, gap=0.2)
        out = asyncio.run(lobby_load.main_async(args, servers))
    finally:
        for s in servers:
            s.stop()
    assert out["missing"] == 0 and out["deliveries"] == 8 * 8, out
