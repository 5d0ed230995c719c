"""Lost Cities as a PettingZoo AEC environment: ``lostcities_v0``.

| | |
|---|---|
| Import | ``from lostcities.envs import lostcities_v0`` (this module) |
| Actions | Discrete |
| Parallel API | no (``is_parallelizable = False``: turns alternate) |
| Manual control | no |
| Agents | ``agents = ['player_0', 'player_1']`` |
| Action shape | ``(1,)`` |
| Action values | ``Discrete(600)`` (``classic``), ``Discrete(840)`` (``long``) |
| Observation shape | ``(466,)`` (``classic``), ``(557,)`` (``long``) |
| Observation values | ``[0, 3]``, the two score entries ``[-4, 7.8]`` (``classic``) |

One round of Reiner Knizia's *Lost Cities* for two players. On each turn a player plays a
card onto their own expedition of its colour or discards it onto that colour's discard pile,
then draws from the draw pile or from the top of another discard pile. The round ends the
moment the last card of the draw pile is drawn; each expedition then scores
``(sum of numbers - 20) x (wagers + 1)``, plus 20 for 8 or more cards.

Observation space
    A dict: ``observation``, a float32 vector built only from the agent's
    :class:`~lostcities.PlayerView` (own hand, both expeditions, the discard piles, the cards
    the opponent is known to hold, the unseen cards, the last move, the draw-pile size, the
    scores, the turn cap), laid out exactly as docs/rl.md and
    :class:`lostcities.envs.encoding.Encoding` describe; and ``action_mask``, an int8 vector
    with a 1 for exactly the legal actions. The mask is all zeros for the agent not on move
    and once the round is over.

Action space
    One combined action per turn: ``(kind * K + card.index) * S + source`` with kind 0 = play,
    1 = discard, K = 10 card kinds per colour, S = 1 + colours draw sources (0 = the draw pile,
    1 + colour = that discard pile). The three wagers of a colour are one action. This is
    :attr:`lostcities.Move.index` packed to the variant's colours (the index itself in
    ``long``; :meth:`~lostcities.envs.encoding.Encoding.action_to_index` converts).

Rewards
    0 during the round; at the end +1 for the higher score, -1 for the lower, 0 each for a
    tie. ``infos[agent]`` then holds ``score_margin`` (own score minus the opponent's),
    ``scores`` (own, opponent), ``termination`` and ``result`` (``'1-0'``, ``'0-1'`` or
    ``'1/2-1/2'`` from player 0's side).

Arguments
    ``variant`` (``'classic'`` or ``'long'``), ``max_turns`` (a cap on moves: the round is
    then truncated and scored as it stands, ``truncations`` set instead of ``terminations``),
    ``starter`` (0, 1, or ``None`` to draw it from the reset seed), ``render_mode``
    (``'ansi'``: :meth:`raw_env.render` returns the whole table as text, both hands shown,
    for spectators and debugging only; ``'human'`` prints it), ``achievements`` (``True``
    or a :class:`~lostcities.GoalSet`: the achievements variant, 5 goals per round, each
    held worth 10 points; the observation then ends with the goal slots, ``(506,)``
    classic, ``(597,)`` long; the default ``False`` is the classic game and layout).

``reset(seed=...)`` seeds the deal (and the starter when it is drawn): the same seed gives
the same round. ``reset(options={"deck": [...], "starter": 0})`` deals a given deck instead.

Version History
    * v0: first release (lostcities 0.1.0). The ``achievements`` option came later; it
      leaves the classic observation as it was.

>>> e = env(max_turns=20)
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) > 0
((466,), True)
>>> e.step(int(obs["action_mask"].argmax()))
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from lostcities.achievements import GoalSet
from lostcities.cards import Variant, get_variant
from lostcities.envs.encoding import Encoding, get_encoding
from lostcities.envs.options import check_max_turns, check_render_mode, deal_round
from lostcities.rules import Round

__all__ = ["env", "raw_env"]

AGENTS = ("player_0", "player_1")


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers: an illegal action ends the round
    with -1 for the offender (``TerminateIllegalWrapper``), out-of-range actions fail an
    assertion (``AssertOutOfBoundsWrapper``), and calls out of order are caught
    (``OrderEnforcingWrapper``). Arguments as :class:`raw_env`."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """The unwrapped AEC environment (see the module docs).

    :raises lostcities.UnknownVariantError: for an unknown variant.
    :raises ValueError: for a bad ``max_turns``, ``starter`` or ``render_mode``.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "lostcities_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str | Variant = "classic",
        max_turns: int | None = None,
        starter: int | None = None,
        render_mode: str | None = None,
        achievements: bool | GoalSet = False,
    ) -> None:
        var = get_variant(variant)
        EzPickle.__init__(self, var.name, max_turns, starter, render_mode, achievements)
        super().__init__()
        check_max_turns(max_turns)
        if starter not in (None, 0, 1):
            raise ValueError(f"invalid starter: {starter!r} (expected 0, 1 or None)")
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.variant = var
        self.max_turns = max_turns
        self.starter = starter
        self.render_mode = render_mode
        self.achievements = achievements or None
        """The goal pool (``True``: the default one), ``None`` for the classic game."""
        self.encoding: Encoding = get_encoding(var, achievements=self.achievements is not None)
        enc = self.encoding
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {a: spaces.Discrete(enc.num_actions) for a in AGENTS}
        self.observation_spaces = {a: enc.observation_space() for a in AGENTS}
        self._rng = np.random.default_rng()
        self.round: Round = Round.deal(seed=0, variant=var, max_turns=max_turns)
        self._reset_bookkeeping()

    # -- PettingZoo API -------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new round. ``seed`` fixes the deal (and a drawn starter).

        ``options``: ``starter`` (0/1) and ``deck`` (the whole deck in dealing order, as for
        :meth:`lostcities.Round.from_deck`) override the drawn ones.

        :raises ValueError: for a bad deck or starter.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        deal_seed = int(self._rng.integers(2**63))
        starter = options.get("starter", self.starter)
        if starter is None:
            starter = int(self._rng.integers(2))
        if starter not in (0, 1):
            raise ValueError(f"invalid starter: {starter!r} (expected 0 or 1)")
        self.round = deal_round(
            self.variant,
            starter,
            seed=deal_seed,
            deck=options.get("deck"),
            max_turns=self.max_turns,
            achievements=self.achievements,
        )
        self._reset_bookkeeping()

    def _reset_bookkeeping(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.round.to_move]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        """``agent``'s observation and action mask, from its view of the round only."""
        view = self.round.view(AGENTS.index(agent))
        return {
            "observation": self.encoding.observation(view),
            "action_mask": self.encoding.action_mask(view),
        }

    def step(self, action: int | np.integer | None) -> None:
        """The agent on move makes ``action``.

        :raises lostcities.envs.encoding.InvalidActionError: for a number outside the
            action space.
        :raises lostcities.IllegalMoveError: for an illegal move (``env()`` turns it into a
            loss instead).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"invalid action: None for {agent}, which is still playing")
        move = self.encoding.action_to_move(action)
        self.round.push(move)
        self._cumulative_rewards[agent] = 0
        self.rewards = dict.fromkeys(AGENTS, 0)
        r = self.round
        if r.is_over():
            outcome = r.outcome()
            assert outcome is not None
            s = outcome.scores
            for p, a in enumerate(AGENTS):
                self.rewards[a] = (
                    0 if outcome.winner is None else (1 if outcome.winner == p else -1)
                )
                self.infos[a] = {
                    "score_margin": s[p] - s[p ^ 1],
                    "scores": (s[p], s[p ^ 1]),
                    "termination": outcome.termination.value,
                    "result": outcome.result(),
                }
            if outcome.truncated:
                self.truncations = dict.fromkeys(AGENTS, True)
            else:
                self.terminations = dict.fromkeys(AGENTS, True)
        else:
            self.agent_selection = AGENTS[r.to_move]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The table as text (both hands: for spectators, never an agent's observation):
        returned with ``render_mode='ansi'``, printed with ``'human'``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "human":
            print(self.round, end="\n\n")
            return None
        return str(self.round)

    def close(self) -> None:
        """Nothing to release."""
