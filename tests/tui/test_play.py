"""`lostcities play` driven headless by Textual's pilot: hot-seat privacy, illegal attempts,
undo, saved records, and the CLI's errors (a whole round by keyboard: test_pilot_round.py)."""

from __future__ import annotations

import io
import random
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from lostcities import bots
from lostcities.bots import Bot
from lostcities.cards import Card, Color
from lostcities.cli import main
from lostcities.record import read_records
from lostcities.rules import Action, Move, PlayerView
from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.match_end import MatchEndScreen
from lostcities.tui.screens.privacy import PrivacyScreen
from lostcities.tui.screens.round_end import RoundEndScreen
from lostcities.tui.session import BOT_SEAT, Session
from lostcities.tui.widgets.hand import HandCard

SIZE = (80, 24)


def text_of(app: LostCitiesApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


async def settle(pilot: Pilot[int], tries: int = 50) -> None:
    """Let the bot's worker finish and its message be handled (at most ``tries`` waits)."""
    for _ in range(tries):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        if not (isinstance(screen, GameScreen) and screen.phase == "bot"):
            return
    raise AssertionError("the bot never answered")


def phase_of(screen: GameScreen) -> str:
    return screen.phase


def keys_for(move: Move) -> list[str]:
    """The keystrokes of the keyboard flow: the card's notation, p/d, then the source."""
    card = str(move.card)
    keys = [ch if ch != "." else "full_stop" for ch in card]
    keys.append("p" if move.action is Action.PLAY else "d")
    keys.append("full_stop" if move.draw is None else move.draw.letter)
    return keys


async def play_turn(pilot: Pilot[int], app: LostCitiesApp, rng: random.Random) -> Move:
    r = app.session.round
    moves = list(r.legal_moves())
    # mostly plays (so that expeditions and scores build up) and draws from the draw pile
    # (so that the round ends soon); now and then anything, discard-pile draws included
    plain = [m for m in moves if m.draw is None and m.action is Action.PLAY]
    move = rng.choice(plain if plain and rng.random() < 0.8 else moves)
    ply = r.ply
    await pilot.press(*keys_for(move))
    assert r.history[ply] == move, text_of(app, "#status")
    await settle(pilot)
    return move


@pytest.mark.asyncio
async def test_typed_move_mouse_and_illegal_attempts_say_why() -> None:
    session = Session(opponent="random", rounds=1, seed=4)
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        r = session.round
        hand = r.view(0).hand
        # two cards of one colour: play the higher, then the lower one is illegal
        by_color: dict[Color, list[Card]] = {}
        for c in hand:
            if not c.is_wager:
                by_color.setdefault(c.color, []).append(c)
        _, cards = next((k, v) for k, v in by_color.items() if len(v) >= 2)
        low, high = cards[0], cards[-1]
        # a whole move typed in notation (":" opens the input)
        await pilot.press("colon", *f"+{high}.", "enter")
        assert r.history[-1 if r.to_move == 1 else -2] == Move.play(high)
        await settle(pilot)
        # the keyboard flow: pick the lower card, p -> the core's reason
        await pilot.press(*str(low), "p")
        status = text_of(app, "#status")
        assert f"{low} is lower than the last" in status
        assert "illegal move" in status
        # a typed move with a card not in hand
        missing = next(c for c in r.variant.deck() if c not in r.hands[0] and not c.is_wager)
        await pilot.press("colon", *f"-{missing}.", "enter")
        assert f"{missing} is not in your hand" in text_of(app, "#status")
        await pilot.press("escape")
        # discard onto a pile, then try to take it straight back
        ply = r.ply
        await pilot.press(*str(low), "d", low.color.letter)
        assert "cannot take back the card just discarded" in text_of(app, "#status")
        assert r.ply == ply  # nothing changed
        await pilot.press("escape")
        # the mouse: click a card, click own expedition column... then the deck
        hand = r.view(0).hand
        playable = r.legal_moves().cards(Action.PLAY)
        i = hand.index(playable[0])
        await pilot.click(list(app.screen.query(HandCard))[i])
        await pilot.click(f"#col-{playable[0].color.letter} .my-cards")
        assert app.screen.phase == "draw"  # type: ignore[attr-defined]
        await pilot.click("#deck")
        assert r.history[ply] == Move.play(playable[0])
        await settle(pilot)


class GateBot(Bot):
    """Plays the first legal move, but only once the test opens the gate."""

    name = "gate"
    gate = threading.Event()

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        assert GateBot.gate.wait(10)
        return view.legal_moves()[0]


@pytest.fixture
def gate_bot() -> Iterator[type[GateBot]]:
    GateBot.gate.clear()
    yield GateBot
    GateBot.gate.set()


@pytest.mark.asyncio
async def test_undo_only_before_the_bot_replies_and_recorded(
    gate_bot: type[GateBot], tmp_path: Path
) -> None:
    # seed 4: the person moves first
    session = Session(
        opponent="gate", rounds=1, seed=4, bot_factory=lambda spec, seed: GateBot(seed)
    )
    assert session.match.first_starter == 0
    app = LostCitiesApp(session, save=str(tmp_path / "undo.txt"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        r = session.round
        screen = app.screen
        assert isinstance(screen, GameScreen)
        # nothing to undo yet
        await pilot.press("u")
        assert "cannot undo" in text_of(app, "#status")
        # a draw from the draw pile showed a hidden card: never taken back (issue 14)
        blind = next(m for m in r.legal_moves() if m.action is Action.DISCARD and m.draw is None)
        await pilot.press(*keys_for(blind))
        assert r.ply == 1 and phase_of(screen) == "bot"
        await pilot.press("u")
        assert "cannot undo" in text_of(app, "#status")
        assert "draw pile" in text_of(app, "#status") and r.ply == 1
        gate_bot.gate.set()
        await settle(pilot)
        assert r.ply == 2
        gate_bot.gate.clear()
        # a draw from a discard pile (its top card is public) may be taken back
        hand_before = r.hands[0]
        move = next(m for m in r.legal_moves() if m.draw is not None)
        await pilot.press(*keys_for(move))
        assert r.ply == 3 and phase_of(screen) == "bot"
        assert "is thinking" in text_of(app, "#status")
        old_bot = session.bot
        await pilot.press("u")  # the bot has not replied: allowed
        assert r.ply == 2 and r.hands[0] == hand_before and r.to_move == 0
        assert phase_of(screen) == "pick"
        assert session.bot is not old_bot
        assert [(u.ply, u.move) for u in session.undos] == [(2, move)]
        gate_bot.gate.set()  # the old bot now answers: its move must be ignored
        await pilot.pause(0.2)
        await pilot.pause()
        assert r.ply == 2
        # play on, drawing from the draw pile; the bot replies at once now, and then no
        # take-back of the two: the card drawn was hidden
        move2 = next(m for m in reversed(r.legal_moves()) if m.draw is None)
        await pilot.press(*keys_for(move2))
        await settle(pilot)
        assert r.ply == 4 and r.history[2] == move2
        await pilot.press("u")
        assert "cannot undo" in text_of(app, "#status") and "draw pile" in text_of(app, "#status")
        assert r.ply == 4
        # quit: the unfinished match is saved, with the undo as a comment
        await pilot.press("q")
        await pilot.press("y")
    text = (tmp_path / "undo.txt").read_text()
    assert "{undo " + str(move) + "}" in text
    rec = next(read_records(io.StringIO(text)))
    assert rec.rounds[0].comments == [(2, f"undo {move}")]
    assert rec.rounds[0].moves[:4] == [blind, r.history[1], move2, r.history[3]]
    rec.replay()


@pytest.mark.asyncio
async def test_hotseat_privacy_screen_between_turns() -> None:
    session = Session(rounds=1, seed=2, hotseat=True, tie_break="draw")
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        r = session.round
        # the starter is asked to take the keyboard first; the board is hidden
        assert isinstance(app.screen, PrivacyScreen)
        assert not app.screen.query(HandCard)
        await pilot.press("enter")
        assert isinstance(app.screen, GameScreen)
        shown = [c.card for c in app.screen.query(HandCard) if c.card]
        assert shown == list(r.view(r.to_move).hand)
        first = r.to_move
        await pilot.press(*keys_for(r.legal_moves()[0]))
        await pilot.pause()
        assert isinstance(app.screen, PrivacyScreen)
        assert r.to_move == first ^ 1
        await pilot.press("u")  # no undo in hot-seat
        await pilot.press("enter")
        assert isinstance(app.screen, GameScreen)
        shown = [c.card for c in app.screen.query(HandCard) if c.card]
        assert shown == list(r.view(first ^ 1).hand)  # now the other player's hand
        await pilot.press("u")
        assert "not in hot-seat" in text_of(app, "#status")
        assert r.ply == 1


@pytest.mark.asyncio
async def test_save_writes_a_record_that_replay_accepts(tmp_path: Path) -> None:
    path = tmp_path / "match.txt"
    session = Session(opponent="discard", rounds=1, seed=7)
    app = LostCitiesApp(session, save=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        r = session.round
        rng = random.Random(1)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        while not r.is_over():
            move = rng.choice(list(r.legal_moves()))
            if r.deck_size > 3:
                screen.commit(move)  # the keyboard's last step, without the keystrokes
            else:  # the input box: a whole move in notation
                await pilot.press("colon", *str(move), "enter")
            await settle(pilot)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MatchEndScreen)
        assert f"saved the game record to {path}" in text_of(app, "#save-status")
    proc = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    rec = next(read_records(io.StringIO(path.read_text())))
    assert rec.players == ("you", "discard")
    assert rec.replay().rounds[0].scores() == r.scores()


@pytest.mark.asyncio
async def test_save_offered_at_match_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    session = Session(opponent="random", rounds=1, seed=3)
    r = session.start_round()
    while not r.is_over():  # play the round out before the app shows it
        if r.to_move == BOT_SEAT:
            assert session.bot is not None
            session.bot_move(session.bot.choose(r.view(BOT_SEAT)))
        else:
            session.human_move(r.legal_moves()[0])
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        await pilot.press("enter")
        assert isinstance(app.screen, MatchEndScreen)
        assert "s: save" in text_of(app, "#save-status")
        await pilot.press("s")
        app.screen.query_one("#save-input", Input).value = "mine.txt"
        await pilot.press("enter")
        assert "saved the game record to mine.txt" in text_of(app, "#save-status")
        await pilot.press("q")
    assert app.return_value == 0
    assert "R1:" in (tmp_path / "mine.txt").read_text()


def test_unknown_bot_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--opponent", "nosuchbot"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown bot: 'nosuchbot'" in err


def test_unavailable_bot_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(bots.BUILTIN, "ghost", "lostcities.bots.no_such_module:Ghost")
    assert main(["play", "--opponent", "ghost"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lostcities play: error:" in err and "ghost" in err
    assert "Traceback" not in err


@pytest.mark.asyncio
async def test_the_bot_only_ever_gets_its_view() -> None:
    seen: list[object] = []

    class Spy(Bot):
        def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
            seen.append(view)
            return view.legal_moves()[0]

    session = Session(opponent="spy", rounds=1, seed=5, bot_factory=lambda spec, seed: Spy(seed))
    app = LostCitiesApp(session)
    rng = random.Random(2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(3):
            await play_turn(pilot, app, rng)
    assert len(seen) >= 3
    assert all(isinstance(v, PlayerView) and v.player == BOT_SEAT for v in seen)


@pytest.mark.asyncio
async def test_a_crashing_bot_forfeits_the_round() -> None:
    class Crash(Bot):
        def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
            raise bots.BotError("out of cheese")

    session = Session(opponent="crash", rounds=2, seed=4, bot_factory=lambda s, seed: Crash(seed))
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # "+" opens the move box with the sign typed
        await pilot.press("plus", *str(session.round.legal_moves()[0])[1:], "enter")
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        summary = text_of(app, "#round-summary")
        assert "forfeit" in summary and "out of cheese" in summary
        # the forfeit ends only the round (won by the person, scored as it stands): the
        # match goes on, as in the arena
        assert session.match.rounds[0].outcome().winner == 0  # type: ignore[union-attr]
        assert not session.match.is_over() and session.match.forfeited_by() is None
        await pilot.press("enter")
        await settle(pilot)
        await pilot.pause()
        assert len(session.match.rounds) == 2
        if isinstance(app.screen, GameScreen):  # the person starts round 2: one move first
            await pilot.press("plus", *str(session.round.legal_moves()[0])[1:], "enter")
            await settle(pilot)
            await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)  # round 2 forfeited too
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MatchEndScreen) and session.match.is_over()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("key", "expected"), [("2", ("youngest", 1)), ("1", ("youngest", 0)), ("d", ("draw", None))]
)
async def test_hotseat_asks_who_is_younger_before_the_first_deal(
    key: str, expected: tuple[str, int | None]
) -> None:
    from lostcities.tui.screens.ties import TieBreakScreen

    session = Session(rounds=1, seed=2, hotseat=True)
    assert session.tie_break_pending
    app = LostCitiesApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TieBreakScreen) and not session.match.rounds
        assert "youngest player wins a tie" in str(
            app.screen.query_one("#ties-box", Static).content
        )
        await pilot.press(key)
        await pilot.pause()
        assert (session.match.tie_break, session.match.younger) == expected
        assert not session.tie_break_pending
        assert isinstance(app.screen, PrivacyScreen) and len(session.match.rounds) == 1
    # a game against the bot does not ask (the tie-break can still be given)
    assert not Session(rounds=1, seed=2, opponent="random").tie_break_pending


def test_a_tied_hotseat_match_says_the_younger_player_won() -> None:
    from lostcities.tui.records import build_record, write
    from lostcities.tui.screens.match_end import match_summary

    session = Session(rounds=1, seed=2, hotseat=True)
    session.set_tie_break("youngest", 1)
    r = session.start_round()
    while not r.is_over():  # both only discard: 0 - 0
        session.human_move(
            next(m for m in r.legal_moves() if m.action is Action.DISCARD and m.draw is None)
        )
    assert session.match.result() == "0-1"
    text = match_summary(session)
    assert (
        "Player 2 wins the match" in text
        and "Tie broken: the younger player wins (player 2)." in text
    )
    assert '[TieBreak "youngest"]' in write(build_record(session))
    with pytest.raises(ValueError, match="before the first round"):
        session.set_tie_break("draw")
