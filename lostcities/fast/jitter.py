"""Randomised ``smart`` rollouts, compiled: the *jittered* judge a flat search can play out with.

A deterministic rollout policy makes the same systematic mistakes in every sampled world;
Monte Carlo search practice (simulation balancing) finds that a rollout policy with some
diversity often values positions better than one fixed strong policy. This module plays
the ``smart`` policy (:mod:`lostcities.fast.smart`) with two kinds of noise, both optional:

- **jittered thresholds** (``level``): per world, each player's thresholds
  (:data:`lostcities.fast.smart.SMART_THRESHOLDS`: the gap limit 3, the wager-play sum 27,
  the opening offset 18 and sum 22, the open-with-wager sum 30, the turn slacks 3, the
  pile-draw window 2) are drawn uniformly from ``value ± level * unit`` (:data:`UNITS`:
  2 points for the sums and the offset, 1 for the rest), never below :data:`LOWEST`;
- **random plausible moves** (``eps``): at each move, with probability ``eps``, the card
  action is replaced by a random one: with even odds (when there is one) a number card
  playable onto one of the mover's started expeditions, else a discard of a random card of
  the hand; the draw is then ``smart``'s for that card action.

Common random numbers: every candidate of a world is played out with the same thresholds
and the same stream of random numbers (the generator is reset to the world's state before
each candidate), so candidates are compared on the same noise as on the same deal.

The random numbers are the compiled xorshift128+ generator (:mod:`lostcities.fast.rng`),
seeded in the flat search from the next four words of the Mersenne Twister that deals the
worlds, read from a copy of it and hashed (splitmix64), so the worlds themselves are
``smart``'s, whatever the noise: a search is reproducible for a given seed and budget
(worlds played in one call), and settings compared from the same seed play the same deals.
With ``level=0`` and ``eps=0`` nothing is drawn and the rollouts are ``smart``'s: the same
totals, bit for bit.

>>> from lostcities import Round
>>> from lostcities.fast.state import state_from_round
>>> s = state_from_round(Round.deal(seed=3))
>>> jt = Jitter(level=2, eps=0.1)
>>> a = jt.action(s, seed=1)
>>> bool(K.is_legal(s, a)), a == jt.action(s, seed=1)
(True, True)
>>> jt.playout_scores(s.copy(), seed=5) == jt.playout_scores(s.copy(), seed=5)
True
>>> from lostcities.fast.smart import smart_playout_scores
>>> Jitter(0, 0.0).playout_scores(s.copy()) == smart_playout_scores(s.copy())
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from lostcities.fast import bits, rng
from lostcities.fast import kernels as K
from lostcities.fast import smart as S
from lostcities.fast.bits import COL_OF, RANK_OF
from lostcities.fast.kernels import CNT, HAND, OVER, TOP, TURN, apply, playable, score
from lostcities.fast.rng import xorshift_below, xorshift_next, xorshift_state
from lostcities.fast.smart import (
    NUM_THRESHOLDS,
    SMART_THRESHOLDS,
    mt_next32,
    smart_card_action,
    smart_draw,
)

__all__ = [
    "LOWEST",
    "MAX_LEVEL",
    "UNITS",
    "InvalidJitterError",
    "Jitter",
    "flat_jitter_hands_kernel",
    "flat_jitter_kernel",
    "jitter_action",
    "jitter_playout",
    "random_card_action",
]

UNITS = (1, 2, 1, 2, 2, 2, 1, 1)
"""Per threshold (the ``TH_*`` indexes of :mod:`lostcities.fast.smart`), the spread of one
jitter level: a threshold is drawn from ``value ± level * unit``."""
LOWEST = (0, 0, 0, 0, 0, 0, 0, 0)
"""Per threshold, the least value a jittered threshold takes."""
MAX_LEVEL = 5
"""The largest jitter level (level 5 moves the opening sum 22 anywhere in 12 .. 32)."""

_BASE = np.array(SMART_THRESHOLDS, np.int64)
_UNITS = np.array(UNITS, np.int64)
_LOWEST = np.array(LOWEST, np.int64)
_S11 = np.uint64(11)
_PLY_CAP = 400  # as smart's playout: never reached (a round has < 150 turns)


class InvalidJitterError(ValueError):
    """A jitter level or move-noise probability out of range."""


@njit(cache=True, inline="always")
def _uniform(g: np.ndarray) -> float:
    """A uniform float in [0, 1) from the xorshift128+ state ``g``."""
    return float(xorshift_next(g) >> _S11) / 9007199254740992.0


@njit(cache=True)
def random_card_action(s: np.ndarray, g: np.ndarray) -> int:
    """A random plausible card action (``60 * discard + card kind``) for the player to move
    in ``s``: with even odds, when there is one, a number card of the hand playable onto one
    of the mover's started expeditions (uniform over the hand's slots that hold one), else a
    discard of a uniformly random card of the hand (random numbers from ``g``)."""
    p = s[TURN]
    hp = HAND + 8 * p
    tp = TOP + 6 * p
    cp = CNT + 6 * p
    plays = 0
    for i in range(8):
        kind = s[hp + i]
        c = COL_OF[kind]
        r = RANK_OF[kind]
        if r > 0 and s[cp + c] > 0 and playable(r, s[tp + c]):
            plays += 1
    if plays > 0 and xorshift_below(g, 2) == 0:
        k = xorshift_below(g, plays)
        for i in range(8):
            kind = s[hp + i]
            c = COL_OF[kind]
            r = RANK_OF[kind]
            if r > 0 and s[cp + c] > 0 and playable(r, s[tp + c]):
                if k == 0:
                    return int(kind)
                k -= 1
    return 60 + int(s[hp + xorshift_below(g, 8)])


@njit(cache=True, inline="always")
def _move(s: np.ndarray, sc: np.ndarray, th: np.ndarray, g: np.ndarray, eps: float) -> int:
    """The jittered policy's move (a flat action) for the player to move, with its
    thresholds ``th`` (one row) and noise ``eps`` drawn from ``g``."""
    ca = smart_card_action(s, sc, th)
    if eps > 0 and _uniform(g) < eps:
        ca = random_card_action(s, g)
    return ca * 7 + smart_draw(s, sc, th, ca)


@njit(cache=True, inline="always")
def _draw_thresholds(th: np.ndarray, spread: np.ndarray, g: np.ndarray) -> None:
    """Both players' thresholds (``th``, 2 x :data:`NUM_THRESHOLDS`): smart's, each moved
    uniformly within ``± spread`` (nothing drawn where the spread is 0)."""
    for p in range(2):
        for k in range(NUM_THRESHOLDS):
            v = _BASE[k]
            w = spread[k]
            if w > 0:
                v += xorshift_below(g, 2 * w + 1) - w
            th[p, k] = max(v, _LOWEST[k])


@njit(cache=True)
def _playout(s: np.ndarray, sc: np.ndarray, th: np.ndarray, g: np.ndarray, eps: float) -> int:
    """Play ``s`` to its end (in place), each player with its row of ``th``; the moves."""
    plies = 0
    while s[OVER] == 0 and plies < _PLY_CAP:
        apply(s, _move(s, sc, th[s[TURN]], g, eps))
        plies += 1
    return plies


@njit(cache=True)
def jitter_action(s: np.ndarray, spread: np.ndarray, g: np.ndarray, eps: float) -> int:
    """The jittered policy's move for the player to move in ``s`` (thresholds drawn with
    ``spread`` first, then the move; random numbers from the xorshift state ``g``)."""
    sc = np.empty(30, np.int64)
    th = np.empty((2, NUM_THRESHOLDS), np.int64)
    _draw_thresholds(th, spread, g)
    return _move(s, sc, th[s[TURN]], g, eps)


@njit(cache=True)
def jitter_playout(s: np.ndarray, spread: np.ndarray, g: np.ndarray, eps: float) -> int:
    """Play ``s`` to its end with the jittered policy on both sides (in place; thresholds
    drawn once, with ``spread``, at the start); returns the moves made."""
    sc = np.empty(30, np.int64)
    th = np.empty((2, NUM_THRESHOLDS), np.int64)
    _draw_thresholds(th, spread, g)
    return _playout(s, sc, th, g, eps)


# -- flat Monte Carlo with jittered rollouts (FlatSearch's rollout="jitter") -----------------
@njit(cache=True)
def _play_candidates(
    world: np.ndarray,
    t: np.ndarray,
    ctx: tuple[Any, ...],
    actions: np.ndarray,
    me: int,
    scale: float,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """Each candidate action in ``world``, played out jittered: the world's thresholds and
    move-noise stream drawn once, the same for every candidate (common random numbers)."""
    sc, th, spread, eps, g, start, cur = ctx
    noisy = eps > 0
    _draw_thresholds(th, spread, g)
    if noisy:  # the world's stream of move noise, replayed for each candidate
        start[0] = xorshift_next(g) | np.uint64(1)
        start[1] = xorshift_next(g)
    for j in range(actions.shape[0]):
        t[:] = world
        apply(t, actions[j])
        if noisy:
            cur[0] = start[0]
            cur[1] = start[1]
        _playout(t, sc, th, cur, eps)
        m = score(t, me) - score(t, 1 - me)
        margins[j] += m
        totals[j] += math.tanh(m / scale)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _splitmix(x: Any) -> Any:
    """splitmix64's output function of ``x`` (a uint64)."""
    x = x + _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def _seed_from(mt: np.ndarray, pos: np.ndarray, g: np.ndarray) -> None:
    """Seed ``g`` from the next four words of the Mersenne Twister (``mt``, ``pos``), read
    from a copy (the worlds' generator is not advanced), hashed."""
    m = mt.copy()
    q = pos.copy()
    a = np.uint64(mt_next32(m, q)) << np.uint64(32) | np.uint64(mt_next32(m, q))
    b = np.uint64(mt_next32(m, q)) << np.uint64(32) | np.uint64(mt_next32(m, q))
    g[0] = _splitmix(a) | np.uint64(1)
    g[1] = _splitmix(b ^ _GOLDEN)


