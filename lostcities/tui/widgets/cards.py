"""How cards and colours look in the terminal: a symbol for every colour (so the game does not
depend on telling colours apart) next to the card's notation.

>>> from lostcities import Card
>>> card_label(Card.parse("b10"))
'≈b10'
>>> color_class(Card.parse("gx").color)
'c-green'
"""

from __future__ import annotations

from lostcities.cards import Card, Color

__all__ = ["SYMBOLS", "card_label", "color_class", "color_title", "rank_text"]

SYMBOLS: dict[Color, str] = {
    Color.YELLOW: "☼",  # the desert sun
    Color.BLUE: "≈",  # the sea
    Color.WHITE: "▲",  # the Himalayas
    Color.GREEN: "♣",  # the rain forest
    Color.RED: "♦",  # the volcano's fire
    Color.PURPLE: "◆",  # the lost city
}
"""One single-width symbol per colour, shown next to every card and pile."""


def rank_text(card: Card) -> str:
    """``x`` for a wager, else the number."""
    return "x" if card.is_wager else str(card.rank)


def card_label(card: Card) -> str:
    """The colour's symbol followed by the card's notation."""
    return f"{SYMBOLS[card.color]}{card}"


def color_class(color: Color) -> str:
    """The CSS class that gives a widget the colour's look (see ``app.tcss``)."""
    return f"c-{color.name.lower()}"


def color_title(color: Color, width: int = 12) -> str:
    """``☼ yellow`` or, where there is no room, ``☼ Y``."""
    name = color.name.lower()
    text = f"{SYMBOLS[color]} {name}"
    return text if len(text) <= width else f"{SYMBOLS[color]} {color.letter.upper()}"
