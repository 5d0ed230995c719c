"""Every way out of `lostcities play` (``q``, Ctrl+C, Ctrl+Q, Enter on the result screen)
asks while the match is on or its record unsaved, and then saves where ``--save`` says; a
``--save`` file that cannot be written is refused before the match starts, and a save that
failed is never claimed (issue 26, items 16-18); what ``play`` refuses before it starts
(item 21)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Input, Static
from textual.widgets._footer import FooterKey

from lostcities.cards import Card
from lostcities.cli import main
from lostcities.record import GameRecord
from lostcities.tui.app import NOT_A_TERMINAL, LostCitiesApp, SavePathError, check_save_path
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.help import ConfirmQuit
from lostcities.tui.screens.match_end import MatchEndScreen
from lostcities.tui.screens.round_end import RoundEndScreen
from lostcities.tui.session import BOT_SEAT, Session
from tests.tui.test_play import SIZE, settle, text_of


def finished(seed: int = 3) -> Session:
    """A one-round match against ``random``, played out before any app shows it."""
    session = Session(opponent="random", rounds=1, seed=seed)
    r = session.start_round()
    while not r.is_over():
        if r.to_move == BOT_SEAT:
            assert session.bot is not None
            session.bot_move(session.bot.choose(r.view(BOT_SEAT)))
        else:
            session.human_move(r.legal_moves()[0])
    return session


def quit_text(app: LostCitiesApp) -> str:
    assert isinstance(app.screen, ConfirmQuit)
    return " ".join(str(w.content) for w in app.screen.query(Static).results(Static))


@pytest.mark.parametrize("where", ["missing/match.txt", "folder"])
def test_a_save_file_that_cannot_be_written_is_refused_at_start(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "folder").mkdir()
    path = tmp_path / where
    assert main(["play", "--opponent", "random", "--save", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lostcities play: error: cannot save the record to ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_checking_a_new_save_file_leaves_no_file(tmp_path: Path) -> None:
    check_save_path(str(tmp_path / "new.txt"))
    assert not (tmp_path / "new.txt").exists()
    kept = tmp_path / "old.txt"
    kept.write_text(str(GameRecord.from_match(finished().match)), encoding="utf-8")
    before = kept.read_text(encoding="utf-8")
    check_save_path(str(kept))  # a records file: the save adds its record after them
    assert kept.read_text(encoding="utf-8") == before
    other = tmp_path / "notes.txt"
    other.write_text("keep", encoding="utf-8")
    with pytest.raises(SavePathError, match="something other than game records"):
        check_save_path(str(other))  # issue 37 item 16: it was overwritten
    assert other.read_text(encoding="utf-8") == "keep"


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "keys",
    [["ctrl+c", "y"], ["ctrl+q", "y"], ["q", "y"], ["ctrl+c", "ctrl+c"], ["ctrl+q", "ctrl+q"]],
)
async def test_every_way_out_asks_then_saves(keys: list[str], tmp_path: Path) -> None:
    path = tmp_path / "quit.txt"
    session = Session(opponent="random", rounds=2, seed=4)
    app = LostCitiesApp(session, save=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(keys[0])
        assert "will be saved to" in quit_text(app) and not path.exists()  # asked, not yet saved
        await pilot.press("n")
        assert isinstance(app.screen, GameScreen) and not path.exists()
        await pilot.press(*keys)
    assert app.return_value == 0 and app.save_error is None
    assert "R1:" in path.read_text(encoding="utf-8")


@pytest.mark.asyncio
async def test_enter_on_the_result_screen_asks_while_the_record_is_unsaved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = LostCitiesApp(finished())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        await pilot.press("enter")
        assert isinstance(app.screen, MatchEndScreen)
        await pilot.press("enter")
        assert "Quit without saving the game record?" in quit_text(app)
        await pilot.press("n")
        assert isinstance(app.screen, MatchEndScreen)
        await pilot.press("s")
        app.screen.query_one("#save-input", Input).value = "kept.txt"
        await pilot.press("enter")
        assert "saved the game record to kept.txt" in text_of(app, "#save-status")
        await pilot.press("enter")  # saved: no question
    assert app.return_value == 0 and (tmp_path / "kept.txt").exists()


@pytest.mark.asyncio
async def test_a_failed_save_is_never_claimed(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    path = folder / "match.txt"
    check_save_path(str(path))  # fine at the start ...
    folder.rmdir()  # ... and gone by the end
    app = LostCitiesApp(finished(), save=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        assert isinstance(app.screen, MatchEndScreen)
        status = text_of(app, "#save-status")
        assert status.startswith("could not save the record to") and "saved the" not in status
        await pilot.press("enter")
        assert "Quit without saving" in quit_text(app)
        await pilot.press("y")
    assert app.return_value == 1 and app.save_error is not None and not path.exists()


@pytest.mark.asyncio
async def test_a_failed_save_on_quitting_mid_match_exits_1(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    path = folder / "match.txt"
    session = Session(opponent="random", rounds=1, seed=4)
    app = LostCitiesApp(session, save=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        folder.rmdir()
        await pilot.press("q", "y")
    assert app.return_value == 1 and "could not save" in str(app.save_error)


@pytest.mark.asyncio
async def test_the_footer_fits_80_columns() -> None:
    app = LostCitiesApp(Session(opponent="random", rounds=1, seed=4))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(50):  # the footer recomposes when the bindings change: its next layout
            await pilot.pause()
            keys = list(app.screen.query(FooterKey).results(FooterKey))
            if keys and all(k.region.width > 0 for k in keys):
                break
        assert any(k.description == "quit" for k in keys)
        for k in keys:
            assert k.region.width > 0 and k.region.right <= SIZE[0], k.description


@pytest.mark.asyncio
async def test_a_card_not_in_the_hand_is_not_in_your_hand() -> None:
    session = Session(opponent="random", rounds=1, seed=4)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hand = session.round.view(0).hand
        card = next(c for c in (Card.parse(f"{x}4") for x in "ybwgr") if c not in hand)
        await pilot.press("colon", *f"+{card}", "full_stop", "enter")
        status = text_of(app, "#status")
        assert f"{card} is not in your hand" in status and "player" not in status


@pytest.mark.parametrize("flags", [[], ["--opponent", "random"]])
def test_play_without_a_terminal_says_so(flags: list[str]) -> None:
    # issue 26: `play </dev/null` drew the board until killed
    out = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "play", *flags],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [f"lostcities play: error: {NOT_A_TERMINAL}"]


def test_hotseat_takes_no_opponent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--hotseat", "--opponent", "heuristic"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "lostcities play: error: --hotseat is two people at one keyboard: it takes no --opponent\n"
    )


@pytest.mark.parametrize("rounds", ["0", "100", "100000000000"])
def test_play_rounds_are_bounded(rounds: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["play", "--rounds", rounds])
    assert e.value.code == 2 and "argument --rounds" in capsys.readouterr().err
