"""Moves as action numbers and player views as tensors, for every RL environment.

Written once and used by the PettingZoo, Gymnasium and OpenSpiel environments, so the three
agree on what action 137 means and what each observation entry is. Nothing here knows a
rule: legality comes from :meth:`lostcities.PlayerView.legal_moves`, and the observation is
built only from a :class:`~lostcities.PlayerView`, so it cannot contain hidden cards.

**Actions** (one combined action per turn): :attr:`lostcities.Move.index`, the project's one
move numbering, packed to the variant's colours::

    Move.index = (kind * 60 + card.index) * 7 + source      (0 .. 839, every variant)
    action     = (kind * K  + card.index) * S + source      (0 .. 2 * K * S - 1)
    kind   = 0 play onto the expedition, 1 discard
    K      = 10 * colours  card kinds (card.index = 10 * colour + 0 for the wager, rank - 1)
    S      = 1 + colours   draw sources: 0 the draw pile, 1 + colour that colour's discard pile

``long``: K = 60, S = 7, so the action *is* ``Move.index`` (840 actions); ``classic``: K = 50,
S = 6, 600 actions, none of them a purple move that can never be legal.
:meth:`Encoding.index_to_action` and :meth:`Encoding.action_to_index` convert. The three
wagers of a colour are one card kind, so identical moves are one action.

>>> from lostcities import Move, Round
>>> enc = get_encoding("classic")
>>> enc.num_actions, enc.observation_size
(600, 466)
>>> enc.move_to_action(Move.parse("-r10b"))
596
>>> str(enc.action_to_move(596))
'-r10b'
>>> Move.parse("-r10b").index, enc.index_to_action(765), enc.action_to_index(596)
(765, 596, 765)
>>> r = Round.deal(seed=3)
>>> mask = enc.action_mask(r.view(0))
>>> int(mask.sum()) == len(r.legal_moves())
True

**The achievements variant** has its own, longer layout: ``get_encoding(variant,
achievements=True)`` appends :data:`GOAL_FEATURES` entries for each of the 5 goal slots
after the classic sections, which keep their places (docs/rl.md):

>>> get_encoding("classic", achievements=True).observation_size
506
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from lostcities.achievements import GOALS_PER_ROUND, decide_end
from lostcities.cards import Card, Variant, get_variant
from lostcities.rules import NUM_MOVES, Action, LegalMoves, Move, PlayerView
from lostcities.scoring import score_expedition

if TYPE_CHECKING:
    from gymnasium import spaces

__all__ = [
    "GOAL_FEATURES",
    "Encoding",
    "InvalidActionError",
    "Section",
    "get_encoding",
]

_SCORE_MIN_PER_COLOR = -80
"""The lowest an expedition can score: three wagers and no number card, (0 - 20) x 4."""
_SCORE_MAX_PER_COLOR = 156
"""Above the highest an expedition can score: all 12 cards, (54 - 20) x 4 + 20."""

_SCALARS = (
    "deck_fraction",
    "own_score",
    "opponent_score",
    "on_move",
    "pending_draw",
    "capped",
    "turns_left",
)


GOAL_FEATURES = (
    "present",
    "race",
    "held_by_me",
    "held_by_opponent",
    "my_progress",
    "opponent_progress",
    "i_lead",
    "opponent_leads",
)
"""The entries of one goal slot (achievements variant): a goal is laid out there; it is a
race goal (else an end goal); who holds it; for a race goal each player's progress
(:meth:`lostcities.achievements.Goal.progress`, 1 = met); for an end goal who would take
it if the round ended now (both 0: a tie)."""


class InvalidActionError(ValueError):
    """An action number outside ``0 .. num_actions - 1`` (or not a whole number)."""


@dataclass(frozen=True, slots=True)
class Section:
    """One named slice of the flat observation vector."""

    name: str
    """What it holds (see docs/rl.md)."""
    start: int
    """Index of its first entry."""
    size: int
    """How many entries."""
    high: float
    """The largest value an entry can take (the smallest is 0, except the scores)."""

    @property
    def stop(self) -> int:
        """One past its last entry."""
        return self.start + self.size


class Encoding:
    """The action numbering and the observation layout of one variant.

    Build it with :func:`get_encoding` (cached); it is immutable.
    """

    variant: Variant
    """The variant encoded."""
    num_card_kinds: int
    """K = 10 per colour (the wager is one kind)."""
    num_sources: int
    """S = 1 + colours (the draw pile, then one discard pile per colour)."""
    num_actions: int
    """2 * K * S."""
    sections: tuple[Section, ...]
    """The observation's slices, in order."""
    observation_size: int
    """Length of the flat observation vector."""
    achievements: bool
    """Whether the layout has the achievements variant's goal slots."""

    def __init__(self, variant: str | Variant, achievements: bool = False) -> None:
        var = get_variant(variant)
        self.variant = var
        self.achievements = achievements
        k = 10 * var.num_colors
        s = 1 + var.num_colors
        self.num_card_kinds = k
        self.num_sources = s
        self.num_actions = 2 * k * s
        # Move.index <-> action, both ways (every move of the variant has an action, the
        # structurally impossible ones, such as discarding a yellow card and drawing from
        # the yellow pile, included: they are simply never legal); -1: outside the variant
        to_index = [0] * self.num_actions
        to_action = [-1] * NUM_MOVES
        for i in range(NUM_MOVES):
            kind, rest = divmod(i, 60 * 7)
            ci, src = divmod(rest, 7)
            if ci < k and src < s:
                a = (kind * k + ci) * s + src
                to_index[a] = i
                to_action[i] = a
        self._to_index: tuple[int, ...] = tuple(to_index)
        self._to_action: tuple[int, ...] = tuple(to_action)
        layout = [
            ("hand", k, 3.0),
            ("own_expedition", k, 3.0),
            ("opponent_expedition", k, 3.0),
            ("discard_top", k, 1.0),
            ("discard_below", k, 3.0),
            ("opponent_known", k, 3.0),
            ("own_known", k, 3.0),
            ("unseen", k, 3.0),
            ("last_move_by_me", 1, 1.0),
            ("last_move_kind", 2, 1.0),
            ("last_move_card", k, 1.0),
            ("last_move_source", s, 1.0),
            *((name, 1, 1.0) for name in _SCALARS),
            *(
                (f"goal_{i}", len(GOAL_FEATURES), 1.0)
                for i in range(GOALS_PER_ROUND)
                if achievements
            ),
        ]
        sections = []
        start = 0
        for name, size, top in layout:
            sections.append(Section(name, start, size, top))
            start += size
        self.sections = tuple(sections)
        self.observation_size = start
        self._sec = {sec.name: sec for sec in sections}
        nc = var.num_colors
        self._score_scale = 100.0
        low = np.zeros(start, np.float32)
        high = np.zeros(start, np.float32)
        for sec in sections:
            high[sec.start : sec.stop] = sec.high
        for name in ("own_score", "opponent_score"):
            i = self._sec[name].start
            low[i] = _SCORE_MIN_PER_COLOR * nc / self._score_scale
            high[i] = _SCORE_MAX_PER_COLOR * nc / self._score_scale
        self.low: npt.NDArray[np.float32] = low
        """Per-entry lower bounds of the observation (for a ``Box`` space)."""
        self.high: npt.NDArray[np.float32] = high
        """Per-entry upper bounds of the observation."""
        self._initial_pile = var.deck_size - 2 * var.hand_size
        self._deck_list = [0] * k
        for card in var.deck():
            self._deck_list[card.index] += 1
        self.max_score_margin = (_SCORE_MAX_PER_COLOR - _SCORE_MIN_PER_COLOR) * nc
        """A bound on the absolute score margin of a round."""

    # -- actions -------------------------------------------------------------------------

    def index_to_action(self, index: int) -> int:
        """The action number of the move numbered ``index`` (:attr:`lostcities.Move.index`).

        :raises InvalidActionError: for a number that is no move, or a move of a colour
            outside the variant.
        """
        a = self._to_action[index] if 0 <= index < NUM_MOVES else -1
        if a < 0:
            raise InvalidActionError(
                f"invalid move index for the {self.variant.name} variant: {index!r}"
            )
        return a

    def action_to_index(self, action: int | np.integer) -> int:
        """The :attr:`lostcities.Move.index` of an action number.

        :raises InvalidActionError: for a number outside ``0 .. num_actions - 1``.
        """
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise InvalidActionError(f"invalid action: {action!r} (expected a whole number)")
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise InvalidActionError(
                f"invalid action: {a} (expected 0..{self.num_actions - 1} for the "
                f"{self.variant.name} variant)"
            )
        return self._to_index[a]

    def move_to_action(self, move: Move) -> int:
        """The action number of ``move`` (:meth:`index_to_action` of its index).

        :raises InvalidActionError: for a move of a colour outside the variant (its card's
            or the discard pile it draws from).
        """
        a = self._to_action[move.index]
        if a < 0:
            raise InvalidActionError(
                f"invalid move for the {self.variant.name} variant: {str(move)!r}"
            )
        return a

    def action_to_move(self, action: int | np.integer) -> Move:
        """The move of an action number (legal or not: check with the round).

        :raises InvalidActionError: for a number outside ``0 .. num_actions - 1``.
        """
        return Move.from_index(self.action_to_index(action))

    def action_string(self, action: int | np.integer) -> str:
        """The move notation of an action number (``'+y7.'``).

        :raises InvalidActionError: for a number outside the action space.
        """
        return str(self.action_to_move(action))

    def legal_actions(self, moves: PlayerView | LegalMoves | Iterable[Move]) -> list[int]:
        """The legal action numbers, ascending, of a view (empty unless it is that player's
        turn) or of a list of legal moves."""
        if isinstance(moves, PlayerView):
            moves = moves.legal_moves()
        to_action = self._to_action
        return sorted(to_action[m.index] for m in moves)

    def action_mask(self, moves: PlayerView | LegalMoves | Iterable[Move]) -> npt.NDArray[np.int8]:
        """An int8 vector over all actions: 1 exactly for the legal ones (all zeros when
        the view's player is not to move or the round is over)."""
        mask = np.zeros(self.num_actions, np.int8)
        mask[self.legal_actions(moves)] = 1
        return mask

    # -- observations --------------------------------------------------------------------

    def observation(self, view: PlayerView, pending: Move | None = None) -> npt.NDArray[np.float32]:
        """The flat float32 observation of ``view`` (layout: :attr:`sections`, docs/rl.md).

        ``pending`` is a move whose draw-pile card has not arrived yet (OpenSpiel's chance
        node after a draw-pile move): it shows as the last move with ``pending_draw`` set.
        """
        if view.variant is not self.variant and view.variant != self.variant:
            raise ValueError(
                f"view of the {view.variant.name} variant given to the {self.variant.name} encoding"
            )
        obs = np.zeros(self.observation_size, np.float32)
        sec = self._sec
        me = view.player
        k = self.num_card_kinds
        # the eight card-count sections come first, in this order; fill a list, copy once
        buf = [0] * (8 * k)
        for c in view.hand:
            buf[c.index] += 1
        for e in view.expeditions[me]:
            for c in e:
                buf[k + c.index] += 1
        for e in view.expeditions[me ^ 1]:
            for c in e:
                buf[2 * k + c.index] += 1
        for pile in view.discard_piles:
            if pile:
                buf[3 * k + pile[-1].index] += 1
                for c in pile[:-1]:
                    buf[4 * k + c.index] += 1
        for c in view.opponent_known:
            buf[5 * k + c.index] += 1
        for c in view.own_known:
            buf[6 * k + c.index] += 1
        # unseen = the deck less every card this player can place (PlayerView.unseen_cards,
        # computed from the sections above, which is faster)
        deck = self._deck_list
        for i in range(k):
            buf[7 * k + i] = (
                deck[i]
                - buf[i]
                - buf[k + i]
                - buf[2 * k + i]
                - buf[3 * k + i]
                - buf[4 * k + i]
                - buf[5 * k + i]
            )
        obs[: 8 * k] = buf
        last: Move | None = pending
        by_me = view.to_move == me
        if last is None and view.history:
            last = view.history[-1]
            # the player who made the last move: the mover alternates, and the round ends
            # without handing the turn over
            by_me = (view.to_move == me) == view.over
        if last is not None:
            obs[sec["last_move_by_me"].start] = float(by_me)
            obs[sec["last_move_kind"].start + (last.action is Action.DISCARD)] = 1.0
            obs[sec["last_move_card"].start + last.card.index] = 1.0
            src = 0 if last.draw is None else 1 + last.draw
            obs[sec["last_move_source"].start + src] = 1.0
        own, opp = _scores(view)
        obs[sec["deck_fraction"].start] = view.deck_size / self._initial_pile
        obs[sec["own_score"].start] = own / self._score_scale
        obs[sec["opponent_score"].start] = opp / self._score_scale
        obs[sec["on_move"].start] = float(pending is None and not view.over and view.to_move == me)
        obs[sec["pending_draw"].start] = float(pending is not None)
        if view.max_turns is not None:
            obs[sec["capped"].start] = 1.0
            left = max(view.max_turns - view.ply, 0)
            obs[sec["turns_left"].start] = left / view.max_turns
        board = view.achievements
        if self.achievements and board is not None:
            exps = view.expeditions
            d, pd = board.discards, board.pile_draws
            start = sec["goal_0"].start
            n = len(GOAL_FEATURES)
            for i, (g, holder) in enumerate(zip(board.goals, board.claims, strict=True)):
                if i >= GOALS_PER_ROUND:
                    break  # a hand-laid set of more than 5: the first 5 are encoded
                f = start + i * n
                obs[f] = 1.0
                obs[f + 2] = float(holder == me)
                obs[f + 3] = float(holder == me ^ 1)
                if g.kind == "race":
                    obs[f + 1] = 1.0
                    obs[f + 4] = g.progress(exps[me], d[me], pd[me])
                    obs[f + 5] = g.progress(exps[me ^ 1], d[me ^ 1], pd[me ^ 1])
                else:
                    lead = decide_end(g, exps, d, pd)
                    obs[f + 6] = float(lead == me)
                    obs[f + 7] = float(lead == me ^ 1)
        return obs

    def observation_space(self) -> spaces.Dict:
        """The Gymnasium space of one observation, as every env of this package gives it:
        ``observation`` (a float32 box from :attr:`low` to :attr:`high`) and
        ``action_mask`` (int8, 0 or 1 per action). Needs gymnasium (the ``rl`` extra)."""
        from gymnasium import spaces

        return spaces.Dict(
            {
                "observation": spaces.Box(self.low, self.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )

    def section(self, name: str) -> Section:
        """The slice called ``name``.

        :raises KeyError: for an unknown name.
        """
        return self._sec[name]

    def describe(self) -> str:
        """The observation layout as a table (start, size, name), one section a line."""
        return "\n".join(f"{s.start:4d} {s.size:4d}  {s.name}" for s in self.sections)


@lru_cache(maxsize=1 << 16)
def _expedition_score(cards: tuple[Card, ...]) -> int:
    return score_expedition(cards, check=False).score


def _scores(view: PlayerView) -> tuple[int, int]:
    me = view.player
    own = sum(_expedition_score(e) for e in view.expeditions[me] if e)
    opp = sum(_expedition_score(e) for e in view.expeditions[me ^ 1] if e)
    return own, opp


@cache
def _encoding(name: str, achievements: bool) -> Encoding:
    return Encoding(name, achievements)


def get_encoding(variant: str | Variant = "classic", achievements: bool = False) -> Encoding:
    """The (cached) :class:`Encoding` of a variant (with the goal slots of the
    achievements variant when ``achievements``).

    :raises lostcities.UnknownVariantError: for a name other than ``classic`` or ``long``.
    """
    return _encoding(get_variant(variant).name, bool(achievements))
