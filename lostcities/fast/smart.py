"""The ``ismcts`` bot's *smart* rollout policy and its flat Monte Carlo search, compiled.

:func:`smart_action` is a numba port of the policy of
:func:`lostcities.bots.ismcts.smart_playout` over the array state of
:mod:`lostcities.fast.kernels` (it reads the hand in the core's slot order, as the Python
policy does, so ties are broken alike); ``tests/fast/test_smart.py`` checks move for move
that both choose the same move and reach the same final scores.

:func:`flat_smart_kernel` is the whole inner loop of ``ismcts``'s flat mode: per sampled
world, deal the hidden cards exactly as the bot's sampler does with ``random.Random.shuffle``
(the Mersenne Twister of CPython's :mod:`random` is replayed here, from and back into the
Python generator's state, so the compiled search consumes the same random numbers and deals
the same worlds), make every candidate move, play it out with the smart policy and add
``tanh(margin / scale)`` to the candidate's total, in the same order as the Python loop: the
same budget gives bit-for-bit the same totals and so the same move.

Numba caches a compiled function keyed on its own file only; at import this module's cached
machine code is dropped (:func:`lostcities.fast.kernels.guard_cache`) when
:mod:`lostcities.fast.kernels` (whose ``apply`` and ``playable`` it compiles in) changed since
the cache was written.

>>> from lostcities import Round
>>> from lostcities.fast.state import state_from_round
>>> s = state_from_round(Round.deal(seed=2))
>>> a, b = smart_playout_scores(s)
>>> bool(s[K.OVER]), (a, b) == smart_playout_scores(state_from_round(Round.deal(seed=2)))
(True, True)
"""

from __future__ import annotations

import math
import os
import random

import numpy as np
from numba import njit

from lostcities.fast import kernels as K
from lostcities.fast.kernels import (
    CNT,
    DECK,
    HAND,
    NCOL,
    NDECK,
    NPILE,
    OVER,
    PILE,
    TOP,
    TURN,
    apply,
    playable,
    score,
)

__all__ = [
    "MersenneState",
    "flat_hands_kernel",
    "flat_smart_kernel",
    "mt_next",
    "mt_randbelow",
    "mt_shuffle",
    "smart_action",
    "smart_playout",
    "smart_playout_scores",
]

