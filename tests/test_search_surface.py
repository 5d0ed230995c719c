"""The core's public search surface: move numbers, the playability rule, unchecked push,
worlds built from a view, the world sampler, live tables, why a move is illegal."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities import (
    NUM_MOVES,
    PLAYABLE,
    Card,
    IllegalMoveError,
    InvalidDeckError,
    InvalidMoveError,
    Move,
    Round,
    WorldSampler,
    playable,
)
from lostcities.cards import ALL_CARDS, RANKS, Color
from lostcities.rules import Action


def _played(seed: int, plies: int, variant: str = "classic") -> Round:
    r = Round.deal(seed=seed, variant=variant)
    rng = random.Random(seed)
    for _ in range(plies):
        if r.is_over():
            break
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    return r


def test_every_move_has_one_number() -> None:
    seen = set()
    for card in ALL_CARDS:
        for action in Action:
            for draw in (None, *Color):
                m = Move(action, card, draw)
                assert 0 <= m.index < NUM_MOVES
                assert Move.from_index(m.index) == m
                seen.add(m.index)
    assert len(seen) == NUM_MOVES == 840
    assert Move.parse("+y2.").index == 7


@pytest.mark.parametrize("bad", [-1, 840, 10**6, True])
def test_from_index_rejects_numbers_out_of_range(bad: int) -> None:
    with pytest.raises(InvalidMoveError, match="invalid move index"):
        Move.from_index(bad)


def test_playable_is_the_rule() -> None:
    for rank in RANKS:
        for top in range(11):
            want = (top == 0) if rank == 0 else rank > top
            assert playable(rank, top) is want
            assert PLAYABLE[rank][top] is want


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 120), st.sampled_from(["classic", "long"]))
def test_push_unchecked_is_push_for_legal_moves(seed: int, plies: int, variant: str) -> None:
    a = Round.deal(seed=seed, variant=variant)
    b = Round.deal(seed=seed, variant=variant)
    rng = random.Random(seed)
    for _ in range(plies):
        if a.is_over():
            break
        m = a.legal_moves()[rng.randrange(len(a.legal_moves()))]
        a.push(m)
        b.push_unchecked(m)
        assert a.tables() == b.tables()
        assert a.termination == b.termination


def test_tables_are_the_live_state() -> None:
    r = _played(3, 20)
    t = r.tables()
    assert [sorted(h) for h in t.hands] == [list(h) for h in r.hands]
    assert list(reversed(t.deck)) == list(r.draw_pile)
    assert [tuple(p) for p in t.piles] == list(r.discard_piles.values())
    for p in (0, 1):
        assert sorted(t.known[p]) == list(r.known_cards(p))
        for c in r.variant.colors:
            exp = r.expeditions[p][c]
            assert tuple(t.expeditions[p][c]) == exp
            assert t.tops[p][c] == max((x.rank for x in exp), default=0)
    r.push(r.legal_moves()[0])
    assert r.tables().hands is t.hands  # live, not a copy


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 90), st.sampled_from(["classic", "long"]))
def test_why_illegal_agrees_with_push(seed: int, plies: int, variant: str) -> None:
    r = _played(seed, plies, variant)
    if r.is_over():
        return
    view = r.view(r.to_move)
    rng = random.Random(seed)
    for _ in range(30):
        m = Move.from_index(rng.randrange(NUM_MOVES))
        reason = view.why_illegal(m)
        if m.card.color >= r.variant.num_colors:
            assert reason is not None
            continue
        try:
            r.copy().push(m)
        except IllegalMoveError as e:
            assert reason is not None and reason in str(e)
        else:
            assert reason is None
    other = r.view(r.to_move ^ 1)
    assert other.why_illegal(next(iter(view.legal_moves()))) == (
        f"it is player {r.to_move}'s turn, not player {r.to_move ^ 1}'s"
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 100), st.sampled_from(["classic", "long"]))
def test_sampled_worlds_fit_the_view(seed: int, plies: int, variant: str) -> None:
    r = _played(seed, plies, variant)
    for p in (0, 1):
        view = r.view(p)
        sampler = view.sampler()
        w = sampler.sample(random.Random(seed))
        assert w.view(p) == view  # the viewer cannot tell the world from the real round
        assert w.history == r.history and w.is_over() == r.is_over()
        assert set(view.opponent_known) <= set(w.hands[p ^ 1])
        assert w.tables().hands[p ^ 1][: len(sampler.known)] == list(sampler.known)
        assert sorted([*w.hands[p ^ 1], *w.draw_pile]) == sorted([*sampler.unseen, *sampler.known])
        # the same generator state gives the same world, as sample_round does
        assert view.sample_round(random.Random(seed)).tables() == w.tables()
        # and deal() of the shuffled order is sample()
        order = list(sampler.unseen)
        random.Random(seed).shuffle(order)
        assert sampler.deal(order).tables() == w.tables()
        if not view.over and view.to_move == p:
            assert list(w.legal_moves()) == list(view.legal_moves())


def _recall(r: Round, p: int) -> list[Card]:
    """What player ``p`` of ``r`` was dealt and drew from the draw pile, in order."""
    hs = r.variant.hand_size
    out = list(r.deal_order[p * hs : (p + 1) * hs])
    slot, mover = 2 * hs, r.starter
    for move in r.history:
        if move.draw is None:
            if mover == p:
                out.append(r.deal_order[slot])
            slot += 1
        mover ^= 1
    return out


def _replay(r: Round, deal: list[Card]) -> Round:
    w = Round.from_deck(deal, r.starter, r.variant, max_turns=r.max_turns)
    for move in r.history:
        w.push(move)
    return w


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32),
    st.integers(0, 110),
    st.sampled_from(["classic", "long"]),
    st.integers(0, 40),
)
def test_sampled_deals_lead_to_the_view(seed: int, plies: int, variant: str, cut: int) -> None:
    """``sample_deal``: a deal whose round, after the history, the player cannot tell from
    the real one; the recalled cards stay in their slots, the hidden ones are the world
    ``sample`` deals from the same generator state, and however little is recalled the
    deal still fits."""
    r = _played(seed, plies, variant)
    hs = r.variant.hand_size
    for p in (0, 1):
        view = r.view(p)
        sampler = view.sampler()
        recall = _recall(r, p)
        deal = sampler.sample_deal(random.Random(seed), recall)
        w = _replay(r, deal)
        assert w.view(p) == view and w.is_over() == r.is_over()
        mine = [c for i, c in enumerate(deal) if i in range(p * hs, (p + 1) * hs)]
        assert mine == recall[:hs]
        world = sampler.sample(random.Random(seed))
        assert w.hands[p ^ 1] == world.hands[p ^ 1] and w.draw_pile == world.draw_pile
        short = recall[: min(cut, len(recall))]
        deal = sampler.sample_deal(random.Random(seed + 1), short)
        assert _replay(r, deal).view(p) == view
        assert deal[p * hs : p * hs + len(short[:hs])] == short[:hs]


def test_sampled_deals_vary_where_the_view_is_silent() -> None:
    """The opponent's played cards land in different slots of its deal, its unplayed ones
    vary, and the player's own recalled cards never move."""
    r = _played(3, 40)
    view = r.view(0)
    sampler = view.sampler()
    recall = _recall(r, 0)
    deals = [sampler.sample_deal(random.Random(k), recall) for k in range(30)]
    assert len({tuple(d[8:16]) for d in deals}) > 20
    movers = [r.starter ^ (i & 1) for i in range(r.ply)]
    played = {m.card for m, p in zip(r.history, movers, strict=True) if p == 1}
    slots = {i for d in deals for i in range(8, 16) if d[i] in played}
    assert len(slots) > 3
    assert all(d[:8] == list(r.deal_order[:8]) for d in deals)


