"""Issue 37 items 16 and 17: a save adds the match's record to a records file (never over
the games already there), an unfinished match is saved from the quit dialog, and
``lostcities play --resume FILE`` (or ``r`` on the start screen) goes on where it stopped,
saved again in its own place."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from lostcities.cli import main
from lostcities.match import round_seed
from lostcities.record import read_records
from lostcities.tui.app import LostCitiesApp, StartApp
from lostcities.tui.records import ResumeError, find_unfinished, resume, save_to
from lostcities.tui.screens.help import ConfirmQuit
from lostcities.tui.screens.match_end import MatchEndScreen
from lostcities.tui.screens.start import Setup, StartScreen
from lostcities.tui.session import BOT_SEAT, Session
from tests.tui.test_play import SIZE, settle, text_of
from tests.tui.test_quitting import finished


def records_in(path: Path) -> list[tuple[str, str]]:
    """Each record of the file: its seed and result."""
    text = path.read_text(encoding="utf-8")
    return [(r.tags["Seed"], r.result) for r in read_records(io.StringIO(text))]


def some_moves(session: Session, n: int) -> None:
    """``n`` moves of the round (the bot's and the person's first legal ones)."""
    r = session.round if session.match.rounds else session.start_round()
    for _ in range(n):
        if r.to_move == BOT_SEAT:
            assert session.bot is not None
            session.bot_move(session.bot.choose(session.bot_view()))
        else:
            session.human_move(r.legal_moves()[0])


@pytest.mark.asyncio
async def test_save_adds_to_a_records_file_never_over_it(tmp_path: Path) -> None:
    path = tmp_path / "games.lcr"
    save_to(finished(seed=5), path)
    app = LostCitiesApp(finished(seed=3), save=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # the round's sheet: the match ends, the record is saved
        assert isinstance(app.screen, MatchEndScreen)
        assert "after the games already in it" in text_of(app, "#save-status")
    assert [s for s, _ in records_in(path)] == ["5", "3"]


@pytest.mark.asyncio
async def test_the_result_screens_save_adds_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    save_to(finished(seed=5), tmp_path / "lostcities-match.txt")
    app = LostCitiesApp(finished(seed=3))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter", "s")
        assert app.screen.query_one("#save-input", Input).value == "lostcities-match.txt"
        await pilot.press("enter")
        assert text_of(app, "#save-status").startswith("saved the game record to")
        await pilot.press("enter")
    assert [s for s, _ in records_in(tmp_path / "lostcities-match.txt")] == ["5", "3"]


@pytest.mark.asyncio
async def test_the_quit_dialog_saves_the_unfinished_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    session = Session(opponent="random", rounds=2, seed=4)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuit)
        text = " ".join(str(w.content) for w in app.screen.query(Static).results(Static))
        assert "s saves the unfinished match" in text and "--resume" in text
        await pilot.press("s")
        box = app.screen.query_one("#quit-save", Input)
        assert box.has_focus and box.value == "lostcities-match.txt"
        await pilot.press("enter")
    assert app.return_value == 0 and app.written == "lostcities-match.txt"
    assert records_in(tmp_path / "lostcities-match.txt") == [("4", "*")]


def test_resume_goes_on_where_it_stopped_and_saves_in_place(tmp_path: Path) -> None:
    path = tmp_path / "games.lcr"
    save_to(finished(seed=5), path)  # another game before it: kept as it is
    first = path.read_text(encoding="utf-8")
    session = Session(opponent="random", rounds=2, seed=4)
    some_moves(session, 7)
    session.hints = 2
    slot = save_to(session, path)
    history = list(session.round.history)
    session.close()
    again, slot2 = resume(path)
    assert slot2 == slot
    assert again.match.seed == 4 and again.opponent == "random" and again.hints == 2
    assert list(again.round.history) == history and again.round_index == 0
    while not again.match.is_over():  # the bot was told the moves: it plays on
        if again.round.is_over():
            again.start_round()
        some_moves(again, 1)
    save_to(again, path, slot2)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(first) and [s for s, _ in records_in(path)] == ["5", "4"]
    assert records_in(path)[1][1] != "*" and "Assisted" in text
    assert again.match.rounds[1].seed == round_seed(4, 1)  # dealt as it would have been
    with pytest.raises(ResumeError, match="no unfinished match"):
        find_unfinished(path)


def test_play_resume_and_its_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    played: list[tuple[Session, str | None]] = []

    def run(self: LostCitiesApp) -> int:
        played.append((self.session, self.save_path))
        self.session.close()
        return 0

    monkeypatch.setattr(LostCitiesApp, "run", run)
    path = tmp_path / "m.lcr"
    session = Session(opponent="random", rounds=3, seed=8)
    some_moves(session, 5)
    save_to(session, path)
    assert main(["play", "--resume", str(path)]) == 0
    ((s, save),) = played
    assert save == str(path) and s.round.ply == 5 and s.match.num_rounds == 3
    assert main(["play", "--resume", str(path), "--rounds", "5"]) == 2
    assert "--resume goes on with the saved match: it takes no --rounds" in capsys.readouterr().err
    empty = tmp_path / "none.lcr"
    save_to(finished(), empty)
    assert main(["play", "--resume", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "cannot resume from" in err and "no unfinished match" in err and err.count("\n") == 1


@pytest.mark.asyncio
async def test_r_on_the_start_screen_resumes(tmp_path: Path) -> None:
    path = tmp_path / "m.lcr"
    session = Session(opponent="random", rounds=3, seed=8)
    some_moves(session, 3)
    save_to(session, path)
    app = StartApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("r")
        assert isinstance(app.screen, StartScreen)
        box = app.screen.query_one("#resume-input", Input)
        assert box.has_focus
        box.value = str(tmp_path / "missing.lcr")
        await pilot.press("enter")
        status = str(app.screen.query_one("#resume-status", Static).content)
        assert "cannot resume" in status and "No such file" in status
        box.value = str(path)
        await pilot.press("enter")
    assert app.return_value == Setup(resume=str(path))
