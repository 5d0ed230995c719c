"""A native batched Gymnasium environment: :class:`LostCitiesVectorEnv`.

``N`` rounds in one array (the array state of :mod:`lostcities.fast`), stepped together in
one compiled call per step: the agents' actions, the built-in opponent's replies, the
rewards, the autoreset deals, and the observations and action masks of the whole batch
written into preallocated arrays. Registered as the vector entry point of
``lostcities/LostCities-v0``::

    import gymnasium as gym
    import lostcities.envs.gymnasium  # registers the id
    envs = gym.make_vec("lostcities/LostCities-v0", num_envs=4096,
                        vectorization_mode="vector_entry_point", opponent="random")

(``gym.make_vec`` without ``vectorization_mode`` picks this env too; ``"sync"`` gives
Gymnasium's ``SyncVectorEnv`` over :class:`~lostcities.envs.gymnasium.LostCitiesEnv`, which
takes any bot spec.)

It is the single env, batched: the same observation dict (``observation``, float32, and
``action_mask``, int8, of :mod:`lostcities.envs.encoding`), the same actions, rewards,
terminations and truncations, and the same seeding (env ``i`` of ``reset(seed=s)`` is
``LostCitiesEnv.reset(seed=s + i)``: the same deal, seats and opponent's play), so for
equal seeds it equals ``SyncVectorEnv`` over ``LostCitiesEnv`` step for step (tested, both
variants, every opponent it shares with the single env).

Two ways to play:

- against a built-in opponent stepped inside the compiled call: ``random`` (the ``random``
  bot's exact draws), ``rollout`` (the cheap rollout policy of
  :mod:`lostcities.bots.rollout`), ``smart`` (the ``ismcts`` bot's smart rollout policy) or
  ``net`` (the ``net`` bot: the shipped policy network's favourite legal move; its input is
  written in compiled code, the network runs in NumPy over every game waiting for it, float64
  as the bot, and a second compiled call makes the moves); the agent's seat is drawn per
  round (``seat=None``) or fixed;
- ``opponent=None``, self-play: each step acts for whichever player is to move, the
  observation and mask are that player's, and ``info["player"]`` says who. The reward is
  for that player too (it is nonzero only at the end, where the player observed is the
  one who made the last move).

Autoreset follows Gymnasium's modes (``metadata["autoreset_mode"]``): ``next_step`` (the
default, as ``SyncVectorEnv``: the step after a round ends deals a new one and ignores that
env's action), ``same_step`` (the new round's observation is returned at once;
``info["final_obs"]`` and ``info["final_info"]`` hold the ended round's, batched, masked by
``info["_final_obs"]``) and ``disabled`` (reset ended envs with ``reset(options=
{"reset_mask": done})``).

Returned arrays are the env's own buffers, overwritten by the next ``step``/``reset``
(``copy=True`` returns copies). ``info`` holds ``action_mask`` (the same mask),
``score_margin`` and ``scores`` (own, opponent) of the player observed, ``seat`` (the
agent's seat; in self-play, the player observed), ``player`` and ``illegal_action``, each
with its ``_key`` mask as Gymnasium's vector infos have.

An illegal action forfeits that round (reward -1, or ``-encoding.max_score_margin`` with
``reward="margin"``; terminated; ``info["illegal_action"]``); with ``illegal="raise"`` the
step raises :class:`lostcities.IllegalMoveError` naming the first such env and changes
nothing. An action outside the space raises
:class:`~lostcities.envs.encoding.InvalidActionError` and changes nothing.

Not supported (use ``vectorization_mode="sync"``): other bot specs as opponents, the
``deck`` reset option, rendering, and the achievements variant.

>>> envs = LostCitiesVectorEnv(3, opponent="random")
>>> obs, info = envs.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape
((3, 466), (3, 600))
>>> obs, rewards, terminated, truncated, info = envs.step(envs.sample_legal_actions())
>>> rewards.tolist(), terminated.tolist()
([0.0, 0.0, 0.0], [False, False, False])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numba
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from lostcities.cards import Variant, get_variant
from lostcities.envs.encoding import Encoding, InvalidActionError, get_encoding
from lostcities.envs.options import check_agent_options
from lostcities.errors import IllegalMoveError
from lostcities.fast import kernels as K
from lostcities.fast import vector as V
from lostcities.rules import NUM_MOVES, Move

__all__ = ["OPPONENTS", "LostCitiesVectorEnv"]

OPPONENTS = ("random", "rollout", "smart", "net")
"""The built-in opponents (``None``: self-play)."""

Obs = dict[str, npt.NDArray[Any]]

_ENVS_PER_CHUNK = 256  # games per parallel work item (a few per thread balance the load)


class LostCitiesVectorEnv(gymnasium.vector.VectorEnv[Obs, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` Lost Cities rounds stepped together in compiled code (module docs).

    Args:
        num_envs: the number of rounds (>= 1).
        opponent: ``random``, ``rollout``, ``smart``, ``net``, or ``None`` for self-play.
        variant: ``classic`` or ``long``.
        seat: the agent's seat (0 or 1), or ``None`` to draw it at each reset.
        max_turns: cap on moves (both seats); the round is then truncated.
        reward: ``result`` (+1/-1/0 at the end) or ``margin`` (the score margin).
        illegal: ``forfeit`` (an illegal action loses the round) or ``raise``.
        autoreset_mode: ``next_step``, ``same_step`` or ``disabled`` (or Gymnasium's
            ``AutoresetMode`` or its values ``NextStep``...).
        copy: return copies of the observation and info arrays instead of the buffers.
        render_mode: only ``None``.
        parallel: step the batch on numba's threads (``numba.set_num_threads``) instead of
            one; on the shared 2-core machine one thread was as fast or faster
            (docs/performance.md).

    :raises ValueError: for a bad argument (an unknown opponent says which are built in).
    """

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int,
        opponent: str | None = "random",
        variant: str | Variant = "classic",
        seat: int | None = None,
        max_turns: int | None = None,
        reward: Literal["result", "margin"] = "result",
        illegal: Literal["forfeit", "raise"] = "forfeit",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        copy: bool = False,
        render_mode: str | None = None,
        achievements: object = None,
        parallel: bool = False,
    ) -> None:
        if achievements not in (None, False):
            raise ValueError(
                "the vector env plays the classic and long games only (the compiled engine "
                "knows no goals); for the achievements variant use vectorization_mode='sync'"
            )
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"invalid num_envs: {num_envs!r} (expected at least 1)")
        if opponent is not None and opponent not in OPPONENTS:
            raise ValueError(
                f"invalid opponent for the vector env: {opponent!r} (built in: random, "
                "rollout, smart, net, or None for self-play; for any bot spec use "
                "vectorization_mode='sync')"
            )
        var = get_variant(variant)
        if var.name not in ("classic", "long"):
            raise ValueError(f"invalid variant for the vector env: {var.name!r} (classic or long)")
        check_agent_options(seat=seat, max_turns=max_turns, reward=reward, illegal=illegal)
        names = {"next_step": "NextStep", "same_step": "SameStep", "disabled": "Disabled"}
        try:
            if isinstance(autoreset_mode, str):
                autoreset_mode = names.get(autoreset_mode.lower(), autoreset_mode)
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ValueError(
                f"invalid autoreset_mode: {autoreset_mode!r} (expected next_step, same_step "
                "or disabled)"
            ) from None
        if render_mode is not None:
            raise ValueError(
                f"invalid render_mode: {render_mode!r} (the vector env does not render)"
            )
        n = num_envs
        self.num_envs = n
        self.opponent = opponent
        self.variant = var
        self.seat_option = seat
        self.max_turns = max_turns
        self.reward_mode = reward
        self.illegal = illegal
        self.autoreset_mode = mode
        self.copy = copy
        self.render_mode = None
        self.metadata = {"render_modes": [], "autoreset_mode": mode}
        self.encoding: Encoding = get_encoding(var)
        enc = self.encoding
        self.single_action_space = spaces.Discrete(enc.num_actions)
        self.single_observation_space = enc.observation_space()
        self.action_space = batch_space(self.single_action_space, n)
        self.observation_space = batch_space(self.single_observation_space, n)
        # the encoding's tables and layout, handed to the kernels
        self._to_index = np.array(
            [enc.action_to_index(a) for a in range(enc.num_actions)], np.int64
        )
        to_action = np.full(NUM_MOVES, -1, np.int64)
        for a, i in enumerate(self._to_index.tolist()):
            to_action[i] = a
        self._to_action = to_action
        self._layout = np.array(
            [enc.section(name).start for name in V.LAYOUT_FIELDS]
            + [enc.num_card_kinds, var.deck_size - 2 * var.hand_size, enc.num_sources],
            np.int64,
        )
        self._selfplay = opponent is None
        self._policy = 0 if opponent is None else V.POLICIES[opponent]
        self._forfeit_reward = -1.0 if reward == "result" else -float(enc.max_score_margin)
        # per-env state
        self.states: npt.NDArray[np.int32] = np.zeros((n, K.STATE_SIZE), np.int32)
        """One row per round, the layout of :mod:`lostcities.fast.kernels` (read only)."""
        self._seats = np.zeros(n, np.int64)
        self._last = np.full(n, -1, np.int64)
        words = 624 if opponent == "random" else 1  # the random bot's generator states
        self._bot_mt = np.zeros((n, words), np.uint32)
        self._bot_pos = np.zeros((n, 2), np.int64)
        self._rngs = np.zeros((n, 6), np.uint64)  # each env's PCG64 state (V.pcg_state)
        self._seeded = np.zeros(n, np.bool_)
        self._track = np.zeros((n, 2), np.int64)  # what the mask rows hold (V._update)
        self._need = np.zeros(n, np.bool_)  # the net opponent is to move
        self._network: Any = None
        if opponent == "net":
            from lostcities.bots.net import load_network

            self._network = load_network(None)
        self._feats = np.zeros((n if opponent == "net" else 1, V.NET_FEATURES), np.float64)
        self._parallel = parallel
        # self-play: both players' rows, kept incrementally, and each one's pending kinds
        self._pobs = np.zeros((n if opponent is None else 1, 2, enc.observation_size), np.float32)
        self._pend = np.zeros((n if opponent is None else 1, 2, 9), np.int64)
        self._work = np.zeros(V.WORK, np.int64)  # the kernels' scratch
        self._shown = np.full((n if opponent is None else 1, 2), -1, np.int64)
        self._autoreset = np.zeros(n, np.bool_)
        self._no_reset = np.zeros(n, np.bool_)
        self._dealt = False
        # outputs, written in place
        self._obs = np.zeros((n, enc.observation_size), np.float32)
        self._mask = np.zeros((n, enc.num_actions), np.int8)
        self._rewards = np.zeros(n, np.float64)
        self._term = np.zeros(n, np.bool_)
        self._trunc = np.zeros(n, np.bool_)
        self._illegal = np.zeros(n, np.bool_)
        self._scores = np.zeros((n, 2), np.int64)
        self._player = np.zeros(n, np.int64)
        self._all = np.ones(n, np.bool_)
        self._chunks = max(1, min(n // _ENVS_PER_CHUNK, 8 * numba.get_num_threads()))
        self._seat_opt = -1 if seat is None else seat
        self._sample_rng = np.zeros((n, 2), np.uint64)
        # sample_legal_actions' next draws, made in the step's pass (once it has been called)
        self._pre = np.zeros(0, np.int64)
        self._fresh = False

    # -- Gymnasium API ---------------------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal new rounds (where the opponent starts, it has moved).

        ``seed``: ``None`` (the envs' generators go on, or fresh entropy), an int ``s``
        (env ``i`` seeded with ``s + i``) or one seed (or ``None``) per env. ``options``:
        ``seat`` and ``starter`` (0/1) override the drawn ones, ``reset_mask`` (bool, one
        per env) resets only those envs.

        :raises ValueError: for bad seeds or options.
        """
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, bool):
            raise ValueError(f"invalid seed: {seed!r}")
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"invalid seed list: {len(seeds)} seeds for {n} envs")
        options = dict(options or {})
        rows = np.arange(n, dtype=np.int64)
        mask = options.pop("reset_mask", None)
        if mask is not None:
            m = np.asarray(mask)
            if m.shape != (n,) or m.dtype != np.bool_ or not m.any():
                raise ValueError(
                    f"invalid reset_mask: expected a bool array of shape ({n},) with a True"
                )
            rows = np.flatnonzero(m).astype(np.int64)
        seat = options.pop("seat", self.seat_option)
        starter = options.pop("starter", None)
        if options:
            raise ValueError(
                f"invalid reset options: {', '.join(map(repr, sorted(options)))} (the vector "
                "env takes seat, starter and reset_mask)"
            )
        if seat not in (None, 0, 1) or starter not in (None, 0, 1):
            raise ValueError(f"invalid seat or starter: {seat!r}, {starter!r} (expected 0 or 1)")
        for i in rows.tolist():
            s = seeds[i]
            if s is not None or not self._seeded[i]:
                V.pcg_state(seeding.np_random(None if s is None else int(s))[0], self._rngs[i])
                self._seeded[i] = True
        fresh = self._fresh or len(rows) == n
        self._reset_rows(rows, -1 if seat is None else seat, -1 if starter is None else starter)
        self._fresh = fresh and len(self._pre) == n
        self._dealt = True
        self._autoreset[rows] = False
        self._rewards[rows] = 0.0
        self._term[rows] = False
        self._trunc[rows] = False
        self._illegal[rows] = False
        info = self._info()
        return self._out(self._observations(), info)

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Obs, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        """One action per env (ignored for an env being autoreset in ``next_step`` mode).

        :raises InvalidActionError: for actions of the wrong shape or outside the space.
        :raises IllegalMoveError: with ``illegal="raise"`` for an illegal action; for a step
            before :meth:`reset`, or of an ended env with autoreset ``disabled``.
        """
        if not self._dealt:
            raise IllegalMoveError("illegal step: call reset() first")
        a = np.asarray(actions)
        n = self.num_envs
        if a.shape != (n,) or not (np.issubdtype(a.dtype, np.integer) and a.dtype != np.bool_):
            raise InvalidActionError(
                f"invalid actions: expected {n} whole numbers, got shape {a.shape} of {a.dtype}"
            )
        a = a.astype(np.int64, copy=False)
        mode = self.autoreset_mode
        skip = self._autoreset if mode is AutoresetMode.NEXT_STEP else self._no_reset
        if mode is AutoresetMode.DISABLED and self._autoreset.any():
            g = int(np.flatnonzero(self._autoreset)[0])
            raise IllegalMoveError(
                f"illegal step: env {g}'s round is over (autoreset is disabled: reset it "
                "with options={'reset_mask': ...})"
            )
        bad = V.check_actions(
            self.states, a, skip, self.encoding.num_actions, self._to_index, self.illegal == "raise"
        )
        if bad >= 0:
            raise InvalidActionError(
                f"invalid action in env {bad}: {int(a[bad])} (expected 0.."
                f"{self.encoding.num_actions - 1} for the {self.variant.name} variant)"
            )
        if bad < -1:
            g = -2 - bad
            move = self.encoding.action_to_move(int(a[g]))
            raise IllegalMoveError(f"illegal action {int(a[g])} ({move}) in env {g}")
        do_reset = self._autoreset if mode is AutoresetMode.NEXT_STEP else self._no_reset
        args = (
            self.states,
            a,
            self._to_index,
            self._to_action,
            self._seats,
            self._last,
            self._selfplay,
            self._policy,
            self._bot_mt,
            self._bot_pos,
            do_reset,
            self._rngs,
            self._seat_opt,
            self.variant.num_colors,
            self.max_turns or 0,
            self.reward_mode == "margin",
            self._forfeit_reward,
            self._layout,
            self._obs,
            self._mask,
            self._rewards,
            self._term,
            self._trunc,
            self._illegal,
            self._scores,
            self._player,
            self._track,
            self._need,
            self._feats,
            self._sample_rng,
            self._pre,
            self._pobs,
            self._pend,
            self._shown,
        )
        if self._parallel:
            V.vec_step_parallel(args, self._chunks)
        else:
            V.vec_step(args, self._work)
        self._net_moves()
        self._fresh = len(self._pre) == n
        np.logical_or(self._term, self._trunc, out=self._autoreset)
        info = self._info()
        if mode is AutoresetMode.SAME_STEP and self._autoreset.any():
            ended = np.flatnonzero(self._autoreset).astype(np.int64)
            info = {k: v.copy() for k, v in info.items()}
            info["final_obs"] = {k: v.copy() for k, v in self._observations().items()}
            info["_final_obs"] = self._autoreset.copy()
            info["final_info"] = {k: v for k, v in info.items() if not k.startswith("final")}
            info["_final_info"] = self._autoreset.copy()
            self._reset_rows(ended, self._seat_opt, -1)
            for k, v in self._info().items():
                if not k.startswith("_"):
                    info[k] = v.copy() if self.copy else v
            self._autoreset[:] = False
        obs, info = self._out(self._observations(), info)
        if self.copy:
            return obs, self._rewards.copy(), self._term.copy(), self._trunc.copy(), info
        return obs, self._rewards, self._term, self._trunc, info

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (no processes, no threads of its own)."""

    # -- helpers for agents and benchmarks --------------------------------------------------

    def sample_legal_actions(self, seed: int | None = None) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per env (0 for an ended one), drawn in compiled
        code from the env's own sampling streams (``seed`` reseeds them), for baselines and
        benchmarks: sampling 4,096 masks in NumPy costs more than a step. Once called, each
        step draws the next ones for the new positions in its own pass over the games (while
        they are in cache), and the first call after it returns those; a second call at the
        same positions draws again."""
        n = self.num_envs
        if seed is not None or not self._sample_rng.any():
            st = np.random.SeedSequence(seed).generate_state(2 * n, np.uint64)
            self._sample_rng[:] = st.reshape(n, 2)
            self._sample_rng[self._sample_rng[:, 0] == 0, 0] = 1
            self._fresh = False
        if len(self._pre) != n:
            self._pre = np.zeros(n, np.int64)
        if self._fresh:
            self._fresh = False
            return self._pre.copy()
        out = np.empty(n, np.int64)
        V.sample_legal(self.states, self._to_action, self._sample_rng, out)
        return out

    def action_to_move(self, action: int) -> Move:
        """The move of an action number (:meth:`Encoding.action_to_move`)."""
        return self.encoding.action_to_move(action)

    @property
    def nbytes(self) -> int:
        """Memory the env holds for its rounds and outputs (bytes)."""
        arrays = [v for v in vars(self).values() if isinstance(v, np.ndarray)]
        return int(sum(x.nbytes for x in arrays))

    # -- internals ----------------------------------------------------------------------------

    def _reset_rows(self, rows: npt.NDArray[np.int64], seat: int, starter: int) -> None:
        """Deal ``rows`` anew from their generators (``seat``, ``starter`` < 0: drawn)."""
        V.vec_reset_rows(
            self.states,
            rows,
            self._to_action,
            self._seats,
            self._last,
            self._selfplay,
            self._policy,
            self._bot_mt,
            self._bot_pos,
            self._rngs,
            seat,
            starter,
            self.variant.num_colors,
            self.max_turns or 0,
            self._layout,
            self._obs,
            self._mask,
            self._scores,
            self._player,
            self._track,
            self._need,
            self._feats,
            self._sample_rng,
            self._pre,
            self._pobs,
            self._pend,
            self._shown,
            self._work,
        )
        self._net_moves()

    def _net_moves(self) -> None:
        """The ``net`` opponent's moves where it is to move: one forward pass over them."""
        if self._network is None or not self._need.any():
            return
        rows = np.flatnonzero(self._need).astype(np.int64)
        logits, _ = self._network.forward(self._feats[rows])
        V.vec_net_finish(
            self.states,
            rows,
            np.ascontiguousarray(logits),
            self._to_action,
            self._seats,
            self._last,
            self.reward_mode == "margin",
            self._layout,
            self._obs,
            self._mask,
            self._rewards,
            self._term,
            self._trunc,
            self._scores,
            self._player,
            self._track,
            self._sample_rng,
            self._pre,
            self._work,
        )
        self._need[:] = False

    def _observations(self) -> Obs:
        return {"observation": self._obs, "action_mask": self._mask}

    def _info(self) -> dict[str, Any]:
        sc = self._scores
        seat = self._player if self._selfplay else self._seats
        return {
            "action_mask": self._mask,
            "_action_mask": self._all,
            "score_margin": sc[:, 0] - sc[:, 1],
            "_score_margin": self._all,
            "scores": sc,
            "_scores": self._all,
            "seat": seat,
            "_seat": self._all,
            "player": self._player,
            "_player": self._all,
            "illegal_action": self._illegal,
            "_illegal_action": self._illegal,
        }

    def _out(self, obs: Obs, info: dict[str, Any]) -> tuple[Obs, dict[str, Any]]:
        if not self.copy:
            return obs, info
        return {k: v.copy() for k, v in obs.items()}, {
            k: ({kk: vv.copy() for kk, vv in v.items()} if isinstance(v, dict) else v.copy())
            for k, v in info.items()
        }

    def __repr__(self) -> str:
        who = "self-play" if self._selfplay else f"vs {self.opponent}"
        return f"<LostCitiesVectorEnv {self.num_envs} x {self.variant.name}, {who}>"
