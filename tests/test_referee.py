"""The one referee: bots and submitted moves, forfeits with reasons, time limits, undo,
events, whole matches."""

from __future__ import annotations

import time

import pytest

from lostcities import Match, Move, Round, Termination
from lostcities.cards import Variant
from lostcities.errors import (
    BotTimeoutError,
    IllegalMoveError,
    InvalidMoveError,
    NotYourTurnError,
    UndoError,
)
from lostcities.referee import (
    Event,
    MoveMade,
    Referee,
    RoundEnded,
    RoundStarted,
    Undone,
    forfeit_reason,
)
from lostcities.rules import Action, PlayerView


class First:
    """Plays the first legal move; remembers what it was told."""

    def __init__(self) -> None:
        self.told: list[tuple[Move, int]] = []
        self.seats: list[int] = []
        self.views: list[PlayerView] = []

    def restart(self, variant: Variant, seat: int) -> None:
        self.seats.append(seat)
        self.told = []

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        self.views.append(view)
        return view.legal_moves()[0]

    def inform(self, move: Move, player: int) -> None:
        self.told.append((move, player))


class Broken(First):
    def __init__(
        self, answer: object = None, error: Exception | None = None, sleep: float = 0
    ) -> None:
        super().__init__()
        self.answer = answer
        self.error = error
        self.sleep = sleep

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        time.sleep(self.sleep)
        if self.error is not None:
            raise self.error
        return self.answer  # type: ignore[return-value]


def test_two_bots_play_a_round_and_see_only_their_views() -> None:
    a, b = First(), First()
    events: list[Event] = []
    ref = Referee(Round.deal(seed=4), [a, b], on_event=events.append)
    r = ref.play()
    assert r.is_over() and r.termination is Termination.DRAW_PILE_EMPTY
    assert a.seats == [0] and b.seats == [1]
    assert all(v.player == 0 for v in a.views) and all(v.player == 1 for v in b.views)
    assert [m for m, _ in a.told] == list(r.history) == [m for m, _ in b.told]
    assert isinstance(events[0], RoundStarted) and isinstance(events[-1], RoundEnded)
    made = [e for e in events if isinstance(e, MoveMade)]
    assert [e.move for e in made] == list(r.history)
    assert [e.ply for e in made] == list(range(r.ply))
    assert events[-1].outcome == r.outcome()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("bot", "reason"),
    [
        (Broken(error=RuntimeError("boom")), "crash: RuntimeError: boom"),
        (Broken(answer="+y2."), "illegal move: bot returned '+y2.', not a Move"),
        (Broken(answer=Move.parse("+p10.")), "illegal move: illegal move: '+p10.'"),
    ],
)
def test_a_failing_bot_forfeits_with_its_reason(bot: Broken, reason: str) -> None:
    ref = Referee(Round.deal(seed=1), [bot, First()])
    assert ref.step() is None
    o = ref.round.outcome()
    assert o is not None and o.termination is Termination.FORFEIT and o.winner == 1
    assert o.reason.startswith(reason)


def test_a_bot_over_its_time_forfeits() -> None:
    class Slow(First):
        def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
            time.sleep(0.05)
            return super().choose(view, time_limit)

    ref = Referee(Round.deal(seed=1), [Slow(), First()], time_limit=0.01, grace=0.0)
    ref.step()
    o = ref.round.outcome()
    assert o is not None and o.reason.startswith("timeout: ") and "limit 0.01 s" in o.reason


def test_submitted_moves_are_checked_and_change_nothing_when_bad() -> None:
    ref = Referee(Round.deal(seed=2), [None, None])
    before = ref.round.tables()
    snapshot = (before.hands[0][:], before.hands[1][:], ref.round.ply)
    with pytest.raises(NotYourTurnError, match="player 0's turn, not player 1's"):
        ref.submit(ref.view(0).legal_moves()[0], player=1)
    with pytest.raises(InvalidMoveError):
        ref.submit("*y2.")
    with pytest.raises(IllegalMoveError, match="not in the classic variant"):
        ref.submit("+p10.")
    absent = next(c for c in ref.round.hands[1] if c.rank)
    with pytest.raises(IllegalMoveError, match="not in player 0's hand"):
        ref.submit(Move.discard(absent))
    t = ref.round.tables()
    assert (t.hands[0][:], t.hands[1][:], ref.round.ply) == snapshot
    m = ref.submit(str(ref.view(0).legal_moves()[0]), player=0)
    assert ref.round.history == (m,)
    with pytest.raises(NotYourTurnError, match="submit its move"):
        ref.step()


def test_advance_stops_where_a_person_must_move() -> None:
    bot = First()
    ref = Referee(Round.deal(seed=5, starter=1), [None, bot])
    assert ref.advance() == 1 and ref.to_move == 0
    ref.submit(ref.view(0).legal_moves()[-1])
    assert ref.advance() == 1 and ref.to_move == 0 and ref.round.ply == 3


