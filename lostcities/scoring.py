"""Scoring: ``(number sum - 20) x (wagers + 1)``, then ``+20`` for 8 or more cards.

The bonus is added after the multiplier and never multiplied; an expedition with no card
scores 0; a wager-only expedition is started and scores ``-20 x (wagers + 1)``.

>>> expedition_score("x 3 5 7 8 9", color="r")
24
>>> b = score_expedition(parse_cards("gx gx g2 g3 g4 g5 g6 g7"))
>>> (b.number_sum, b.multiplier, b.bonus, b.score)
(27, 3, 20, 41)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from lostcities.cards import CLASSIC, WAGER, Card, Color, Variant, get_variant, parse_cards
from lostcities.errors import InvalidCardError, InvalidExpeditionError

__all__ = [
    "BONUS",
    "BONUS_CARDS",
    "COST",
    "MARGIN_SCALE",
    "ExpeditionScore",
    "check_expedition",
    "expedition_score",
    "parse_score_sheet",
    "raw_score",
    "score_expedition",
    "sheet_total",
]

COST = 20
"""What every started expedition costs."""
BONUS = 20
"""The bonus for an expedition of at least :data:`BONUS_CARDS` cards."""
BONUS_CARDS = 8
"""Cards (wagers included) an expedition needs for the bonus."""
MARGIN_SCALE = 15.0
"""Points of score margin that search bots count as a reward of ``tanh(1)``: their reward
for a played-out round is ``tanh(margin / scale)``, and this is the default ``scale`` of the
``ismcts`` bot and of the compiled search (:mod:`lostcities.fast.search`)."""


def raw_score(number_sum: int, wagers: int, num_cards: int) -> int:
    """The one formula: an expedition's score from its totals (0 cards: 0).

    >>> raw_score(27, 2, 8)
    41
    >>> raw_score(0, 1, 1)
    -40
    """
    if num_cards == 0:
        return 0
    return (number_sum - COST) * (wagers + 1) + (BONUS if num_cards >= BONUS_CARDS else 0)


@dataclass(frozen=True, slots=True)
class ExpeditionScore:
    """The breakdown of one expedition's score, as a score sheet shows it."""

    cards: tuple[Card, ...]
    """The cards in play order."""
    number_sum: int
    """Sum of the number cards."""
    wagers: int
    """Number of wager cards (0..3)."""
    multiplier: int
    """``wagers + 1``."""
    bonus: int
    """20 with at least 8 cards, else 0."""
    score: int
    """The expedition's points (0 if not started)."""

    @property
    def started(self) -> bool:
        """Whether any card was played (an unstarted expedition costs nothing)."""
        return bool(self.cards)

    @property
    def minus_cost(self) -> int:
        """``number_sum - 20`` (0 for an unstarted expedition)."""
        return self.number_sum - COST if self.cards else 0

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (cards as notation)."""
        return {
            "cards": [str(c) for c in self.cards],
            "number_sum": self.number_sum,
            "minus_cost": self.minus_cost,
            "wagers": self.wagers,
            "multiplier": self.multiplier,
            "bonus": self.bonus,
            "score": self.score,
        }


def check_expedition(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Check that ``cards`` can be one expedition in play order; return them as a tuple.

    :raises InvalidExpeditionError: mixed colours, a wager after a number card, more than
        3 wagers, or number cards that are not strictly ascending.
    """
    seq = tuple(cards)
    top = 0
    wagers = 0
    for i, card in enumerate(seq):
        if card.color is not seq[0].color:
            raise InvalidExpeditionError(
                f"invalid expedition: {card} in a {seq[0].color.name.lower()} expedition"
            )
        if card.rank == WAGER:
            if top:
                raise InvalidExpeditionError(
                    f"invalid expedition: wager {card} after the number card "
                    f"{seq[i - 1]}; wagers come first"
                )
            wagers += 1
            if wagers > 3:
                raise InvalidExpeditionError(
                    f"invalid expedition: more than 3 {card.color.name.lower()} wagers"
                )
        elif card.rank <= top:
            what = (
                "repeated"
                if card.rank == top
                else f"lower than the previous card {seq[i - 1]}"
            )
            raise InvalidExpeditionError(
                f"invalid expedition: {card} is {what}; number cards must be strictly ascending"
            )
        else:
            top = card.rank
    return seq


