"""`lostcities play` in the achievements variant: the goal cards on the screen, their holders,
the goals row of the round's score sheet, and the set-up option."""

from __future__ import annotations

import dataclasses
import itertools
import random
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from lostcities import Round
from lostcities.achievements import DEFAULT_GOALS, GoalBoard
from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import MAX_GOAL_LINES, GameScreen, goals_line, goals_lines
from lostcities.tui.screens.round_end import RoundEndScreen
from lostcities.tui.session import Session
from lostcities.tui.widgets.board import Board
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
            assert text == "\n".join(goals_lines(session.view(), session.names, SIZE[0]))
            assert " ".join(text.split()) == " ".join(
                goals_line(session.view(), session.names).split()
            )
            for g in r.goals:
                assert g.name in text
            seen_claim = seen_claim or "★" in text or "✦" in text
            await play_turn(pilot, app, rng)
        await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        held = [c for c in r.claims if c is not None]
        assert held and (
            seen_claim
            or all(g.kind == "end" for g, c in zip(r.goals, r.claims, strict=True) if c is not None)
        )
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
        [
            sys.executable,
            "-m",
            "lostcities.cli",
            "play",
            f"--achievements={bad}",
            "--opponent",
            "random",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "line 1" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.asyncio
async def test_every_goal_is_readable_at_80x24() -> None:
    # issue 26: the long game's 5th goal ran off the right edge at 80 columns
    session = Session(opponent="heuristic", variant="long", rounds=1, seed=4, achievements=True)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        goals = screen.query_one("#goals", Static)
        lines = str(goals.content).splitlines()
        assert len(lines) == 2 and goals.region.height == len(lines)
        assert max(len(line) for line in lines) <= goals.region.width <= SIZE[0]
        for g in session.round.goals:
            assert sum(g.name in line for line in lines) == 1, g.name
        board = screen.query_one(Board)
        assert board.region.y == goals.region.bottom  # the board moved down, nothing overlaps
        assert screen.query_one("#move-input").region.bottom < SIZE[1]  # the footer still shows


def test_the_goal_lines_fit_80_columns_for_any_five_goals() -> None:
    """Every 5 goals of the default pool, held by nobody or all by a long-named player: at
    most MAX_GOAL_LINES lines of 80, every goal's name whole on one of them."""
    view = Round.deal(seed=1, variant="long", achievements=True).view(0)
    names = ("you", "Deep Thought Mark II")
    for goals in itertools.combinations(DEFAULT_GOALS, 5):
        for claims in ((None,) * 5, (1,) * 5, (0, 1, 0, 1, 0)):
            board = GoalBoard(goals, claims)
            lines = goals_lines(dataclasses.replace(view, achievements=board), names, 80)
            assert len(lines) <= MAX_GOAL_LINES and all(len(line) <= 80 for line in lines)
            for g in goals:
                assert any(g.name in line for line in lines), (g.name, lines)
