"""``lostcities analyse`` / ``analyze``, run as a user would (a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lostcities import Match
from lostcities.bots import make
from lostcities.record import GameRecord, read_record
from lostcities.referee import Referee


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lostcities.cli", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One round of heuristic against random."""
    m = Match(1, seed=3)
    Referee(m, [make("heuristic", seed=1), make("random", seed=2)]).play_match()
    path = tmp_path_factory.mktemp("rec") / "game.lcr"
    path.write_text(
        str(GameRecord.from_match(m, players=("heuristic", "random"))), encoding="utf-8"
    )
    return path


def test_json_has_every_move_with_the_documented_fields(record: Path) -> None:
    out = run("analyse", str(record), "--worlds", "30", "--json")
    assert out.returncode == 0, out.stderr
    (game,) = [json.loads(line) for line in out.stdout.splitlines()]
    moves = game["moves"]
    with record.open(encoding="utf-8") as f:
        rr = read_record(f).rounds[0]  # type: ignore[union-attr]
    assert [m["move"] for m in moves] == [str(m) for m in rr.moves]
    for k, m in enumerate(moves):
        assert {"round", "ply", "player", "move", "best", "loss", "mark"} <= set(m)
        assert m["round"] == 1 and m["ply"] == k and m["player"] == (rr.starter + k) % 2
        assert m["loss"] >= 0 and m["mark"] in (None, "inaccuracy", "mistake", "blunder")
        assert (m["mark"] is None) == (m["loss"] < 4)
    rnd = [m for m in moves if m["player"] == 1]
    hrs = [m for m in moves if m["player"] == 0]
    assert sum(m["loss"] for m in rnd) > 2 * sum(m["loss"] for m in hrs)  # random loses more
    s0, s1 = game["summary"]
    assert s0["player"] == 0 and s1["moves"] == len(rnd)
    assert (
        s1["accuracy"] < s0["accuracy"] and s1["inaccuracies"] + s1["mistakes"] + s1["blunders"] > 0
    )
    assert game["players"] == ["heuristic", "random"] and game["worlds"] == 30
    # analyze is the same command, and the figures do not depend on --jobs
    again = run("analyze", str(record), "--worlds", "30", "--json", "--jobs", "2")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["moves"] == moves


def test_table_and_plot(record: Path, tmp_path: Path) -> None:
    plot = tmp_path / "curve.svg"
    out = run("analyse", str(record), "--worlds", "10", "--plot", str(plot), "--marked")
    assert out.returncode == 0, out.stderr
    assert "heuristic vs random" in out.stdout and "accuracy" in out.stdout
    assert plot.read_text().lstrip().startswith("<?xml") and "<svg" in plot.read_text()


def test_bad_records_get_the_readers_error_with_the_line(record: Path, tmp_path: Path) -> None:
    lines = record.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("R1:"))
    tokens = lines[at].split()
    tokens[3] = "+y11."
    lines[at] = " ".join(tokens)
    bad = tmp_path / "bad.lcr"
    bad.write_text("\n".join(lines) + "\n")
    out = run("analyse", str(bad), "--worlds", "5")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith(f"{bad}:{at + 1}: error: game 1:") and "rank 11" in line
    tagged = tmp_path / "tag.lcr"
    tagged.write_text(record.read_text().replace('[Rounds "1"]', '[Rounds "x"]'))
    out = run("analyse", str(tagged), "--worlds", "5")
    assert out.returncode == 2 and "bad tag value" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--bot", "heuristic"], "cannot analyse"),
        (["--bot", "ismcts:iters=-1"], "iters must be"),
        (["--plot", "x.gif"], "invalid plot file"),
        (["--worlds", "0"], "must be at least 1"),
    ],
)
def test_bad_options_say_why_in_one_line(record: Path, args: list[str], why: str) -> None:
    out = run("analyse", str(record), *args)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert why in out.stderr.strip().splitlines()[-1]  # (argparse prints its usage first)


def test_a_file_without_a_record_says_so_as_replay_does(tmp_path: Path) -> None:
    # issue 26: an empty file (or empty stdin) printed nothing and exited 0
    empty = tmp_path / "empty.lcr"
    empty.write_text("")
    for args, stdin in (([str(empty)], None), (["-"], "")):
        out = subprocess.run(
            [sys.executable, "-m", "lostcities.cli", "analyse", *args, "--worlds", "5"],
            capture_output=True,
            text=True,
            timeout=120,
            input=stdin,
        )
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.strip().splitlines() == [f"{args[0]}: error: no game record in the file"]
        replay = run("replay", str(empty))
        assert replay.returncode == 2 and "no game record in the file" in replay.stderr
