"""Colours, cards and the two decks (``classic``: 5 colours / 60 cards, ``long``: 6 / 72).

A card is a colour and a rank: ``2`` .. ``10`` for number cards, ``x`` for a wager (rank 0).
The three wagers of a colour are identical, so :class:`Card` is a value type and a deck
holds ``Card('yx')`` three times.

>>> Card.parse("y7")
Card.parse('y7')
>>> str(Card(Color.RED, WAGER))
'rx'
>>> len(CLASSIC.deck()), len(LONG.deck())
(60, 72)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from lostcities.errors import InvalidCardError, UnknownVariantError

__all__ = [
    "ALL_CARDS",
    "CLASSIC",
    "COLORS",
    "LONG",
    "RANKS",
    "VARIANTS",
    "WAGER",
    "Card",
    "Color",
    "Variant",
    "get_variant",
    "parse_cards",
]

WAGER = 0
"""The rank of a wager card (written ``x``)."""

RANKS: tuple[int, ...] = (WAGER, 2, 3, 4, 5, 6, 7, 8, 9, 10)
"""All ranks, wager first, in the order they may be played."""


class Color(enum.IntEnum):
    """An expedition colour. The value is its index; ``letter`` is its notation."""

    YELLOW = 0
    BLUE = 1
    WHITE = 2
    GREEN = 3
    RED = 4
    PURPLE = 5

    @property
    def letter(self) -> str:
        """The one-letter notation: ``y b w g r p``."""
        return _LETTERS[self]

    @classmethod
    def parse(cls, text: str | Color) -> Color:
        """Parse a colour letter or name, case-insensitively.

        >>> Color.parse("G"), Color.parse("purple")
        (<Color.GREEN: 3>, <Color.PURPLE: 5>)

        :raises InvalidCardError: for anything else.
        """
        if isinstance(text, Color):
            return text
        try:
            return _COLOR_BY_TEXT[text.strip().lower()]
        except (KeyError, AttributeError):
            raise InvalidCardError(
                f"invalid colour: {text!r} (expected one of y b w g r p)"
            ) from None

    def __str__(self) -> str:
        return self.letter


_LETTERS = "ybwgrp"
COLORS: tuple[Color, ...] = tuple(Color)
_COLOR_BY_TEXT: dict[str, Color] = {}
for _c in Color:
    _COLOR_BY_TEXT[_c.letter] = _c
    _COLOR_BY_TEXT[_c.name.lower()] = _c


class Card:
    """An immutable card: ``Card(Color.YELLOW, 7)`` is ``y7``; rank :data:`WAGER` is ``yx``.

    Cards are interned: equal cards are the same object, so ``is`` and ``==`` agree.
    Cards sort by colour, then rank (wagers first).

    >>> Card.parse("B10") is Card(Color.BLUE, 10)
    True
    >>> sorted(Card.parse(t) for t in ["r3", "yx", "y2"])
    [Card.parse('yx'), Card.parse('y2'), Card.parse('r3')]

    :raises InvalidCardError: for a rank outside 2..10 and the wager.
    """

    __slots__ = ("color", "index", "rank", "value", "_text")

    color: Color
    """The card's colour."""
    rank: int
    """2..10, or :data:`WAGER` (0)."""
    value: int
    """Points it adds to an expedition's sum: the rank, 0 for a wager."""
    _text: str
    index: int
    """``10 * colour + k``, k = 0 for the wager, rank - 1 otherwise: 0..59, unique per card kind."""

    _table: ClassVar[dict[tuple[int, int], Card]] = {}

    def __new__(cls, color: Color | int, rank: int) -> Card:
        try:
            return cls._table[(int(color), rank)]
        except (KeyError, TypeError, ValueError):
            pass
        if not isinstance(rank, int) or rank not in RANKS:
            raise InvalidCardError(f"invalid rank: {rank!r} (expected 2..10 or 0 for a wager)")
        raise InvalidCardError(f"invalid colour: {color!r}")

    @classmethod
    def _make(cls, color: Color, rank: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "color", color)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "value", rank)
        object.__setattr__(card, "index", 10 * color + (0 if rank == WAGER else rank - 1))
        object.__setattr__(card, "_text", color.letter + ("x" if rank == WAGER else str(rank)))
        cls._table[(int(color), rank)] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    @property
    def is_wager(self) -> bool:
        """Whether this is a wager (investment) card."""
        return self.rank == WAGER

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``y7``, ``R10``, ``gx`` (case-insensitive, surrounding blanks ignored).

        :raises InvalidCardError: with the reason, e.g. ``invalid card: 'y11' (rank 11 ...)``.
        """
        try:
            return _CARD_BY_TEXT[text.strip().lower()]
        except KeyError:
            pass
        except AttributeError:
            raise InvalidCardError(f"invalid card: {text!r} (expected text such as 'y7')") from None
        t = text.strip().lower()
        if not t:
            raise InvalidCardError("invalid card: '' (empty)")
        if t[0] not in _LETTERS:
            raise InvalidCardError(
                f"invalid card: {text!r} (unknown colour {t[0]!r}; expected one of y b w g r p)"
            )
        rank = t[1:]
        if rank.isdigit():
            raise InvalidCardError(f"invalid card: {text!r} (rank {rank} is not in 2..10)")
        raise InvalidCardError(
            f"invalid card: {text!r} (rank {rank!r} is not 2..10 or x for a wager)"
        )

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __eq__(self, other: object) -> bool:
        # cards are interned: equal is identical (object's own __eq__, reached through the
        # ordering methods' Python-level comparison slot, costs several times this)
        if other.__class__ is Card:
            return self is other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if other.__class__ is Card:
            return self is not other
        return NotImplemented

    def __lt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index

    def __le__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index <= other.index

    def __gt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index > other.index

    def __ge__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index >= other.index

    def __hash__(self) -> int:
        return self.index

    def __reduce__(self) -> tuple[type[Card], tuple[Color, int]]:
        return (Card, (self.color, self.rank))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_CARD_BY_TEXT: dict[str, Card] = {}
for _c in Color:
    for _r in RANKS:
        _card = Card._make(_c, _r)
        _CARD_BY_TEXT[str(_card)] = _card

ALL_CARDS: tuple[Card, ...] = tuple(sorted(_CARD_BY_TEXT.values()))
"""Every card kind of every colour, indexed by :attr:`Card.index`."""


def parse_cards(items: Iterable[Card | str] | str) -> list[Card]:
    """Parse cards given as ``Card`` objects, strings, or one string separated by blanks/commas.

    >>> parse_cards("y2 yx, r10")
    [Card.parse('y2'), Card.parse('yx'), Card.parse('r10')]

    :raises InvalidCardError: naming the first bad card.
    """
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    return [c if isinstance(c, Card) else Card.parse(c) for c in items]


@dataclass(frozen=True, slots=True)
class Variant:
    """A game variant: which colours are in play. The rules are the same for every colour."""

    name: str
    """``classic`` or ``long``."""
    colors: tuple[Color, ...]
    """The expeditions in play, in notation order."""
    hand_size: int = 8
    """Cards in each hand after every turn."""

    @property
    def num_colors(self) -> int:
        """How many expeditions: 5 or 6."""
        return len(self.colors)

    @property
    def deck_size(self) -> int:
        """Cards in the whole deck: 60 or 72."""
        return 12 * len(self.colors)

    def deck(self) -> list[Card]:
        """A new list of the whole deck, sorted: 3 wagers and 2..10 per colour.

        >>> [str(c) for c in CLASSIC.deck()[:4]]
        ['yx', 'yx', 'yx', 'y2']
        """
        try:
            return list(_DECKS[self.colors])
        except (KeyError, TypeError):  # TypeError: colours given as a list
            pass
        out: list[Card] = []
        for color in self.colors:
            out.extend(Card(color, WAGER) for _ in range(3))
            out.extend(Card(color, r) for r in RANKS[1:])
        if isinstance(self.colors, tuple):
            _DECKS[self.colors] = tuple(out)
        return out

    def __str__(self) -> str:
        return self.name


_DECKS: dict[tuple[Color, ...], tuple[Card, ...]] = {}  # Variant.deck() by colours, once made

CLASSIC = Variant("classic", COLORS[:5])
"""The base game: yellow, blue, white, green, red; 60 cards."""
LONG = Variant("long", COLORS)
"""The long game of the 72-card editions: the five plus purple."""
VARIANTS: dict[str, Variant] = {"classic": CLASSIC, "long": LONG}


def get_variant(variant: str | Variant) -> Variant:
    """Return the :class:`Variant` named ``classic`` or ``long`` (or the variant itself).

    :raises UnknownVariantError: for any other name.
    """
    if isinstance(variant, Variant):
        return variant
    try:
        return VARIANTS[str(variant).strip().lower()]
    except KeyError:
        raise UnknownVariantError(
            f"unknown variant: {variant!r} (expected 'classic' or 'long')"
        ) from None
