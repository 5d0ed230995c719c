"""Chaos (issue 14): the server is killed with SIGKILL 5 times at random moments while friend
and bot games are played (benchmarks/web_chaos.py, whose 50-kill runs are reported in
docs/performance.md). No move a client saw is lost, none is duplicated, no bot worker outlives
its server, and every game is played to its end with a record that replays."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import web_chaos  # noqa: E402


def test_five_kills_lose_nothing(db_url: str, tmp_path: Path) -> None:
    out = web_chaos.run(
        db_url, kills=5, friend_games=2, bot_games=1, seed=14, between=(0.2, 1.0), log_dir=tmp_path
    )
    assert out["problems"] == [], out
    assert out["kills"] == 5 and out["moves"] > 100
    assert out["connection_attempts_failed"] > 0  # the clients did see the server go away
    assert out["lost_moves"] == out["duplicated_moves"] == out["orphan_processes"] == 0
    assert out["unfinished_games"] == 0
