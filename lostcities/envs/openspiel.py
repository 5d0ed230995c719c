"""Lost Cities as an OpenSpiel Python game, ``lost_cities``, registered on import.

>>> import pyspiel
>>> import lostcities.envs.openspiel
>>> game = pyspiel.load_game("lost_cities", {"max_turns": 100})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 50)
>>> game.num_distinct_actions(), game.max_game_length()
(600, 100)

The game:

- sequential, two players, zero-sum on the score margin (``returns()`` is
  ``[s0 - s1, s1 - s0]`` at the end), terminal rewards;
- explicit stochastic: the initial deal is 16 chance nodes (8 cards to player 0, then 8 to
  player 1), and a move that draws from the draw pile is followed by a chance node choosing
  which unseen card arrives (outcome = the card's index ``card.index``, probability = its
  share of the unseen cards). The move that takes the last card ends the round at once, so it
  has no chance node (the card would never be seen);
- imperfect information, with information-state (perfect recall) and observation strings and
  tensors, and :meth:`LostCitiesState.resample_from_infostate`, so
  ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` runs on it.

Parameters: ``variant`` (``"classic"`` or ``"long"``), ``max_turns`` (a cap on moves, needed
because OpenSpiel wants a finite ``max_game_length``: the official rules have none, and
players who keep taking from discard piles can go on for ever; at the cap the round is scored
as it stands; default 400, far above the ~50-150 moves of real rounds), ``starter`` (0 or 1),
``achievements`` (``True``: the achievements variant, the 5 goals of
``DEFAULT_GOALS.draw(goal_seed)`` laid out in every round of the game, 10 points each held in
the returns; the observation then has the goal slots of docs/rl.md) and ``goal_seed`` (0).

Actions are :mod:`lostcities.envs.encoding`'s action numbers (:attr:`lostcities.Move.index`
packed to the variant's colours: the index itself in ``long``); the observation tensor is its
observation vector. Resampling is the core's: :meth:`lostcities.rules.WorldSampler.sample_deal`
deals the player's view again with its own cards recalled, and the actions are replayed on
that deal. The information-state tensor appends the player's initial hand and
one block per move (see docs/rl.md). The rules come from :class:`lostcities.Round` only.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

from lostcities.achievements import DEFAULT_GOALS, GOAL_POINTS, GOALS_PER_ROUND, Goal
from lostcities.cards import ALL_CARDS, Card, Variant, get_variant
from lostcities.envs.encoding import Encoding, get_encoding
from lostcities.envs.options import check_max_turns
from lostcities.rules import Action, Move, PlayerView, Round

__all__ = ["GAME_NAME", "LostCitiesGame", "LostCitiesObserver", "LostCitiesState"]

GAME_NAME = "lost_cities"
"""The short name for ``pyspiel.load_game``."""

_NUM_PLAYERS = 2
_DEFAULT_MAX_TURNS = 400
_DEFAULT_PARAMS: dict[str, Any] = {
    "variant": "classic",
    "max_turns": _DEFAULT_MAX_TURNS,
    "starter": 0,
    "achievements": False,
    "goal_seed": 0,
}

# ------------------------------------------------------------------------------- GameType

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Lost Cities",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)

# ------------------------------------------------------------------------------- GameInfo


def _game_info(variant: Variant, max_turns: int, achievements: bool = False) -> pyspiel.GameInfo:
    enc = get_encoding(variant, achievements=achievements)
    bound = enc.max_score_margin + (GOAL_POINTS * GOALS_PER_ROUND if achievements else 0)
    return pyspiel.GameInfo(
        num_distinct_actions=enc.num_actions,
        max_chance_outcomes=enc.num_card_kinds,
        num_players=_NUM_PLAYERS,
        min_utility=-float(bound),
        max_utility=float(bound),
        utility_sum=0.0,
        max_game_length=max_turns,
    )


# ------------------------------------------------------------------------------- Game


class LostCitiesGame(pyspiel.Game):
    """The game: parameters ``variant``, ``max_turns``, ``starter``.

    :raises lostcities.UnknownVariantError: for an unknown variant.
    :raises ValueError: for a bad ``max_turns`` or ``starter``.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULT_PARAMS, **(params or {})}
        self.variant: Variant = get_variant(str(p["variant"]))
        max_turns = int(p["max_turns"])
        starter = int(p["starter"])
        check_max_turns(max_turns)
        if starter not in (0, 1):
            raise ValueError(f"invalid starter: {starter!r} (expected 0 or 1)")
        self.max_turns = max_turns
        self.starter = starter
        achievements = bool(p["achievements"])
        self.goals: tuple[Goal, ...] | None = (
            DEFAULT_GOALS.draw(int(p["goal_seed"])) if achievements else None
        )
        """The goal cards of every round (achievements variant), else ``None``."""
        self.encoding: Encoding = get_encoding(self.variant, achievements=achievements)
        self.deck_counts: Counter[Card] = Counter(self.variant.deck())
        """How many of each card kind the deck holds."""
        super().__init__(_GAME_TYPE, _game_info(self.variant, max_turns, achievements), p)

    def new_initial_state(self) -> LostCitiesState:
        """The state before the deal (a chance node)."""
        return LostCitiesState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> LostCitiesObserver:
        """An observer for the default observation or the information state.

        :raises ValueError: for observation types other than one player's private and
            public information.
        """
        return LostCitiesObserver(
            self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


# ------------------------------------------------------------------------------- State


class LostCitiesState(pyspiel.State):
    """A state: the deal so far, then a :class:`~lostcities.Round` and a draw-pile move
    waiting for its chance card (``pending``)."""

    def __init__(self, game: LostCitiesGame) -> None:
        super().__init__(game)
        # pyspiel clones a Python state by deep-copying its __dict__: keep everything in
        # one object that knows how to copy itself cheaply.
        self._d = _StateData(game)

    @property
    def variant(self) -> Variant:
        """The variant."""
        return self._d.game.variant

    @property
    def encoding(self) -> Encoding:
        """The action and observation encoding."""
        return self._d.game.encoding

    @property
    def dealt(self) -> list[Card]:
        """The cards of the deal so far (player 0's 8, then player 1's)."""
        return self._d.dealt

    @property
    def draws(self) -> list[Card]:
        """Cards drawn from the draw pile, in order (the chance outcomes after the deal)."""
        return self._d.draws

    @property
    def log(self) -> list[tuple[int, Move, int | None]]:
        """(player, move, index into ``dealt + draws`` of the card the move drew from the
        draw pile, or ``None`` for a discard-pile draw and the round's last card)."""
        return self._d.log

    @property
    def round(self) -> Round | None:
        """The round (``None`` during the deal). The referee's state: hidden cards included."""
        return self._d.round

    @property
    def pending(self) -> Move | None:
        """A draw-pile move whose card the next chance node picks (it is public)."""
        return self._d.pending

    # -- the pyspiel API -------------------------------------------------------------------

    def current_player(self) -> int:
        """The player to move, ``CHANCE`` or ``TERMINAL``."""
        r = self.round
        if r is None or self.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if r.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return r.to_move

    def _legal_actions(self, player: int) -> list[int]:
        r = self.round
        if r is None or self.pending is not None or r.is_over() or player != r.to_move:
            return []
        return self.encoding.legal_actions(r.legal_moves())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The unseen cards by index, each with its share of them."""
        counts = self._unplaced()
        total = sum(counts.values())
        return [(c.index, n / total) for c, n in sorted(counts.items()) if n]

    def _apply_action(self, action: int) -> None:
        if self.round is None:
            self.dealt.append(ALL_CARDS[action])
            if len(self.dealt) == 2 * self.variant.hand_size:
                self._build(None)
            return
        if self.pending is not None:
            card = ALL_CARDS[action]
            r = self.round
            if not _put_on_top(r, card):
                self._build(card)
                r = self.round
                assert r is not None
            move = self.pending
            self._d.pending = None
            self.log.append((r.to_move, move, len(self.dealt) + len(self.draws)))
            self.draws.append(card)
            r.push(move)
            return
        r = self.round
        move = self.encoding.action_to_move(action)
        if move.draw is None and r.deck_size > 1:
            if not r.is_legal(move):
                r.push(move)  # raises IllegalMoveError saying why
            self._d.pending = move
            return
        self.log.append((r.to_move, move, None))
        r.push(move)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            what = "deal" if len(self.dealt) < 2 * self.variant.hand_size else "draw"
            return f"{what}:{ALL_CARDS[action]}"
        return self.encoding.action_string(action)

    def is_terminal(self) -> bool:
        """Whether the round is over."""
        return self.round is not None and self.pending is None and self.round.is_over()

    def returns(self) -> list[float]:
        """The score margins ``[s0 - s1, s1 - s0]`` at the end, zeros before."""
        if not self.is_terminal():
            return [0.0, 0.0]
        assert self.round is not None
        s0, s1 = self.round.scores()
        return [float(s0 - s1), float(s1 - s0)]

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> LostCitiesState:
        """A state with the same information state for ``player_id``: the opponent's hidden
        cards (initial hand and draw-pile draws) re-dealt at random, consistent with every
        card the opponent has played since. ``probability_sampler()`` (a float in [0, 1))
        seeds the choice."""
        rng = random.Random(int(probability_sampler() * 2**53))
        return self._resample(player_id, rng)

    def __str__(self) -> str:
        if self.round is None:
            return "dealing: " + " ".join(map(str, self.dealt))
        text = str(self.round)
        if self.pending is not None:
            text += f"\npending draw after {self.pending}"
        return text

    # -- views -----------------------------------------------------------------------------

    def view(self, player: int) -> PlayerView | None:
        """``player``'s view of the round (``None`` during the deal). With a draw pending the
        view is the one before the move; :attr:`pending` is public."""
        return None if self.round is None else self.round.view(player)

    def own_dealt(self, player: int) -> list[Card]:
        """The cards dealt to ``player`` so far."""
        hs = self.variant.hand_size
        return self.dealt[player * hs : (player + 1) * hs]

    # -- helpers ---------------------------------------------------------------------------

    def _unplaced(self) -> Counter[Card]:
        """The cards not yet dealt or drawn: the draw pile's contents."""
        counts = self._d.game.deck_counts.copy()
        counts.subtract(self.dealt)
        counts.subtract(self.draws)
        return counts

    def _build(self, next_card: Card | None) -> None:
        """(Re)build the round from the chance outcomes so far, with ``next_card`` on top of
        the draw pile, and replay the moves."""
        rest = sorted(self._unplaced().elements())
        hint = self._d.hint
        self._d.hint = None
        if next_card is not None:
            rest.remove(next_card)
            rest.insert(0, next_card)
        elif hint is not None and Counter(hint) == Counter(rest):
            rest = hint
        game = self._d.game
        r = Round.from_deck(
            [*self.dealt, *self.draws, *rest],
            game.starter,
            self.variant,
            max_turns=game.max_turns,
            achievements=game.goals,
        )
        for _, move, _ in self.log:
            r.push_unchecked(move)  # replaying moves that were legal when made
        self._d.round = r

    def _resample(self, me: int, rng: random.Random) -> LostCitiesState:
        """The chance outcomes re-dealt for ``me``: the core's
        :meth:`~lostcities.rules.WorldSampler.sample_deal` of ``me``'s view, with ``me``'s
        own cards recalled; then the actions replayed."""
        hs = self.variant.hand_size
        r = self.round
        if r is None:  # during the deal: the other player's cards so far, at random
            mine = range(me * hs, me * hs + hs)
            pool = Counter(self.variant.deck())
            pool.subtract(c for i, c in enumerate(self.dealt) if i in mine)
            free = sorted(pool.elements())
            rng.shuffle(free)
            deal = [c if i in mine else free.pop() for i, c in enumerate(self.dealt)]
        else:
            if self.pending is not None and r.to_move != me:
                # the opponent's move is public, the card it draws is not: sample the view
                # after the move (its draw's slot is dealt, and stays undrawn below)
                r = r.copy(stack=False)
                r.push(self.pending)
            outcomes = [*self.dealt, *self.draws]
            recall = self.own_dealt(me) + [
                outcomes[i] for p, _, i in self.log if p == me and i is not None
            ]
            deal = r.view(me).sampler().sample_deal(rng, recall)
        state = self._d.game.new_initial_state()
        state._d.hint = deal[2 * hs :] or None  # the draw pile in the dealt order
        chance = iter(deal)
        for action in self.history():
            state.apply_action(next(chance).index if state.is_chance_node() else action)
        return state


def _put_on_top(r: Round, card: Card) -> bool:
    """Make ``card`` the next card of ``r``'s draw pile (:meth:`lostcities.Round.set_next_draw`:
    a swap), if it is in the pile; here a chance node decides the pile's order card by card.
    :meth:`LostCitiesState._build` (a rebuild of the round) is the slower way and the
    fallback. Returns whether it worked."""
    try:
        r.set_next_draw(card)
    except ValueError:
        return False
    return True


class _StateData:
    """A state's fields; deep-copied cheaply (the game and interned cards shared)."""

    __slots__ = ("dealt", "draws", "game", "hint", "log", "pending", "round")

    def __init__(self, game: LostCitiesGame) -> None:
        self.game = game
        self.dealt: list[Card] = []
        self.draws: list[Card] = []
        self.log: list[tuple[int, Move, int | None]] = []
        self.round: Round | None = None
        self.pending: Move | None = None
        self.hint: list[Card] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _StateData:
        new = _StateData.__new__(_StateData)
        new.game = self.game
        new.dealt = self.dealt[:]
        new.draws = self.draws[:]
        new.log = self.log[:]
        new.round = None if self.round is None else self.round.copy()
        new.pending = self.pending
        new.hint = None
        return new


# ------------------------------------------------------------------------------- Observer


class LostCitiesObserver:
    """Observation and information-state strings and tensors (the PyObserver interface).

    The observation tensor is :meth:`lostcities.envs.encoding.Encoding.observation`; the
    information-state tensor appends ``initial_hand`` (K) and ``history`` (``max_turns`` rows
    of ``by_me, play, discard, card (K), source (S), card drawn by me from the draw pile
    (K)``).
    """

    def __init__(
        self, game: LostCitiesGame, iig_obs_type: pyspiel.IIGObservationType, params: Any
    ) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        if (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError(
                "lost_cities observes one player's private and public information only"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        enc = game.encoding
        self.encoding = enc
        self.max_turns = game.max_turns
        k = enc.num_card_kinds
        s = enc.num_sources
        self.row = 1 + 2 + k + s + k
        pieces: list[tuple[str, int, tuple[int, ...]]] = [
            ("observation", enc.observation_size, (enc.observation_size,))
        ]
        if self.perfect_recall:
            pieces.append(("initial_hand", k, (k,)))
            pieces.append(("history", self.max_turns * self.row, (self.max_turns, self.row)))
        self.tensor: npt.NDArray[np.float32] = np.zeros(sum(p[1] for p in pieces), np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        start = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size

    def set_from(self, state: LostCitiesState, player: int) -> None:
        """Fill :attr:`tensor` with ``state`` as ``player`` sees it."""
        self.tensor.fill(0)
        enc = self.encoding
        view = state.view(player)
        obs = self.dict["observation"]
        if view is None:
            hand = enc.section("hand")
            for c in state.own_dealt(player):
                obs[hand.start + c.index] += 1
            unseen = enc.section("unseen")
            counts = Counter(enc.variant.deck())
            counts.subtract(state.own_dealt(player))
            for c, n in counts.items():
                obs[unseen.start + c.index] = n
        else:
            obs[:] = enc.observation(view, state.pending)
        if not self.perfect_recall:
            return
        init = self.dict["initial_hand"]
        for c in state.own_dealt(player):
            init[c.index] += 1
        hist = self.dict["history"]
        k = enc.num_card_kinds
        s = enc.num_sources
        outcomes = [*state.dealt, *state.draws]
        rows = [*state.log]
        if state.pending is not None and state.round is not None:
            rows.append((state.round.to_move, state.pending, None))
        for t, (p, move, idx) in enumerate(rows[: self.max_turns]):
            row = hist[t]
            row[0] = float(p == player)
            row[1 + (move.action is Action.DISCARD)] = 1.0
            row[3 + move.card.index] = 1.0
            row[3 + k + (0 if move.draw is None else 1 + move.draw)] = 1.0
            if p == player and idx is not None:
                row[3 + k + s + outcomes[idx].index] = 1.0

    def string_from(self, state: LostCitiesState, player: int) -> str:
        """``state`` as ``player`` sees it, as text (the information state with perfect
        recall: the deal and every move, own draw-pile cards shown)."""
        view = state.view(player)
        if view is None:
            text = f"p{player} dealing, own cards: " + " ".join(map(str, state.own_dealt(player)))
        else:
            text = f"p{player}\n{view}"
            if view.opponent_known:
                text += "\nopponent holds " + " ".join(map(str, view.opponent_known))
            if state.pending is not None:
                text += f"\npending: {state.pending} (card being drawn)"
        if not self.perfect_recall:
            return text
        outcomes = [*state.dealt, *state.draws]
        moves = []
        for p, move, idx in state.log:
            drawn = f"[{outcomes[idx]}]" if p == player and idx is not None else ""
            moves.append(f"{p}:{move}{drawn}")
        dealt = " ".join(map(str, state.own_dealt(player)))
        return f"{text}\ndealt: {dealt}\nmoves: {' '.join(moves)}"


# ------------------------------------------------------------------------------- helpers


def load(
    variant: str = "classic", max_turns: int = _DEFAULT_MAX_TURNS, starter: int = 0
) -> LostCitiesGame:
    """``pyspiel.load_game("lost_cities", {...})`` with typed arguments.

    :raises ValueError: for bad parameters.
    """
    game: LostCitiesGame = pyspiel.load_game(
        GAME_NAME, {"variant": variant, "max_turns": max_turns, "starter": starter}
    )
    return game


# ------------------------------------------------------------------------------- register

pyspiel.register_game(_GAME_TYPE, LostCitiesGame)
