"""Snapshot of the board at 80x24 with a fixed seed (pytest-textual-snapshot).

After an intended change of the layout, regenerate with
``pytest tests/tui/test_snapshot.py --snapshot-update`` and review the SVG diff.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.session import Session


async def _bot_done(pilot: Pilot[int]) -> None:
    for _ in range(50):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        if isinstance(screen, GameScreen) and screen.phase == "pick":
            return
    raise AssertionError("never the person's turn")


def test_board_80x24(snap_compare: Callable[..., bool]) -> None:
    """Seed 1: the bot has moved; the person picked a card (its column is highlighted)."""

    async def run_before(pilot: Pilot[int]) -> None:
        await _bot_done(pilot)
        await pilot.press("right", "right")

    app = LostCitiesApp(Session(opponent="random", rounds=3, seed=1))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_draw_step_80x24(snap_compare: Callable[..., bool]) -> None:
    """A few moves in, a card chosen to discard: the draw sources are marked, its pile blocked."""

    async def run_before(pilot: Pilot[int]) -> None:
        await _bot_done(pilot)
        for _ in range(3):
            screen = pilot.app.screen
            assert isinstance(screen, GameScreen)
            await pilot.press("d", "full_stop")
            await _bot_done(pilot)
        await pilot.press("right", "d")

    app = LostCitiesApp(Session(opponent="random", rounds=3, seed=1))
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
