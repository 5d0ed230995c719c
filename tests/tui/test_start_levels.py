"""The start screen knows which levels can run on this machine: one that cannot (``expert``
without NumPy or its network) is passed over and named, and the strongest that can is the
default, as ``lostcities play`` falls back from its default opponent."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

from lostcities.bots import BotSpecError
from lostcities.cli import main
from lostcities.tui import app as tui_app
from lostcities.tui.app import StartApp, levels_unavailable
from lostcities.tui.screens.start import Setup, StartScreen

NO_EXPERT = {"expert": "expert cannot run: no network weights"}


def box_text(app: StartApp) -> str:
    return str(app.screen.query_one("#start-box", Static).content)


def test_levels_unavailable_asks_the_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tui_app.make

    def make(spec: str, seed: int | None = None) -> Any:
        if spec.startswith("expert"):
            raise ImportError("numpy is not installed")
        return real(spec, seed)

    monkeypatch.setattr(tui_app, "make", make)
    assert levels_unavailable() == {"expert": "numpy is not installed"}
    monkeypatch.setattr(
        tui_app, "make", lambda spec, seed=None: (_ for _ in ()).throw(BotSpecError("bad"))
    )
    assert set(levels_unavailable()) == {"easy", "medium", "hard", "expert"}


@pytest.mark.asyncio
async def test_a_level_that_cannot_run_is_passed_over_and_named() -> None:
    app = StartApp(NO_EXPERT)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert app.screen.setup.level == "hard"  # the strongest that runs here
        text = box_text(app)
        assert "not on this machine: expert (expert cannot run: no network weights)" in text
        assert "--opponent ismcts:time=1" in text
        await pilot.press("down", "right")  # past expert: round to the weakest
        assert "‹ easy ›" in box_text(app)
        await pilot.press("left", "left")
        assert "‹ medium ›" in box_text(app)
        await pilot.press("right", "enter")
    assert app.return_value == Setup(level="hard")


@pytest.mark.asyncio
async def test_every_level_runs_nothing_is_named() -> None:
    app = StartApp({})
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "not on this machine" not in box_text(app)
        await pilot.press("down", "left", "right", "enter")
    assert app.return_value == Setup()


def test_play_without_flags_tells_the_start_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, str]] = []
    monkeypatch.setattr(tui_app, "levels_unavailable", lambda: dict(NO_EXPERT))

    def run(self: StartApp) -> None:
        seen.append(self.unavailable)
        return None  # quit at the start screen

    monkeypatch.setattr(StartApp, "run", run)
    assert main(["play"]) == 0
    assert seen == [NO_EXPERT]


def test_level_notes_without_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    from lostcities.bots import ismcts

    monkeypatch.setattr(ismcts, "fast_engine_available", lambda: False)
    notes = tui_app.level_notes()
    assert set(notes) == {"hard", "expert"} and "pure Python" in notes["expert"]
    monkeypatch.setattr(ismcts, "fast_engine_available", lambda: True)
    assert tui_app.level_notes() == {}


@pytest.mark.asyncio
async def test_a_level_that_runs_worse_here_says_so_while_chosen() -> None:
    app = StartApp(
        {}, {"expert": "numba is not installed: its search runs in pure Python, far weaker"}
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "here: numba" not in box_text(app)  # the opponent line is the current one
        await pilot.press("down")
        assert (
            "here: numba is not installed: its search runs in pure Python, far weaker"
            in box_text(app)
        )
        await pilot.press("left")  # hard: no note
        assert "here:" not in box_text(app)
        await pilot.press("enter")
    assert app.return_value == Setup(level="hard")
