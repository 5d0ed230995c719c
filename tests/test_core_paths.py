"""The core's shortcuts (issue 28) give what the general code gives: a move's notation from
its table, ``scores()`` summed inline, ``pop()`` restoring every part of a round."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lostcities import Round
from lostcities.rules import Action, Move
from lostcities.scoring import GOAL_POINTS, score_expedition


def test_move_notation_is_made_from_the_fields() -> None:
    for i in range(840):
        m = Move.from_index(i)
        want = f"{m.action.value}{m.card}{'.' if m.draw is None else m.draw.letter}"
        assert str(m) == want and Move.parse(want) is m
    odd = Move(Action.PLAY, "y7", None)  # type: ignore[arg-type]  # not a Card: not in the table
    assert str(odd) == "+y7."


def _snapshot(r: Round) -> tuple[object, ...]:
    return (
        r.to_move,
        r.ply,
        r.is_over(),
        r.outcome(),
        tuple(tuple(h) for h in r.hands),
        r.deck_size,
        tuple(tuple(r.expeditions[p].values()) for p in (0, 1)),
        tuple(r.discard_piles.values()),
        r.view(0),
        r.view(1),
        tuple(r.legal_moves()),
        r.claims,
    )


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.booleans())
@example(seed=1751, goals=False, forfeit=True)  # a forfeit before the first move
def test_scores_and_pop(seed: int, goals: bool, forfeit: bool) -> None:
    """At every ply ``scores()`` is the score sheets' sum (plus the goals held), and popping
    back from the end (a forfeit included) gives every earlier position exactly."""
    rng = random.Random(seed)
    r = Round.deal(seed=seed, achievements=True if goals else None)
    snaps = []
    while not r.is_over():
        sheet = [
            sum(score_expedition(e, check=False).score for e in r.expeditions[p].values())
            for p in (0, 1)
        ]
        for c in r.claims:
            if c is not None:
                sheet[c] += GOAL_POINTS
        assert r.scores() == tuple(sheet)
        snaps.append(_snapshot(r))
        if forfeit and rng.random() < 0.02:
            r.forfeit(rng.randrange(2), "gone")
            break
        legal = r.legal_moves()
        r.push(legal[rng.randrange(len(legal))])
    end = _snapshot(r)
    if r.ply < len(snaps):  # the forfeit at the last ply: pop undoes it with the move before
        assert end[3] is not None and end[3].reason == "gone"
        if r.ply == 0:  # forfeited before the first move: nothing to pop back to
            assert r.is_over()
            return
    while r.ply:
        r.pop()
        assert _snapshot(r) == snaps[r.ply]
    assert r.ply == 0 and not r.is_over()
