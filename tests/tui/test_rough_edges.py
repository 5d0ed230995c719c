"""The terminal UI's rough edges, each checked with Textual's headless pilot: players
numbered from 1, a bot named by its ``id name``, typed moves that fail cleanly, keys that do
not clash in the long game, the size limits, the help overlay at 80x24 and the headline."""

from __future__ import annotations

import random

import pytest
from textual.widgets import Input, Static

from lostcities.bots import Bot
from lostcities.cards import Color
from lostcities.rules import Action, Move, PlayerView
from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.help import HelpScreen, TooSmallScreen
from lostcities.tui.screens.match_end import match_summary
from lostcities.tui.session import Session, bot_name, number_players
from tests.tui.test_play import text_of

SIZE = (80, 24)


class Named(Bot):
    """A bot that says its name as a program does (``id name ...``)."""

    name = "cmd"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.id = {"name": "Deep Thought Mark II"}

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        return view.legal_moves()[0]


def test_players_are_numbered_from_one_and_bots_named_by_id() -> None:
    assert (
        number_players("it is player 0's turn, not player 1's")
        == "it is player 1's turn, not player 2's"
    )
    assert number_players("the player 10 rule") == "the player 10 rule"
    session = Session(opponent="x", rounds=1, seed=1, bot_factory=lambda s, seed: Named(seed))
    assert session.names[1] == "Deep Thought Mark II" == bot_name(session.bot)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_names_are_whole_at_100_columns() -> None:
    session = Session(opponent="x", rounds=1, seed=1, bot_factory=lambda s, seed: Named(seed))
    app = LostCitiesApp(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Deep Thought Mark II" in text_of(app, "#opp-name")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert text_of(app, "#opp-name") == "Deep …"


@pytest.mark.asyncio
async def test_a_rejected_typed_move_clears_the_box_and_the_prompt_comes_back() -> None:
    session = Session(opponent="random", rounds=1, seed=11)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if isinstance(app.screen, GameScreen) and app.screen.phase == "pick":
                break
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("colon", *"+zz", "enter")
        assert "invalid" in text_of(app, "#status") and screen.error
        box = screen.query_one("#move-input", Input)
        assert box.value == "" and not box.has_focus
        # ':' again opens an empty box: nothing appended to the old text
        await pilot.press("colon")
        assert box.value == "" and box.has_focus
        move = str(session.round.legal_moves()[0])
        ply = session.round.ply
        await pilot.press(*move, "enter")
        assert str(session.round.history[ply]) == move
        for _ in range(20):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if screen.phase == "pick":
                break
        # an error, then any key: the "to move" prompt is back
        await pilot.press("full_stop")
        assert screen.error
        await pilot.press("right")
        assert not screen.error and text_of(app, "#status").startswith("Your move")


@pytest.mark.asyncio
async def test_in_the_long_game_p_is_purple_and_enter_plays() -> None:
    seed = next(
        s
        for s in range(200)
        if (
            lambda r: (
                r.to_move == 0
                and any(c.color is Color.PURPLE and not c.is_wager for c in r.hands[0])
            )
        )(Session(opponent="random", variant="long", rounds=1, seed=s).start_round())
    )
    session = Session(opponent="random", variant="long", rounds=1, seed=seed)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.phase == "pick"
        purple = next(
            c for c in session.round.hands[0] if c.color is Color.PURPLE and not c.is_wager
        )
        await pilot.press("p", *str(purple)[1:])
        assert screen.selected_card() == purple and screen.phase == "pick"
        await pilot.press("enter")
        assert screen.phase == "draw" and screen.pending is not None
        assert screen.pending.action is Action.PLAY and screen.pending.card == purple
        await pilot.press("escape", "d")
        assert screen.phase == "draw" and screen.pending.action is Action.DISCARD


@pytest.mark.asyncio
async def test_terminal_too_small_and_a_clean_help_overlay() -> None:
    session = Session(opponent="random", rounds=1, seed=3)
    app = LostCitiesApp(session)
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        assert "terminal too small: 70x20, at least 80x24 needed" in str(
            app.screen.query_one("#too-small", Static).content
        )
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        box = app.screen.query_one("#help-box")
        # the whole help fits: no line wraps, the box inside the screen, nothing behind it shows
        assert box.region.width <= 80 and box.region.bottom <= 24
        lines = app.screen.query_one("#help-box Static", Static).content_size.height
        assert (
            lines == str(app.screen.query_one("#help-box Static", Static).content).count("\n") + 1
        )
        assert app.screen.styles.background.a == 1


def test_the_headline_names_the_winners_score_first() -> None:
    rng = random.Random(0)
    for seed in range(50):
        session = Session(rounds=1, seed=seed, hotseat=True)
        r = session.start_round()
        while not r.is_over():
            session.human_move(rng.choice(list(r.legal_moves())))
        if session.match.winner() == 1:
            break
    a, b = session.match.totals()
    assert b > a
    head = match_summary(session).splitlines()[0]
    assert f"Player 2 wins the match  {b} – {a}" in head
