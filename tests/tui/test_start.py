"""The start screen of ``lostcities play`` run without flags (opponent, level, variant, rounds,
achievements), by keyboard at 80x24; any flag skips it, as before."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from lostcities.cli import main
from lostcities.tui import app as tui_app
from lostcities.tui.app import DEFAULT_OPPONENT, LostCitiesApp, StartApp
from lostcities.tui.screens.help import TooSmallScreen
from lostcities.tui.screens.start import LEVELS, Setup, StartScreen
from lostcities.tui.session import Session


def box_text(app: StartApp) -> str:
    return str(app.screen.query_one("#start-box", Static).content)


def test_the_levels_are_named_as_the_readme_and_the_web_name_them() -> None:
    # issue 37 item 25: they were named by bot (random, heuristic, ismcts, expert)
    assert list(LEVELS) == ["easy", "medium", "hard", "expert"]
    bots = [spec.partition(":")[0] for spec, _ in LEVELS.values()]
    assert bots == ["random", "heuristic", "ismcts", "expert"]
    assert Setup().opponent == LEVELS["expert"][0] == DEFAULT_OPPONENT  # the default is kept


@pytest.mark.asyncio
async def test_choose_everything_by_keyboard_at_80x24() -> None:
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        box = screen.query_one("#start-box")
        assert box.region.right <= 80 and box.region.bottom <= 23  # the footer below it
        text = box_text(app)
        assert "▸ [b]Opponent" in text and "the computer" in text
        assert (
            "same as: lostcities play --opponent expert:time=1 --variant classic --rounds 3" in text
        )
        await pilot.press("down", "left")  # level: expert -> hard
        assert "‹ hard ›" in box_text(app) and "Monte Carlo" in box_text(app)
        await pilot.press("left")
        await pilot.press("down", "right")  # variant: long
        await pilot.press("down", "1")  # rounds: typed
        await pilot.press("down", "space")  # achievements on
        assert "--opponent heuristic --variant long --rounds 1 --achievements" in box_text(app)
        await pilot.press("enter")
    assert app.return_value == Setup(level="medium", variant="long", rounds=1, achievements=True)


@pytest.mark.asyncio
async def test_hotseat_skips_the_level_and_q_quits() -> None:
    app = StartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("right")  # a friend at this keyboard
        assert "no computer in a hot-seat game" in box_text(app)
        await pilot.press("down", "right")  # the level line is skipped: variant
        assert isinstance(app.screen, StartScreen)
        assert app.screen.setup == Setup(hotseat=True, variant="long")
        assert "lostcities play --hotseat --variant long" in box_text(app)
        await pilot.press("q")
    assert app.return_value is None


@pytest.mark.asyncio
async def test_too_small_for_the_start_screen() -> None:
    app = StartApp()
    async with app.run_test(size=(70, 20)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[Session]:
    """The sessions ``lostcities play`` would have played (the game app is not run)."""
    sessions: list[Session] = []

    def run(self: LostCitiesApp) -> int:
        sessions.append(self.session)
        self.session.close()
        return 0

    monkeypatch.setattr(LostCitiesApp, "run", run)
    return sessions


def test_no_flags_the_start_screen_chooses(
    played: list[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = Setup(level="easy", variant="long", rounds=1, achievements=True)
    monkeypatch.setattr(StartApp, "run", lambda self: chosen)
    assert main(["play"]) == 0
    (s,) = played
    assert (s.opponent, s.match.variant.name, s.match.num_rounds, s.hotseat) == (
        "random",
        "long",
        1,
        False,
    )
    assert s.match.achievements is not None
    monkeypatch.setattr(StartApp, "run", lambda self: Setup(hotseat=True))
    assert main(["play"]) == 0
    assert played[1].hotseat and played[1].match.num_rounds == 3
    # quit at the start screen: no game
    monkeypatch.setattr(StartApp, "run", lambda self: None)
    assert main(["play"]) == 0 and len(played) == 2


@pytest.mark.parametrize(
    "flags", [["--opponent", "random"], ["--opponent", "random", "--rounds", "3"], ["--hotseat"]]
)
def test_any_flag_skips_the_start_screen(
    flags: list[str], played: list[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(self: StartApp) -> None:
        raise AssertionError("the start screen was shown")

    monkeypatch.setattr(StartApp, "run", never)
    assert main(["play", *flags]) == 0
    (s,) = played
    assert s.hotseat == ("--hotseat" in flags) and s.match.num_rounds == 3
    assert tui_app.start_screen_wanted(tui_app.argparse.Namespace(argv=["play", *flags])) is False
