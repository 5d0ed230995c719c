"""`lostcities play` in the achievements variant: the goal cards on the screen, their holders,
the goals row of the round's score sheet, and the set-up option."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import GameScreen, goals_line
from lostcities.tui.screens.round_end import RoundEndScreen
from lostcities.tui.session import Session
from tests.tui.test_play import SIZE, play_turn, settle


@pytest.mark.asyncio
async def test_the_goal_cards_and_their_holders_are_shown() -> None:
    session = Session(opponent="heuristic", rounds=1, seed=11, achievements=True)
    app = LostCitiesApp(session)
    rng = random.Random(5)
    seen_claim = False
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        r = session.round
        assert len(r.goals) == 5
        while not r.is_over():
            assert isinstance(app.screen, GameScreen)
            goals = app.screen.query_one("#goals", Static)
            assert goals.has_class("-on") and goals.display
            text = str(goals.content)
            assert text == goals_line(session.view(), session.names)
            for g in r.goals:
                assert g.name in text
            seen_claim = seen_claim or "★" in text or "✦" in text
            await play_turn(pilot, app, rng)
        await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        held = [c for c in r.claims if c is not None]
        assert held and (seen_claim or all(g.kind == "end" for g, c in zip(r.goals, r.claims, strict=True) if c is not None))
        tables = " ".join(str(w.content) for w in app.screen.query(".breakdown").results(Static))
        assert "goals" in tables and "x 10" in tables


@pytest.mark.asyncio
async def test_a_classic_game_shows_no_goal_line() -> None:
    session = Session(opponent="random", rounds=1, seed=3)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        goals = app.screen.query_one("#goals", Static)
        assert not goals.has_class("-on") and str(goals.content) == ""


def test_play_refuses_a_bad_goal_file_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.goals"
    bad.write_text("x | race | X | cards >= 1\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "play", f"--achievements={bad}", "--opponent", "random"],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 2 and "line 1" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
