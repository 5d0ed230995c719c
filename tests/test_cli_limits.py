"""Issue 37, items 21-25: what the command line refuses before it starts (numbers no run
could finish, a plot path that cannot be written, an unknown analysing bot, a database that
does not exist), the words of its refusals, and what Ctrl-C leaves behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lostcities.cli import main
from lostcities.presentation import ACCURACY_NOTE, format_analysis

ROOT = Path(__file__).resolve().parents[1]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``argv``; it must exit 2 with one error line and print nothing on stdout. The
    error line."""
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's refusals
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (out, err)
    lines = [x for x in err.splitlines() if not x.startswith((" ", "usage:"))]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["analyse", "--worlds", "99999999999999999999999", "x.lcr"], "at most 1,000,000"),
        (["match", "a", "b", "--deals", "99999999999999999999"], "at most 1,000,000"),
        (["match", "a", "b", "--matches", "99999999999999999999"], "at most 1,000,000"),
        (["tournament", "a", "b", "--jobs", "99999999999"], "at most 1,024"),
        (["match", "ismcts:iters=99999999999999999", "random"], "at most 10,000,000"),
        (["match", "random", "expert:iters=99999999999999999"], "at most 10,000,000"),
        (["analyse", "--bot", "ismcts:iters=99999999999999", "x.lcr"], "at most 10,000,000"),
        (["analyse", "--time", "nan", "x.lcr"], "invalid number: 'nan'"),
        (["analyse", "--time", "inf", "x.lcr"], "at most 86,400 seconds"),
        (["match", "a", "b", "--time-limit", "nan"], "invalid number: 'nan'"),
    ],
)
def test_numbers_no_run_could_finish_are_refused(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert words in refused(argv, capsys)


def test_analyse_names_an_unknown_bot(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["analyse", "--bot", "nonsense", "x.lcr"], capsys)
    assert "unknown bot: 'nonsense'" in line and "cannot analyse" not in line
    line = refused(["analyse", "--bot", "heuristic", "x.lcr"], capsys)
    assert "cannot analyse (use ismcts or expert)" in line


@pytest.mark.parametrize("where", ["missing/x.svg", "folder.svg"])
def test_a_plot_path_is_checked_before_the_analysis(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "folder.svg").mkdir()
    record = tmp_path / "g.lcr"
    assert main(["match", "random", "random", "--deals", "1", "--records", str(record)]) == 0
    capsys.readouterr()
    line = refused(["analyse", "--plot", str(tmp_path / where), str(record)], capsys)
    assert "cannot write the plot to" in line  # and no table printed: nothing analysed


def test_checking_a_plot_path_leaves_no_file(tmp_path: Path) -> None:
    from lostcities.review import check_plot_path

    check_plot_path(str(tmp_path / "new.svg"))
    assert not (tmp_path / "new.svg").exists()


@pytest.mark.parametrize(
    "argv", [["users", "list"], ["users", "log"], ["users", "ban", "bob"], ["comments", "list"]]
)
def test_operator_commands_create_no_database(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sqlalchemy")
    db = tmp_path / "typo.db"
    line = refused([*argv, "--db", f"sqlite:///{db}"], capsys)
    assert f"no database at {str(db)!r}" in line
    assert not db.exists() and list(tmp_path.iterdir()) == []


def test_no_accuracy_for_a_player_without_moves() -> None:
    game = {
        "players": ["ann", "bob"],
        "moves": [],
        "summary": [
            {"player": p, "moves": 0, "average_loss": 0.0, "accuracy": 100.0,
             "inaccuracies": 0, "mistakes": 0, "blunders": 0}
            for p in (0, 1)
        ],
    }  # fmt: skip
    table = format_analysis(game)
    rows = [line.split() for line in table.splitlines() if line.startswith(("ann", "bob"))]
    assert rows == [[name, "0", "-", "-", "0", "0", "0"] for name in ("ann", "bob")]
    assert "100.0%" not in table
    assert table.endswith(ACCURACY_NOTE) and "at stake" in ACCURACY_NOTE
    assert all(len(line) <= 80 for line in ACCURACY_NOTE.splitlines())


def test_a_seat_other_than_0_or_1_says_so() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "bot", "random"],
        input="newgame classic 5\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == "info error bad newgame line: the seat is 0 or 1, not '5'"


def test_ctrl_c_before_any_game_leaves_no_records_file(tmp_path: Path) -> None:
    records = tmp_path / "c.lcr"
    # a first move that takes minutes: no game is written before the Ctrl-C
    slow = "ismcts:iters=5000000,engine=python"
    p = subprocess.Popen(
        [sys.executable, "-m", "lostcities.cli", "match", slow, "random",
         "--deals", "2", "--jobs", "1", "--records", str(records)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60  # a safety net: the loop ends when the file is there
        while not records.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert records.exists()
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert p.returncode == 130 and err.strip().splitlines()[-1] == "lostcities: interrupted"
    assert not records.exists()