_PLY_CAP = 400  # the Python policy's safety net (never reached: a round has < 150 turns)
_COL_OF = np.array([k // 10 for k in range(60)], np.int64)
_RANK_OF = np.array([0 if k % 10 == 0 else k % 10 + 1 for k in range(60)], np.int64)


@njit(cache=True, inline="always")
def _smart_action(s: np.ndarray, sc: np.ndarray) -> int:
    """:func:`smart_action` with a scratch array ``sc`` of 30 int64."""
    p = s[TURN]
    hp = HAND + 8 * p
    tp = TOP + 6 * p
    cp = CNT + 6 * p
    n = s[NCOL]
    turns = (s[NDECK] + 1) >> 1
    # sc[0:6] low, sc[6:12] low kind, sc[12:18] hand sum, sc[18:24] count, sc[24:30] wagers
    for c in range(6):
        sc[c] = 99
        sc[6 + c] = 0
        sc[12 + c] = 0
        sc[18 + c] = 0
        sc[24 + c] = 0
    need = 0
    for i in range(8):
        kind = s[hp + i]
        c = _COL_OF[kind]
        r = _RANK_OF[kind]
        top = s[tp + c]
        if playable(r, top):
            if r > 0:
                sc[12 + c] += r
                sc[18 + c] += 1
                if s[cp + c] > 0:
                    need += 1
                if r < sc[c]:
                    sc[c] = r
                    sc[6 + c] = kind
            else:
                sc[24 + c] += 1
                if s[cp + c] > 0:
                    need += 1
    row = -1  # the card kind to play or discard
    discard = False
    played = -1
    best_gap = 3 if need < turns else 99
    for c in range(n):
        if s[cp + c] > 0:
            if sc[24 + c] > 0 and sc[12 + c] >= 27 and turns > sc[18 + c] + 3:
                row = 10 * c
                played = c
                break
            lc = sc[c]
            gap = lc - s[tp + c]
            if lc < 99 and gap <= best_gap:
                best_gap = gap
                row = sc[6 + c]
                played = c
    if row < 0:
        best_v = 0
        for c in range(n):
            hc = sc[18 + c]
            if hc > 0 and s[cp + c] == 0 and turns > hc:
                hs = sc[12 + c]
                v = hs - 18 - sc[c]
                if v > best_v and hs >= 22:
                    best_v = v
                    played = c
                    if sc[24 + c] > 0 and hs >= 30 and turns > hc + sc[24 + c] + 3:
                        row = 10 * c
                    else:
                        row = sc[6 + c]
    disc_color = -1
    if row < 0:
        op = TOP + 6 * (p ^ 1)
        oc = CNT + 6 * (p ^ 1)
        dead = -1
        safe = -1
        safe_x = 297  # 3 x the Python policy's 99.0 (it compares x / 3)
        lowest = -1
        lowest_r = 99
        for i in range(8):
            kind = s[hp + i]
            c = _COL_OF[kind]
            r = _RANK_OF[kind]
            if r < lowest_r:
                lowest = kind
                lowest_r = r
            otop = s[op + c]
            if s[oc + c] > 0 and playable(r, otop):
                continue
            top = s[tp + c]
            if not playable(r, top):
                dead = kind
                break
            x = r + 2 * sc[12 + c] + (30 if s[cp + c] > 0 else 0)
            if x < safe_x:
                safe_x = x
                safe = kind
        row = dead if dead >= 0 else safe if safe >= 0 else lowest
        discard = True
        disc_color = _COL_OF[row]
    d = 0
    for c in range(n):
        np_ = s[NPILE + c]
        if np_ > 0 and s[cp + c] > 0 and c != disc_color and c != played:
            r = _RANK_OF[s[PILE + 12 * c + np_ - 1]]
            top = s[tp + c]
            if r > 0 and playable(r, top) and r - top <= 2 and r < sc[c]:
                d = c + 1
                break
    return ((60 if discard else 0) + row) * 7 + d


@njit(cache=True)
def smart_action(s: np.ndarray) -> int:
    """The smart rollout policy's move (a flat action) for the player to move in ``s``
    (a running round): the policy of :func:`lostcities.bots.ismcts.smart_playout`."""
    sc = np.empty(30, np.int64)
    return _smart_action(s, sc)


@njit(cache=True)
def smart_action_into(s: np.ndarray, scratch: np.ndarray) -> int:
    """:func:`smart_action` with its scratch passed in (an int64 array of at least 30),
    for kernels that allocate nothing (compiled without numba's reference counting)."""
    return _smart_action(s, scratch)


@njit(cache=True)
def _playout(s: np.ndarray, sc: np.ndarray) -> None:
    plies = 0
    while s[OVER] == 0:
        plies += 1
        if plies > _PLY_CAP:
            break
        apply(s, _smart_action(s, sc))


@njit(cache=True)
def smart_playout(s: np.ndarray) -> None:
    """Play ``s`` to its end with the smart policy (in place)."""
    sc = np.empty(30, np.int64)
    _playout(s, sc)


@njit(cache=True)
def smart_playout_scores(s: np.ndarray) -> tuple[int, int]:
    """:func:`smart_playout`, then both players' final scores."""
    smart_playout(s)
    return score(s, 0), score(s, 1)


# -- CPython's random: MT19937 and Random.shuffle, replayed ---------------------------------
_MASK32 = 0xFFFFFFFF


@njit(cache=True)
def _mt_u32(mt: np.ndarray, pos: np.ndarray) -> int:
    """The next 32-bit output of the Mersenne Twister ``mt`` (624 words), ``pos[0]`` the
    index of the next word (624: twist first), as CPython's ``genrand_uint32``."""
    i = pos[0]
    if i >= 624:
        for kk in range(624):
            y = (mt[kk] & 0x80000000) | (mt[(kk + 1) % 624] & 0x7FFFFFFF)
            v = mt[(kk + 397) % 624] ^ (y >> 1)
            if y & 1:
                v ^= 0x9908B0DF
            mt[kk] = v
        i = 0
    y = mt[i]
    pos[0] = i + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return int(y & _MASK32)


@njit(cache=True)
def _randbelow(mt: np.ndarray, pos: np.ndarray, n: int) -> int:
    """``Random._randbelow_with_getrandbits(n)`` for ``0 < n < 2**32``."""
    k = 0
    m = n
    while m:
        k += 1
        m >>= 1
    r = _mt_u32(mt, pos) >> (32 - k)
    while r >= n:
        r = _mt_u32(mt, pos) >> (32 - k)
    return r


@njit(cache=True)
def mt_shuffle(x: np.ndarray, mt: np.ndarray, pos: np.ndarray) -> None:
    """``random.Random.shuffle(x)`` with the generator state ``mt``, ``pos`` (in place)."""
    for i in range(x.shape[0] - 1, 0, -1):
        j = _randbelow(mt, pos, i + 1)
        t = x[i]
        x[i] = x[j]
        x[j] = t


mt_next = _mt_u32
"""The next 32-bit output of a Mersenne Twister state (``mt``, ``pos``): ``getrandbits(32)``."""
mt_randbelow = _randbelow
"""``random.Random.randrange(n)`` for ``0 < n < 2**32`` on a Mersenne Twister state (``mt``,
``pos``): what the ``random`` bot draws (:mod:`lostcities.envs.vector` replays it)."""


class MersenneState:
    """A :class:`random.Random`'s state as arrays for the kernels, and back.

    >>> rng = random.Random(5)
    >>> st = MersenneState(rng)
    >>> x = np.arange(10, dtype=np.int64)
    >>> mt_shuffle(x, st.mt, st.pos)
    >>> st.store(rng)
    >>> y = list(range(10)); random.Random(5).shuffle(y); x.tolist() == y
    True
    >>> rng.random() == (lambda r: (r.shuffle(list(range(10))), r.random())[1])(random.Random(5))
    True

    :raises TypeError: for a generator that is not a plain :class:`random.Random` (a
        subclass may draw differently).
    """

    __slots__ = ("gauss", "mt", "pos")

    def __init__(self, rng: random.Random) -> None:
        if type(rng) is not random.Random:
            raise TypeError(f"need a random.Random, not {type(rng).__name__}")
        _version, words, gauss = rng.getstate()
        self.mt = np.array(words[:624], np.int64)
        self.pos = np.array([words[624]], np.int64)
        self.gauss = gauss

    def store(self, rng: random.Random) -> None:
        """Set ``rng`` to this state."""
        rng.setstate((3, (*self.mt.tolist(), int(self.pos[0])), self.gauss))


# -- flat Monte Carlo with smart rollouts ----------------------------------------------------
@njit(cache=True)
def flat_smart_kernel(
    template: np.ndarray, opp: int, first: int, unseen: np.ndarray, actions: np.ndarray,
    worlds: int, mt: np.ndarray, pos: np.ndarray, me: int, scale: float, smart: bool,
    totals: np.ndarray, margins: np.ndarray,
) -> None:
    """``worlds`` iterations of ``ismcts``'s flat mode: per world, ``cards`` = a copy of
    ``unseen`` shuffled with the Mersenne Twister state (``mt``, ``pos``, advanced), the
    opponent's hand slots ``first..7`` get ``cards[:h]`` and the draw pile the rest (next
    card ``cards[h]``), then for each candidate action ``j``: make it, play out (``smart``:
    the smart policy, else that of :mod:`lostcities.bots.rollout`), ``totals[j] +=
    tanh(margin / scale)``, ``margins[j] += margin`` (margin: ``me``'s score minus the
    opponent's)."""
    cards = np.empty_like(unseen)
    world = np.empty_like(template)
    t = np.empty_like(template)
    sc = np.empty(30, np.int64)
    h = 8 - first
    nd = unseen.shape[0] - h
    for _ in range(worlds):
        cards[:] = unseen
        mt_shuffle(cards, mt, pos)
        world[:] = template
        for i in range(h):
            world[HAND + 8 * opp + first + i] = cards[i]
        for i in range(nd):
            world[DECK + nd - 1 - i] = cards[h + i]
        world[NDECK] = nd
        _play_candidates(world, t, sc, actions, me, scale, smart, totals, margins)


@njit(cache=True)
def _play_candidates(
    world: np.ndarray, t: np.ndarray, sc: np.ndarray, actions: np.ndarray, me: int,
    scale: float, smart: bool, totals: np.ndarray, margins: np.ndarray,
) -> None:
    """Each candidate action in ``world``, played out (``t``, ``sc``: scratch)."""
    for j in range(actions.shape[0]):
        t[:] = world
        apply(t, actions[j])
        if smart:
            _playout(t, sc)
        else:
            K.playout(t)
        m = score(t, me) - score(t, 1 - me)
        margins[j] += m
        totals[j] += math.tanh(m / scale)


@njit(cache=True)
def flat_hands_kernel(
    template: np.ndarray, opp: int, first: int, hands: np.ndarray, rests: np.ndarray,
    start: int, actions: np.ndarray, worlds: int, mt: np.ndarray, pos: np.ndarray, me: int,
    scale: float, smart: bool, totals: np.ndarray, margins: np.ndarray,
) -> None:
    """:func:`flat_smart_kernel` with the opponent's hidden cards given: world ``w`` deals
    ``hands[(start + w) % len(hands)]`` into the opponent's slots ``first..7`` and that
    row of ``rests`` (the other unseen cards), shuffled, into the draw pile."""
    n = hands.shape[0]
    h = hands.shape[1]
    nd = rests.shape[1]
    cards = np.empty(nd, rests.dtype)
    world = np.empty_like(template)
    t = np.empty_like(template)
    sc = np.empty(30, np.int64)
    for w in range(worlds):
        i = (start + w) % n
        cards[:] = rests[i]
        mt_shuffle(cards, mt, pos)
        world[:] = template
        for s in range(h):
            world[HAND + 8 * opp + first + s] = hands[i, s]
        for s in range(nd):
            world[DECK + nd - 1 - s] = cards[s]
        world[NDECK] = nd
        _play_candidates(world, t, sc, actions, me, scale, smart, totals, margins)


# -- numba's cache and kernels.py --------------------------------------------------------------
def _kernels_stamp() -> str:
    """What this module's compiled code took from :mod:`lostcities.fast.kernels`: its file
    (size and mtime) and what that took from the scoring module."""
    try:
        stat = os.stat(K.__file__)
    except OSError:  # pragma: no cover - no source file
        return K.SCORING_STAMP
    return f"{stat.st_size}:{stat.st_mtime_ns}; {K.SCORING_STAMP}"


K.guard_cache(
    (
        _smart_action, smart_action, _playout, smart_playout, smart_playout_scores, _mt_u32,
        _randbelow, mt_shuffle, flat_smart_kernel, _play_candidates, flat_hands_kernel,
    ),
    _kernels_stamp(),
    "smart.kernels",
)
