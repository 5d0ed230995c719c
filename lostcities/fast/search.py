"""Compiled flat Monte Carlo over determinizations, for search bots.

:func:`flat_values` scores candidate moves for the player of a
:class:`~lostcities.PlayerView`: it deals the hidden cards (the opponent's unknown hand cards
and the draw pile) at random ``worlds`` times, consistently with the view, and in every world
makes each candidate and plays the round out with the rollout policy of
:mod:`lostcities.bots.rollout`; a candidate's value is the mean of
``tanh((own score - opponent's score) / scale)`` at the end. Every candidate is played in
the same worlds (common random numbers). The whole loop runs compiled: about two
microseconds per playout, against about a hundred for the same work on the pure-Python core
(``lostcities bench`` measures both).

``rollout="smart"`` plays out with the ``ismcts`` bot's smart policy instead
(:mod:`lostcities.fast.smart`, a compiled port of
:func:`lostcities.bots.ismcts.smart_playout`). Given a :class:`random.Random` ``rng``, the
worlds are dealt exactly as the ``ismcts`` bot deals them with that generator (its Mersenne
Twister replayed compiled, the generator advanced as if Python had drawn): with the same
candidates, generator state and number of worlds, the totals are bit-for-bit those of
``ismcts``'s flat mode on the pure-Python core, so it chooses the same move.

>>> from lostcities import Round
>>> r = Round.deal(seed=4)
>>> view = r.view(0)
>>> moves = list(view.legal_moves())[:3]
>>> values = flat_values(view, moves, worlds=50, seed=1)
>>> len(values), all(-1 <= v <= 1 for v in values)
(3, True)
>>> values == flat_values(view, moves, worlds=50, seed=1)
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from lostcities.cards import Card
from lostcities.errors import IllegalMoveError
from lostcities.fast import kernels as K
from lostcities.fast.rng import MersenneState, xorshift_state
from lostcities.fast.smart import flat_hands_kernel, flat_kernel, flat_smart_kernel
from lostcities.fast.state import state_from_round
from lostcities.rules import Move, PlayerView
from lostcities.scoring import MARGIN_SCALE

__all__ = ["FlatSearch", "flat_values"]


class FlatSearch:
    """The prepared position of :func:`flat_values`, for calling it in chunks (e.g. until a
    deadline) without preparing again.

    :raises IllegalMoveError: if a candidate is not legal for the viewer now (also when it
        is not the viewer's turn).
    :raises ValueError: for no candidates, a ``scale`` that is not positive or an unknown
        ``rollout``.
    :raises TypeError: for an ``rng`` that is not a plain :class:`random.Random`.

    ``scale``: points of margin counted as a reward of ``tanh(1)`` (default
    :data:`lostcities.scoring.MARGIN_SCALE`, 15, the ``ismcts`` bot's; it was 30 here before
    the two were unified). ``rollout``: ``"cheap"`` (the policy of
    :mod:`lostcities.bots.rollout`) or ``"smart"``
    (that of :func:`lostcities.bots.ismcts.smart_playout`); the learned judge
    (``"learned"``) and the jittered ``smart`` (``"jitter"``) of issue 24 were removed in
    0.4.0: measured, neither beat ``smart`` (``docs/performance.md``). ``rng``: deal the
    worlds as the ``ismcts`` bot does with this generator, which advances as if Python had
    drawn them (without it, ``"smart"`` draws from ``random.Random(seed)`` and ``"cheap"``
    from a compiled xorshift generator seeded with ``seed``).
    ``hands``: the opponent's hidden cards (besides those it is known to hold) of each
    world, cycled in order, the rest of the unseen cards shuffled into the draw pile (for
    worlds weighted by inference about the opponent's hand; needs ``rng``).
    ``reward``: the reward of a world's final margin instead of ``tanh(margin / scale)``
    (a match-aware bot's chance to win the match,
    :func:`lostcities.bots.matchplay.match_utility`); the same worlds are played, one
    kernel call each so that every world's margins are seen.
    """

    def __init__(
        self,
        view: PlayerView,
        candidates: Sequence[Move],
        *,
        scale: float = MARGIN_SCALE,
        seed: int | None = None,
        rollout: str = "cheap",
        rng: random.Random | None = None,
        hands: Sequence[Sequence[Card]] | None = None,
        reward: Callable[[int], float] | None = None,
    ) -> None:
        if rollout not in ("cheap", "smart"):
            why = ""
            if rollout in ("learned", "jitter"):  # issue 24's, measured no better than smart
                why = f" ({rollout} was removed in 0.4.0: it was no stronger than smart)"
            raise ValueError(f"flat search: rollout must be cheap or smart, not {rollout!r}{why}")
        if not candidates:
            raise ValueError("flat search: no candidate moves")
        if not scale > 0:
            raise ValueError(f"flat search: scale must be positive, not {scale!r}")
        if view.over or view.to_move != view.player:
            m = candidates[0]
            raise IllegalMoveError(
                f"illegal move: {str(m)!r} (not legal for player {view.player} now)"
            )
        self.view = view
        self.candidates = list(candidates)
        self.scale = float(scale)
        self.me = view.player
        self.opp = view.player ^ 1
        # the world sampler of the view, as the bot's: the kernels deal its unseen cards
        # (in its order, shuffled as WorldSampler.sample shuffles them) into the template,
        # the world with the unseen cards left in that order
        sampler = view.sampler()
        self.template: npt.NDArray[np.int32] = state_from_round(sampler.deal(sampler.unseen))
        """The array state of the world the kernels deal the hidden cards into."""
        self.first = len(sampler.known)
        """The opponent's first hand slot dealt (the slots before hold its known cards)."""
        self._unseen_py = np.array([c.index for c in sampler.unseen], np.int64)
        self.unseen = self._unseen_py.copy()  # shuffled in place by the xorshift kernel
        self.actions = np.array([m.index for m in self.candidates], np.int64)
        for m, a in zip(self.candidates, self.actions.tolist(), strict=True):
            if not K.is_legal(self.template, a):  # the viewer's own hand, piles, tops
                raise IllegalMoveError(
                    f"illegal move: {str(m)!r} (not legal for player {view.player} now)"
                )
        self.rollout = rollout
        # the kernels that play worlds dealt by the Mersenne Twister after every candidate
        # (one world loop for both policies) and their rollout argument: smart or cheap
        self._world_kernel: Callable[..., None] = flat_smart_kernel
        self._hands_kernel: Callable[..., None] = flat_hands_kernel
        self._policy: tuple[object, ...] = (rollout == "smart",)
        if rng is None and rollout == "smart":
            rng = random.Random(seed)
        if rng is None:  # the compiled xorshift generator
            self.rng = xorshift_state(seed)
        else:
            self.rng = np.zeros(2, np.uint64)
        self._py_rng = rng
        self._mt = MersenneState(rng) if rng is not None else None
        self.hands: npt.NDArray[np.int64] | None = None
        """The opponent's hidden cards of each world, cycled (``hands=``), or ``None``."""
        self._rests = np.zeros((0, 0), np.int64)
        if hands is not None:
            if self._mt is None:
                raise ValueError("flat search: given hands need a Mersenne Twister rng (rng=)")
            self.hands, self._rests = _hands_and_rests(sampler.unseen, sampler.hidden, hands)
        self.worlds = 0
        """Worlds played so far."""
        self.value_sums = np.zeros(len(self.candidates), np.float64)
        """Per candidate: the sum of its rewards so far."""
        self.margin_sums = np.zeros(len(self.candidates), np.int64)
        """Per candidate: the sum of its final score margins so far."""
        self.reward = reward
        """The reward of a final margin (``reward=``), or ``None`` for ``tanh(margin / scale)``."""

    def run(self, worlds: int) -> None:
        """Play ``worlds`` more worlds (each candidate once in each)."""
        if worlds <= 0:
            return
        if self.reward is not None:
            self._run_rewarded(worlds, self.reward)
            return
        mt = self._mt
        if mt is not None:
            assert self._py_rng is not None
            self._mt_worlds(worlds, self.worlds, self.value_sums, self.margin_sums)
            mt.store(self._py_rng)
            self.worlds += worlds
            return
        v, m = self._xorshift_worlds(worlds)
        self.value_sums += v
        self.margin_sums += m
        self.worlds += worlds

    def margins(self, worlds: int) -> npt.NDArray[np.int64]:
        """Play ``worlds`` more worlds as :meth:`run` does (the same worlds, margins and
        generator state; the same :attr:`value_sums` bit for bit with a Mersenne Twister
        ``rng``, up to rounding with the xorshift one; with ``reward`` they are left to the
        caller) and return each world's final margins: row ``w``, column ``j`` is candidate ``j``'s
        in world ``w``. Each world is one kernel call."""
        k = len(self.candidates)
        block = np.zeros((max(worlds, 0), k), np.int64)
        if worlds <= 0:
            return block
        # the kernels' tanh rewards go to value_sums as run() adds them, unless a reward is given
        totals = np.zeros(k, np.float64) if self.reward is not None else self.value_sums
        mt = self._mt
        if mt is not None:
            assert self._py_rng is not None
            for w in range(worlds):
                self._mt_worlds(1, self.worlds + w, totals, block[w])
            mt.store(self._py_rng)
        else:
            for w in range(worlds):
                v, m = self._xorshift_worlds(1)
                block[w] = m
                if self.reward is None:
                    self.value_sums += v
        self.margin_sums += block.sum(axis=0)
        self.worlds += worlds
        return block

    def _mt_worlds(
        self,
        worlds: int,
        start: int,
        totals: npt.NDArray[np.float64],
        margins: npt.NDArray[np.int64],
    ) -> None:
        """``worlds`` worlds dealt with the Mersenne Twister (its state advanced, not yet
        stored), the first being world number ``start`` (given hands cycle from there); the
        kernel adds the rewards to ``totals`` and the margins to ``margins``."""
        mt = self._mt
        assert mt is not None
        deal: tuple[object, ...] = (self._unseen_py,)  # the unseen cards, shuffled
        kernel = self._world_kernel
        if self.hands is not None:  # the given hands, cycled, and the rest shuffled
            deal = (self.hands, self._rests, start % len(self.hands))
            kernel = self._hands_kernel
        kernel(
            self.template,
            self.opp,
            self.first,
            *deal,
            self.actions,
            worlds,
            mt.mt,
            mt.pos,
            self.me,
            self.scale,
            *self._policy,
            totals,
            margins,
        )

    def _xorshift_worlds(
        self, worlds: int
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """``worlds`` worlds dealt with the compiled generator: the sums of their rewards
        and margins."""
        v, m = flat_kernel(
            self.template,
            self.opp,
            self.first,
            self.unseen,
            self.actions,
            worlds,
            self.rng,
            self.me,
            self.scale,
        )
        return v, m

    def _run_rewarded(self, worlds: int, reward: Callable[[int], float]) -> None:
        """:meth:`run` with the reward of each world's margin given (``reward=``)."""
        block = self.margins(worlds)
        values, where = np.unique(block, return_inverse=True)
        rewards = np.array([reward(int(x)) for x in values], np.float64)
        for row in rewards[where.reshape(block.shape)]:  # world after world, as in Python
            self.value_sums += row

    def run_until(self, deadline: float, max_worlds: int | None = None) -> None:
        """Play worlds until ``time.perf_counter()`` reaches ``deadline`` (checked between
        chunks of a few milliseconds; at least one world) or ``max_worlds`` more were played,
        as ``ismcts``'s flat loop stops."""
        left = math.inf if max_worlds is None else max_worlds
        chunk = 1
        done = 0
        while done < left:
            n = int(min(chunk, left - done))
            t0 = time.perf_counter()
            self.run(n)
            done += n
            now = time.perf_counter()
            if now >= deadline:
                break
            per = max(now - t0, 1e-7) / n
            # chunks of about 5 ms, shorter near the deadline
            chunk = max(1, int(min(0.005, deadline - now) / per))

    def values(self) -> list[float]:
        """Each candidate's mean reward so far (0 before any world)."""
        if self.worlds == 0:
            return [0.0] * len(self.candidates)
        return [float(x) / self.worlds for x in self.value_sums]


def _hands_and_rests(
    unseen: Sequence[Card], hidden: int, hands: Sequence[Sequence[Card]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The given hidden hands as card numbers, and for each the other unseen cards."""
    if not hands:
        raise ValueError("flat search: no hands given")
    hs = np.empty((len(hands), hidden), np.int64)
    rests = np.empty((len(hands), len(unseen) - hidden), np.int64)
    for i, hand in enumerate(hands):
        rest = list(unseen)
        if len(hand) != hidden:
            raise ValueError(f"flat search: a given hand has {len(hand)} cards, not {hidden}")
        for j, c in enumerate(hand):
            try:
                rest.remove(c)
            except ValueError:
                raise ValueError(f"flat search: {c} of a given hand is not unseen") from None
            hs[i, j] = c.index
        rests[i] = [c.index for c in rest]
    return hs, rests


def flat_values(
    view: PlayerView,
    candidates: Sequence[Move],
    worlds: int,
    *,
    seed: int | None = None,
    scale: float = MARGIN_SCALE,
    rollout: str = "cheap",
    rng: random.Random | None = None,
) -> list[float]:
    """The mean reward of each candidate over ``worlds`` sampled deals (module docstring;
    ``rollout`` and ``rng`` as for :class:`FlatSearch`).

    :raises IllegalMoveError: if a candidate is not legal for the viewer now.
    :raises ValueError: for no candidates, a bad ``scale`` or ``rollout``.
    """
    search = FlatSearch(view, candidates, scale=scale, seed=seed, rollout=rollout, rng=rng)
    search.run(worlds)
    return search.values()
