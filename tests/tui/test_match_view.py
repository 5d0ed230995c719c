"""The terminal's bot and its hints search the match's view (``Match.view``: the round
with the match's context, the totals and what is left to play), not the round alone."""

from __future__ import annotations

from typing import Any

import pytest

from lostcities.rules import PlayerView
from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.session import BOT_SEAT, HUMAN_SEAT, Session
from tests.tui.test_play import settle

SIZE = (80, 24)


@pytest.mark.asyncio
async def test_the_bot_gets_the_match_view() -> None:
    session = Session(opponent="random", rounds=3, seed=4)
    assert session.bot is not None
    seen: list[PlayerView] = []
    choose = session.bot.choose

    def spy(view: PlayerView, *args: Any, **kwargs: Any) -> Any:
        seen.append(view)
        return choose(view, *args, **kwargs)

    session.bot.choose = spy  # type: ignore[method-assign]
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, tries=100)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        for _ in range(2):  # the person's move, then the bot's reply
            screen.commit(next(m for m in session.round.legal_moves() if m.draw is None))
            await settle(pilot, tries=100)
    assert seen, "the bot never moved"
    for view in seen:
        assert view.player == BOT_SEAT and view.match is not None
        assert view.match.rounds == 3 and view.match.round == 1 and view.match.player == BOT_SEAT


def test_the_hint_view_carries_the_match() -> None:
    session = Session(opponent="random", rounds=3, seed=4)
    session.start_round()
    view = session.view()
    assert view.player == HUMAN_SEAT and view.match is not None
    assert view.match.rounds == 3 and view.match.totals == (0, 0)
    assert session.bot_view().match is not None and session.bot_view().player == BOT_SEAT
