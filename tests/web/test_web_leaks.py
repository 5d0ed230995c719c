"""The leak scan (issue 14), short: every message both seats and a spectator receive over a
few complete friend games on a real server names no card the receiver may not know
(benchmarks/web_leak_scan.py runs it over 10,000 games); a planted leak proves the scan fails."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import pytest
from leakcheck import Positions, check_message

from lostcities import Round

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import web_leak_scan


def scan(games: int, plant: bool, rounds: int = 1) -> dict[str, object]:
    args = argparse.Namespace(games=games, rounds=rounds, concurrency=3, plant=plant, progress=0)
    return asyncio.run(web_leak_scan.run(args))


def test_complete_games_leak_no_card() -> None:
    out = scan(2, plant=False)
    assert out["games"] == 2 and out["leaks"] == 0, out
    assert out["messages_checked"] > 2 * 3 * 50  # every state of every receiver


def test_a_three_round_match_with_its_whole_log_leaks_no_card() -> None:
    """Each state carries the log of every finished round (the match's game log): the
    check holds it to the round's public move list exactly."""
    out = scan(1, plant=False, rounds=3)
    assert out["games"] == 1 and out["leaks"] == 0, out


def test_a_log_that_is_not_the_move_list_fails_the_check() -> None:
    r = Round.deal(seed=3)
    while not r.is_over():
        r.push(next(m for m in r.legal_moves() if m.draw is None))
    moves = [str(m) for m in r.history]
    nxt = Round.deal(seed=4)
    summary = {"index": 0, "history": moves}
    fake: dict[str, object] = {
        "type": "state",
        "round": 1,
        "game": {},
        "seat": 0,
        "view": {
            "ply": 0,
            "hand": [str(c) for c in nxt.hands[0]],
            "deck_size": nxt.deck_size,
            "legal": [],
            "illegal": {},
        },
        "match": {"rounds": [summary]},
    }
    positions = Positions([r, nxt])
    check_message(fake, 0, positions)
    summary["history"] = [*moves[:-1], "+y2."]
    with pytest.raises(AssertionError, match="not its public move list"):
        check_message(fake, 0, positions)


def test_the_scan_finds_a_planted_leak() -> None:
    out = scan(1, plant=True)
    assert out["leaks"] == 1, out
    assert "leaked to seat 0" in str(out["first_leaks"])


def test_the_check_itself_can_fail() -> None:
    r = Round.deal(seed=3)
    hidden = next(c for c in r.hands[1] if c not in r.hands[0])
    fake = {
        "type": "state",
        "round": 0,
        "game": {},
        "seat": 0,
        "view": {
            "ply": 0,
            "hand": [str(c) for c in r.hands[0]],
            "deck_size": r.deck_size,
            "legal": [],
            "illegal": {},
            "extra": [str(hidden)],
        },
        "match": {"rounds": []},
    }
    positions = Positions([r])
    with pytest.raises(AssertionError, match="leaked"):
        check_message(fake, 0, positions)
    fake["view"]["extra"] = []  # type: ignore[index]
    check_message(fake, 0, positions)
    with pytest.raises(AssertionError, match="leaked"):
        check_message({"type": "presence", "note": str(hidden)}, 0, positions)