@njit(cache=True, inline="always")
def _context(spread: np.ndarray, eps: float, mt: np.ndarray, pos: np.ndarray) -> Any:
    """The jittered playouts' scratch, thresholds and generators (seeded from the Mersenne
    Twister's next words, without advancing it, only when there is noise to draw)."""
    g = np.zeros(2, np.uint64)
    if eps > 0 or spread.any():
        _seed_from(mt, pos, g)
    th = np.empty((2, NUM_THRESHOLDS), np.int64)
    return (np.empty(30, np.int64), th, spread, eps, g, np.zeros(2, np.uint64), g.copy())


@njit(cache=True)
def flat_jitter_kernel(
    template: np.ndarray,
    opp: int,
    first: int,
    unseen: np.ndarray,
    actions: np.ndarray,
    worlds: int,
    mt: np.ndarray,
    pos: np.ndarray,
    me: int,
    scale: float,
    spread: np.ndarray,
    eps: float,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """:func:`lostcities.fast.smart.flat_smart_kernel` with jittered playouts (``spread``:
    each threshold's ``level * unit``): the same worlds from the same generator state, the
    noise seeded from the generator's next words (module docs)."""
    ctx = _context(spread, eps, mt, pos)
    deal = (unseen, np.empty_like(unseen))
    S.flat_worlds(
        template, opp, first, S.deal_unseen, deal, actions, worlds, mt, pos, me, scale,
        _play_candidates, ctx, totals, margins,
    )  # fmt: skip


@njit(cache=True)
def flat_jitter_hands_kernel(
    template: np.ndarray,
    opp: int,
    first: int,
    hands: np.ndarray,
    rests: np.ndarray,
    start: int,
    actions: np.ndarray,
    worlds: int,
    mt: np.ndarray,
    pos: np.ndarray,
    me: int,
    scale: float,
    spread: np.ndarray,
    eps: float,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """:func:`lostcities.fast.smart.flat_hands_kernel` with jittered playouts."""
    ctx = _context(spread, eps, mt, pos)
    deal = (hands, rests, start, np.empty(rests.shape[1], rests.dtype))
    S.flat_worlds(
        template, opp, first, S.deal_hand, deal, actions, worlds, mt, pos, me, scale,
        _play_candidates, ctx, totals, margins,
    )  # fmt: skip


class Jitter:
    """How much a jittered rollout varies ``smart`` (module docs): threshold ``level`` (a
    whole number, 0 .. :data:`MAX_LEVEL`) and move noise ``eps`` (0 .. 1).

    >>> Jitter(2, 0.05)
    <Jitter level=2 eps=0.05>
    >>> Jitter(2).spread.tolist()
    [2, 4, 2, 4, 4, 4, 2, 2]
    >>> Jitter(-1)
    Traceback (most recent call last):
    ...
    lostcities.fast.jitter.InvalidJitterError: jitter level must be a whole number 0 .. 5, not -1

    :raises InvalidJitterError: for a level or ``eps`` out of range.
    """

    __slots__ = ("eps", "level", "spread")

    def __init__(self, level: int = 1, eps: float = 0.0) -> None:
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
            raise InvalidJitterError(
                f"jitter level must be a whole number 0 .. {MAX_LEVEL}, not {level!r}"
            )
        if not (isinstance(eps, (int, float)) and 0 <= eps <= 1):
            raise InvalidJitterError(f"jitter eps must be a number 0 .. 1, not {eps!r}")
        self.level = level
        """The threshold jitter: each threshold within ``± level * unit`` of smart's."""
        self.eps = float(eps)
        """The chance a move's card action is a random plausible one."""
        self.spread: npt.NDArray[np.int64] = _UNITS * level
        """Per threshold, the spread ``level * unit``."""

    @property
    def noisy(self) -> bool:
        """Whether it draws any random numbers (else it plays exactly ``smart``)."""
        return self.level > 0 or self.eps > 0

    def action(self, s: npt.NDArray[np.int32], seed: int = 0) -> int:
        """The move (a flat action) for the player to move in ``s``, its noise from
        ``seed``."""
        return int(jitter_action(s, self.spread, xorshift_state(seed), self.eps))

    def playout(self, s: npt.NDArray[np.int32], seed: int = 0) -> int:
        """Play ``s`` to its end (in place), the noise from ``seed``; the moves made."""
        return int(jitter_playout(s, self.spread, xorshift_state(seed), self.eps))

    def playout_scores(self, s: npt.NDArray[np.int32], seed: int = 0) -> tuple[int, int]:
        """:meth:`playout`, then both players' final scores."""
        self.playout(s, seed)
        return int(score(s, 0)), int(score(s, 1))

    def __repr__(self) -> str:
        return f"<Jitter level={self.level} eps={self.eps:g}>"


# -- numba's cache and the files this one compiles in --------------------------------------------
K.guard_cache(
    [f for f in list(globals().values()) if hasattr(f, "recompile") and hasattr(f, "py_func")],
    K.source_stamp(K, S, bits, rng),
    "jitter.kernels",
)
