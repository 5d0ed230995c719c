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


def scan(games: int, plant: bool) -> dict[str, object]:
    args = argparse.Namespace(games=games, rounds=1, concurrency=3, plant=plant, progress=0)
    return asyncio.run(web_leak_scan.run(args))


def test_complete_games_leak_no_card() -> None:
    out = scan(2, plant=False)
    assert out["games"] == 2 and out["leaks"] == 0, out
    assert out["messages_checked"] > 2 * 3 * 50  # every state of every receiver


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
