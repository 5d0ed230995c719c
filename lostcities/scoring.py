"""Scoring: ``(number sum - 20) x (wagers + 1)``, then ``+20`` for 8 or more cards.

The bonus is added after the multiplier and never multiplied; an expedition with no card
scores 0; a wager-only expedition is started and scores ``-20 x (wagers + 1)``.

>>> expedition_score("x 3 5 7 8 9", color="r")
24
>>> b = score_expedition(parse_cards("gx gx g2 g3 g4 g5 g6 g7"))
>>> (b.number_sum, b.multiplier, b.bonus, b.score)
(27, 3, 20, 41)

The same from an expedition's totals (number sum, wagers, cards including wagers), as a
score sheet is often filled in:

>>> score_from_totals(27, 2, 8).score
41
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from lostcities.cards import CLASSIC, WAGER, Card, Color, Variant, get_variant, parse_cards
from lostcities.errors import InvalidCardError, InvalidExpeditionError

__all__ = [
    "BONUS",
    "BONUS_CARDS",
    "COST",
    "GOAL_POINTS",
    "MARGIN_SCALE",
    "ExpeditionScore",
    "check_expedition",
    "expedition_score",
    "expeditions_points",
    "goal_points",
    "number_sum_range",
    "parse_score_sheet",
    "parse_totals_sheet",
    "raw_score",
    "score_expedition",
    "score_from_totals",
    "sheet_total",
]

COST = 20
"""What every started expedition costs."""
BONUS = 20
"""The bonus for an expedition of at least :data:`BONUS_CARDS` cards."""
BONUS_CARDS = 8
"""Cards (wagers included) an expedition needs for the bonus."""
GOAL_POINTS = 10
"""What each achievement (goal card) won is worth in the achievements variant (seed 001)."""
COLOR_CARDS = 12
"""Cards of one colour: 3 wagers and the numbers 2..10."""
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


# raw_score of every expedition a colour can hold, by [cards][wagers][number sum]: one
# subscript chain per expedition costs less than the formula's arithmetic in Python.
_SCORES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(raw_score(s, w, n) for s in range(55)) for w in range(4))
    for n in range(COLOR_CARDS + 1)
)


def expeditions_points(expeditions: Iterable[Sequence[Card]]) -> int:
    """One player's points for their expeditions, goals aside: :func:`raw_score` of each.

    The rules' hot path (``Round.scores``, ``PlayerView.scores``); it trusts the
    expeditions to be in play order, as the core keeps them (:func:`score_expedition`
    checks them).

    >>> expeditions_points([parse_cards("gx gx g2 g3 g4 g5 g6 g7"), [], parse_cards("y2")])
    23
    """
    total = 0
    for cards in expeditions:
        if cards:
            w = s = 0
            for card in cards:
                rank = card.rank
                if rank:
                    s += rank
                else:
                    w += 1
            try:
                total += _SCORES[len(cards)][w][s]
            except IndexError:  # more cards than a colour holds: not a real expedition
                total += raw_score(s, w, len(cards))
    return total


def goal_points(achievements: int) -> int:
    """The points of ``achievements`` goals won (:data:`GOAL_POINTS` each).

    >>> goal_points(2)
    20

    :raises InvalidExpeditionError: for a negative count.
    """
    if achievements < 0:
        raise InvalidExpeditionError(
            f"invalid achievements: {achievements!r} (negative numbers are not allowed)"
        )
    return GOAL_POINTS * achievements


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
    card_count: int | None = None
    """Cards in the expedition, wagers included, for a score from totals whose cards are
    not known (:func:`score_from_totals`; :attr:`cards` is then empty); ``None`` when
    :attr:`cards` are the cards."""

    @property
    def num_cards(self) -> int:
        """How many cards the expedition holds, wagers included."""
        return len(self.cards) if self.card_count is None else self.card_count

    @property
    def started(self) -> bool:
        """Whether any card was played (an unstarted expedition costs nothing)."""
        return self.num_cards > 0

    @property
    def minus_cost(self) -> int:
        """``number_sum - 20`` (0 for an unstarted expedition)."""
        return self.number_sum - COST if self.started else 0

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (cards as notation; empty for a score from totals)."""
        return {
            "cards": [str(c) for c in self.cards],
            "num_cards": self.num_cards,
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
            what = "repeated" if card.rank == top else f"lower than the previous card {seq[i - 1]}"
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


def number_sum_range(numbers: int) -> tuple[int, int]:
    """The smallest and largest sums of ``numbers`` different ranks from 2..10.

    Every sum in between can be made too (swap one rank for the next higher one at a time).

    >>> number_sum_range(5)
    (20, 40)
    >>> number_sum_range(0)
    (0, 0)
    """
    assert 0 <= numbers <= 9
    return numbers * (numbers + 3) // 2, numbers * (21 - numbers) // 2


def score_from_totals(number_sum: int, wagers: int, num_cards: int) -> ExpeditionScore:
    """Score one expedition from its totals: the sum of its number cards, its wagers and
    its cards (wagers included), checked for a set of cards one colour can hold.

    >>> e = score_from_totals(32, 1, 6)
    >>> (e.number_sum, e.multiplier, e.bonus, e.score, e.num_cards)
    (32, 2, 0, 24, 6)
    >>> score_from_totals(0, 0, 0).started
    False
    >>> score_from_totals(12, 0, 5)
    Traceback (most recent call last):
    ...
    lostcities.errors.InvalidExpeditionError: invalid totals: 5 number cards cannot sum to 12 (5 different ranks from 2..10 sum to 20..40)

    :raises InvalidExpeditionError: for negative numbers, more than 3 wagers, more cards than
        a colour has, fewer cards than wagers, or a sum the number cards cannot make.
    """
    for name, value in (("sum", number_sum), ("wagers", wagers), ("cards", num_cards)):
        if value < 0:
            raise InvalidExpeditionError(
                f"invalid totals: {name} is {value} (negative numbers are not allowed)"
            )
    if wagers > 3:
        raise InvalidExpeditionError(f"invalid totals: {wagers} wagers (a colour has 3)")
    if num_cards > COLOR_CARDS:
        raise InvalidExpeditionError(
            f"invalid totals: {num_cards} cards (a colour has {COLOR_CARDS}: 3 wagers and 2..10)"
        )
    if wagers > num_cards:
        raise InvalidExpeditionError(
            f"invalid totals: {wagers} wager{'s' if wagers != 1 else ''} but only {num_cards} "
            f"card{'s' if num_cards != 1 else ''} (the card count includes the wagers)"
        )
    numbers = num_cards - wagers
    if numbers > 9:
        raise InvalidExpeditionError(
            f"invalid totals: {numbers} number cards with {wagers} wagers (a colour has 9: 2..10)"
        )
    low, high = number_sum_range(numbers)
    if not low <= number_sum <= high:
        if num_cards == 0:
            raise InvalidExpeditionError(f"invalid totals: a sum of {number_sum} but no cards")
        if numbers == 0:
            raise InvalidExpeditionError(
                f"invalid totals: a sum of {number_sum} but the {num_cards} "
                f"card{'s are' if num_cards != 1 else ' is a'} wager{'s' if num_cards != 1 else ''}"
            )
        raise InvalidExpeditionError(
            f"invalid totals: {numbers} number card{'s' if numbers != 1 else ''} cannot sum to "
            f"{number_sum} ({numbers} different rank{'s' if numbers != 1 else ''} from 2..10 "
            f"sum to {low}..{high})"
        )
    bonus = BONUS if num_cards >= BONUS_CARDS else 0
    score = raw_score(number_sum, wagers, num_cards)
    return ExpeditionScore((), number_sum, wagers, wagers + 1, bonus, score, num_cards)


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
        color = _sheet_color(item, letter, var, "expedition")
        if color in given:
            raise InvalidExpeditionError(
                f"invalid expedition {item!r}: {color.name.lower()} is given twice"
            )
        tokens: list[str] = []
        if ranks.strip():  # 'y:' alone: not started
            for part in ranks.split(","):  # cards by commas (or spaces: 'y:2 4 6')
                if not part.strip():
                    raise InvalidExpeditionError(
                        f"invalid expedition {item!r}: an empty card (a comma with no card"
                        " before or after it)"
                    )
                tokens += part.split()
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


def _sheet_color(item: str, letter: str, var: Variant, what: str) -> Color:
    try:
        color = Color.parse(letter)
    except InvalidCardError:
        raise InvalidExpeditionError(
            f"invalid {what} {item!r}: unknown colour {letter.strip()!r}; "
            f"expected one of {' '.join(c.letter for c in var.colors)}"
        ) from None
    if color not in var.colors:
        raise InvalidExpeditionError(
            f"invalid {what} {item!r}: {color.name.lower()} is not in the "
            f"{var.name} variant (use --variant long)"
        )
    return color


def parse_totals_sheet(
    items: Iterable[str], variant: str | Variant = CLASSIC
) -> dict[Color, ExpeditionScore]:
    """Parse ``["y:31,0,5", "r:32,1,6"]`` (colour: number sum, wagers, cards including
    wagers; one item per expedition) and score it with :func:`score_from_totals`.

    Colours not given are not started; every colour of the variant is in the result, in
    notation order, as :func:`parse_score_sheet` gives it.

    >>> sheet = parse_totals_sheet(["y:31,0,5", "r:32,1,6", "b:10,0,2", "g:27,2,8"])
    >>> sum(e.score for e in sheet.values())
    66

    :raises InvalidExpeditionError: for anything wrong, saying what and where.
    """
    var = get_variant(variant)
    given: dict[Color, ExpeditionScore] = {}
    for item in items:
        letter, colon, rest = item.partition(":")
        parts = [p.strip() for p in rest.split(",")]
        if not colon or len(parts) != 3:
            raise InvalidExpeditionError(
                f"invalid totals {item!r}: expected colour:sum,wagers,cards, e.g. 'r:32,1,6'"
            )
        color = _sheet_color(item, letter, var, "totals")
        if color in given:
            raise InvalidExpeditionError(
                f"invalid totals {item!r}: {color.name.lower()} is given twice"
            )
        values = []
        for name, text in zip(("sum", "wagers", "cards"), parts, strict=True):
            try:
                values.append(int(text))
            except ValueError:
                raise InvalidExpeditionError(
                    f"invalid totals {item!r}: {name} {text!r} is not a whole number"
                ) from None
        try:
            given[color] = score_from_totals(*values)
        except InvalidExpeditionError as e:
            reason = str(e).removeprefix("invalid totals: ")
            raise InvalidExpeditionError(f"invalid totals {item!r}: {reason}") from None
    return {c: given.get(c) or score_expedition((), check=False) for c in var.colors}


def sheet_total(sheet: Mapping[Color, ExpeditionScore], achievements: int = 0) -> int:
    """The round total of a score sheet, with :func:`goal_points` for ``achievements``.

    :raises InvalidExpeditionError: for a negative ``achievements``.
    """
    return sum(e.score for e in sheet.values()) + goal_points(achievements)
