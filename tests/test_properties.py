"""Hypothesis properties of random legal play."""

from __future__ import annotations

import io
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lostcities import NUM_MOVES, Card, IllegalMoveError, Move, Round
from lostcities.record import GameRecord, read_records

seeds = st.integers(min_value=0, max_value=2**32)
variants = st.sampled_from(["classic", "long"])


def _all_cards(r: Round) -> Counter[Card]:
    c: Counter[Card] = Counter()
    for p in (0, 1):
        c.update(r.hands[p])
        for e in r.expeditions[p].values():
            c.update(e)
    for pile in r.discard_piles.values():
        c.update(pile)
    c.update(r.draw_pile)
    return c


@given(seeds, variants)
def test_random_play_ends_and_conserves_cards(seed: int, variant: str) -> None:
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant)
    full = Counter(r.variant.deck())
    plies = 0
    while not r.is_over():
        assert _all_cards(r) == full
        moves = r.legal_moves()
        assert moves, "a round that is not over always has a move"
        r.push(moves[rng.randrange(len(moves))])
        plies += 1
        assert plies < 5000
    assert _all_cards(r) == full and r.deck_size == 0
    assert r.scores() == tuple(sum(e.score for e in r.score_breakdown(p).values()) for p in (0, 1))


@given(seeds, variants, st.integers(min_value=1, max_value=120))
def test_pop_restores_the_exact_state(seed: int, variant: str, plies: int) -> None:
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant)
    states = []
    while not r.is_over() and r.ply < plies:
        states.append(_snapshot(r))
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    while r.history:
        r.pop()
        assert _snapshot(r) == states.pop()


def _snapshot(r: Round) -> object:
    return (
        r.hands,
        tuple(tuple(e.values()) for e in r.expeditions),
        tuple(r.discard_piles.values()),
        r.draw_pile,
        r.known_cards(0),
        r.known_cards(1),
        r.to_move,
        r.is_over(),
        tuple(r.legal_moves()),
        r.tables().hands[0][:],  # slot order too: pop is exact, not just equal as a set
        r.tables().hands[1][:],
        [k[:] for k in r.tables().known],
    )


ALL_MOVES = tuple(Move.from_index(i) for i in range(NUM_MOVES))
"""Every move of the numbering, in every variant: colours, draws and cards the variant may
not have included."""


@given(
    seeds,
    variants,
    st.booleans(),
    st.integers(min_value=0, max_value=150),
    st.sampled_from([None, None, 25]),
)
def test_exactly_the_moves_without_a_reason_are_listed(
    seed: int, variant: str, goals: bool, plies: int, max_turns: int | None
) -> None:
    """``legal_moves`` and the reasons of ``why_illegal`` / ``push`` are two statements of
    one rule: of all 840 moves, a move is listed if and only if it has no reason, for the
    round and for both players' views; a move not listed is refused by ``push`` with that
    reason and changes nothing, a listed one is accepted."""
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant, achievements=goals or None, max_turns=max_turns)
    while not r.is_over() and r.ply < plies:
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    views = (r.view(0), r.view(1))
    listed = (set(views[0].legal_moves()), set(views[1].legal_moves()))
    legal = set(r.legal_moves())
    assert legal == listed[r.to_move] and not listed[1 - r.to_move]
    before = _snapshot(r)
    for move in ALL_MOVES:
        for p in (0, 1):
            reason = views[p].why_illegal(move)
            assert (reason is None) == (move in listed[p]), (p, str(move), reason)
        reason = views[r.to_move].why_illegal(move)
        assert r.is_legal(move) == (move in legal) == (reason is None), (str(move), reason)
        if move in legal:
            r.push(move)
            r.pop()
            continue
        assert reason, str(move)
        with pytest.raises(IllegalMoveError) as refused:
            r.push(move)
        assert str(refused.value) == f"illegal move: {str(move)!r} ({reason})"
    assert _snapshot(r) == before


@given(seeds, variants, st.integers(min_value=0, max_value=150))
def test_views_never_contain_a_hidden_card(seed: int, variant: str, plies: int) -> None:
    """Two worlds that differ only in hidden cards give identical views; and no view holds
    a card of the opponent's hand other than the known ones."""
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant)
    while not r.is_over() and r.ply < plies:
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    for p in (0, 1):
        v = r.view(p)
        other = v.sample_round(random.Random(seed + 1))  # hidden cards re-dealt
        assert other.view(p) == v
        hidden = Counter(r.hands[p ^ 1]) - Counter(r.known_cards(p ^ 1))
        in_view = Counter(v.hand)
        for e in v.expeditions[0] + v.expeditions[1]:
            in_view.update(e)
        for pile in v.discard_piles:
            in_view.update(pile)
        in_view.update(v.opponent_known)
        # every card the view shows is accounted for by public places or own hand
        public = Counter(v.hand) + Counter(r.known_cards(p ^ 1))
        for e in r.expeditions[0].values():
            public.update(e)
        for e in r.expeditions[1].values():
            public.update(e)
        for pile in r.discard_piles.values():
            public.update(pile)
        assert in_view == public
        assert not (set(hidden) - set(public)) & set(in_view - Counter(v.hand))


@given(seeds, variants, st.integers(min_value=1, max_value=3))
def test_records_round_trip(seed: int, variant: str, rounds: int) -> None:
    from lostcities import Match

    rng = random.Random(seed)
    m = Match(rounds, variant=variant, seed=seed)
    while not m.is_over():
        r = m.new_round()
        while not r.is_over():
            moves = r.legal_moves()
            r.push(moves[rng.randrange(len(moves))])
    rec = GameRecord.from_match(m, players=("a b", 'c "d"'))
    text = str(rec)
    back = list(read_records(io.StringIO(text + "\n" + text)))
    assert len(back) == 2 and all(not b.errors for b in back)
    assert str(back[0]) == text and back[1].players == ("a b", 'c "d"')
    replayed = back[0].replay()
    assert replayed.totals() == m.totals() and replayed.result() == m.result()
    assert [x.history for x in replayed.rounds] == [x.history for x in m.rounds]