def score_expedition(cards: Iterable[Card], *, check: bool = True) -> ExpeditionScore:
    """Score one expedition given in play order, with the full breakdown.

    :raises InvalidExpeditionError: if ``check`` and the cards are not a valid expedition.
    """
    seq = check_expedition(cards) if check else tuple(cards)
    wagers = sum(1 for c in seq if c.rank == WAGER)
    number_sum = sum(c.value for c in seq)
    score = raw_score(number_sum, wagers, len(seq))
    bonus = BONUS if len(seq) >= BONUS_CARDS else 0
    return ExpeditionScore(seq, number_sum, wagers, wagers + 1, bonus, score)


def expedition_score(cards: Iterable[Card | str] | str, color: Color | str | None = None) -> int:
    """Score one expedition. Cards may be ``Card`` objects or notation.

    With ``color``, bare ranks are accepted: ``expedition_score("x 3 5", color="r")``.

    >>> expedition_score(["y2", "y4", "y6", "y9", "y10"])
    11
    >>> expedition_score([])
    0

    :raises InvalidCardError: for bad notation.
    :raises InvalidExpeditionError: for cards that cannot form an expedition.
    """
    if color is not None:
        col = Color.parse(color)
        items = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
        cards = [c if isinstance(c, Card) else Card.parse(col.letter + c) for c in items]
    return score_expedition(parse_cards(cards)).score


def parse_score_sheet(
    items: Iterable[str], variant: str | Variant = CLASSIC
) -> dict[Color, ExpeditionScore]:
    """Parse ``["y:2,4,6,9,10", "r:x,3,5,7,8,9"]`` (one item per expedition) and score it.

    Colours not given are not started. Every colour of the variant is in the result,
    in notation order.

    >>> sheet = parse_score_sheet(["y:2,4,6,9,10", "r:x,3,5,7,8,9", "b:4,6", "g:x,x,2,3,4,5,6,7"])
    >>> sum(e.score for e in sheet.values())
    66

    :raises InvalidExpeditionError: for anything wrong, saying what and where.
    """
    var = get_variant(variant)
    given: dict[Color, tuple[Card, ...]] = {}
    for item in items:
        if ":" not in item:
            raise InvalidExpeditionError(
                f"invalid expedition {item!r}: expected colour:cards, e.g. 'y:x,2,5,10'"
            )
        letter, _, ranks = item.partition(":")
        try:
            color = Color.parse(letter)
        except InvalidCardError:
            raise InvalidExpeditionError(
                f"invalid expedition {item!r}: unknown colour {letter.strip()!r}; "
                f"expected one of {' '.join(c.letter for c in var.colors)}"
            ) from None
        if color not in var.colors:
            raise InvalidExpeditionError(
                f"invalid expedition {item!r}: {color.name.lower()} is not in the "
                f"{var.name} variant (use --variant long)"
            )
        if color in given:
            raise InvalidExpeditionError(
                f"invalid expedition {item!r}: {color.name.lower()} is given twice"
            )
        tokens = [t for t in ranks.replace(" ", ",").split(",") if t]
        try:
            cards = [Card.parse(color.letter + t.strip()) for t in tokens]
        except InvalidCardError as e:
            reason = str(e).removeprefix("invalid card: ")
            raise InvalidExpeditionError(f"invalid expedition {item!r}: card {reason}") from None
        try:
            given[color] = check_expedition(cards)
        except InvalidExpeditionError as e:
            reason = str(e).removeprefix("invalid expedition: ")
            raise InvalidExpeditionError(f"invalid expedition {item!r}: {reason}") from None
    return {c: score_expedition(given.get(c, ()), check=False) for c in var.colors}


def sheet_total(sheet: Mapping[Color, ExpeditionScore]) -> int:
    """The round total of a score sheet."""
    return sum(e.score for e in sheet.values())
