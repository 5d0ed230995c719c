"""Analysis (lostcities.bots.analysis): the best move of constructed positions, the marks,
the mover's view alone, both engines alike, and the errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from lostcities import Move, Round
from lostcities.bots import BotError, make
from lostcities.bots.analysis import (
    MoveReview,
    Position,
    evaluate,
    mark,
    position_seed,
    positions,
    review,
    summary,
)
from lostcities.errors import IllegalMoveError
from lostcities.record import read_records

DATA = Path(__file__).resolve().parent.parent / "data" / "analysis_endgame.txt"


def _record_round(game: int, plies: int | None = None) -> Round:
    """Round 1 of record ``game`` of the endgame file, after ``plies`` of its moves (all)."""
    with DATA.open(encoding="utf-8") as f:
        rec = list(read_records(f))[game]
    rr = rec.rounds[0]
    r = Round.from_deck(rr.deck, rr.starter)
    for m in rr.moves[:plies]:
        r.push(m)
    return r


def test_taking_the_last_card_while_ahead_ranks_first() -> None:
    # player 0 leads 14 to -78 with one card left to draw and nothing to add; the
    # opponent holds y6 (taken from a discard pile), playable on its yellow expedition
    r = _record_round(0)
    v = r.view(r.to_move)
    assert v.deck_size == 1 and r.scores()[r.to_move] > r.scores()[r.to_move ^ 1]
    a = make("ismcts:top=0").analyse(v, worlds=100, seed=1)
    assert len(a.moves) == len(v.legal_moves())  # top=0: every legal move
    assert a.best.draw is None  # the draw pile: the round ends now
    stall = max(e.margin for e in a.moves if e.move.draw is not None)
    assert a.moves[0].margin >= stall + 3  # giving the opponent a turn costs points
    assert a.win == 1.0


def test_a_wager_into_an_empty_expedition_on_the_last_turn_is_a_blunder() -> None:
    r = _record_round(1, 44)
    v = r.view(r.to_move)
    wager = Move.parse("+rx.")
    assert v.deck_size == 1 and not v.expeditions[v.player][4] and v.is_legal(wager)
    pos = Position(1, 44, v, wager)
    for spec in ("ismcts", "expert"):
        m = review(make(spec), pos, worlds=50)
        assert m.mark == "blunder" and m.loss == pytest.approx(40.0), spec
        assert m.best != wager and m.margin == m.best_margin - 40


def test_the_analysis_never_reads_the_opponents_hidden_cards() -> None:
    base = Round.deal(seed=11)
    deck = list(base.deal_order)
    # swap the opponent's (player 1's) whole hand with cards of the draw pile
    swapped = deck[:8] + deck[20:28] + deck[16:20] + deck[8:16] + deck[28:]
    a_round, b_round = Round.from_deck(deck), Round.from_deck(swapped)
    assert a_round.hands[1] != b_round.hands[1] and a_round.hands[0] == b_round.hands[0]
    played = a_round.legal_moves()[3]
    out = []
    for r in (a_round, b_round):
        out.append(review(make("ismcts"), Position(1, 0, r.view(0), played), worlds=60, seed=5))
        out.append(make("expert").analyse(r.view(0), worlds=40, seed=5, played=played))
    assert out[0] == out[2] and out[1] == out[3]


def test_the_compiled_and_the_python_engine_give_the_same_figures() -> None:
    r = Round.deal(seed=4)
    v = r.view(0)
    cands = list(v.legal_moves())[:4]
    fast = evaluate(v, cands, worlds=12, rng=random.Random(3), engine="fast")
    slow = evaluate(v, cands, worlds=12, rng=random.Random(3), engine="python")
    assert fast == slow
    cheap = evaluate(v, cands, worlds=12, rng=random.Random(3), rollout="cheap", engine="python")
    assert cheap == evaluate(v, cands, worlds=12, rng=random.Random(3), rollout="cheap")


def test_figures_add_up() -> None:
    r = Round.deal(seed=8)
    v = r.view(0)
    a = make("ismcts", seed=2).analyse(v, worlds=80)
    assert a.worlds == 80 and len({e.move for e in a.moves}) == len(a.moves)
    margins = [e.margin for e in a.moves]
    assert margins == sorted(margins, reverse=True)
    assert all(0 <= e.win <= 1 and -1 <= e.value <= 1 for e in a.moves)
    assert a.loss(a.best) == 0 and all(a.loss(e.move) >= 0 for e in a.moves)
    # the budget: the bot's own iters spread over the moves, or a time limit
    b = make("ismcts:iters=300").analyse(v)
    assert b.worlds == -(-300 // len(b.moves))
    assert make("ismcts").analyse(v, time_limit=0.05).worlds >= 1


def test_errors() -> None:
    r = Round.deal(seed=1)
    with pytest.raises(BotError, match="cannot analyse"):
        make("heuristic").analyse(r.view(0), worlds=5)
    with pytest.raises(BotError, match="no legal move"):
        make("ismcts").analyse(r.view(1), worlds=5)
    with pytest.raises(IllegalMoveError, match="not in player 0's hand"):
        make("ismcts").analyse(r.view(0), worlds=5, played=Move.parse("+w5."))
    with pytest.raises(ValueError, match="no candidate"):
        evaluate(r.view(0), [], worlds=1, rng=random.Random())


def test_marks_positions_and_seeds() -> None:
    assert [mark(x) for x in (3.99, 4, 7.99, 8, 14.99, 15)] == [
        None,
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
    ]
    r = Round.deal(seed=2)
    for _ in range(6):
        r.push(r.legal_moves()[0])
    ps = positions([r])
    assert [(p.round, p.ply, p.view.player) for p in ps][:3] == [(1, 0, 0), (1, 1, 1), (1, 2, 0)]
    assert [p.move for p in ps] == list(r.history)
    assert len({position_seed(0, 1, k) for k in range(100)} | {position_seed(1, 1, 0)}) == 101


def test_summary_leaves_forced_moves_out() -> None:
    mv = Move.parse("-b9.")
    forced = MoveReview(1, 0, 0, mv, mv, 20.0, 0.0, 0.0, 20.0, 0.5, 0.5, True, 10)
    bad = MoveReview(1, 2, 0, mv, Move.parse("+b9."), 20.0, 0.1, 0.0, 20.0, 0.4, 0.5, False, 10)
    assert forced.mark is None and bad.mark == "blunder"
    s = summary([forced, bad], 0)
    assert s["moves"] == 1 and s["blunders"] == 1 and s["average_loss"] == 20.0
    assert s["accuracy"] == pytest.approx(0.0, abs=0.1)  # a 20-point loss keeps exp(-10)
    assert summary([forced, bad], 1)["moves"] == 0


def test_any_bot_that_says_its_search_setup_can_be_analysed() -> None:
    """The analysis asks the bot (Bot.search_setup), not its type: a bot of one's own that
    searches two moves gets exactly those two evaluated."""
    from lostcities.bots import Bot, SearchSetup
    from lostcities.rules import PlayerView

    class TwoMoves(Bot):
        name = "two"

        def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
            return view.legal_moves()[0]

        def search_setup(self, view: PlayerView) -> SearchSetup:
            return SearchSetup(list(view.legal_moves()[:2]), 15.0, "smart", "python", 40, None)

    view = Round.deal(seed=5).view(0)
    a = TwoMoves(seed=1).analyse(view)
    assert sorted(str(e.move) for e in a.moves) == sorted(str(m) for m in view.legal_moves()[:2])
    assert a.worlds == 20  # iters=40 over the two moves
