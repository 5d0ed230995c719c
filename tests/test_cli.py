"""The core's commands, run as a user would: a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lostcities import Match
from lostcities.record import GameRecord


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lostcities.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
    )


EXAMPLE = ["y:2,4,6,9,10", "r:x,3,5,7,8,9", "b:4,6", "g:x,x,2,3,4,5,6,7"]


def test_help_lists_every_command() -> None:
    out = run("--help")
    assert out.returncode == 0
    for cmd in ["score", "replay", "play", "serve", "match", "tournament", "bench", "bot"]:
        assert f"\n    {cmd}" in out.stdout


def test_score_table() -> None:
    out = run("score", *EXAMPLE)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["cards", "sum", "-20", "x", "bonus", "score"]
    green = next(line for line in lines if line.startswith("green"))
    assert green.split()[-5:] == ["27", "7", "x3", "+20", "41"]
    assert lines[-1].split() == ["total", "66"]


def test_score_json() -> None:
    out = run("score", "--json", *EXAMPLE)
    data = json.loads(out.stdout)
    assert data["total"] == 66
    assert data["expeditions"]["g"]["score"] == 41 and data["expeditions"]["g"]["bonus"] == 20
    assert data["expeditions"]["w"]["score"] == 0 and set(data["expeditions"]) == set("ybwgr")
    long = json.loads(run("score", "--json", "--variant", "long", "p:x,9,10").stdout)
    assert long["total"] == -2 and "p" in long["expeditions"]


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["y:5,3"], "y3 is lower than the previous card y5"),
        (["y:2,2"], "y2 is repeated"),
        (["y:x,x,x,x"], "more than 3 yellow wagers"),
        (["y:3,x"], "wager yx after the number card y3"),
        (["z:3"], "unknown colour 'z'"),
        (["y:12"], "rank 12 is not in 2..10"),
        (["y:2", "y:5"], "yellow is given twice"),
        (["p:5"], "purple is not in the classic variant"),
        (["y:2,,3"], "invalid expedition 'y:2,,3': an empty card"),
        (["y:2,3,"], "an empty card"),
    ],
)
def test_score_bad_input_is_one_line_exit_2(args: list[str], why: str) -> None:
    out = run("score", *args)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and why in out.stderr and "Traceback" not in out.stderr


def _record_file(tmp_path: Path, copies: int = 2) -> Path:
    m = Match(2, seed=4)
    while not m.is_over():
        r = m.new_round()
        while not r.is_over():
            r.push(next(m for m in reversed(r.legal_moves()) if m.draw is None))
    path = tmp_path / "games.lcr"
    rec = str(GameRecord.from_match(m, players=("ann", "bob")))
    path.write_text("\n".join([rec] * copies))
    return path


def test_replay_ok(tmp_path: Path) -> None:
    path = _record_file(tmp_path)
    out = run("replay", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("ann vs bob") == 2 and "result" in out.stdout
    js = [json.loads(x) for x in run("replay", "--json", str(path)).stdout.splitlines()]
    assert [j["ok"] for j in js] == [True, True]


def test_replay_rejects_an_illegal_move_with_its_line(tmp_path: Path) -> None:
    good = _record_file(tmp_path, copies=1).read_text()
    lines = good.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("R1:"))
    tokens = lines[at].split()
    tokens[3] = "+y11." if tokens[3] != "+y11." else "+b11."
    lines[at] = " ".join(tokens)
    path = tmp_path / "bad.lcr"
    path.write_text("\n".join(lines) + "\n")
    out = run("replay", str(path))
    assert out.returncode == 2
    assert f"bad.lcr:{at + 1}: error" in out.stderr and "rank 11" in out.stderr
    assert "Traceback" not in out.stderr


def test_replay_rejects_a_wrong_score_and_missing_files(tmp_path: Path) -> None:
    text = _record_file(tmp_path).read_text()
    import re

    tampered = re.sub(
        r'\[Score1 "(-?\d+) ', lambda m: f'[Score1 "{int(m.group(1)) + 1} ', text, count=1
    )
    path = tmp_path / "score.lcr"
    path.write_text(tampered)
    out = run("replay", str(path))
    assert out.returncode == 2 and "recorded score" in out.stderr
    out = run("replay", str(tmp_path / "missing.lcr"))
    assert out.returncode == 2 and "No such file" in out.stderr and "Traceback" not in out.stderr
    (tmp_path / "bin.lcr").write_bytes(b"\xff\xfe\x00garbage")
    out = run("replay", str(tmp_path / "bin.lcr"))
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_unknown_command_and_flags() -> None:
    out = run("frobnicate")
    assert out.returncode == 2 and "invalid choice" in out.stderr


def test_every_command_names_its_handler() -> None:
    from lostcities.cli import COMMANDS, build_parser

    needed = {
        "replay": ["-"],
        "match": ["a", "b"],
        "tournament": ["a", "b"],
        "bot": ["random"],
        "comments": ["list"],
        "users": ["list"],
        "analyse": ["g.lcr"],
        "analyze": ["g.lcr"],
        "connect": ["http://127.0.0.1:9", "--token-file", "t", "heuristic"],
    }
    parser = build_parser()
    for name, _, _, target in COMMANDS:
        assert parser.parse_args([name, *needed.get(name, [])]).handler == target


TOTALS = ["y:31,0,5", "r:32,1,6", "b:10,0,2", "g:27,2,8"]


def test_score_by_totals_gives_the_same_table_and_total() -> None:
    by_cards = run("score", *EXAMPLE).stdout.splitlines()
    out = run("score", "--totals", *TOTALS)
    assert out.returncode == 0, out.stderr
    by_totals = out.stdout.splitlines()
    assert len(by_totals) == len(by_cards) and by_totals[-1].split() == ["total", "66"]
    for a, b in zip(by_cards, by_totals, strict=True):
        # the same row, only the cards column differs ("rx r3 r5 r7 r8 r9" / "6 cards")
        name = a.split()[0]
        assert b.split()[0] == name
        if name in ("yellow", "blue", "green", "red"):
            tb = b.split()
            assert tb[2] == "cards" and a.split()[-(len(tb) - 3) :] == tb[3:]
    data = json.loads(run("score", "--json", "--totals", *TOTALS).stdout)
    cards = json.loads(run("score", "--json", *EXAMPLE).stdout)
    assert data["total"] == cards["total"] == 66
    for c in "ybwgr":
        a, b = data["expeditions"][c], cards["expeditions"][c]
        assert {k: v for k, v in a.items() if k != "cards"} == {
            k: v for k, v in b.items() if k != "cards"
        }


def test_score_achievements_add_ten_each_in_both_modes() -> None:
    out = run("score", "--achievements", "2", *EXAMPLE)
    assert out.stdout.splitlines()[-1].split() == ["total", "86"]
    assert any(line.split()[:4] == ["goals", "2", "x", "10"] for line in out.stdout.splitlines())
    data = json.loads(run("score", "--json", "--achievements", "3", "--totals", *TOTALS).stdout)
    assert (data["total"], data["achievements"], data["achievement_points"]) == (96, 3, 30)
    assert run("score", "--achievements", "0", *EXAMPLE).stdout == run("score", *EXAMPLE).stdout


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--totals", "y:12,0,5"], "5 number cards cannot sum to 12"),
        (["--totals", "y:10,4,5"], "4 wagers (a colour has 3)"),
        (["--totals", "y:30,0,13"], "13 cards (a colour has 12"),
        (["--totals", "y:-1,0,2"], "negative numbers are not allowed"),
        (["--totals", "y:0,2,1"], "2 wagers but only 1 card"),
        (["--totals", "q:3,0,1"], "unknown colour 'q'"),
        (["--totals", "p:5,0,1"], "purple is not in the classic variant"),
        (["--totals", "y:5,0"], "expected colour:sum,wagers,cards"),
        (["y:2", "--totals", "y:2,0,1"], "give card lists or --totals, not both"),
        (
            ["--totals", "y:31,0,5", "y:2,4"],
            "give card lists or --totals, not both (cards 'y:2,4')",
        ),
        (["--totals", "y:31,0,5", "b:2,4,6"], "not both (cards 'b:2,4,6')"),
        (["--achievements", "-1"], "must not be negative"),
        (["--achievements", "6"], "a round has 5 goals: '6'"),
        (["--achievements", "100000"], "a round has 5 goals"),
    ],
)
def test_score_by_totals_bad_input_is_one_line_exit_2(args: list[str], why: str) -> None:
    out = run("score", *args)
    assert out.returncode == 2 and out.stdout == ""
    assert why in out.stderr and "Traceback" not in out.stderr
    if "--achievements" not in args:  # argparse's own errors print the usage first
        assert out.stderr.count("\n") == 1


def test_a_card_count_is_singular_for_one_card() -> None:
    out = run("score", "--totals", "y:5,0,1", "r:11,0,2")
    assert out.returncode == 0, out.stderr
    rows = {line.split()[0]: line for line in out.stdout.splitlines()}
    assert "1 card " in rows["yellow"] and "2 cards" in rows["red"]


def test_the_goal_count_limit_is_the_variants() -> None:
    from lostcities import achievements, cli

    assert cli.GOALS_PER_ROUND == achievements.GOALS_PER_ROUND


@pytest.mark.parametrize(
    "command", [["match", "heuristic", "random"], ["tournament", "heuristic", "random"]]
)
def test_achievements_takes_no_bot_spec_for_its_file(command: list[str], tmp_path: Path) -> None:
    # issue 26: `match --achievements heuristic random` took heuristic for the goal file
    name, a, b = command
    args = ["--deals", "1", "--jobs", "1", "--json"]
    out = run(name, "--achievements", a, b, *args)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (
        data["achievements"] if name == "match" else data["matches"][0]["achievements"]
    ) == "default"
    # a word that looks like a goal file is still one
    missing = run(name, "--achievements", str(tmp_path / "mine.goals"), a, b, *args)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    (tmp_path / "mine").write_text("x | race | X | cards >= 1 | One card.\n", encoding="utf-8")
    mine = run(name, a, b, "--achievements", str(tmp_path / "mine"), *args)
    assert mine.returncode == 0, mine.stderr


def test_tournament_has_records_sprt_and_verbose_as_match_has(tmp_path: Path) -> None:
    records = tmp_path / "t.lcr"
    out = run(
        "tournament",
        "discard",
        "random",
        "heuristic",
        "--deals",
        "40",
        "--jobs",
        "1",
        "--sprt",
        "elo0=0,elo1=20",
        "--records",
        str(records),
        "-v",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    matches = json.loads(out.stdout)["matches"]
    assert len(matches) == 3 and all(m["sprt"] is not None for m in matches)
    assert any(m["stopped_early"] and m["deals"] < 40 for m in matches)
    rounds = sum(m["rounds"] for m in matches)
    assert run("replay", "-q", str(records)).returncode == 0
    assert records.read_text(encoding="utf-8").count("[Event ") == rounds
    for flag in ("--records", "--sprt", "--verbose"):
        assert flag in run("tournament", "--help").stdout


def test_help_says_what_the_words_are() -> None:
    match = " ".join(run("match", "--help").stdout.split())
    assert "(10; 0: no limit for built-in bots, 10 s for cmd: programs)" in match
    analyse = run("analyse", "--help").stdout
    assert "FILE" in analyse and "RECORD" not in analyse


def test_a_bad_weights_file_says_so_without_numpys_advice(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    bad = tmp_path / "bad.npz"
    bad.write_text("not weights")
    out = run("match", f"expert:weights={bad}", "random", "--deals", "1", "--jobs", "1")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert "not a weights file" in line and "allow_pickle" not in line and "pickle" not in line
