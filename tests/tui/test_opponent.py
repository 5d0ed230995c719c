"""``lostcities play``'s opponent: expert by default (ismcts where it cannot run), and the
search prepared before the screen starts, never inside the bot's first move."""

from __future__ import annotations

import importlib.util
import threading
from typing import Any

import pytest

from lostcities import bots
from lostcities.cli import build_parser, main
from lostcities.tui import app as tui_app
from lostcities.tui.app import DEFAULT_OPPONENT, FALLBACK_OPPONENT, LostCitiesApp
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.session import Session

HAVE_NUMBA = importlib.util.find_spec("numba") is not None


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[LostCitiesApp]:
    """Apps ``lostcities play`` would run (not run: the screen is not started)."""
    apps: list[LostCitiesApp] = []

    def run(self: LostCitiesApp, *args: Any, **kwargs: Any) -> int:
        apps.append(self)
        return 0

    monkeypatch.setattr(LostCitiesApp, "run", run)
    return apps


def test_the_default_opponent_is_expert() -> None:
    assert DEFAULT_OPPONENT == "expert:time=1" and FALLBACK_OPPONENT == "ismcts:time=1"
    assert build_parser().parse_args(["play"]).opponent == DEFAULT_OPPONENT


def test_play_help_names_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "default: expert:time=1" in out and "ismcts:time=1" in out


def test_play_prepares_the_search_before_the_screen(
    ran: list[LostCitiesApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--rounds", "1", "--seed", "3"]) == 0
    (app,) = ran
    assert app.session.bot is not None and app.session.bot.name == "expert"
    out = capsys.readouterr().out
    if HAVE_NUMBA:  # the tests' numba cache is warm: loaded, and no word of a first start
        assert "loading the search engine ..." in out and "ready in" in out
        assert "first start" not in out and app.warm_up is None
    else:
        assert "numba is not installed" in out


class HeldWarmUp:
    """Stands in for :class:`lostcities.tui.app.SearchWarmUp` (a first start's compile):
    ready when the test says so."""

    made: list[HeldWarmUp] = []

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.closed = False
        HeldWarmUp.made.append(self)

    def close(self) -> None:
        self.closed = True


def test_a_first_start_shows_the_board_at_once(
    ran: list[LostCitiesApp], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold cache: nothing is compiled before the screen; the compile runs beside it
    (stopped when the app ends)."""
    HeldWarmUp.made.clear()
    monkeypatch.setattr(tui_app, "search_first_start", lambda: True)
    monkeypatch.setattr(tui_app, "SearchWarmUp", HeldWarmUp)
    monkeypatch.setattr(tui_app, "prepare_search", lambda progress=None: pytest.fail("waited"))
    assert main(["play", "--rounds", "1", "--seed", "3"]) == 0
    (app,) = ran
    (warm,) = HeldWarmUp.made
    assert app.warm_up is warm and warm.closed
    assert capsys.readouterr().out == ""


@pytest.mark.asyncio
async def test_the_bot_waits_for_a_first_starts_compile_and_says_so() -> None:
    from tests.tui.test_play import settle, text_of

    warm = HeldWarmUp()
    session = Session(opponent="random", rounds=1, seed=5)
    app = LostCitiesApp(session, warm_up=warm)  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(5):
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        if screen.phase != "bot":  # the person starts: the board takes the move at once
            screen.commit(next(m for m in session.round.legal_moves() if m.draw is None))
        plies = session.round.ply
        for _ in range(10):
            await pilot.pause(0.02)
        assert screen.phase == "bot" and session.round.ply == plies  # it waits
        assert "preparing its search (first start only)" in text_of(app, "#status")
        warm.ready.set()
        await settle(pilot, tries=100)
        assert session.round.ply == plies + 1 and screen.phase != "bot"
        assert "first start" not in text_of(app, "#status")


def test_play_without_a_search_bot_prepares_nothing(
    ran: list[LostCitiesApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--opponent", "random", "--rounds", "1"]) == 0
    assert main(["play", "--hotseat", "--rounds", "1"]) == 0
    assert len(ran) == 2 and capsys.readouterr().out == ""


def test_the_default_falls_back_to_ismcts(
    ran: list[LostCitiesApp], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(bots.BUILTIN, "expert", "lostcities.bots.no_such_module:Expert")
    monkeypatch.setattr(tui_app, "prepare_search", lambda progress=None: 0.0)
    assert main(["play", "--rounds", "1"]) == 0
    (app,) = ran
    assert app.session.bot is not None and app.session.bot.name == "ismcts"
    assert "playing ismcts:time=1" in capsys.readouterr().out
    # a named expert that cannot be built is an error, not a silent substitute
    assert main(["play", "--opponent", "expert:time=0.5"]) == 2