def test_sampled_deals_of_finished_rounds() -> None:
    """Over by the draw pile, by the turn cap and by a forfeit: who moved first follows
    from the view each time."""
    ended = _played(4, 200)
    capped = Round.deal(seed=6, max_turns=21)
    while not capped.is_over():
        capped.push(capped.legal_moves()[0])
    forfeited = _played(8, 23)
    forfeited.forfeit(forfeited.to_move, "timeout")
    for r in (ended, capped, forfeited):
        assert r.is_over()
        for p in (0, 1):
            view = r.view(p)
            deal = view.sampler().sample_deal(random.Random(1), _recall(r, p))
            seen = _replay(r, deal).view(p)  # a forfeit is not a move: not replayed
            assert (seen if r is not forfeited else dataclasses.replace(seen, over=True)) == view


def test_sample_deal_refuses_a_recall_that_does_not_fit() -> None:
    r = _played(9, 30)
    view = r.view(0)
    recall = _recall(r, 0)
    sampler = view.sampler()
    with pytest.raises(ValueError, match="more recalled cards"):
        sampler.sample_deal(random.Random(1), [*recall, r.draw_pile[0]])
    wrong = [c for c in r.deal_order[8:16] if c not in recall][:1] + recall[1:]
    with pytest.raises(ValueError, match="world sampler"):
        sampler.sample_deal(random.Random(1), wrong)


