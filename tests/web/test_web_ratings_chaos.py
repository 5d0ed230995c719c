"""Chaos for the ratings (benchmarks/ratings_chaos.py): the server that ends a rated match is
killed with SIGKILL at once, often mid-settlement, and started again; every rated result is
still counted exactly once, by the glicko2 figures (on SQLite one server, on PostgreSQL two
sharing the database)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("glicko2")
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL of a subprocess")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import ratings_chaos  # noqa: E402


def test_killed_servers_count_every_rated_result_once(db_url: str, tmp_path: Path) -> None:
    out = ratings_chaos.run(db_url, matches=6, seed=27, log_dir=tmp_path)
    assert out["problems"] == [], out
    assert out["kills"] >= 3
