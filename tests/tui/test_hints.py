"""`lostcities play`: ``h`` asks the engine for a hint (the record then says the game was
assisted), and the match-end screen's ``a`` shows the analysis table."""

from __future__ import annotations

import re

import pytest

from lostcities.tui.app import LostCitiesApp
from lostcities.tui.records import build_record
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.match_end import MatchEndScreen
from lostcities.tui.session import Session
from tests.tui.test_play import settle, text_of

SIZE = (80, 24)


@pytest.mark.asyncio
async def test_hint_then_analysis_at_the_end() -> None:
    session = Session(opponent="random", rounds=1, seed=11)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, tries=100)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        legal = [str(m) for m in session.round.legal_moves()]
        await pilot.press("h")
        await settle(pilot, tries=100)
        status = text_of(app, "#status")
        m = re.search(
            r"hint: (\S+)\s+\(expected margin [+-]\d+\.\d, \d+% to win the round\)", status
        )
        assert m and m.group(1) in legal, status
        assert session.hints == 1
        r = session.round
        while not r.is_over():
            moves = [x for x in r.legal_moves() if x.draw is None]
            screen.commit(moves[0])
            await settle(pilot, tries=100)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MatchEndScreen)
        await pilot.press("a")
        for _ in range(200):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if "accuracy" in text_of(app, "#analysis"):
                break
        table = text_of(app, "#analysis")
        assert "accuracy" in table and "random" in table and "you" in table
        assert re.search(r"\?\? blunder|\? mistake|\?! inaccuracy", table)
    assert build_record(session).tags["Assisted"] == "1 hint"


@pytest.mark.asyncio
async def test_no_hints_in_hotseat() -> None:
    session = Session(hotseat=True, rounds=1, seed=3, tie_break="draw")
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # the privacy screen
        await pilot.pause()
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert "no hints in hot-seat" in text_of(app, "#status")
    assert session.hints == 0
    assert "Assisted" not in build_record(session).tags
