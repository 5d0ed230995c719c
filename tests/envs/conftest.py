"""Shared helpers for the env tests: pairs of worlds that differ only in hidden cards."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from lostcities import Card, Move, Round


@dataclass
class Worlds:
    """Two decks (dealing order) giving rounds that look the same to ``observer`` through
    ``moves`` but differ in the opponent's hand and the draw pile."""

    deck_a: list[Card]
    deck_b: list[Card]
    starter: int
    moves: list[Move]
    observer: int
    variant: str


def make_worlds(seed: int, plies: int, variant: str = "classic", observer: int = 0) -> Worlds:
    rng = random.Random(seed)
    starter = rng.randrange(2)
    a = Round.deal(seed=seed, variant=variant, starter=starter)
    for _ in range(plies):
        moves = a.legal_moves()
        if a.is_over() or a.deck_size <= 2:
            break
        a.push(moves[rng.randrange(len(moves))])
    opp = observer ^ 1
    known = set(a.known_cards(opp))
    xs = [c for c in a.hands[opp] if not c.is_wager and c not in known]
    ys = [c for c in a.draw_pile if not c.is_wager]
    assert xs and ys, "no hidden number cards to swap"
    x, y = rng.choice(xs), rng.choice(ys)
    deck_a = list(a.deal_order)
    deck_b = deck_a[:]
    i, j = deck_b.index(x), deck_b.index(y)
    deck_b[i], deck_b[j] = deck_b[j], deck_b[i]
    # and a different order for the rest of the draw pile
    n = a.deck_size
    tail = deck_b[len(deck_b) - n :]
    rng.shuffle(tail)
    deck_b[len(deck_b) - n :] = tail
    b = Round.from_deck(deck_b, starter, variant)
    for m in a.history:
        b.push(m)
    assert b.hands[observer] == a.hands[observer]
    assert b.hands[opp] != a.hands[opp]
    return Worlds(deck_a, deck_b, starter, list(a.history), observer, variant)


@pytest.fixture
def worlds() -> Callable[..., Worlds]:
    return make_worlds
