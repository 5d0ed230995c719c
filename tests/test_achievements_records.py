"""Records of achievements games: the Goals/Claims tags replay exactly; old records as before."""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities import Match
from lostcities.achievements import GoalSet
from lostcities.record import GameRecord, RecordError, read_records


def _played(seed: int = 3, achievements: object = True, rounds: int = 2) -> Match:
    m = Match(rounds=rounds, seed=seed, achievements=achievements)  # type: ignore[arg-type]
    rng = random.Random(seed)
    while not m.is_over():
        r = m.new_round()
        while not r.is_over():
            r.push(rng.choice(list(r.legal_moves())))
    return m


def _reread(text: str) -> GameRecord:
    rec = next(read_records(io.StringIO(text)))
    assert not rec.errors, rec.errors
    return rec


def test_a_goal_game_record_replays_exactly() -> None:
    m = _played()
    text = str(GameRecord.from_match(m, players=("ann", "bob")))
    assert '[Achievements "default"]' in text and "[Goals1 " in text and "[Claims2 " in text
    rec = _reread(text)
    again = rec.replay()
    assert again.totals() == m.totals() and again.result() == m.result()
    for a, b in zip(again.rounds, m.rounds, strict=True):
        assert a.goals == b.goals and a.claims == b.claims
    assert str(GameRecord.from_match(again, players=("ann", "bob"))) == text


def test_custom_goals_with_quotes_replay_exactly() -> None:
    mine = GoalSet.parse(
        'quote | race | The "Quote" | cards >= 2 | Two cards, then say "done".\n'
        "tidy | end | Tidy | fewest discards | Discard least.\n",
        name="mine",
    )
    m = _played(seed=5, achievements=mine, rounds=1)
    text = str(GameRecord.from_match(m))
    rec = _reread(text)
    assert rec.tags["Achievements"] == "mine"
    assert rec.rounds[0].goals == m.rounds[0].goals
    assert rec.replay().totals() == m.totals()


def test_tampered_claims_and_goals_are_rejected() -> None:
    m = _played(rounds=1)
    text = str(GameRecord.from_match(m))
    wrong = " ".join("1" if c is None else "-" for c in m.rounds[0].claims)
    bad = _reread(re.sub(r'\[Claims1 "[^"]*"\]', f'[Claims1 "{wrong}"]', text))
    with pytest.raises(RecordError, match="recorded claims"):
        bad.replay()
    no_goals = _reread(
        "\n".join(x for x in text.splitlines() if not x.startswith("[Goals1")) + "\n"
    )
    with pytest.raises(RecordError, match="no Goals1 tag"):
        no_goals.replay()
    broken = next(read_records(io.StringIO(text.replace("| race |", "| sprint |", 1))))
    assert (
        broken.errors and "Goals1" in str(broken.errors[0]) and "bad kind" in str(broken.errors[0])
    )


def test_a_classic_record_has_no_goal_tags_and_reads_as_before() -> None:
    m = _played(achievements=None, rounds=1)
    text = str(GameRecord.from_match(m))
    assert "Goals" not in text and "Claims" not in text and "Achievements" not in text
    again = _reread(text).replay()
    assert again.achievements is None and again.totals() == m.totals()


def test_lostcities_replay_checks_the_goals(tmp_path: Path) -> None:
    m = _played(rounds=1)
    text = str(GameRecord.from_match(m, players=("ann", "bob")))
    good = tmp_path / "goals.lcr"
    good.write_text(text, encoding="utf-8")
    run = [sys.executable, "-m", "lostcities.cli", "replay"]
    out = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # without its goals the round's scores (goal points included) no longer add up
    assert m.rounds[0].goal_points(0) + m.rounds[0].goal_points(1) > 0
    stripped = (
        "\n".join(
            x
            for x in text.splitlines()
            if not x.startswith(("[Goals1", "[Claims1", "[Achievements"))
        )
        + "\n"
    )
    bad = tmp_path / "stripped.lcr"
    bad.write_text(stripped, encoding="utf-8")
    out = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "recorded score" in out.stderr
    assert "Traceback" not in out.stderr


@given(
    st.integers(min_value=0, max_value=2**32),
    st.sampled_from(["classic", "long"]),
    st.integers(min_value=1, max_value=3),
)
@settings(max_examples=25, deadline=None)
def test_goal_game_records_replay_exactly(seed: int, variant: str, rounds: int) -> None:
    m = Match(rounds=rounds, seed=seed, variant=variant, achievements=True, max_turns=120)
    rng = random.Random(seed)
    while not m.is_over():
        r = m.new_round()
        while not r.is_over():
            r.push(rng.choice(list(r.legal_moves())))
    text = str(GameRecord.from_match(m))
    again = _reread(text).replay()
    assert [(r.goals, r.claims, r.scores()) for r in again.rounds] == [
        (r.goals, r.claims, r.scores()) for r in m.rounds
    ]
