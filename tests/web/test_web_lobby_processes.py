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
        args = argparse.Namespace(
            players=8, tables=4, changes=4, gap=0.2, playing=0, think=(0.01, 0.02)
        )
        out = asyncio.run(lobby_load.main_async(args, servers))
        # and with players in games meanwhile, two games on each process
        args.playing, args.tables = 8, 0
        busy = asyncio.run(lobby_load.main_async(args, servers))
    finally:
        for s in servers:
            s.stop()
    assert out["missing"] == 0 and out["deliveries"] == 8 * 8, out
    assert "players_in_games" not in out
    assert busy["missing"] == 0 and busy["deliveries"] == 8 * 8, busy
    assert busy["players_in_games"] == 8 and busy["game_move_errors"] == 0, busy
    assert busy["game_moves"] > 0 and busy["game_ack_ms_p99"] is not None, busy
