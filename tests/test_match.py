from __future__ import annotations

import pytest
from core_helpers import deck_with

from lostcities import Match, Round


def _finish(r: Round, prefer_draw_pile: bool = True) -> None:
    while not r.is_over():
        moves = r.legal_moves()
        r.push(next((m for m in moves if m.draw is None), moves[0]) if prefer_draw_pile else moves[0])


def test_three_rounds_add_up_and_higher_total_starts() -> None:
    m = Match(seed=7, starter=1)
    assert m.num_rounds == 3 and m.next_starter() == 1
    totals = [0, 0]
    while not m.is_over():
        expected = m.next_starter()
        r = m.new_round()
        assert r.starter == expected
        _finish(r)
        totals = [totals[0] + r.scores()[0], totals[1] + r.scores()[1]]
        assert m.totals() == tuple(totals)
        if not m.is_over():
            a, b = totals
            if a != b:
                assert m.next_starter() == (0 if a > b else 1)
            else:
                assert m.next_starter() == r.starter ^ 1
    assert m.result() in ("1-0", "0-1", "1/2-1/2")
    assert m.winner() == (0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else None)


def test_tie_rule_directly() -> None:
    m = Match(3, starter=1)
    r = m.new_round(deck_with("y2 y3 y4 y5 y6 y7 y8 y9", "b2 b3 b4 b5 b6 b7 b8 b9"))
    # both only discard: 0 - 0
    while not r.is_over():
        r.push(next(mv for mv in r.legal_moves() if mv.action.value == "-" and mv.draw is None))
    assert m.totals() == (0, 0) and m.next_starter() == 0
    assert m.result() == "*"


def test_first_starter_drawn_from_the_seed_and_errors() -> None:
    assert Match(seed=3).first_starter == Match(seed=3).first_starter
    assert {Match(seed=s).first_starter for s in range(20)} == {0, 1}
    m = Match(1, seed=1)
    m.new_round()
    with pytest.raises(ValueError, match="not over"):
        m.new_round()
    with pytest.raises(ValueError, match="rounds"):
        Match(0)


def test_forfeit_loses_the_match() -> None:
    m = Match(3, seed=1, starter=0)
    r = m.new_round()
    r.forfeit(0, "crashed")
    assert m.is_over() and m.winner() == 1 and m.result() == "0-1"


def test_one_round_draw() -> None:
    m = Match(1, starter=0)
    r = m.new_round(deck_with("y2 y3 y4 y5 y6 y7 y8 y9", "b2 b3 b4 b5 b6 b7 b8 b9"))
    while not r.is_over():
        r.push(next(mv for mv in r.legal_moves() if mv.action.value == "-" and mv.draw is None))
    assert m.result() == "1/2-1/2" and m.winner() is None
