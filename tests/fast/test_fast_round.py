"""FastRound: the single-round API of the fast path."""

from __future__ import annotations

import pytest

from lostcities import IllegalMoveError, InvalidMoveError, Move, Round, Termination
from lostcities.bots.rollout import playout

pytest.importorskip("numba")

from lostcities.fast import FastRound


def test_push_checks_and_changes_nothing_on_error() -> None:
    r = Round.deal(seed=5)
    f = FastRound.from_round(r)
    before = f.state.copy()
    illegal = next(
        m
        for m in (Move.parse(f"+{c}.") for c in ("y2", "b2", "w2", "g2", "r2"))
        if not r.is_legal(m)
    )
    with pytest.raises(IllegalMoveError):
        f.push(illegal)
    with pytest.raises(InvalidMoveError, match="invalid action"):
        f.push(840)
    with pytest.raises(IllegalMoveError):
        f.push(illegal.index)
    assert (f.state == before).all()
    m = r.legal_moves()[3]
    f.push(m.index)  # by index
    r.push(m)
    assert f.legal_moves() == list(r.legal_moves()) and f.ply == r.ply == 1
    assert f.to_move == r.to_move and f.deck_size == r.deck_size


def test_copy_is_independent_and_playout_leaves_it_unchanged() -> None:
    r = Round.deal(seed=6)
    for _ in range(10):
        r.push(r.legal_moves()[0])
    f = FastRound.from_round(r)
    g = f.copy()
    g.push(g.legal_moves()[0])
    assert f.ply == 10 and g.ply == 11
    before = f.state.copy()
    assert f.playout() == playout(r)
    assert (f.state == before).all()


def test_end_of_round_and_termination() -> None:
    r = Round.deal(seed=7, max_turns=4)
    f = FastRound.from_round(r)
    assert f.termination is None and not f.is_over()
    for _ in range(4):
        f.push(f.legal_moves()[0])
    assert f.is_over() and f.termination is Termination.TURN_LIMIT
    assert f.legal_moves() == [] and len(f.legal_actions()) == 0
    assert "over" in repr(f)
    r2 = Round.deal(seed=7)
    f2 = FastRound.from_round(r2)
    while not f2.is_over():
        f2.push(f2.legal_actions()[0])  # plays first: a short round
        r2.push(r2.legal_moves()[0])
    assert f2.termination is Termination.DRAW_PILE_EMPTY is r2.termination
    assert f2.scores() == r2.scores() and f2.deck_size == 0
