from __future__ import annotations

import pickle

import pytest

from lostcities import (
    ALL_CARDS,
    CLASSIC,
    LONG,
    WAGER,
    Card,
    Color,
    InvalidCardError,
    UnknownVariantError,
    get_variant,
    parse_cards,
)


def test_every_card_round_trips_through_its_text() -> None:
    assert len(ALL_CARDS) == 60
    for i, card in enumerate(ALL_CARDS):
        assert card.index == i
        assert Card.parse(str(card)) is card
        assert Card.parse(str(card).upper()) is card
        assert eval(repr(card)) is card
        assert pickle.loads(pickle.dumps(card)) is card


def test_card_fields() -> None:
    c = Card(Color.RED, 10)
    assert (str(c), c.color, c.rank, c.value, c.is_wager) == ("r10", Color.RED, 10, 10, False)
    w = Card.parse("gx")
    assert (w.rank, w.value, w.is_wager) == (WAGER, 0, True)
    assert Card(Color.GREEN, WAGER) is w


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("y11", "rank 11 is not in 2..10"),
        ("y1", "rank 1 is not in 2..10"),
        ("q3", "unknown colour 'q'"),
        ("yz", "rank 'z' is not 2..10 or x"),
        ("", "empty"),
        ("y", "rank '' is not"),
    ],
)
def test_bad_card_text_says_why(text: str, reason: str) -> None:
    with pytest.raises(InvalidCardError, match=reason):
        Card.parse(text)


def test_invalid_constructor_arguments() -> None:
    with pytest.raises(InvalidCardError, match="invalid rank"):
        Card(Color.RED, 1)
    with pytest.raises(InvalidCardError, match="invalid colour"):
        Card(9, 5)


def test_cards_are_immutable_and_ordered() -> None:
    c = Card.parse("y7")
    with pytest.raises(AttributeError):
        c.rank = 8  # type: ignore[misc]
    assert sorted(parse_cards("r2 yx y10 y2")) == parse_cards("yx y2 y10 r2")


def test_decks() -> None:
    # seed 000: 60 cards, per colour 3 wagers + 2..10; the long game adds purple: 72
    for var, n, colors in ((CLASSIC, 60, "ybwgr"), (LONG, 72, "ybwgrp")):
        deck = var.deck()
        assert len(deck) == n == var.deck_size
        assert "".join(c.letter for c in var.colors) == colors
        for color in var.colors:
            mine = [c for c in deck if c.color is color]
            assert sorted(c.rank for c in mine) == [0, 0, 0, *range(2, 11)]
    assert Color.PURPLE not in {c.color for c in CLASSIC.deck()}


def test_colour_and_variant_parsing() -> None:
    assert Color.parse("P") is Color.PURPLE and Color.parse("white") is Color.WHITE
    assert str(Color.BLUE) == "b"
    with pytest.raises(InvalidCardError):
        Color.parse("z")
    assert get_variant("LONG") is LONG
    with pytest.raises(UnknownVariantError, match="unknown variant: 'short'"):
        get_variant("short")
