"""Undo as a player expects it: ``u`` on your turn takes back your last move and the bot's
reply together, never after your move drew from the draw pile (you saw a hidden card: issue
14, defect 1), and the game is then marked assisted (the bot's card went back to its hand,
which you now know about)."""

from __future__ import annotations

import io

import pytest
from textual.widgets import Static

from lostcities.bots import Bot
from lostcities.cards import Variant
from lostcities.errors import UndoError
from lostcities.record import read_records
from lostcities.referee import Event, Referee, TakenBack
from lostcities.rules import Action, Move, PlayerView, Round
from lostcities.tui.app import LostCitiesApp
from lostcities.tui.records import build_record, write
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.match_end import match_summary
from lostcities.tui.session import BOT_SEAT, DREW_BLIND, HUMAN_SEAT, Session

BLIND = "take-back is not allowed after drawing from the draw pile: the card drawn was hidden"


class Recorder(Bot):
    """Plays the first legal move and remembers what it was told."""

    name = "recorder"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.told: list[tuple[Move, int]] = []
        self.closed = False

    def restart(self, variant: Variant, seat: int) -> None:
        self.told = []

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        return view.legal_moves()[0]

    def inform(self, move: Move, player: int) -> None:
        self.told.append((move, player))

    def close(self) -> None:
        self.closed = True


def blind(r: Round) -> Move:
    """A discard that draws from the draw pile."""
    return next(m for m in r.legal_moves() if m.action is Action.DISCARD and m.draw is None)


def public(r: Round) -> Move:
    """A move that takes a discard pile's (public) top card."""
    return next(m for m in r.legal_moves() if m.draw is not None)


def test_the_referee_takes_back_a_move_with_the_reply() -> None:
    bot = Recorder()
    events: list[Event] = []
    ref = Referee(Round.deal(seed=6), [None, bot], undo=True, on_event=events.append)
    assert ref.take_back_blocker(0) == "nothing to take back"
    ref.submit(blind(ref.round))
    ref.advance()
    assert ref.take_back_blocker(0) == BLIND  # the card drawn was hidden
    with pytest.raises(UndoError, match="drawing from the draw pile"):
        ref.take_back(0)
    assert ref.round.ply == 2
    hands, deck = ref.round.hands, ref.round.deck_size
    mine = ref.submit(public(ref.round))
    assert ref.take_back_blocker(0) == (
        "a take-back is only allowed on your turn, after the other side replied"
    )
    ref.advance()  # the reply may draw from the draw pile: that card was hidden from player 0
    reply = ref.round.history[-1]
    assert ref.take_back_blocker(0) is None
    assert ref.take_back(0) == (mine, reply)
    assert ref.round.ply == 2 and ref.round.hands == hands and ref.round.deck_size == deck
    assert events[-1] == TakenBack(0, 2, 0, (mine, reply))
    assert bot.told == [(m, i & 1) for i, m in enumerate(ref.round.history)]  # replayed
    assert (
        Referee(Round.deal(seed=6), undo=False).take_back_blocker(0)
        == "undo is not allowed in this game"
    )


def session(seed: int = 4) -> Session:
    # seed 4: the person moves first
    return Session(opponent="recorder", rounds=1, seed=seed, bot_factory=lambda s, n: Recorder(n))


def test_a_take_back_restores_both_moves_and_marks_the_game_assisted() -> None:
    s = session()
    r = s.start_round()
    first = s.human_move(blind(r))
    s.bot_move(r.legal_moves()[0])
    assert s.undo_blocker() == DREW_BLIND
    assert not s.assisted and "Assisted" not in build_record(s).tags
    hands, deck = r.hands, r.deck_size
    mine = s.human_move(public(r))
    s.bot_move(r.legal_moves()[0])
    reply = r.history[-1]
    old = s.bot
    assert s.undo_blocker() is None
    assert s.undo() == (mine, reply)
    assert r.ply == 2 and r.to_move == HUMAN_SEAT and r.hands == hands and r.deck_size == deck
    # the bot is a fresh one told the moves left; the old one (not thinking) is closed
    new = s.bot
    assert isinstance(old, Recorder) and old.closed and s.retired_bot is not old
    assert isinstance(new, Recorder) and new is not old and s.referee.players[BOT_SEAT] is new
    assert new.told == [(first, HUMAN_SEAT), (r.history[1], BOT_SEAT)]
    # its card back in its hand is information: the game is assisted, and says so
    assert s.take_backs == 1 and s.assisted and s.assistance() == "1 take-back"
    s.hints = 2
    assert s.assistance() == "2 hints, 1 take-back"
    rec = build_record(s)
    assert rec.tags["Assisted"] == "2 hints, 1 take-back"
    assert rec.rounds[0].comments == [(2, f"take back {mine} and {reply}")]
    back = next(read_records(io.StringIO(write(rec))))
    assert back.rounds[0].comments == rec.rounds[0].comments
    assert "Assisted (2 hints, 1 take-back): a casual game." in match_summary(s)
    # the move before drew from the draw pile: no second take-back
    assert s.undo_blocker() == DREW_BLIND
    s.close()


@pytest.mark.asyncio
async def test_u_on_your_turn_takes_back_your_move_and_the_reply() -> None:
    s = session()
    app = LostCitiesApp(s)

    def status() -> str:
        return str(app.screen.query_one("#status", Static).content)

    async def settle() -> None:
        for _ in range(50):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if isinstance(app.screen, GameScreen) and app.screen.phase != "bot":
                return
        raise AssertionError("the bot never answered")

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        r = s.round
        screen = app.screen
        assert isinstance(screen, GameScreen)
        screen.commit(blind(r))
        await settle()
        await pilot.press("u")  # the move drew from the draw pile: one line says why
        assert status() == f"cannot undo: {DREW_BLIND}" and r.ply == 2 and screen.error
        assert len(status()) <= 78  # the whole reason fits the status line
        await pilot.press("right")
        mine = public(r)
        screen.commit(mine)
        await settle()
        assert r.ply == 4 and screen.phase == "pick"
        reply = r.history[3]
        await pilot.press("u")
        assert r.ply == 2 and screen.phase == "pick" and not screen.error
        assert str(screen.query_one("#last", Static).content) == (
            f"you took back {mine} and the reply {reply} (the game is now marked assisted)"
        )
        assert status().startswith("Your move")
        assert s.assisted
        # play on: the fresh bot replies
        screen.commit(blind(r))
        await settle()
        assert r.ply == 4
