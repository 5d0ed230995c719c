"""``lostcities replay`` checks every tag it can (issue 14, defect 5): a wrong ``Scores`` tag,
a wrong ``StarterN`` (a starter mismatch, not an illegal move), a wrong ``ScoreN`` at its own
line, an empty file, and ``--json`` of a record that failed part-way."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lostcities import Match
from lostcities.cli import main
from lostcities.record import GameRecord


def record_text(rounds: int = 2, seed: int = 4) -> str:
    m = Match(rounds, seed=seed)
    while not m.is_over():
        r = m.new_round()
        while not r.is_over():
            r.push(next(x for x in reversed(r.legal_moves()) if x.draw is None))
    return str(GameRecord.from_match(m, players=("ann", "bob")))


def replay(tmp_path: Path, text: str, *args: str) -> tuple[int, str, str, Path]:
    path = tmp_path / "game.lcr"
    path.write_text(text)
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", *args, str(path)])
    return code, out.getvalue(), err.getvalue(), path


def line_of(text: str, prefix: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(prefix))


def test_a_good_record_still_replays(tmp_path: Path) -> None:
    code, out, err, _ = replay(tmp_path, record_text())
    assert code == 0 and err == "" and "ann vs bob" in out


def test_a_wrong_scores_tag_is_rejected_at_its_line(tmp_path: Path) -> None:
    text = record_text()
    tampered = re.sub(r'\[Scores "(-?\d+):', lambda m: f'[Scores "{int(m.group(1)) + 1}:', text)
    assert tampered != text
    code, out, err, path = replay(tmp_path, tampered)
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:{line_of(text, '[Scores')}: error: game 1: Scores is ")
    assert err.count("\n") == 1


def test_a_wrong_later_starter_is_a_starter_mismatch(tmp_path: Path) -> None:
    text = record_text()
    m = re.search(r'\[Starter2 "([01])"\]', text)
    assert m is not None
    tampered = text.replace(m.group(0), f'[Starter2 "{1 - int(m.group(1))}"]')
    code, _, err, path = replay(tmp_path, tampered)
    assert code == 2
    assert f"{path}:{line_of(text, '[Starter2')}: error" in err
    assert "round 2: starter is player" in err and "illegal" not in err


def test_a_wrong_round_score_is_reported_at_its_tag(tmp_path: Path) -> None:
    text = record_text()
    tampered = re.sub(r'\[Score2 "(-?\d+) ', lambda m: f'[Score2 "{int(m.group(1)) + 1} ', text)
    code, _, err, path = replay(tmp_path, tampered)
    assert code == 2 and "recorded score" in err
    assert err.startswith(f"{path}:{line_of(text, '[Score2')}: error")


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_an_empty_file_is_an_error(tmp_path: Path, content: str) -> None:
    code, out, err, path = replay(tmp_path, content)
    assert code == 2 and out == ""
    assert err == f"{path}: error: no game record in the file\n"


def test_json_of_a_record_that_failed_reports_only_what_replayed(tmp_path: Path) -> None:
    text = record_text()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("R1:"))
    tokens = lines[at].split()
    tokens[1] = "+y11."  # move 1 is not notation
    lines[at] = " ".join(tokens)
    code, out, _, _ = replay(tmp_path, "\n".join(lines) + "\n", "--json")
    assert code == 2
    js = json.loads(out)
    assert js["ok"] is False and "rank 11" in js["errors"][0]
    for rnd in js["rounds"]:
        assert rnd["moves"] == 0 and rnd["termination"] is None and rnd["scores"] is None
    assert all(r["recorded_moves"] > 0 for r in js["rounds"])
    # an illegal move at move 3 (player 1's card of move 2, played by player 0): two moves
    # replayed, the round never ended, round 2 never reached
    lines = text.splitlines()
    tokens = lines[at].split()
    tokens[3] = tokens[2]
    lines[at] = " ".join(tokens)
    code, out, _, _ = replay(tmp_path, "\n".join(lines) + "\n", "--json")
    js = json.loads(out)
    assert js["ok"] is False and "round 1, move 3" in js["errors"][0]
    assert js["errors"][0].startswith(f"line {at + 1}: ")
    assert js["rounds"][0]["moves"] == 2 and js["rounds"][0]["termination"] is None
    assert js["rounds"][1]["moves"] == 0 and "totals" not in js
