"""Lost Cities as a single-agent Gymnasium environment: one seat against a built-in bot.

Registered on import as ``lostcities/LostCities-v0``::

    import gymnasium as gym
    import lostcities.envs.gymnasium  # registers the id
    env = gym.make("lostcities/LostCities-v0", opponent="random")
    # or, without the import: gym.make("lostcities.envs.gymnasium:lostcities/LostCities-v0")
    envs = gym.make_vec("lostcities/LostCities-v0", num_envs=8, vectorization_mode="sync")
    envs = gym.make_vec("lostcities/LostCities-v0", num_envs=4096)  # native, compiled

The agent plays one seat of a round; the other seat is a bot named by a spec string
(``random``, ``discard``, ``heuristic``, ``ismcts:iters=200``, any built-in spec), seeded from
the environment's seed, so ``reset(seed=s)`` fixes the deal, the seats and the bot's play.

Observations are a dict, as in the PettingZoo env: ``observation`` (the float32 vector of
:mod:`lostcities.envs.encoding`, built from the agent's view only) and ``action_mask`` (int8,
1 exactly for the legal actions; all zeros once the round is over). ``info['action_mask']``
holds the same mask, for libraries that look there. Actions are the combined action numbers
of :class:`~lostcities.envs.encoding.Encoding`.

The reward is 0 until the round ends, then the result for the agent (+1 win, -1 loss, 0 tie)
or, with ``reward='margin'``, the score margin (own minus opponent's). ``info`` always holds
``score_margin`` and ``scores`` (own, opponent) as the expeditions stand. An illegal action
(one the mask excludes) forfeits the round: reward -1 (or ``-encoding.max_score_margin`` with
``reward='margin'``), ``terminated``, ``info['illegal_action'] = True``; with
``illegal='raise'`` it raises :class:`lostcities.IllegalMoveError` instead and changes nothing.

The round is refereed by :class:`lostcities.referee.Referee`, as in the arena: the bot's seat
is a player, the agent's actions are submitted to it. The bot is part of the environment, so
its failures are not a game result: an exception it raises (or the referee's error for a move
it got wrong) propagates from ``reset``/``step``.

>>> env = LostCitiesEnv(opponent="random", seat=0)
>>> obs, info = env.reset(seed=1)
>>> obs["observation"].shape, bool((obs["action_mask"] == info["action_mask"]).all())
((466,), True)
>>> obs, reward, terminated, truncated, info = env.step(int(obs["action_mask"].argmax()))
>>> reward, terminated
(0.0, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from lostcities.achievements import GoalSet
from lostcities.bots import Bot, make
from lostcities.cards import Card, Variant, get_variant
from lostcities.envs.encoding import Encoding, get_encoding
from lostcities.envs.options import check_agent_options, check_render_mode, deal_round
from lostcities.errors import IllegalMoveError
from lostcities.referee import Referee
from lostcities.rules import Round

__all__ = ["ENV_ID", "LostCitiesEnv", "make_vec"]

ENV_ID = "lostcities/LostCities-v0"
"""The registered Gymnasium id."""

Obs = dict[str, npt.NDArray[Any]]


class LostCitiesEnv(gymnasium.Env[Obs, np.int64]):
    """One seat of a Lost Cities round against a bot (see the module docs).

    Args:
        opponent: the bot spec of the other seat (``random``, ``discard``, ``heuristic``...).
        variant: ``classic`` or ``long``.
        seat: the agent's seat (0 or 1), or ``None`` to draw it at each reset.
        max_turns: cap on moves (both seats); the round is then truncated and scored as it
            stands.
        reward: ``result`` (+1/-1/0 at the end) or ``margin`` (the score margin at the end).
        illegal: ``forfeit`` (an illegal action loses the round) or ``raise``.
        render_mode: ``ansi`` (``render()`` returns text), ``human`` (prints it) or ``None``.
        achievements: ``True`` or a :class:`~lostcities.GoalSet` for the achievements
            variant (5 goals per round, 10 points each held; the observation ends with
            the goal slots, docs/rl.md); ``False``: the classic game and layout.

    :raises lostcities.bots.BotSpecError: for an unknown bot spec.
    :raises ValueError: for any other bad argument.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        opponent: str = "random",
        variant: str | Variant = "classic",
        seat: int | None = None,
        max_turns: int | None = None,
        reward: Literal["result", "margin"] = "result",
        illegal: Literal["forfeit", "raise"] = "forfeit",
        render_mode: str | None = None,
        achievements: bool | GoalSet = False,
    ) -> None:
        var = get_variant(variant)
        check_agent_options(seat=seat, max_turns=max_turns, reward=reward, illegal=illegal)
        check_render_mode(render_mode, self.metadata["render_modes"])
        make(opponent, seed=0).close()  # fail now on a bad spec, not at the first reset
        self.opponent_spec = opponent
        self.variant = var
        self.seat_option = seat
        self.max_turns = max_turns
        self.reward_mode = reward
        self.illegal = illegal
        self.render_mode = render_mode
        self.achievements = achievements or None
        """The goal pool (``True``: the default one), ``None`` for the classic game."""
        self.encoding: Encoding = get_encoding(var, achievements=self.achievements is not None)
        enc = self.encoding
        self.action_space = spaces.Discrete(enc.num_actions)
        self.observation_space = enc.observation_space()  # type: ignore[assignment]
        self.seat = 0
        self.round: Round | None = None
        self.bot: Bot | None = None
        self.referee: Referee | None = None
        """The round's referee: the bot's seat is a player, the agent's moves are submitted."""

    # -- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new round; the bot moves first if it starts.

        ``options``: ``seat`` (0/1), ``starter`` (0/1) and ``deck`` (the whole deck in
        dealing order, as for :meth:`lostcities.Round.from_deck`) override the drawn ones.

        :raises ValueError: for bad options (an invalid deck, seat or starter).
        """
        super().reset(seed=seed)
        options = options or {}
        rng = self.np_random
        seat = options.get("seat", self.seat_option)
        if seat is None:
            seat = int(rng.integers(2))
        starter = options.get("starter")
        if starter is None:
            starter = int(rng.integers(2))
        if seat not in (0, 1) or starter not in (0, 1):
            raise ValueError(f"invalid seat or starter: {seat!r}, {starter!r} (expected 0 or 1)")
        deal_seed = int(rng.integers(2**63))
        bot_seed = int(rng.integers(2**63))
        deck: Sequence[Card | str] | None = options.get("deck")
        r = deal_round(
            self.variant,
            starter,
            seed=deal_seed,
            deck=deck,
            max_turns=self.max_turns,
            achievements=self.achievements,
        )
        if self.bot is not None:
            self.bot.close()
        self.bot = make(self.opponent_spec, seed=bot_seed)
        self.seat = seat
        self.round = r
        seats: list[Bot | None] = [None, None]
        seats[seat ^ 1] = self.bot
        self.referee = Referee(r, seats)  # restarts the bot
        self._bot_moves()
        return self._obs_info()

    def step(self, action: int | np.integer) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Make the agent's move ``action``, then the bot's reply.

        :raises lostcities.envs.encoding.InvalidActionError: for a number outside the
            action space.
        :raises lostcities.IllegalMoveError: with ``illegal='raise'`` for an illegal move, and
            always when the round is already over (call ``reset``).
        """
        r, ref = self.round, self.referee
        if r is None or ref is None:
            raise IllegalMoveError("illegal step: call reset() first")
        if r.is_over():
            raise IllegalMoveError("illegal step: the round is over (call reset())")
        move = self.encoding.action_to_move(action)
        info_extra: dict[str, Any] = {}
        if not r.is_legal(move):
            if self.illegal == "raise":
                ref.submit(move, self.seat)  # raises IllegalMoveError saying why
            ref.forfeit(self.seat, f"illegal action {int(action)} ({move})")
            info_extra["illegal_action"] = True
        else:
            ref.submit(move, self.seat)  # checked, and the bot is told
            self._bot_moves()
        reward = 0.0
        terminated = truncated = False
        if r.is_over():
            outcome = r.outcome()
            assert outcome is not None
            truncated = outcome.truncated
            terminated = not truncated
            if info_extra:  # forfeited by an illegal action
                reward = (
                    -1.0 if self.reward_mode == "result" else -float(self.encoding.max_score_margin)
                )
            elif self.reward_mode == "margin":
                s = outcome.scores
                reward = float(s[self.seat] - s[self.seat ^ 1])
            elif outcome.winner is not None:
                reward = 1.0 if outcome.winner == self.seat else -1.0
        obs, info = self._obs_info()
        info.update(info_extra)
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        """The table as text from the agent's view (the bot's hand hidden)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text = "" if self.round is None else str(self.round.view(self.seat))
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self) -> None:
        """Close the bot (an external bot's process)."""
        if self.bot is not None:
            self.bot.close()
            self.bot = None

    # -- helpers --------------------------------------------------------------------------

    def _bot_moves(self) -> None:
        """The bot's moves until the agent is to move (or the round is over)."""
        ref = self.referee
        assert ref is not None
        ref.advance()
        if ref.failure is not None:  # the referee made it a forfeit; here it is an error
            raise ref.failure

    def _obs_info(self) -> tuple[Obs, dict[str, Any]]:
        r = self.round
        assert r is not None
        me = self.seat
        view = r.view(me)
        mask = self.encoding.action_mask(view)
        s = r.scores()
        obs: Obs = {"observation": self.encoding.observation(view), "action_mask": mask}
        info: dict[str, Any] = {
            "action_mask": mask.copy(),
            "score_margin": s[me] - s[me ^ 1],
            "scores": (s[me], s[me ^ 1]),
            "seat": me,
        }
        return obs, info


def make_vec(
    num_envs: int, seed: int | None = None, **kwargs: Any
) -> gymnasium.vector.SyncVectorEnv:
    """``num_envs`` copies of :class:`LostCitiesEnv` stepped together (Gymnasium's
    ``SyncVectorEnv``: batched observations, masks in ``obs['action_mask']`` of shape
    ``(num_envs, num_actions)``, automatic reset). Same as
    ``gymnasium.make_vec(ENV_ID, num_envs, vectorization_mode='sync', **kwargs)``.

    :raises ValueError: for ``num_envs < 1`` or bad env arguments.
    """
    if num_envs < 1:
        raise ValueError(f"invalid num_envs: {num_envs!r} (expected at least 1)")
    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: LostCitiesEnv(**kwargs) for _ in range(num_envs)]
    )
    if seed is not None:
        envs.reset(seed=seed)
    return envs


if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="lostcities.envs.gymnasium:LostCitiesEnv",
        vector_entry_point="lostcities.envs.vector:LostCitiesVectorEnv",
    )
