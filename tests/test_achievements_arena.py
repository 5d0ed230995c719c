"""The arena in the achievements variant: goals per deal, records, the option."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lostcities.arena import goal_pool, play_match
from lostcities.errors import InvalidGoalError
from lostcities.record import read_records


def test_a_goal_match_lays_the_same_goals_out_for_both_seatings() -> None:
    out = io.StringIO()
    res = play_match("random", "discard", deals=2, jobs=1, achievements=True, records=out)
    assert res.achievements == "default" and res.to_dict()["achievements"] == "default"
    recs = list(read_records(io.StringIO(out.getvalue())))
    assert len(recs) == 4
    goals = [rec.rounds[0].goals for rec in recs]
    assert goals[0] is not None and len(goals[0]) == 5
    assert goals[0] == goals[1] and goals[2] == goals[3] and goals[0] != goals[2]
    for rec in recs:
        rec.replay()  # goal points and claims check out


def test_classic_matches_are_unchanged() -> None:
    a = play_match("random", "discard", deals=2, jobs=1)
    assert a.achievements is None and a.to_dict()["achievements"] is None
    b = play_match("random", "discard", deals=2, jobs=1, achievements=True)
    assert [g.a_score for g in a.games] != [g.a_score for g in b.games]


def test_goal_pool_reads_files_and_refuses_bad_ones(tmp_path: Path) -> None:
    f = tmp_path / "mine.goals"
    f.write_text("one | race | One | cards >= 1 | A card.\n", encoding="utf-8")
    pool = goal_pool(str(f))
    assert pool is not None and pool.name == "mine" and len(pool) == 1
    f.write_text("one | race | One | cards >= 1 | A card.\ntwo | race\n", encoding="utf-8")
    with pytest.raises(InvalidGoalError, match="line 2"):
        goal_pool(str(f))


def test_the_match_command_takes_achievements(tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "lostcities.cli",
        "match",
        "random",
        "discard",
        "--deals",
        "2",
        "--jobs",
        "1",
        "--json",
    ]
    out = subprocess.run([*cmd, "--achievements"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["achievements"] == "default"
    bad = tmp_path / "bad.goals"
    bad.write_text("x | race\n", encoding="utf-8")
    out = subprocess.run(
        [*cmd, f"--achievements={bad}"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2 and "line 1" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
