"""Moves, the round, and a player's view of it.

A turn is one move: play a card onto your own expedition (``+``) or discard it onto its
colour's pile (``-``), then draw from the draw pile (``.``) or the top of a discard pile
(its colour letter), but not from the pile you just discarded onto. The round ends the
moment the last card of the draw pile is drawn.

>>> r = Round.deal(seed=7)
>>> len(r.hands[0]), r.deck_size, r.to_move
(8, 44, 0)
>>> move = next(iter(r.legal_moves()))
>>> r.push(move)
>>> r.pop() == move
True
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter, itemgetter
from typing import Generic, Literal, NamedTuple, TypeVar, cast, overload

from lostcities.achievements import GOAL_POINTS, Goal, GoalBoard, decide_end, resolve_goals
from lostcities.cards import (
    ALL_CARDS,
    CLASSIC,
    WAGER,
    Card,
    Color,
    Variant,
    get_variant,
    parse_cards,
)
from lostcities.errors import (
    IllegalMoveError,
    InvalidCardError,
    InvalidDeckError,
    InvalidMoveError,
    NoSuchPlyError,
)
from lostcities.scoring import (
    ExpeditionScore,
    expeditions_points,
    score_expedition,
)

__all__ = [
    "NUM_MOVES",
    "Action",
    "ColorMap",
    "LegalMoves",
    "MatchContext",
    "Move",
    "PlayerView",
    "Round",
    "RoundOutcome",
    "RoundTables",
    "Termination",
    "WorldSampler",
    "PLAYABLE",
    "playable",
]

V = TypeVar("V")


class Action(enum.Enum):
    """What a move does with its card."""

    PLAY = "+"
    """Onto the player's own expedition of the card's colour."""
    DISCARD = "-"
    """Face up onto the card's colour's discard pile."""


@dataclass(frozen=True, slots=True)
class Move:
    """One turn: an action with a card, then a draw (``None`` = the draw pile).

    >>> m = Move.parse("-r10b")
    >>> m.action, str(m.card), m.draw
    (<Action.DISCARD: '-'>, 'r10', <Color.BLUE: 1>)
    >>> str(Move(Action.PLAY, Card.parse("gx")))
    '+gx.'
    """

    action: Action
    """Play or discard."""
    card: Card
    """The card played or discarded."""
    draw: Color | None = None
    """Where the player draws from: ``None`` for the draw pile, else that colour's pile."""
    _key: int = field(init=False, repr=False, compare=False)
    # :attr:`index`, computed once (NUM_MOVES for an object that is not a well-formed move)

    def __post_init__(self) -> None:
        a, c, d = self.action, self.card, self.draw
        key = NUM_MOVES
        if (
            (a is Action.PLAY or a is Action.DISCARD)
            and isinstance(c, Card)
            and (d is None or (type(d) in (Color, int) and 0 <= d < 6))
        ):
            key = _move_key(a is Action.DISCARD, c.index, d)
        object.__setattr__(self, "_key", key)

    def __hash__(self) -> int:
        return self._key  # equal moves have equal keys

    def __reduce__(self) -> tuple[type[Move], tuple[Action, Card, Color | None]]:
        return (Move, (self.action, self.card, self.draw))

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse a move in notation, case-insensitively: ``+y7.``, ``-r10b``, ``+gx.``.

        :raises InvalidMoveError: saying what is wrong with the text.
        """
        try:
            return _MOVE_BY_TEXT[text.strip().lower()]
        except KeyError:
            pass
        except AttributeError:
            raise InvalidMoveError(
                f"invalid move: {text!r} (expected text such as '+y7.')"
            ) from None
        t = text.strip().lower()
        if not t:
            raise InvalidMoveError("invalid move: '' (empty)")
        if t[0] not in "+-":
            raise InvalidMoveError(
                f"invalid move: {text!r} (must start with + to play or - to discard)"
            )
        if len(t) < 3:
            raise InvalidMoveError(
                f"invalid move: {text!r} (expected action, card and draw source, e.g. '+y7.')"
            )
        draw = t[-1]
        if draw != "." and draw not in "ybwgrp":
            raise InvalidMoveError(
                f"invalid move: {text!r} (draw source {draw!r} must be '.' for the draw pile "
                "or a colour letter for a discard pile)"
            )
        try:
            Card.parse(t[1:-1])
        except InvalidCardError as e:
            reason = str(e)
            if "(" in reason:
                reason = reason[reason.index("(") + 1 : reason.rindex(")")]
            raise InvalidMoveError(f"invalid move: {text!r} ({reason})") from None
        raise InvalidMoveError(f"invalid move: {text!r}")  # pragma: no cover - all parts valid

    @classmethod
    def play(cls, card: Card | str, draw: Color | str | None = None) -> Move:
        """``Move(Action.PLAY, card, draw)`` with cards and colours also given as text."""
        return cls._build(Action.PLAY, card, draw)

    @classmethod
    def discard(cls, card: Card | str, draw: Color | str | None = None) -> Move:
        """``Move(Action.DISCARD, card, draw)`` with cards and colours also given as text."""
        return cls._build(Action.DISCARD, card, draw)

    @classmethod
    def _build(cls, action: Action, card: Card | str, draw: Color | str | None) -> Move:
        c = card if isinstance(card, Card) else Card.parse(card)
        d = None if draw is None or draw == "." else Color.parse(draw)
        return _MOVES[_move_key(action is Action.DISCARD, c.index, d)]

    @property
    def index(self) -> int:
        """This move's number in ``0 .. NUM_MOVES - 1`` (840 moves): ``(60 * discard +
        card.index) * 7 + draw``, draw 0 for the draw pile and ``1 + colour`` for a discard
        pile. The one move numbering of the project (fast path, environments, networks).

        >>> Move.parse("+y2.").index, Move.parse("-r10b").index
        (7, 765)
        >>> Move.from_index(765)
        Move.parse('-r10b')
        """
        key = self._key
        if key == NUM_MOVES:  # not a well-formed move: as computed from its fields
            return _move_key(self.action is Action.DISCARD, self.card.index, self.draw)
        return key

    @classmethod
    def from_index(cls, index: int) -> Move:
        """The move numbered ``index`` (the inverse of :attr:`index`).

        :raises InvalidMoveError: for a number outside ``0 .. NUM_MOVES - 1``.
        """
        if isinstance(index, bool) or not 0 <= index < NUM_MOVES:
            raise InvalidMoveError(f"invalid move index: {index!r} (expected 0..{NUM_MOVES - 1})")
        return _MOVES[int(index)]

    def __str__(self) -> str:
        text = _MOVE_TEXT.get(self._key)  # every well-formed move's notation, made once
        if text is None:
            return f"{self.action.value}{self.card}{'.' if self.draw is None else self.draw.letter}"
        return text

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


NUM_MOVES = 2 * 60 * 7
"""How many distinct moves exist (:attr:`Move.index` runs from 0 to ``NUM_MOVES - 1``)."""


def playable(rank: int, top: int) -> bool:
    """The one rule for playing a card onto an expedition: whether a card of ``rank``
    (``0`` for a wager) may go onto an expedition whose highest number card is ``top``
    (``0`` while it has none). A number must be higher than the last number; a wager only
    goes before any number. The fast path's compiled twin is checked against this.

    >>> playable(5, 4), playable(4, 4), playable(0, 0), playable(0, 3)
    (True, False, True, False)
    """
    return rank > top if rank else top == 0


PLAYABLE: tuple[tuple[bool, ...], ...] = tuple(
    tuple(playable(rank, top) for top in range(11)) for rank in range(11)
)
"""``PLAYABLE[rank][top]``: :func:`playable` as a table, for hot loops (derived from it)."""


def _move_key(discard: bool, card_index: int, draw: int | None) -> int:
    return ((60 if discard else 0) + card_index) * 7 + (0 if draw is None else draw + 1)


_MOVES: list[Move] = [None] * NUM_MOVES  # type: ignore[list-item]
_MOVE_BY_TEXT: dict[str, Move] = {}
_MOVE_TEXT: dict[int, str] = {}  # notation by key (never the malformed moves' NUM_MOVES)
for _card in ALL_CARDS:
    for _action in Action:
        for _draw in (None, *Color):
            _m = Move(_action, _card, _draw)
            _MOVES[_m._key] = _m
            _MOVE_BY_TEXT[str(_m)] = _m
for _text, _m in _MOVE_BY_TEXT.items():
    _MOVE_TEXT[_m._key] = _text
# The position as bitmasks over card indexes (bit ``Card.index``), kept by :class:`Round` move
# by move and read by :class:`LegalMoves`: a hand's distinct cards; the cards its player may
# play (from the tops); the colours whose discard pile is not empty (bit = colour).
_BITS: list[int] = [1 << i for i in range(60)]
_COLOR_MASK: list[int] = [((1 << 10) - 1) << (10 * c) for c in range(6)]
_NOT_COLOR: list[int] = [~m for m in _COLOR_MASK]
# _PLAY_MASK[colour][top]: the cards of that colour playable onto ``top`` (from PLAYABLE)
_PLAY_MASK: list[list[int]] = [[0] * 11 for _ in range(6)]
for _card in ALL_CARDS:
    for _top in range(11):
        if PLAYABLE[_card.rank][_top]:
            _PLAY_MASK[_card.color][_top] |= 1 << _card.index
# by pile mask: the cards whose colour has a discard pile; how many draw sources; the draw
# columns of a play (0 = draw pile, 1 + colour) and, by card index, of a discard
_PILE_CARDS: list[int] = [sum(_COLOR_MASK[c] for c in range(6) if sm >> c & 1) for sm in range(64)]
_N_SRC: list[int] = [sm.bit_count() + 1 for sm in range(64)]
_DRAW_COLORS: list[tuple[Color, ...]] = [tuple(c for c in Color if sm >> c & 1) for sm in range(64)]
_PLAY_COLS: list[tuple[int, ...]] = [
    (0, *(c + 1 for c in range(6) if sm >> c & 1)) for sm in range(64)
]
_DISCARD_COLS: list[list[tuple[int, ...]]] = []
for _cols in _PLAY_COLS:
    _by_color = [tuple(j for j in _cols if j != c + 1) for c in range(6)]
    _DISCARD_COLS.append([_by_color[i // 10] for i in range(60)])
# by move key (see Move.index: ``(60 * discard + card index) * 7 + draw``):
# _CHECK: (card bit, bit the draw needs in ``pile mask << 1 | 1``, is a play); a discard
# drawing from its own pile needs bit 7, never set; key NUM_MOVES: no move, never legal.
# _STEP: (card, card index, colour, rank, is a play, draw colour or -1 for the draw pile)
_CHECK: list[tuple[int, int, bool]] = []
_STEP: list[tuple[Card, int, int, int, bool, int]] = []
for _key in range(NUM_MOVES):  # from the key's numbers: enum lookups are slow at import
    _i, _d = divmod(_key, 7)
    _ci = _i % 60
    _card = ALL_CARDS[_ci]
    _play = _i < 60
    _color = _ci // 10
    _CHECK.append((1 << _ci, 1 << (7 if not _play and _d == _color + 1 else _d), _play))
    _STEP.append((_card, _ci, _color, _card.rank, _play, _d - 1))
_CHECK.append((0, 0, False))
# _CHUNK_KS[chunk]: the set bits of a colour's 10 bits of a mask (the cards' k = index % 10);
# _DISCARD_PER[pile mask][colour]: the draw sources after discarding a card of that colour
_CHUNK_KS: list[tuple[int, ...]] = [()]
for _k in range(10):  # the chunks with highest bit _k: those below, and _k
    _CHUNK_KS += [(*ks, _k) for ks in _CHUNK_KS]
_DISCARD_PER: list[list[int]] = [[_N_SRC[sm] - (sm >> c & 1) for c in range(6)] for sm in range(64)]
_PLAY_ACTION = Action.PLAY
_INDEX = attrgetter("index")
_RANK = attrgetter("rank")
_FIRST = itemgetter(0)
_CARD_TYPE = {Card}


def _hand_mask(hand: Iterable[Card]) -> int:
    mask = 0
    for card in hand:
        mask |= 1 << card.index
    return mask


def _tops_mask(tops: Sequence[int]) -> int:
    mask = 0
    for c, top in enumerate(tops):
        mask |= _PLAY_MASK[c][top]
    return mask


def _piles_mask(piles: Sequence[Sequence[Card]]) -> int:
    mask = 0
    for c, pile in enumerate(piles):
        if pile:
            mask |= 1 << c
    return mask


def _cards_of(mask: int) -> list[Card]:
    out = []
    base = 0
    while mask:
        for k in _CHUNK_KS[mask & 1023]:
            out.append(ALL_CARDS[base + k])
        mask >>= 10
        base += 10
    return out


class ColorMap(Mapping[Color, V], Generic[V]):
    """A read-only mapping from the variant's colours to values; keys may be ``Color``
    members or their letters (``m[Color.RED]``, ``m["r"]``) or colour indexes.
    """

    __slots__ = ("_colors", "_values")

    def __init__(self, colors: Sequence[Color], values: Sequence[V]) -> None:
        self._colors = colors
        self._values = values

    def __getitem__(self, key: Color | str | int) -> V:
        if isinstance(key, str):
            try:
                key = Color.parse(key)
            except InvalidCardError:
                raise KeyError(key) from None
        if isinstance(key, int) and 0 <= key < len(self._colors):
            return self._values[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[Color]:
        return iter(self._colors)

    def __len__(self) -> int:
        return len(self._colors)

    def __repr__(self) -> str:
        inner = ", ".join(
            f"{c.letter!r}: {v!r}" for c, v in zip(self._colors, self._values, strict=True)
        )
        return "{" + inner + "}"


class LegalMoves(Sequence[Move]):
    """The distinct legal moves of a position, computed once when asked for.

    A sequence: ``len``, indexing, iteration (plays first, then discards, cards in
    sorted order, draw pile before discard piles) and ``in``. Identical wagers are one move.
    It describes the position at the time of the call.
    """

    # three masks (see _COLOR_MASK): cards to play, cards to discard, non-empty piles; the
    # moves are generated from them only when asked for (length and ``in`` need none)
    __slots__ = ("_hm", "_len", "_n_play", "_pm", "_sm")

    def __init__(
        self, plays: Iterable[Card], discards: Iterable[Card], srcs: Iterable[int]
    ) -> None:
        self._set(_hand_mask(plays), _hand_mask(discards), sum(1 << s for s in set(srcs)))

    def _set(self, pm: int, hm: int, sm: int) -> LegalMoves:
        self._pm = pm
        self._hm = hm
        self._sm = sm
        n_src = _N_SRC[sm]
        n_play = pm.bit_count() * n_src
        self._n_play = n_play
        self._len = n_play + hm.bit_count() * n_src - (hm & _PILE_CARDS[sm]).bit_count()
        return self

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __iter__(self) -> Iterator[Move]:
        moves = _MOVES
        cols = _PLAY_COLS[self._sm]
        mask = self._pm
        while mask:
            low = mask & -mask
            mask ^= low
            base = (low.bit_length() - 1) * 7
            for j in cols:
                yield moves[base + j]
        by_card = _DISCARD_COLS[self._sm]
        mask = self._hm
        while mask:
            low = mask & -mask
            mask ^= low
            i = low.bit_length() - 1
            base = (60 + i) * 7
            for j in by_card[i]:
                yield moves[base + j]

    @overload
    def __getitem__(self, index: int) -> Move: ...
    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...
    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if index.__class__ is not int or not 0 <= index < self._len:  # int in range: fast
            if isinstance(index, slice):
                return list(self)[index]
            if index < 0:
                index += self._len
            if not 0 <= index < self._len:
                raise IndexError("legal move index out of range")
        # walk the masks a colour (10 bits) at a time: few steps of small-int work
        sm = self._sm
        if index < self._n_play:
            cols = _PLAY_COLS[sm]
            k, j = divmod(index, len(cols))
            mask = self._pm
            base = 0
            while True:
                ks = _CHUNK_KS[mask & 1023]
                if k < len(ks):
                    return _MOVES[(base + ks[k]) * 7 + cols[j]]
                k -= len(ks)
                mask >>= 10
                base += 10
        index -= self._n_play
        per = _DISCARD_PER[sm]
        mask = self._hm
        c = 0
        while True:
            ks = _CHUNK_KS[mask & 1023]
            n = len(ks) * per[c]
            if index < n:
                q, j = divmod(index, per[c])
                i = 10 * c + ks[q]
                return _MOVES[(60 + i) * 7 + _DISCARD_COLS[sm][i][j]]
            index -= n
            mask >>= 10
            c += 1

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move):
            return False
        bit, need, play = _CHECK[move._key]
        return bool((self._pm if play else self._hm) & bit) and bool((self._sm << 1 | 1) & need)

    def cards(self, action: Action) -> list[Card]:
        """The distinct cards that can be played (or discarded), sorted."""
        return _cards_of(self._pm if action is Action.PLAY else self._hm)

    def draws(self, action: Action, card: Card) -> list[Color | None]:
        """The legal draw sources after ``action`` with ``card`` (``None`` = the draw pile)."""
        if card.__class__ is not Card:  # not a card: in no hand
            return []
        if action is Action.PLAY:
            if self._pm >> card.index & 1:
                return [None, *_DRAW_COLORS[self._sm]]
        elif self._hm >> card.index & 1:
            sm = self._sm & ~(1 << card.color) if action is Action.DISCARD else self._sm
            return [None, *_DRAW_COLORS[sm]]
        return []

    def __repr__(self) -> str:
        return f"<LegalMoves ({self._len}): {' '.join(str(m) for m in self)}>"


_new_legal = LegalMoves.__new__
_set_legal = LegalMoves._set


def _legal_moves(
    hand: Iterable[Card], tops: Sequence[int], piles: Sequence[Sequence[Card]]
) -> LegalMoves:
    """The one definition of the legal moves, shared by :class:`Round` and :class:`PlayerView`."""
    hm = _hand_mask(hand)
    return _set_legal(_new_legal(LegalMoves), hm & _tops_mask(tops), hm, _piles_mask(piles))


def _illegal_reason(
    move: Move,
    hand: Sequence[Card],
    tops: Sequence[int],
    piles: Sequence[Sequence[Card]],
    player: int,
) -> str | None:
    """Why ``move`` is illegal for a player holding ``hand``, or ``None`` if it is legal."""
    card = move.card
    color = card.color
    if card not in hand:
        return f"{card} is not in player {player}'s hand"
    name = color.name.lower()
    if move.action is Action.PLAY and not playable(card.rank, tops[color]):
        top = tops[color]
        if card.rank == WAGER:
            return f"a {name} wager cannot follow the number card {color.letter}{top}"
        word = "equal to" if card.rank == top else "lower than"
        return f"{card} is {word} the last {name} card {color.letter}{top}"
    d = move.draw
    if d is not None:
        if d >= len(piles):
            return f"there is no {d.name.lower()} discard pile in this variant"
        if move.action is Action.DISCARD and d == color:
            return f"cannot take back the card just discarded onto the {name} pile"
        if not piles[d]:
            return f"the {d.name.lower()} discard pile is empty"
    return None


class Termination(enum.Enum):
    """How a round ended."""

    DRAW_PILE_EMPTY = "draw pile empty"
    """The last card of the draw pile was drawn (the rules' ending)."""
    TURN_LIMIT = "turn limit"
    """An automated ``max_turns`` cap was reached; the round is scored as it stands."""
    FORFEIT = "forfeit"
    """A player forfeited (a bot crashed, timed out or moved illegally)."""


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """The result of a finished round."""

    termination: Termination
    """Why the round ended."""
    scores: tuple[int, int]
    """Both players' points as the expeditions stand."""
    winner: int | None
    """0 or 1, or ``None`` for a tie. A forfeit loses whatever the scores."""
    reason: str = ""
    """For a forfeit: what happened."""

    @property
    def truncated(self) -> bool:
        """Whether a turn cap cut the round short."""
        return self.termination is Termination.TURN_LIMIT

    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``."""
        return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[self.winner]


# One undo record: (move, player, hand index, drawn card, index of the known card removed
# or -1, previous top, previous hand mask, previous play mask, previous pile mask)
_Undo = tuple[Move, int, int, Card, int, int, int, int, int]


class Round:
    """One round of Lost Cities, the referee's complete state, with a move stack.

    Build one with :meth:`deal` (seeded shuffle) or :meth:`from_deck` (explicit order).

    >>> r = Round.from_deck(CLASSIC.deck(), starter=1)
    >>> [str(c) for c in r.hands[1]][:4], r.to_move
    (['y7', 'y8', 'y9', 'y10'], 1)
    >>> r.push("+y7.")
    >>> r.expeditions[1]["y"]
    (Card.parse('y7'),)
    >>> r.push("+y8.")
    Traceback (most recent call last):
    ...
    lostcities.errors.IllegalMoveError: illegal move: '+y8.' (y8 is not in player 0's hand)
    """

    variant: Variant
    """The variant being played."""
    starter: int
    """Who made the first move."""
    seed: int | None
    """The seed of :meth:`deal`, or ``None`` for :meth:`from_deck`."""
    max_turns: int | None
    """Optional cap on moves for automated play (``None``: the official rules, no cap)."""

    def __init__(
        self,
        deck: Iterable[Card | str],
        starter: int = 0,
        variant: str | Variant = CLASSIC,
        *,
        max_turns: int | None = None,
        achievements: object = None,
    ) -> None:
        var = get_variant(variant)
        given = deck if isinstance(deck, str) else list(deck)
        if isinstance(given, list) and set(map(type, given)) == _CARD_TYPE:
            cards = cast(list[Card], given)  # cards already: nothing to parse
        else:
            try:
                cards = parse_cards(given)
            except InvalidCardError as e:
                raise InvalidDeckError(f"invalid deck: {e}") from None
        _check_deck(cards, var)
        _check_start(starter, max_turns)
        self._start(var, cards, starter, max_turns)
        self._set_goals(
            resolve_goals(achievements, "deck:" + " ".join(map(str, cards)))
            if achievements is not None and achievements is not False
            else None
        )

    def _start(self, var: Variant, cards: list[Card], starter: int, max_turns: int | None) -> None:
        """Deal ``cards`` (checked) and set up the round, goals aside."""
        n = var.num_colors
        hs = var.hand_size
        self.variant = var
        self.starter = starter
        self.seed = None
        self.max_turns = max_turns
        self._deal = tuple(cards)
        self._hands = [cards[:hs], cards[hs : 2 * hs]]
        self._deck = cards[2 * hs :][::-1]  # next card to draw is last
        self._exp: list[list[list[Card]]] = [[[] for _ in range(n)] for _ in range(2)]
        self._tops = [[0] * n, [0] * n]
        self._piles: list[list[Card]] = [[] for _ in range(n)]
        self._known: list[list[Card]] = [[], []]
        self._masks()
        self._stack: list[_Undo] = []
        self._turn = starter
        self._hist0: tuple[Move, ...] = ()  # moves before the stack (copies, samples)
        self._termination: Termination | None = None
        self._forfeit: tuple[int, str] | None = None

    def _masks(self) -> None:
        """Derive the bitmasks (see ``_COLOR_MASK``) and the card-index twins of the hands
        and known cards from the tables (the hot path compares ints, not cards)."""
        self._hix = [[c.index for c in self._hands[0]], [c.index for c in self._hands[1]]]
        self._kix = [[c.index for c in self._known[0]], [c.index for c in self._known[1]]]
        self._hm = [_hand_mask(self._hands[0]), _hand_mask(self._hands[1])]
        self._pm = [_tops_mask(self._tops[0]), _tops_mask(self._tops[1])]
        self._sm = _piles_mask(self._piles)

    def _set_goals(
        self,
        goals: tuple[Goal, ...] | None,
        claims: Sequence[int | None] = (),
        discards: Sequence[int] = (0, 0),
        pile_draws: Sequence[int] = (0, 0),
    ) -> None:
        """The achievements state: goals (``None``: classic), race claims, counters."""
        self._goals = goals
        self._claims: list[int | None] = list(claims) if claims else [None] * len(goals or ())
        self._gcount = [list(discards), list(pile_draws)]  # [discards, pile draws][player]
        self._gstack: list[tuple[int, ...]] = []  # race goals claimed by each push

    # -- construction --------------------------------------------------------------------

    @classmethod
    def deal(
        cls,
        seed: int | None = None,
        variant: str | Variant = CLASSIC,
        starter: int = 0,
        *,
        max_turns: int | None = None,
        achievements: object = None,
    ) -> Round:
        """Shuffle the variant's deck with ``random.Random(seed)`` and deal.

        The same seed always gives the same deal. Without a seed one is drawn and kept in
        :attr:`seed`, so every round can be replayed.

        ``achievements`` plays the achievements variant (:mod:`lostcities.achievements`):
        ``True`` lays out 5 goals drawn by the seed from the default pool, a ``GoalSet``
        5 drawn from it, a list of goals exactly those; ``None`` (the default) is the
        classic game.

        >>> r = Round.deal(seed=7, achievements=True)
        >>> len(r.goals), r.claims
        (5, (None, None, None, None, None))

        :raises InvalidGoalError: for an ``achievements`` value that is not one of these.
        """
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        var = get_variant(variant)
        deck = var.deck()
        random.Random(seed).shuffle(deck)
        _check_start(starter, max_turns)
        r = object.__new__(cls)  # the variant's own deck, shuffled: nothing to check
        r._start(var, deck, starter, max_turns)
        r.seed = seed
        r._set_goals(
            resolve_goals(achievements, seed)
            if achievements is not None and achievements is not False
            else None
        )
        return r

    @classmethod
    def from_deck(
        cls,
        deck: Iterable[Card | str],
        starter: int = 0,
        variant: str | Variant = CLASSIC,
        *,
        max_turns: int | None = None,
        achievements: object = None,
    ) -> Round:
        """Deal ``deck`` in order: 8 cards to player 0, 8 to player 1, the rest is the draw
        pile, next card to be drawn first.

        ``achievements`` as in :meth:`deal`; goals drawn from a pool (``True``, a
        ``GoalSet``) are drawn by the deck's order, so the same deck draws the same goals.

        :raises InvalidDeckError: if ``deck`` is not exactly the variant's cards, saying
            what is missing or extra.
        :raises InvalidGoalError: for a bad ``achievements`` value.
        """
        return cls(deck, starter, variant, max_turns=max_turns, achievements=achievements)

    def replayed(self, ply: int | None = None) -> Round:
        """A fresh round from this round's deal (deck, starter, variant, turn limit and
        goal cards) with its first ``ply`` moves played again (``None``: all of them), so
        it can :meth:`pop` back to the deal; goals are claimed again move by move. Only
        moves are replayed: a resignation or a timeout is not.

        >>> r = Round.deal(seed=3, achievements=True)
        >>> for _ in range(5):
        ...     r.push(r.legal_moves()[0])
        >>> x = r.replayed(2)
        >>> x.history == r.history[:2], x.goals == r.goals, r.replayed().claims == r.claims
        (True, True, True)

        :raises NoSuchPlyError: for a ``ply`` outside ``0..len(history)``.
        """
        moves = self.history
        if ply is None:
            ply = len(moves)
        if not 0 <= ply <= len(moves):
            raise NoSuchPlyError(f"no ply {ply} in this round (it has 0..{len(moves)})")
        r = Round(
            self._deal,
            self.starter,
            self.variant,
            max_turns=self.max_turns,
            achievements=self._goals,
        )
        for move in moves[:ply]:
            r.push(move)
        return r

    def copy(self, *, stack: bool = True) -> Round:
        """An independent copy; with ``stack=False`` it cannot :meth:`pop` past this point."""
        r = object.__new__(Round)
        r.variant = self.variant
        r.starter = self.starter
        r.seed = self.seed
        r.max_turns = self.max_turns
        r._deal = self._deal
        r._hands = [self._hands[0][:], self._hands[1][:]]
        r._deck = self._deck[:]
        r._exp = [[e[:] for e in self._exp[0]], [e[:] for e in self._exp[1]]]
        r._tops = [self._tops[0][:], self._tops[1][:]]
        r._piles = [p[:] for p in self._piles]
        r._known = [self._known[0][:], self._known[1][:]]
        r._hix = [self._hix[0][:], self._hix[1][:]]
        r._kix = [self._kix[0][:], self._kix[1][:]]
        r._hm = self._hm[:]
        r._pm = self._pm[:]
        r._sm = self._sm
        r._turn = self._turn
        r._termination = self._termination
        r._forfeit = self._forfeit
        if stack:
            r._stack = self._stack[:]
            r._hist0 = self._hist0
        else:
            r._stack = []
            r._hist0 = self.history
        r._goals = self._goals
        r._claims = self._claims[:]
        r._gcount = [self._gcount[0][:], self._gcount[1][:]]
        r._gstack = self._gstack[:] if stack else []
        return r

    # -- state -----------------------------------------------------------------------

    @property
    def to_move(self) -> int:
        """The player whose turn it is (after the end: the player who moved last)."""
        return self._turn

    @property
    def deck_size(self) -> int:
        """Cards left in the draw pile (public information)."""
        return len(self._deck)

    @property
    def ply(self) -> int:
        """Moves made so far in this round."""
        return len(self._hist0) + len(self._stack)

    @property
    def history(self) -> tuple[Move, ...]:
        """The moves made, oldest first (every move is public)."""
        return self._hist0 + tuple(map(_FIRST, self._stack))

    @property
    def deal_order(self) -> tuple[Card, ...]:
        """The whole deck as dealt (the ``deck`` of :meth:`from_deck`)."""
        return self._deal

    @property
    def hands(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """Both hands, each sorted. The referee's knowledge: give players :meth:`view`."""
        return (
            tuple(sorted(self._hands[0], key=_INDEX)),
            tuple(sorted(self._hands[1], key=_INDEX)),
        )

    @property
    def expeditions(self) -> tuple[ColorMap[tuple[Card, ...]], ColorMap[tuple[Card, ...]]]:
        """``expeditions[player][colour]``: the cards in play order."""
        cols = self.variant.colors
        e0, e1 = self._exp
        return (ColorMap(cols, [tuple(x) for x in e0]), ColorMap(cols, [tuple(x) for x in e1]))

    @property
    def discard_piles(self) -> ColorMap[tuple[Card, ...]]:
        """``discard_piles[colour]``: bottom first, top (the only one available) last."""
        return ColorMap(self.variant.colors, [tuple(p) for p in self._piles])

    @property
    def draw_pile(self) -> tuple[Card, ...]:
        """The draw pile, next card to be drawn first. The referee's secret."""
        return tuple(reversed(self._deck))

    def known_cards(self, player: int) -> tuple[Card, ...]:
        """Cards ``player`` is publicly known to hold: taken from a discard pile and not yet
        played or discarded since."""
        return tuple(sorted(self._known[player]))

    def is_over(self) -> bool:
        """Whether the round has ended."""
        return self._termination is not None

    def tables(self) -> RoundTables:
        """The round's live tables, for hot loops (rollouts, packing into the fast path).

        Read only: they are the round's own lists, changed by every push and pop, and
        writing to them breaks the round. Everything here is also readable through the
        checked, copying properties above; this is the fast way.
        """
        return RoundTables(self._hands, self._tops, self._exp, self._piles, self._deck, self._known)

    @property
    def termination(self) -> Termination | None:
        """How the round ended, or ``None`` while it goes on."""
        return self._termination

    @property
    def truncated(self) -> bool:
        """Whether the round was ended by the ``max_turns`` cap."""
        return self._termination is Termination.TURN_LIMIT

    # -- the achievements variant ------------------------------------------------------

    @property
    def goals(self) -> tuple[Goal, ...]:
        """The goal cards laid out (``()`` in the classic game)."""
        return self._goals or ()

    @property
    def claims(self) -> tuple[int | None, ...]:
        """Who holds each goal: race goals once claimed; end goals once the round is over
        (a tie: ``None``)."""
        goals = self._goals
        if goals is None:
            return ()
        if self._termination is None:
            return tuple(self._claims)
        exps = self._exp
        d, pd = self._gcount
        return tuple(
            decide_end(g, exps, d, pd) if g.kind == "end" else c
            for g, c in zip(goals, self._claims, strict=True)
        )

    @property
    def achievements(self) -> GoalBoard | None:
        """The goals and claims (public), or ``None`` in the classic game."""
        if self._goals is None:
            return None
        d, pd = self._gcount
        return GoalBoard(
            self._goals, self.claims, (d[0], d[1]), (pd[0], pd[1]), self._termination is not None
        )

    def goal_points(self, player: int) -> int:
        """``player``'s points from claimed goals (10 each; 0 in the classic game)."""
        return GOAL_POINTS * sum(1 for c in self.claims if c == player)

    def _goal_turn(self, p: int, move: Move) -> None:
        """After player ``p``'s turn in a goal game: count it, claim the race goals met."""
        counts = self._gcount
        if move.action is not _PLAY_ACTION:
            counts[0][p] += 1
        if move.draw is not None:
            counts[1][p] += 1
        claims = self._claims
        exp = self._exp[p]
        got = []
        for i, g in enumerate(self._goals or ()):
            if claims[i] is None and g.kind == "race" and g.met(exp, counts[0][p], counts[1][p]):
                claims[i] = p
                got.append(i)
        self._gstack.append(tuple(got))

    def _goal_undo(self, p: int, move: Move) -> None:
        counts = self._gcount
        if move.action is not _PLAY_ACTION:
            counts[0][p] -= 1
        if move.draw is not None:
            counts[1][p] -= 1
        for i in self._gstack.pop():
            self._claims[i] = None

    # -- moves -----------------------------------------------------------------------

    def legal_moves(self) -> LegalMoves:
        """The distinct legal moves of the player to move (none once the round is over)."""
        if self._termination is not None:
            return LegalMoves([], [], [])
        p = self._turn
        hm = self._hm[p]
        return _set_legal(_new_legal(LegalMoves), hm & self._pm[p], hm, self._sm)

    def is_legal(self, move: Move | str) -> bool:
        """Whether ``move`` (a ``Move`` or notation) is legal now. Bad notation is not legal."""
        try:
            m = move if isinstance(move, Move) else Move.parse(move)
        except InvalidMoveError:
            return False
        return self._legal(m) or self._why_illegal(m) is None

    def _legal(self, move: Move) -> bool:
        """Whether ``move`` is legal, from the bitmasks: ``True`` only for a legal move
        (``False`` leaves the verdict to :meth:`_why_illegal`)."""
        if self._termination is not None:
            return False
        bit, need, play = _CHECK[move._key]
        p = self._turn
        have = self._hm[p] & self._pm[p] if play else self._hm[p]
        return bool(have & bit) and bool((self._sm << 1 | 1) & need)

    def _why_illegal(self, move: Move) -> str | None:
        if self._termination is not None:
            return "the round is over"
        p = self._turn
        card = move.card
        if card.color >= self.variant.num_colors:
            return f"{card.color.name.lower()} is not in the {self.variant.name} variant"
        return _illegal_reason(move, self._hands[p], self._tops[p], self._piles, p)

    def parse_move(self, text: str) -> Move:
        """Parse notation and check it is legal here.

        :raises InvalidMoveError: for bad notation.
        :raises IllegalMoveError: for a move the rules forbid, saying why.
        """
        move = Move.parse(text)
        if self._legal(move):  # the bitmasks say yes: no reason to look for
            return move
        reason = self._why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move: {str(move)!r} ({reason})")
        return move

    def push(self, move: Move | str) -> None:
        """Make a move (a ``Move`` or notation), checking it is legal.

        :raises InvalidMoveError: for bad notation.
        :raises IllegalMoveError: for a move the rules forbid, saying why; nothing changes.
        """
        if not isinstance(move, Move):
            if not isinstance(move, str):
                raise InvalidMoveError(f"invalid move: {move!r} (expected a Move or notation)")
            move = Move.parse(move)
        if self._termination is None:  # _legal inlined: the hot path of every push
            bit, need, play = _CHECK[move._key]
            p = self._turn
            have = self._hm[p] & self._pm[p] if play else self._hm[p]
            if have & bit and (self._sm << 1 | 1) & need:
                self.push_unchecked(move)
                return
        reason = self._why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move: {str(move)!r} ({reason})")
        self.push_unchecked(move)

    def ends_round(self, move: Move) -> bool:
        """Whether the legal ``move`` ends the round: it draws the draw pile's last card,
        or it is the last turn under :attr:`max_turns`. Nothing is made (a server learns
        what a move leads to before it stores it, then makes it once).

        >>> r = Round.deal(seed=1)
        >>> r.ends_round(r.legal_moves()[0])
        False
        """
        if move.draw is None and len(self._deck) == 1:
            return True
        return self.max_turns is not None and self.ply + 1 >= self.max_turns

    def push_unchecked(self, move: Move) -> None:
        """Make a move known to be legal, without checking it: for search over moves taken
        from :meth:`legal_moves` or a policy that only makes legal moves.

        Warning: an illegal move corrupts the round (no error is raised, and :meth:`pop`
        may not restore it). Use :meth:`push` for moves from outside.
        """
        p = self._turn
        card, ci, c, rank, play, d = _STEP[move._key]
        hix = self._hix[p]
        i = hix.index(ci)
        tops = self._tops[p]
        prev_top = tops[c]
        hm = self._hm
        pm = self._pm
        prev_hm = hm[p]
        prev_pm = pm[p]
        prev_sm = sm = self._sm
        if play:
            self._exp[p][c].append(card)
            if rank:
                tops[c] = rank
                pm[p] = prev_pm & _NOT_COLOR[c] | _PLAY_MASK[c][rank]
        else:
            self._piles[c].append(card)
            sm |= 1 << c
        kix = self._kix[p]
        removed = -1
        if kix and ci in kix:
            removed = kix.index(ci)
            del kix[removed]
            del self._known[p][removed]
        if d < 0:
            drawn = self._deck.pop()
        else:
            pile = self._piles[d]
            drawn = pile.pop()
            self._known[p].append(drawn)
            kix.append(drawn.index)
            if not pile:
                sm ^= 1 << d
        self._hands[p][i] = drawn
        di = drawn.index
        hix[i] = di
        self._sm = sm
        h = prev_hm
        if rank or ci not in hix:  # a wager's bit stays while the hand holds another
            h ^= _BITS[ci]
        hm[p] = h | _BITS[di]
        self._stack.append((move, p, i, drawn, removed, prev_top, prev_hm, prev_pm, prev_sm))
        if not self._deck:
            self._termination = Termination.DRAW_PILE_EMPTY
        elif self.max_turns is not None and self.ply >= self.max_turns:
            self._termination = Termination.TURN_LIMIT
        else:
            self._turn = p ^ 1
        if self._goals is not None:
            self._goal_turn(p, move)

    def pop(self) -> Move:
        """Undo the last move exactly and return it (after a forfeit, the forfeit too).

        :raises IndexError: if there is nothing to undo.
        """
        try:
            move, p, i, drawn, removed, prev_top, prev_hm, prev_pm, prev_sm = self._stack.pop()
        except IndexError:
            self._forfeit = None
            raise IndexError("pop from a round with no moves") from None
        if self._termination is not None:  # (a forfeit always ended the round)
            self._termination = None
            self._forfeit = None
        card, ci, c, rank, play, d = _STEP[move._key]
        if d < 0:
            self._deck.append(drawn)
        else:
            self._piles[d].append(drawn)
            self._known[p].pop()  # the drawn card was appended last, unchanged since
            self._kix[p].pop()
            self._sm = prev_sm
        if removed >= 0:
            self._known[p].insert(removed, card)
            self._kix[p].insert(removed, ci)
        self._hands[p][i] = card
        self._hix[p][i] = ci
        self._hm[p] = prev_hm
        if play:
            self._exp[p][c].pop()
            if rank:  # only a number card changes the top and the playable cards
                self._tops[p][c] = prev_top
                self._pm[p] = prev_pm
        else:
            self._piles[c].pop()
            self._sm = prev_sm
        self._turn = p
        if self._goals is not None:
            self._goal_undo(p, move)
        return move

    def forfeit(self, player: int, reason: str = "") -> None:
        """End the round now with ``player`` losing (a bot crashed, timed out, moved
        illegally). The expeditions are scored as they stand."""
        if player not in (0, 1):
            raise ValueError(f"invalid player: {player!r} (expected 0 or 1)")
        if self._termination is not None:
            raise IllegalMoveError("illegal forfeit: the round is over")
        self._forfeit = (player, reason)
        self._termination = Termination.FORFEIT

    # -- scores and views -----------------------------------------------------------------

    def scores(self) -> tuple[int, int]:
        """Both players' points for their expeditions as they stand, plus 10 per claimed
        goal in the achievements variant (:meth:`goal_points`)."""
        exp0, exp1 = self._exp
        a = expeditions_points(exp0)
        b = expeditions_points(exp1)
        if self._goals is not None:
            for c in self.claims:
                if c == 0:
                    a += GOAL_POINTS
                elif c == 1:
                    b += GOAL_POINTS
        return (a, b)

    def score_breakdown(self, player: int) -> ColorMap[ExpeditionScore]:
        """Each expedition's score sheet line for ``player``."""
        return ColorMap(
            self.variant.colors, [score_expedition(e, check=False) for e in self._exp[player]]
        )

    def outcome(self) -> RoundOutcome | None:
        """The result once the round is over, else ``None``."""
        if self._termination is None:
            return None
        s = self.scores()
        if self._forfeit is not None:
            loser, reason = self._forfeit
            return RoundOutcome(Termination.FORFEIT, s, loser ^ 1, reason)
        winner = 0 if s[0] > s[1] else 1 if s[1] > s[0] else None
        return RoundOutcome(self._termination, s, winner)

    def view(self, player: int) -> PlayerView:
        """What ``player`` may know: own hand, the table, the draw-pile size, the public
        history and the cards the opponent is known to hold. Never the opponent's other
        cards nor the order of the draw pile."""
        if player not in (0, 1):
            raise ValueError(f"invalid player: {player!r} (expected 0 or 1)")
        known = self._known
        return PlayerView(
            variant=self.variant,
            player=player,
            hand=tuple(sorted(self._hands[player], key=_INDEX)),
            expeditions=(tuple(map(tuple, self._exp[0])), tuple(map(tuple, self._exp[1]))),
            discard_piles=tuple(map(tuple, self._piles)),
            deck_size=len(self._deck),
            to_move=self._turn,
            history=self.history,
            opponent_known=tuple(sorted(known[player ^ 1], key=_INDEX))
            if known[player ^ 1]
            else (),
            ply=len(self._hist0) + len(self._stack),
            over=self._termination is not None,
            max_turns=self.max_turns,
            own_known=tuple(sorted(known[player], key=_INDEX)) if known[player] else (),
            achievements=None if self._goals is None else self.achievements,
        )

    def set_next_draw(self, card: Card) -> None:
        """Make ``card`` (in the draw pile) the next card drawn from it.

        The order of the draw pile is the referee's secret and no rule depends on it; an
        environment whose chance nodes decide each drawn card (OpenSpiel) fixes it card by
        card this way. The rest of the pile keeps its cards (two swap places).

        :raises ValueError: if ``card`` is not in the draw pile.
        """
        pile = self._deck  # next card last
        for i in range(len(pile) - 1, -1, -1):
            if pile[i] == card:
                pile[i], pile[-1] = pile[-1], pile[i]
                return
        raise ValueError(f"{card} is not in the draw pile")

    def _with_hidden(self, opponent: int, hand: list[Card], deck: list[Card]) -> Round:
        """A copy without stack with ``opponent``'s hand and the deck (next card last)
        replaced (taken, not copied): :class:`WorldSampler`'s step."""
        r = self.copy(stack=False)
        r._hands[opponent] = hand
        r._hix[opponent] = [c.index for c in hand]
        r._hm[opponent] = _hand_mask(hand)
        r._deck = deck
        return r

    @classmethod
    def from_view(
        cls, view: PlayerView, opponent_hand: Sequence[Card], draw_pile: Sequence[Card]
    ) -> Round:
        """The round ``view`` describes once its hidden cards are given: the opponent's
        whole hand (in slot order, the cards it is known to hold included) and the draw
        pile (next card first). For search over sampled worlds (:class:`WorldSampler`); the
        round starts its move stack here (its history is the view's).

        :raises InvalidDeckError: if the cards do not complete the view to the variant's
            deck, or the opponent's hand has the wrong size or lacks a card it is known to
            hold.
        """
        var = view.variant
        if len(opponent_hand) != var.hand_size:
            raise InvalidDeckError(
                f"invalid world: the opponent's hand has {len(opponent_hand)} cards, "
                f"expected {var.hand_size}"
            )
        rest = list(opponent_hand)
        for c in view.opponent_known:
            if c not in rest:
                raise InvalidDeckError(f"invalid world: the opponent is known to hold {c}")
            rest.remove(c)
        table = [c for p in view.discard_piles for c in p]
        table += [c for side in view.expeditions for e in side for c in e]
        _check_deck([*view.hand, *opponent_hand, *draw_pile, *table], var)
        if len(draw_pile) != view.deck_size:
            raise InvalidDeckError(
                f"invalid world: the draw pile has {len(draw_pile)} cards, expected {view.deck_size}"
            )
        return cls._world(view, list(opponent_hand), list(reversed(draw_pile)))

    @classmethod
    def _world(cls, view: PlayerView, opponent_hand: list[Card], deck: list[Card]) -> Round:
        """:meth:`from_view` without checks; ``deck`` next card last (taken, not copied)."""
        var = view.variant
        r = object.__new__(Round)
        r.variant = var
        r.starter = view.to_move
        r.seed = None
        r.max_turns = view.max_turns
        me = view.player
        hands: list[list[Card]] = [[], []]
        hands[me] = list(view.hand)
        hands[me ^ 1] = opponent_hand
        r._hands = hands
        r._deck = deck
        r._deal = ()
        r._exp = [[list(e) for e in view.expeditions[0]], [list(e) for e in view.expeditions[1]]]
        r._tops = [
            [max((c.rank for c in e), default=0) for e in view.expeditions[p]] for p in (0, 1)
        ]
        r._piles = [list(p) for p in view.discard_piles]
        known: list[list[Card]] = [[], []]
        known[me] = list(view.own_known)
        known[me ^ 1] = list(view.opponent_known)
        r._known = known
        r._masks()
        r._stack = []
        r._turn = view.to_move
        r._hist0 = view.history
        r._termination = None
        if view.over:  # the view does not say how it ended: as the rules would have
            r._termination = Termination.DRAW_PILE_EMPTY if not deck else Termination.TURN_LIMIT
        r._forfeit = None
        board = view.achievements
        if board is None:
            r._set_goals(None)
        else:
            r._set_goals(
                board.goals,
                [
                    None if g.kind == "end" else c
                    for g, c in zip(board.goals, board.claims, strict=True)
                ],
                board.discards,
                board.pile_draws,
            )
        return r

    def __str__(self) -> str:
        return _render(
            self.variant,
            self._exp,
            self._piles,
            len(self._deck),
            self._turn,
            [sorted(self._hands[0]), sorted(self._hands[1])],
            self.scores(),
        ) + _goals_text(self.achievements)

    def _repr_svg_(self) -> str:
        """The round as an SVG picture, both hands face up (notebooks show it;
        :func:`lostcities.svg.position`)."""
        from lostcities import svg  # only when drawn, as python-chess imports chess.svg

        return svg.position(self)

    def __repr__(self) -> str:
        state = "over" if self._termination is not None else f"player {self._turn} to move"
        return f"<Round {self.variant.name} ply {self.ply}, {state}, deck {len(self._deck)}>"


def _check_start(starter: int, max_turns: int | None) -> None:
    if starter not in (0, 1):
        raise ValueError(f"invalid starter: {starter!r} (expected 0 or 1)")
    if max_turns is not None and max_turns < 1:
        raise ValueError(f"invalid max_turns: {max_turns!r} (expected a positive number)")


_DECK_INDEXES: dict[tuple[Color, ...], list[int]] = {}  # sorted card indexes of a deck


def _check_deck(cards: list[Card], var: Variant) -> None:
    try:
        expected = _DECK_INDEXES[var.colors]
    except (KeyError, TypeError):
        expected = sorted(map(_INDEX, var.deck()))
        if isinstance(var.colors, tuple):
            _DECK_INDEXES[var.colors] = expected
    if len(cards) == len(expected) and sorted(map(_INDEX, cards)) == expected:
        return
    want: dict[Card, int] = {}
    for c in var.deck():
        want[c] = want.get(c, 0) + 1
    have: dict[Card, int] = {}
    for c in cards:
        have[c] = have.get(c, 0) + 1
    if have == want:
        return
    missing = sorted(c for c in want for _ in range(want[c] - have.get(c, 0)))
    extra = sorted(c for c in have for _ in range(have[c] - want.get(c, 0)))
    parts = []
    if missing:
        parts.append("missing " + " ".join(map(str, missing)))
    if extra:
        parts.append("extra " + " ".join(map(str, extra)))
    raise InvalidDeckError(
        f"invalid deck for the {var.name} variant ({len(cards)} cards, expected "
        f"{var.deck_size}): {'; '.join(parts)}"
    )


def _goals_text(board: GoalBoard | None) -> str:
    """The goals line of a goal game's text form (``""`` in the classic game)."""
    if board is None:
        return ""
    parts = [
        f"{g.id}:{'-' if c is None else c}" for g, c in zip(board.goals, board.claims, strict=True)
    ]
    return "\ngoals " + " ".join(parts)


def _render(
    var: Variant,
    exps: Sequence[Sequence[Sequence[Card]]],
    piles: Sequence[Sequence[Card]],
    deck_size: int,
    to_move: int,
    hands: Sequence[Sequence[Card] | None],
    scores: tuple[int, int],
) -> str:
    lines = []
    for p in (1, 0):
        hand = hands[p]
        shown = " ".join(map(str, hand)) if hand is not None else "(hidden)"
        lines.append(f"player {p}{' *' if to_move == p else ''}  score {scores[p]}  hand {shown}")
        for c in var.colors:
            e = exps[p][c]
            if e:
                lines.append(f"  {c.letter}: {' '.join(map(str, e))}")
    tops = " ".join(
        f"{c.letter}:{piles[c][-1] if piles[c] else '-'}({len(piles[c])})" for c in var.colors
    )
    lines.append(f"discards {tops}  draw pile {deck_size}")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class MatchContext:
    """Where a round stands in its match, as both players know it: which round of how
    many, the totals of the rounds before it and how equal totals end. A
    :class:`PlayerView` inside a :class:`~lostcities.Match` carries one
    (:meth:`lostcities.Match.view`, the referee's views); a lone round has none. Public
    information only: the protocol sends it as the ``match`` position line.

    ``totals`` are by seat; the properties read them from ``player``'s side.

    >>> c = MatchContext(round=3, rounds=3, totals=(40, 52), player=1)
    >>> c.rounds_left, c.last_round, c.own_total, c.opponent_total, c.lead
    (0, True, 52, 40, 12)
    >>> MatchContext(round=3, rounds=3, totals=(0, 0), player=1, tie_break="youngest",
    ...              younger=0).tie_value
    -1
    """

    round: int
    """The round this view is in, from 1."""
    rounds: int
    """How many rounds the match has."""
    totals: tuple[int, int]
    """The running totals by seat over the rounds finished before this one."""
    player: int
    """The seat the context is seen from (the view's player)."""
    tie_break: Literal["draw", "youngest"] = "draw"
    """How equal match totals end: ``draw`` or ``youngest`` (the :attr:`younger` seat
    wins)."""
    younger: int | None = None
    """The seat marked as the younger player (``youngest`` only), else ``None``."""

    def __post_init__(self) -> None:
        if not 1 <= self.round <= self.rounds:
            raise ValueError(f"invalid match context: round {self.round!r} of {self.rounds!r}")
        if self.player not in (0, 1):
            raise ValueError(f"invalid match context: player {self.player!r} (expected 0 or 1)")
        if (self.tie_break == "youngest") != (self.younger in (0, 1)):
            raise ValueError(
                f"invalid match context: tie-break {self.tie_break!r} with younger {self.younger!r}"
            )

    @property
    def rounds_left(self) -> int:
        """Rounds still to come after this one."""
        return self.rounds - self.round

    @property
    def last_round(self) -> bool:
        """Whether this is the match's last round."""
        return self.round == self.rounds

    @property
    def own_total(self) -> int:
        """The viewer's total so far."""
        return self.totals[self.player]

    @property
    def opponent_total(self) -> int:
        """The opponent's total so far."""
        return self.totals[self.player ^ 1]

    @property
    def lead(self) -> int:
        """The viewer's total minus the opponent's (negative when behind)."""
        return self.own_total - self.opponent_total

    @property
    def tie_value(self) -> int:
        """What equal final totals are worth to the viewer: ``1`` (they win), ``-1``
        (the opponent wins) or ``0`` (a draw)."""
        if self.tie_break != "youngest":
            return 0
        return 1 if self.younger == self.player else -1


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One player's information set: everything that player may know, nothing more.

    Bots, clients and environments only ever receive these.
    """

    variant: Variant
    """The variant."""
    player: int
    """Whose view this is (0 or 1)."""
    hand: tuple[Card, ...]
    """The player's own hand, sorted."""
    expeditions: tuple[tuple[tuple[Card, ...], ...], tuple[tuple[Card, ...], ...]]
    """``expeditions[player][colour index]``: both players' cards in play order."""
    discard_piles: tuple[tuple[Card, ...], ...]
    """``discard_piles[colour index]``: bottom first, top last."""
    deck_size: int
    """Cards left in the draw pile."""
    to_move: int
    """The player to move."""
    history: tuple[Move, ...]
    """Every move of the round so far (moves are public; deck draws do not show the card)."""
    opponent_known: tuple[Card, ...]
    """Cards the opponent took from discard piles and has not played or discarded since."""
    ply: int = 0
    """Moves made so far."""
    over: bool = False
    """Whether the round has ended."""
    max_turns: int | None = None
    """The automated turn cap, if any."""
    own_known: tuple[Card, ...] = ()
    """Cards of this player's hand that the opponent knows (taken from discard piles)."""
    achievements: GoalBoard | None = None
    """The achievements variant's goal cards and claims (public), ``None`` in the classic
    game."""
    match: MatchContext | None = None
    """Where the round stands in its match (round, totals so far), ``None`` for a lone
    round (:class:`MatchContext`)."""

    def legal_moves(self) -> LegalMoves:
        """The player's legal moves (none unless it is their turn)."""
        if self.over or self.to_move != self.player:
            return LegalMoves([], [], [])
        me = self.player
        tops = [max((c.rank for c in e), default=0) for e in self.expeditions[me]]
        return _legal_moves(self.hand, tops, self.discard_piles)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal for this player now."""
        return move in self.legal_moves()

    def why_illegal(self, move: Move) -> str | None:
        """Why ``move`` is not legal for this player now, in words (the reason
        :meth:`Round.push` gives), or ``None`` if it is legal.

        >>> v = Round.from_deck(CLASSIC.deck()).view(0)
        >>> v.why_illegal(Move.parse("+r10."))
        "r10 is not in player 0's hand"
        >>> v.why_illegal(Move.parse("+y2.")) is None
        True
        """
        if self.over:
            return "the round is over"
        if self.to_move != self.player:
            return f"it is player {self.to_move}'s turn, not player {self.player}'s"
        card = move.card
        if card.color >= self.variant.num_colors:
            return f"{card.color.name.lower()} is not in the {self.variant.name} variant"
        me = self.player
        tops = [max((c.rank for c in e), default=0) for e in self.expeditions[me]]
        return _illegal_reason(move, self.hand, tops, self.discard_piles, me)

    @property
    def opponent_hand_size(self) -> int:
        """Cards in the opponent's hand (always the hand size)."""
        return self.variant.hand_size

    def scores(self) -> tuple[int, int]:
        """Both players' points as the expeditions stand, goals included (public)."""
        a = expeditions_points(self.expeditions[0])
        b = expeditions_points(self.expeditions[1])
        board = self.achievements
        if board is not None:
            a += board.points(0)
            b += board.points(1)
        return (a, b)

    def unseen_cards(self) -> list[Card]:
        """Cards this player has not seen and cannot place: the opponent's unknown hand
        cards and the draw pile, together (sorted)."""
        count: dict[Card, int] = {}
        for c in self.variant.deck():
            count[c] = count.get(c, 0) + 1
        seen: list[Card] = list(self.hand) + list(self.opponent_known)
        for e in self.expeditions[0] + self.expeditions[1]:
            seen.extend(e)
        for pile in self.discard_piles:
            seen.extend(pile)
        for c in seen:
            count[c] -= 1
        return [c for c in sorted(count) for _ in range(count[c])]

    def sample_round(self, rng: random.Random) -> Round:
        """A full :class:`Round` consistent with this view: the hidden cards (opponent's
        unknown hand cards and the draw pile) dealt at random with ``rng``. For search;
        to sample many worlds of one view, build its :meth:`sampler` once."""
        return WorldSampler(self).sample(rng)

    def sampler(self) -> WorldSampler:
        """The world sampler of this view (:class:`WorldSampler`)."""
        return WorldSampler(self)

    def earlier_views(self) -> list[PlayerView]:
        """The position before each move of the history, as the player who made it saw
        it, but with an empty hand: item ``t`` is the view of the player to move at ply
        ``t``, before move ``t``. Replayed from the public history alone (plays and
        discards show their card, a card drawn from a discard pile is that pile's top), so
        it holds nothing this view does not. The hands are the hidden part: to ask what a
        player holding some cards would have done (inference about the opponent's hand),
        give one with ``dataclasses.replace(v, hand=...)``. For a round in progress.

        >>> r = Round.deal(seed=3)
        >>> r.push(r.legal_moves()[0]); r.push(r.legal_moves()[-1])
        >>> past = r.view(0).earlier_views()
        >>> [(v.player, v.ply, v.hand, v.deck_size) for v in past]
        [(0, 0, (), 44), (1, 1, (), 43)]
        >>> from dataclasses import replace
        >>> _ = r.pop()
        >>> past[1] == replace(r.view(1), hand=())
        True

        :raises ValueError: for a view of a round that is over.
        """
        if self.over:
            raise ValueError("earlier views: the round is over")
        n = self.variant.num_colors
        exps: list[list[list[Card]]] = [[[] for _ in range(n)] for _ in range(2)]
        piles: list[list[Card]] = [[] for _ in range(n)]
        known: list[list[Card]] = [[], []]
        deck = self.deck_size + sum(1 for m in self.history if m.draw is None)
        out: list[PlayerView] = []
        last = len(self.history)
        for t, move in enumerate(self.history):
            p = self.to_move ^ ((last - t) & 1)
            out.append(
                PlayerView(
                    variant=self.variant,
                    player=p,
                    hand=(),
                    expeditions=(
                        tuple(tuple(e) for e in exps[0]),
                        tuple(tuple(e) for e in exps[1]),
                    ),
                    discard_piles=tuple(tuple(x) for x in piles),
                    deck_size=deck,
                    to_move=p,
                    history=self.history[:t],
                    opponent_known=tuple(sorted(known[p ^ 1])),
                    ply=t,
                    max_turns=self.max_turns,
                    own_known=tuple(sorted(known[p])),
                    match=None if self.match is None else replace(self.match, player=p),
                )
            )
            card = move.card
            if move.action is _PLAY_ACTION:
                exps[p][card.color].append(card)
            else:
                piles[card.color].append(card)
            if card in known[p]:
                known[p].remove(card)
            if move.draw is None:
                deck -= 1
            else:
                known[p].append(piles[move.draw].pop())
        return out

    def __str__(self) -> str:
        hands: list[Sequence[Card] | None] = [None, None]
        hands[self.player] = self.hand
        exps = self.expeditions
        return _render(
            self.variant,
            exps,
            self.discard_piles,
            self.deck_size,
            self.to_move,
            hands,
            self.scores(),
        ) + _goals_text(self.achievements)

    def _repr_svg_(self) -> str:
        """The view as an SVG picture, the opponent's hand as card backs (notebooks show it;
        :func:`lostcities.svg.position`)."""
        from lostcities import svg  # only when drawn, as python-chess imports chess.svg

        return svg.position(self)


class RoundTables(NamedTuple):
    """A :class:`Round`'s live tables (:meth:`Round.tables`), for hot loops. Read only.

    Cards are :class:`~lostcities.Card` objects, colours index the inner lists.
    """

    hands: list[list[Card]]
    """``hands[player]``: the hand in *slot order* (a drawn card takes the slot of the
    card played or discarded; :attr:`Round.hands` is sorted instead). The fast path keeps
    the same slots, so its tie-breaks follow this order."""
    tops: list[list[int]]
    """``tops[player][colour]``: the highest number card of that expedition, 0 for none."""
    expeditions: list[list[list[Card]]]
    """``expeditions[player][colour]``: the cards in play order."""
    piles: list[list[Card]]
    """``piles[colour]``: the discard pile, top card last."""
    deck: list[Card]
    """The draw pile with the **next card last** (the reverse of :attr:`Round.draw_pile`)."""
    known: list[list[Card]]
    """``known[player]``: cards the player took from discard piles and still holds, in the
    order they were taken."""


def _starter(view: PlayerView) -> int:
    """Who made the first move of ``view``'s round: moves alternate, and ``to_move`` after
    the end is the player who moved last, unless a forfeit ended the round (no move)."""
    last_moved = view.over and (
        view.deck_size == 0 or (view.max_turns is not None and view.ply >= view.max_turns)
    )
    return view.to_move ^ ((view.ply - last_moved) & 1)


class WorldSampler:
    """Deals the hidden cards of a :class:`PlayerView` at random, as often as needed:
    the one world sampler of the project (search bots, the fast path, environments).

    The *unseen* cards (:meth:`PlayerView.unseen_cards`, sorted) are shuffled with the
    generator given; the first :attr:`hidden` of them complete the opponent's hand after
    the cards it is known to hold, and the rest are the draw pile, next card first. A
    compiled sampler that replays the same shuffle gets the same worlds.

    >>> view = Round.deal(seed=2).view(0)
    >>> sampler = view.sampler()
    >>> w = sampler.sample(random.Random(1))
    >>> w.hands[0] == view.hand, w.deck_size == view.deck_size, len(sampler.unseen)
    (True, True, 52)
    >>> sampler.sample(random.Random(1)).draw_pile == w.draw_pile
    True
    """

    __slots__ = ("_template", "hidden", "known", "unseen", "view")

    def __init__(self, view: PlayerView) -> None:
        self.view = view
        """The view sampled."""
        unseen = view.unseen_cards()
        self.unseen: tuple[Card, ...] = tuple(unseen)
        """The unseen cards, sorted: the order :meth:`deal` and :meth:`sample` start from."""
        self.known: tuple[Card, ...] = view.opponent_known
        """The cards the opponent is known to hold (first in its hand, in this order)."""
        self.hidden = view.variant.hand_size - len(self.known)
        """How many of the opponent's cards are unseen."""
        if len(unseen) != self.hidden + view.deck_size:
            raise ValueError("world sampler: the view is inconsistent (unseen cards do not fit)")
        self._template = Round._world(view, [*self.known, *unseen[: self.hidden]], [])

    def deal(self, order: Sequence[Card]) -> Round:
        """The world with the unseen cards in ``order`` (a permutation of :attr:`unseen`):
        ``order[:hidden]`` to the opponent, the rest the draw pile, next card first."""
        h = self.hidden
        deck = list(order[h:])
        deck.reverse()
        return self._template._with_hidden(self.view.player ^ 1, [*self.known, *order[:h]], deck)

    def sample(self, rng: random.Random) -> Round:
        """A world dealt at random with ``rng`` (``rng.shuffle`` of the unseen cards)."""
        unseen = list(self.unseen)
        rng.shuffle(unseen)
        h = self.hidden
        deck = unseen[h:]
        deck.reverse()
        return self._template._with_hidden(self.view.player ^ 1, [*self.known, *unseen[:h]], deck)

    def sample_deal(self, rng: random.Random, recall: Sequence[Card] = ()) -> list[Card]:
        """A whole deal that leads to this view, dealt at random: the ``deck`` of
        :meth:`Round.from_deck` whose round, after the view's history, looks to the player
        exactly as the view does. The hidden cards are the world :meth:`sample` deals with
        the same ``rng`` state (the unseen cards shuffled first); a card a player played or
        discarded from its hidden cards is put back into one of the deal slots it held at the
        time, drawn at random (every choice gives as many deals, so the deals are equally
        likely).

        ``recall`` is what the player remembers beyond the view: the cards it was dealt, then
        the card of each of its draw-pile draws, in order. Its own slots past ``recall`` are
        dealt at random too, consistently with its hand. With the whole ``recall`` (perfect
        recall, as OpenSpiel's information states keep it) the deal keeps the player's own
        cards where they were: OpenSpiel's ``resample_from_infostate``
        (:mod:`lostcities.envs.openspiel`).

        >>> r = Round.deal(seed=5)
        >>> for _ in range(6):
        ...     r.push(r.legal_moves()[-1])
        >>> view = r.view(0)
        >>> deal = view.sampler().sample_deal(random.Random(1), r.deal_order[:8])
        >>> w = Round.from_deck(deal, r.starter)
        >>> for move in r.history:
        ...     w.push(move)
        >>> w.view(0) == view, deal[:8] == list(r.deal_order[:8]), deal[8:16] == list(r.deal_order[8:16])
        (True, True, False)

        :raises ValueError: if ``recall`` does not fit the view (more cards than the player
            drew, or cards that do not lead to its hand).
        """
        view = self.view
        var = view.variant
        hs = var.hand_size
        me = view.player
        unseen = list(self.unseen)
        rng.shuffle(unseen)  # first, as sample() does: the same hidden cards for the same rng
        deal: list[Card | None] = [None] * var.deck_size
        # each hand as tokens: a deal slot whose card is not known yet, or a known card
        hands: list[list[Card | int]] = [list(range(hs)), list(range(hs, 2 * hs))]
        own = iter(recall)

        def recalled(slot: int) -> Card | int:
            card = next(own, None)
            if card is None:
                return slot
            deal[slot] = card
            return card

        hands[me] = [recalled(slot) for slot in range(me * hs, me * hs + hs)]
        piles: list[list[Card]] = [[] for _ in var.colors]
        slot = 2 * hs
        p = _starter(view)
        for move in view.history:
            hand = hands[p]
            card = move.card
            if card in hand:
                hand.remove(card)
            else:
                slots = [h for h in hand if isinstance(h, int)]
                if not slots:
                    raise ValueError(
                        f"world sampler: player {p} played {card}, which the recalled cards "
                        "do not give it"
                    )
                pick = slots[rng.randrange(len(slots))]
                deal[pick] = card
                hand.remove(pick)
            if move.action is Action.DISCARD:
                piles[card.color].append(card)
            if move.draw is not None:
                hand.append(piles[move.draw].pop())
            else:
                hand.append(recalled(slot) if p == me else slot)
                slot += 1
            p ^= 1
        if next(own, None) is not None:
            raise ValueError("world sampler: more recalled cards than the player drew")
        mine = list(view.hand)
        for h in hands[me]:
            if not isinstance(h, int):
                if h not in mine:
                    raise ValueError(f"world sampler: the recalled {h} is not in the hand")
                mine.remove(h)
        rng.shuffle(mine)  # the hand's cards for the player's own slots not recalled
        hidden = sorted(h for h in hands[me ^ 1] if isinstance(h, int))
        blanks = [h for h in hands[me] if isinstance(h, int)]
        targets = [*hidden, *range(slot, var.deck_size), *blanks]
        cards = [*unseen, *mine]
        if len(targets) != len(cards):
            raise ValueError("world sampler: the recalled cards do not fit the view")
        for i, card in zip(targets, cards, strict=True):
            deal[i] = card
        out = [c for c in deal if c is not None]
        if sorted(map(_INDEX, out)) != [c.index for c in var.deck()]:
            raise ValueError("world sampler: the recalled cards do not fit the view")
        return out
