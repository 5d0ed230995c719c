"""The terminal session without Textual: its referee, the bot's seat, forfeits and undo."""

from __future__ import annotations

import pytest

from lostcities import errors
from lostcities.bots import Bot
from lostcities.cards import Variant
from lostcities.rules import Action, Move, PlayerView, Termination
from lostcities.tui.session import BOT_SEAT, DREW_BLIND, HUMAN_SEAT, Session, UndoError


class Recorder(Bot):
    """Plays the first legal move and remembers what it was told."""

    name = "recorder"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.restarts = 0
        self.told: list[tuple[Move, int]] = []

    def restart(self, variant: Variant, seat: int) -> None:
        assert seat == BOT_SEAT
        self.restarts += 1
        self.told = []

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        return view.legal_moves()[0]

    def inform(self, move: Move, player: int) -> None:
        self.told.append((move, player))


def session(seed: int = 4) -> Session:
    # seed 4: the person moves first
    return Session(opponent="recorder", rounds=2, seed=seed, bot_factory=lambda s, n: Recorder(n))


def test_undo_error_is_the_cores() -> None:
    assert UndoError is errors.UndoError


def test_moves_go_through_the_referee_and_the_bot_is_told() -> None:
    s = session()
    r = s.start_round()
    assert s.referee.round is r and r.to_move == HUMAN_SEAT
    bot = s.bot
    assert isinstance(bot, Recorder) and bot.restarts == 1
    m = s.human_move(r.legal_moves()[0])
    assert bot.told == [(m, HUMAN_SEAT)] and s.bot_to_move()
    with pytest.raises(ValueError, match="it is the bot's turn"):
        s.human_move(r.legal_moves()[0])
    b = bot.choose(r.view(BOT_SEAT))
    assert s.bot_move(b) is None and bot.told[-1] == (b, BOT_SEAT)
    missing = next(c for c in r.variant.deck() if c not in r.hands[HUMAN_SEAT])
    with pytest.raises(errors.IllegalMoveError, match="not in player 0's hand"):
        s.human_move(Move.play(missing))
    with pytest.raises(errors.InvalidMoveError):
        s.human_move("+zz")
    assert r.ply == 2


def test_an_illegal_bot_move_and_a_crash_forfeit() -> None:
    s = session()
    r = s.start_round()
    s.human_move(r.legal_moves()[0])
    missing = next(c for c in r.variant.deck() if c not in r.hands[BOT_SEAT])
    reason = s.bot_move(Move.play(missing))
    assert reason == f"the bot played an illegal move {str(Move.play(missing))!r}"
    outcome = r.outcome()
    assert outcome is not None and outcome.termination is Termination.FORFEIT
    assert outcome.winner == HUMAN_SEAT and outcome.reason == reason
    # only the round is lost (as the arena scores it): the match goes on
    assert not s.match.is_over() and s.match.forfeited_by() is None
    assert s.match.totals() == outcome.scores
    s2 = session()
    r2 = s2.start_round()
    s2.human_move(r2.legal_moves()[0])
    assert s2.bot_failed(RuntimeError("boom")) == "the bot failed: boom"
    o2 = r2.outcome()
    assert o2 is not None and o2.winner == HUMAN_SEAT and not s2.match.is_over()


def test_undo_replaces_the_bot_and_keeps_the_log() -> None:
    s = session()
    assert s.undo_blocker() == "nothing to undo"
    r = s.start_round()
    assert s.undo_blocker() == "nothing to undo"
    first = s.human_move(next(m for m in r.legal_moves() if m.draw is None))
    s.bot_move(r.legal_moves()[0])
    # the bot replied to a draw from the draw pile: no take-back of the two either
    assert s.undo_blocker() == DREW_BLIND
    with pytest.raises(UndoError, match="draw pile"):
        s.undo()
    old = s.bot
    assert isinstance(old, Recorder)
    restarts = old.restarts
    blind = next(m for m in r.legal_moves() if m.draw is None and m.action is Action.DISCARD)
    s.human_move(blind)
    # a draw from the draw pile showed a hidden card: never taken back (issue 14)
    assert (
        s.undo_blocker() == DREW_BLIND == "your move drew from the draw pile: you saw a hidden card"
    )
    with pytest.raises(UndoError, match="draw pile"):
        s.undo()
    s.bot_move(r.legal_moves()[0])
    second = s.human_move(next(m for m in r.legal_moves() if m.draw is not None))
    assert s.undo_blocker() is None
    assert s.undo() == (second,) and r.ply == 4 and r.to_move == HUMAN_SEAT
    # the old bot (maybe still thinking) was left alone; the fresh one knows the moves left
    assert old.restarts == restarts and s.retired_bot is old
    new = s.bot
    assert isinstance(new, Recorder) and new is not old and new.restarts == 1
    assert new.told == [
        (first, HUMAN_SEAT),
        (r.history[1], BOT_SEAT),
        (blind, HUMAN_SEAT),
        (r.history[3], BOT_SEAT),
    ]
    assert s.referee.players[BOT_SEAT] is new
    assert [(u.round_index, u.ply, u.move) for u in s.undos] == [(0, 4, second)]
    # play on: the fresh bot is told
    again = s.human_move(r.legal_moves()[0])
    assert new.told[-1] == (again, HUMAN_SEAT)
    s.close()


def test_hotseat_has_no_bot_and_no_undo() -> None:
    s = Session(rounds=1, seed=2, hotseat=True)
    r = s.start_round()
    s.human_move(r.legal_moves()[0])
    s.human_move(r.legal_moves()[0])
    assert s.bot is None and not s.bot_to_move()
    assert s.undo_blocker() == "undo is only allowed against a bot, not in hot-seat games"
    with pytest.raises(UndoError, match="hot-seat"):
        s.undo()