def test_the_real_round_is_one_of_the_worlds() -> None:
    r = _played(11, 17)
    view = r.view(0)
    real = Round.from_view(view, r.tables().hands[1], r.draw_pile)
    assert real.tables() == r.tables() or sorted(real.tables().hands[1]) == list(r.hands[1])
    assert real.draw_pile == r.draw_pile and real.scores() == r.scores()
    while not r.is_over():
        m = r.legal_moves()[0]
        r.push(m)
        real.push(m)
    assert real.outcome() == r.outcome()


def test_from_view_rejects_cards_that_do_not_fit() -> None:
    r = _played(5, 10)
    view = r.view(0)
    hand = list(r.tables().hands[1])
    with pytest.raises(InvalidDeckError, match="opponent's hand has 7 cards"):
        Round.from_view(view, hand[:-1], r.draw_pile)
    with pytest.raises(InvalidDeckError, match="invalid deck"):
        Round.from_view(view, [*hand[:-1], view.hand[0]], r.draw_pile)
    with pytest.raises(InvalidDeckError, match="invalid deck"):
        Round.from_view(view, hand, r.draw_pile[:-1])


def test_from_view_insists_on_the_known_cards() -> None:
    r = Round.deal(seed=2)
    for _ in range(40):  # until player 1 has taken a card from a pile
        if r.known_cards(1):
            break
        moves = r.legal_moves()
        takes = [m for m in moves if m.draw is not None]
        r.push(takes[0] if takes and r.to_move == 1 else moves[0])
    if not r.known_cards(1):
        pytest.skip("no discard-pile draw in this deal")
    view = r.view(0)
    known = r.known_cards(1)[0]
    swap = next(c for c in r.draw_pile if c != known)
    hand = [swap if c == known else c for c in r.tables().hands[1]]
    pile = [known if c == swap else c for c in r.draw_pile]
    with pytest.raises(InvalidDeckError, match="known to hold"):
        Round.from_view(view, hand, pile)


def test_a_sampler_refuses_a_view_that_does_not_add_up() -> None:
    view = Round.deal(seed=1).view(0)
    import dataclasses

    broken = dataclasses.replace(view, deck_size=view.deck_size - 1)
    with pytest.raises(ValueError, match="inconsistent"):
        WorldSampler(broken)


def test_set_next_draw() -> None:
    r = Round.deal(seed=9)
    pile = r.draw_pile
    card = pile[10]
    r.set_next_draw(card)
    assert r.draw_pile[0] == card and sorted(r.draw_pile) == sorted(pile)
    r.push(Move(Action.DISCARD, r.hands[0][0], None))
    assert card in r.hands[0]
    held = next(c for c in r.hands[0] if c.rank)  # number cards are unique
    with pytest.raises(ValueError, match="not in the draw pile"):
        r.set_next_draw(held)
    assert isinstance(held, Card)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 80), st.sampled_from(["classic", "long"]))
def test_earlier_views_are_the_past_views_without_hands(
    seed: int, plies: int, variant: str
) -> None:
    from dataclasses import replace

    r = Round.deal(seed=seed, variant=variant, starter=seed % 2)
    rng = random.Random(seed)
    past = []
    for _ in range(plies):
        moves = r.legal_moves()
        if r.deck_size <= 1:
            break
        past.append(replace(r.view(r.to_move), hand=()))
        r.push(moves[rng.randrange(len(moves))])
    for player in (0, 1):
        assert r.view(player).earlier_views() == past


def test_earlier_views_refuse_a_finished_round() -> None:
    r = _played(5, 400)
    assert r.is_over()
    with pytest.raises(ValueError, match="round is over"):
        r.view(0).earlier_views()