def test_undo_only_where_allowed() -> None:
    bot = First()
    undone: list[Event] = []
    ref = Referee(Round.deal(seed=6), [None, bot], undo=True, on_event=undone.append)
    with pytest.raises(UndoError, match="nothing to undo"):
        ref.undo()
    first = ref.submit(next(m for m in ref.view(0).legal_moves() if m.action is Action.DISCARD))
    ref.advance()
    before = list(ref.round.history)
    m = ref.submit(next(m for m in ref.view(0).legal_moves() if m.draw is not None))
    assert ref.undo_blocker() is None
    assert ref.undo() == m and ref.round.ply == 2 and ref.round.history[0] == first
    assert isinstance(undone[-1], Undone) and undone[-1].move == m  # type: ignore[attr-defined]
    assert bot.told == [(before[0], 0), (before[1], 1)]  # restarted, told the remaining moves
    ref.submit(m)
    ref.advance()  # the bot replied
    with pytest.raises(UndoError, match="before the other side replies"):
        ref.undo()
    assert (
        Referee(Round.deal(seed=6), undo=False).undo_blocker() == "undo is not allowed in this game"
    )


def test_set_player_tells_a_new_player_the_round_so_far() -> None:
    ref = Referee(Round.deal(seed=8), [First(), First()])
    for _ in range(6):
        ref.step()
    fresh = First()
    ref.set_player(1, fresh)
    assert fresh.seats == [1] and [m for m, _ in fresh.told] == list(ref.round.history)
    assert [p for _, p in fresh.told] == [i & 1 for i in range(6)]


def test_a_whole_match() -> None:
    starts: list[int] = []
    m = Match(rounds=3, seed=3)
    ref = Referee(
        m,
        [First(), First()],
        on_event=lambda e: starts.append(e.round_index) if isinstance(e, RoundStarted) else None,
    )
    ref.play_match()
    assert m.is_over() and len(m.rounds) == 3 and starts == [0, 1, 2]
    with pytest.raises(ValueError, match="is over"):
        ref.start_round()
    single = Referee(Round.deal(seed=1), [First(), First()])
    with pytest.raises(ValueError, match="single round"):
        single.start_round()


def test_a_player_that_cannot_restart_forfeits() -> None:
    class NoStart(First):
        def restart(self, variant: Variant, seat: int) -> None:
            raise OSError("no engine")

    ref = Referee(Match(rounds=1, seed=1, starter=0), [NoStart(), First()])
    ref.start_round()
    o = ref.round.outcome()
    assert o is not None and o.winner == 1 and o.reason == "crash: OSError: no engine"


def test_forfeit_reasons() -> None:
    assert forfeit_reason(BotTimeoutError("slow")) == "timeout: slow"
    assert forfeit_reason(IllegalMoveError("x")) == "illegal move: x"
    assert forfeit_reason(KeyError("k")) == "crash: KeyError: 'k'"


def test_undo_never_takes_back_a_draw_from_the_draw_pile() -> None:
    # issue 14, defect 1: undoing a move that drew from the draw pile let the player see the
    # next card and then play differently (a peek at the hidden pile). Undo is refused then;
    # a move that drew a discard pile's (public) top card may still be taken back.
    bot = First()
    ref = Referee(Round.deal(seed=6), [None, bot], undo=True)
    blind = next(
        m for m in ref.view(0).legal_moves() if m.action is Action.DISCARD and m.draw is None
    )
    ref.submit(blind)
    assert "drawing from the draw pile" in (ref.undo_blocker() or "")
    with pytest.raises(UndoError, match="drawing from the draw pile"):
        ref.undo()
    assert ref.round.ply == 1 and ref.round.history[0] == blind  # nothing changed
    ref.advance()  # the bot replies; now a discard pile has a card (the one discarded)
    public = next(m for m in ref.view(0).legal_moves() if m.draw is not None)
    hand = ref.view(0).hand
    ref.submit(public)
    assert ref.undo_blocker() is None
    assert ref.undo() == public and ref.view(0).hand == hand


def test_players_in_a_match_see_the_round_and_the_totals_so_far() -> None:
    a, b = First(), First()
    m = Match(rounds=3, seed=4, starter=0)
    ref = Referee(m, [a, b])
    totals_at_start: list[tuple[int, int]] = []
    ref.subscribe(
        lambda e: totals_at_start.append(m.totals()) if isinstance(e, RoundStarted) else None
    )
    ref.play_match()
    for bot, seat in ((a, 0), (b, 1)):
        seen = {(v.match.round, v.match.totals) for v in bot.views if v.match is not None}
        assert len(seen) == 3 and all(
            v.match is not None and v.match.player == seat for v in bot.views
        )
        assert sorted(seen) == [(i + 1, t) for i, t in enumerate(totals_at_start)]
    # a referee of a lone round gives views without a match
    lone = First()
    Referee(Round.deal(seed=4), [lone, First()]).play()
    assert lone.views and all(v.match is None for v in lone.views)
