"""Issue 37 items 18, 20 and 25 at 80x24: the goal cards' conditions (``i``), the round's
score sheets when both players hold goals (they scroll by keys between a result and a keys
line that stay in view), the match-end analysis scrolled by keys, and the texts that ran
together (``Σ-100``, ``☼y10✓``)."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from lostcities.bots import make
from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.goals import GoalsScreen
from lostcities.tui.screens.match_end import MatchEndScreen
from lostcities.tui.screens.round_end import SCROLL_KEYS, RoundEndScreen
from lostcities.tui.session import BOT_SEAT, Session
from lostcities.tui.widgets.board import total_text
from lostcities.tui.widgets.hand import HandCard
from tests.tui.test_play import SIZE, settle, text_of


def both_hold_goals() -> Session:
    """Seed 1, heuristic against heuristic, one round with goals: both players end up
    holding goals (claims 1, -, 0, 1, 1)."""
    session = Session(opponent="heuristic", rounds=1, seed=1, achievements=True)
    r = session.start_round()
    me = make("heuristic", 1)
    while not r.is_over():
        if r.to_move == BOT_SEAT:
            assert session.bot is not None
            session.bot_move(session.bot.choose(session.bot_view()))
        else:
            session.human_move(me.choose(session.view()))
    assert {0, 1} <= set(r.claims)
    return session


@pytest.mark.asyncio
async def test_the_round_sheets_scroll_by_keys_and_say_so() -> None:
    app = LostCitiesApp(both_hold_goals())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RoundEndScreen)
        keys = screen.query_one("#round-totals", Static)
        assert keys.region.y >= 0 and keys.region.bottom <= SIZE[1]  # the keys line in view
        assert "Enter" in str(keys.content) and SCROLL_KEYS in str(keys.content)
        box = screen.query_one("#round-end", VerticalScroll)
        assert box.max_scroll_y > 0 and box.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y
        await pilot.press("enter")
        assert isinstance(app.screen, MatchEndScreen)


@pytest.mark.asyncio
async def test_the_goal_cards_conditions_on_i() -> None:
    session = Session(opponent="random", rounds=1, seed=4, achievements=True)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(50):  # the footer's next layout
            await pilot.pause()
            footer = list(app.screen.query(FooterKey).results(FooterKey))
            if footer and all(k.region.width > 0 for k in footer):
                break
        assert any(k.description == "goals" for k in footer)
        assert all(k.region.right <= SIZE[0] for k in footer)
        await pilot.press("i")
        assert isinstance(app.screen, GoalsScreen)
        text = " ".join(str(w.content) for w in app.screen.query(Static).results(Static))
        for g in session.round.goals:
            assert g.name in text and g.text in text and f"condition: {g.condition}" in text
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)


@pytest.mark.asyncio
async def test_i_in_a_classic_game_says_there_are_no_goals() -> None:
    app = LostCitiesApp(Session(opponent="random", rounds=1, seed=4))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        assert isinstance(app.screen, GameScreen)
        assert "no goal cards" in text_of(app, "#status")


@pytest.mark.asyncio
async def test_the_analysis_scrolls_by_keys() -> None:
    from tests.tui.test_quitting import finished

    app = LostCitiesApp(finished(seed=3))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, MatchEndScreen)
        box = screen.query_one("#analysis-box", VerticalScroll)
        screen.query_one("#analysis", Static).update("\n".join(f"line {i}" for i in range(80)))
        await pilot.pause()
        assert box.max_scroll_y > 0
        await pilot.press("down", "down")
        assert box.scroll_y == 2
        await pilot.press("pagedown")
        assert box.scroll_y > 2
        await pilot.press("end")
        assert box.scroll_y == box.max_scroll_y
        await pilot.press("home")
        assert box.scroll_y == 0


@pytest.mark.asyncio
async def test_totals_and_playable_marks_stand_apart() -> None:
    assert total_text(-100) == "Σ -100" and total_text(7) == "Σ   +7"
    session = Session(opponent="random", rounds=1, seed=4)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cards = [w for w in app.screen.query(HandCard).results(HandCard) if w.card is not None]
        assert len(cards) == 8 and max(w.region.right for w in cards) <= SIZE[0]
        for w in cards:
            label = str(w.content)
            assert label[-2] == " " and label[-1] in "✓ ", label  # ☼y10 ✓, never ☼y10✓
            assert w.content_region.width >= len(label)
