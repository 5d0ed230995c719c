"""Many games stepped together (for RL): :class:`BatchGames`.

Action encoding
---------------
A move is one flat index in ``0 .. 839`` (:data:`NUM_ACTIONS`)::

    action = (60 * discard + card_index) * 7 + draw

- ``discard``: 0 to play the card onto one's own expedition, 1 to discard it;
- ``card_index``: :attr:`lostcities.Card.index`, ``10 * colour + k`` with ``k`` 0 for the
  colour's wager (the three wagers of a colour are one card kind) and ``rank - 1`` for
  2..10; colours ``y b w g r p`` = 0..5 (``p`` only in the long game);
- ``draw``: 0 for the draw pile, ``1 + colour`` for the top of that colour's discard pile.

So ``+y2.`` is 7, ``-r10b`` is ``(60 + 49) * 7 + 2 = 765``. Conversions:
:attr:`lostcities.Move.index` and :meth:`lostcities.Move.from_index`. This is also the
key the core uses internally for its interned moves. Each legal move of a position is exactly
one action (identical wagers are one move, as in ``Round.legal_moves()``).

>>> games = BatchGames(4, "classic", seed=1)
>>> mask = games.legal_mask()
>>> mask.shape, bool(mask.any(axis=1).all())
((4, 840), True)
>>> done = games.step(games.random_actions())
>>> games.ply.tolist()
[1, 1, 1, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

import numba
import numpy as np
import numpy.typing as npt

from lostcities.cards import Variant, get_variant
from lostcities.errors import IllegalMoveError
from lostcities.fast import kernels as K
from lostcities.fast.state import state_from_round
from lostcities.rules import Move, Round

__all__ = ["NUM_ACTIONS", "BatchGames"]

NUM_ACTIONS = K.NUM_ACTIONS
"""Size of the flat action space (2 x 60 x 7 = 840)."""

_POLICIES = {"uniform": 0, "bench": 1, "rollout": 2}
GAMES_PER_THREAD = 1024
"""Below this many games per thread a batch call uses fewer threads: starting a parallel
region costs more than it saves on small batches (and much more on a busy machine)."""

T = TypeVar("T")


class BatchGames:
    """``n`` independent rounds of one variant in one array, stepped together.

    Every game has its own random stream (seeded from ``seed``), so a batch is reproducible.
    Finished games stay finished (their actions are ignored) until :meth:`reset_done` deals
    them anew. Rounds dealt here are shuffled by the batch's own generator, not by
    ``Round.deal(seed)``; use :meth:`from_rounds` to start from given core rounds.

    :param n: the number of games (>= 1).
    :param variant: ``classic`` or ``long``.
    :param seed: seeds every game's random stream (``None``: fresh entropy).
    :param starter: who moves first in each new round: 0, 1, or ``None`` for a random
        starter per round.
    :param max_turns: an optional turn cap per round (the round is then scored as it stands).
    :raises ValueError: for a bad ``n``, ``starter`` or ``max_turns``;
        :class:`~lostcities.errors.UnknownVariantError` for an unknown variant.
    """

    def __init__(
        self,
        n: int,
        variant: str | Variant = "classic",
        seed: int | None = None,
        *,
        starter: int | None = 0,
        max_turns: int | None = None,
    ) -> None:
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"invalid number of games: {n!r} (expected at least 1)")
        if starter not in (0, 1, None):
            raise ValueError(f"invalid starter: {starter!r} (expected 0, 1 or None)")
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"invalid max_turns: {max_turns!r} (expected a positive number)")
        self.variant: Variant = get_variant(variant)
        """The variant of every game."""
        self.n = n
        """The number of games."""
        self.starter = starter
        """Who starts new rounds (``None``: random)."""
        self.max_turns = max_turns
        """The turn cap of new rounds, if any."""
        self.states: npt.NDArray[np.int32] = np.zeros((n, K.STATE_SIZE), np.int32)
        """One row per game; the layout is in :mod:`lostcities.fast.kernels`. Read it freely;
        change games only through the methods (the legal-mask buffer follows them)."""
        seq = np.random.SeedSequence(seed)
        rngs = seq.generate_state(2 * n, np.uint64).reshape(n, 2).astype(np.uint64)
        rngs[rngs[:, 0] == 0, 0] = 1  # xorshift state must not be all zero
        self.rngs: npt.NDArray[np.uint64] = rngs
        """Each game's random stream state."""
        self._mask = np.zeros((n, NUM_ACTIONS), np.bool_)
        self._mask_ok = False  # whether _mask holds the legal moves of every game now
        self._no_mask = np.zeros((0, NUM_ACTIONS), np.uint8)
        self._dealt = np.zeros(n, np.int8)
        self._deal(only_over=False)

    @classmethod
    def from_rounds(cls, rounds: Sequence[Round], seed: int | None = None) -> BatchGames:
        """A batch holding copies of the given core rounds' positions (one variant; new
        rounds after :meth:`reset_done` are dealt by the batch with the first round's
        turn cap and starter 0).

        :raises ValueError: for no rounds or rounds of different variants.
        """
        if not rounds:
            raise ValueError("from_rounds: no rounds")
        variant = rounds[0].variant
        if any(r.variant != variant for r in rounds):
            raise ValueError("from_rounds: the rounds must all be of one variant")
        b = cls(len(rounds), variant, seed, max_turns=rounds[0].max_turns)
        for i, r in enumerate(rounds):
            state_from_round(r, b.states[i])
        b._mask_ok = False
        return b

    def _run(self, kernel: Callable[..., T], *args: Any) -> T:
        """Call a parallel kernel with at most one thread per :data:`GAMES_PER_THREAD` games."""
        have = numba.get_num_threads()
        want = max(1, min(have, self.n // GAMES_PER_THREAD))
        if want == have:
            return kernel(*args)
        numba.set_num_threads(want)
        try:
            return kernel(*args)
        finally:
            numba.set_num_threads(have)

    def _deal(self, only_over: bool) -> npt.NDArray[np.int64]:
        st = -1 if self.starter is None else self.starter
        ncol = self.variant.num_colors
        cap = self.max_turns or 0
        if only_over:
            K.batch_deal_over(self.states, self.rngs, ncol, st, cap, self._dealt)
            dealt = np.flatnonzero(self._dealt)
            if self._mask_ok and len(dealt):
                K.mask_rows(self.states, dealt, self._mask.view(np.uint8))
            return dealt
        self._run(K.batch_deal, self.states, self.rngs, ncol, st, cap)
        self._mask_ok = False
        return np.arange(self.n, dtype=np.int64)

    # -- state -----------------------------------------------------------------------------

    @property
    def done(self) -> npt.NDArray[np.bool_]:
        """Which games have ended (a new array)."""
        done: npt.NDArray[np.bool_] = self.states[:, K.OVER] != 0
        return done

    @property
    def truncated(self) -> npt.NDArray[np.bool_]:
        """Which games were ended by the turn cap."""
        cut: npt.NDArray[np.bool_] = self.states[:, K.OVER] == K.OVER_TURN_LIMIT
        return cut

    @property
    def to_move(self) -> npt.NDArray[np.int32]:
        """The player to move in each game (for an ended game: the one who moved last)."""
        return self.states[:, K.TURN].copy()

    @property
    def ply(self) -> npt.NDArray[np.int32]:
        """Moves made in each game's current round."""
        return self.states[:, K.PLY].copy()

    @property
    def deck_size(self) -> npt.NDArray[np.int32]:
        """Cards left in each draw pile."""
        return self.states[:, K.NDECK].copy()

    @property
    def nbytes(self) -> int:
        """Memory held by the batch's arrays (states, random streams, mask buffer)."""
        return int(self.states.nbytes + self.rngs.nbytes + self._mask.nbytes + self._dealt.nbytes)

    def hands(self) -> npt.NDArray[np.int32]:
        """``(n, 2, 8)`` card indexes of both hands (referee knowledge: give a player only
        its own)."""
        return self.states[:, K.HAND : K.HAND + 16].reshape(self.n, 2, 8).copy()

    # -- moves ------------------------------------------------------------------------------

    def legal_mask(self, out: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.bool_]:
        """``(n, 840)`` booleans: which actions are legal for the player to move in each game
        (all False for an ended game). Without ``out`` the batch's own buffer is returned; it
        is kept current by :meth:`step` and :meth:`reset_done` (in the same pass over the
        games, so asking for the mask every step costs little) and changes with them: copy it
        to keep it."""
        if not self._mask_ok:
            self._run(K.batch_legal_mask, self.states, self._mask.view(np.uint8))
            self._mask_ok = True
        if out is None:
            return self._mask
        if out.shape != (self.n, NUM_ACTIONS) or out.dtype != np.bool_:
            raise ValueError(f"legal_mask: out must be a bool array of shape ({self.n}, 840)")
        out[:] = self._mask
        return out

    def step(self, actions: npt.ArrayLike) -> npt.NDArray[np.bool_]:
        """Make one move in every running game: ``actions[g]`` for game ``g`` (ignored for
        ended games, which may hold any value such as -1). Returns :attr:`done`.

        :raises IllegalMoveError: if an action is illegal in its running game, naming the
            first such game; no game is changed then.
        """
        a = np.asarray(actions)
        if a.shape != (self.n,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"step: expected {self.n} integer actions, got shape {a.shape}")
        a = a.astype(np.int64, copy=False)
        bad = K.batch_check(self.states, a)
        if bad >= 0:
            act = int(a[bad])
            what = str(Move.from_index(act)) if 0 <= act < NUM_ACTIONS else "out of range"
            raise IllegalMoveError(
                f"illegal action {act} ({what}) in game {bad}: not a legal move there"
            )
        if self._mask_ok:  # keep the mask current in the same pass over the games
            self._run(K.batch_apply, self.states, a, self._mask.view(np.uint8))
        else:
            self._run(K.batch_apply, self.states, a, self._no_mask)
        return self.done

    def reset_done(self) -> npt.NDArray[np.int64]:
        """Deal a new round in every ended game; returns their indexes."""
        return self._deal(only_over=True)

    def reset(self) -> None:
        """Deal a new round in every game."""
        self._deal(only_over=False)

    def scores(self) -> npt.NDArray[np.int32]:
        """``(n, 2)``: both players' points in each game as the expeditions stand."""
        out = np.empty((self.n, 2), np.int32)
        self._run(K.batch_scores, self.states, out)
        return out

    def random_actions(
        self, policy: Literal["uniform", "bench", "rollout"] = "uniform"
    ) -> npt.NDArray[np.int64]:
        """An action for every running game (-1 for ended ones), drawn from each game's own
        random stream: ``uniform`` over the distinct legal moves (like the ``random`` bot),
        ``bench`` the benchmark policy of the C reference (uniform over hand slots x
        play/discard, then over draw sources), ``rollout`` the deterministic policy of
        :mod:`lostcities.bots.rollout`.

        :raises ValueError: for an unknown policy.
        """
        if policy not in _POLICIES:
            raise ValueError(f"unknown policy: {policy!r} (expected uniform, bench or rollout)")
        out = np.empty(self.n, np.int64)
        self._run(K.batch_policy_actions, self.states, self.rngs, _POLICIES[policy], out)
        return out

    def play_bench(self, turns: int) -> int:
        """Every game makes ``turns`` moves under the benchmark policy inside one compiled
        call, dealt anew as it ends (the batch's raw speed); returns the rounds finished."""
        self._mask_ok = False
        done: npt.NDArray[np.int64] = self._run(
            K.batch_play_bench,
            self.states,
            self.rngs,
            turns,
            self.variant.num_colors,
            self.max_turns or 0,
        )
        return int(done.sum())

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"<BatchGames {self.n} x {self.variant.name}, {int(self.done.sum())} done>"
