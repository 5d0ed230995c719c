"""Helpers for building positions in tests."""

from __future__ import annotations

import random

from lostcities import CLASSIC, Card, Round, Variant, get_variant, parse_cards


def deck_with(
    hand0: str,
    hand1: str,
    draw: str = "",
    variant: str | Variant = CLASSIC,
) -> list[Card]:
    """A full deck in dealing order whose hands and first draws are as given (the rest of the
    draw pile in a fixed order)."""
    var = get_variant(variant)
    rest = var.deck()
    chosen = parse_cards(hand0) + parse_cards(hand1) + parse_cards(draw)
    for c in chosen:
        rest.remove(c)
    return chosen + rest


def position(
    hand0: str, hand1: str, draw: str = "", moves: str = "", starter: int = 0, **kw: object
) -> Round:
    """A round dealt by :func:`deck_with`, after ``moves`` (notation, blank-separated)."""
    r = Round.from_deck(
        deck_with(hand0, hand1, draw, kw.get("variant", CLASSIC)),
        starter,  # type: ignore[arg-type]
        kw.get("variant", CLASSIC),
    )  # type: ignore[arg-type]
    for m in moves.split():
        r.push(m)
    return r


def random_round(seed: int, variant: str = "classic", max_plies: int | None = None) -> Round:
    """A round played with uniformly random legal moves (to the end, or ``max_plies``)."""
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant)
    while not r.is_over() and (max_plies is None or r.ply < max_plies):
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    return r
