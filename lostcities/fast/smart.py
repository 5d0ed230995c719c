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
from typing import Any

import numpy as np
import numpy.typing as npt
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
    WAG,
    apply,
    playable,
    score,
)

__all__ = [
    "MersenneState",
    "flat_hands_kernel",
    "flat_smart_kernel",
    "mt_next",
    "mt_next32",
    "mt_randbelow",
    "mt_seed",
    "mt_seed2",
    "mt_shuffle",
    "mt_untwisted",
    "smart_action",
    "smart_playout",
    "smart_playout_scores",
]

_PLY_CAP = 400  # the Python policy's safety net (never reached: a round has < 150 turns)
_COL_OF = np.array([k // 10 for k in range(60)], np.int64)
_RANK_OF = np.array([0 if k % 10 == 0 else k % 10 + 1 for k in range(60)], np.int64)


@njit(cache=True, inline="always")
def _lowest_kept(s: np.ndarray, p: int, c: int, turns: int) -> tuple[int, int]:
    """In the end game: the lowest number (rank, kind) of colour ``c`` in the hand of ``p``
    among the ``turns`` playable numbers on started expeditions worth most (rank times the
    expedition's multiplier, the lower kind first on a tie); ``(99, 0)`` if none."""
    hp = HAND + 8 * p
    tp = TOP + 6 * p
    cp = CNT + 6 * p
    wp = WAG + 6 * p
    lk = 99
    ik = 0
    for i in range(8):
        kind = s[hp + i]
        r = _RANK_OF[kind]
        if _COL_OF[kind] != c or r == 0 or not playable(r, s[tp + c]):
            continue
        v = r * (1 + s[wp + c])
        better = 0
        for j in range(8):
            k2 = s[hp + j]
            c2 = _COL_OF[k2]
            r2 = _RANK_OF[k2]
            if r2 == 0 or s[cp + c2] == 0 or not playable(r2, s[tp + c2]):
                continue
            v2 = r2 * (1 + s[wp + c2])
            if v2 > v or (v2 == v and k2 < kind):
                better += 1
        if better < turns and r < lk:
            lk = r
            ik = kind
    return lk, ik


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
    panic = need >= turns
    best_gap = 99 if panic else 3
    best_w = -1
    for c in range(n):
        if s[cp + c] > 0:
            if sc[24 + c] > 0 and sc[12 + c] >= 27 and turns > sc[18 + c] + 3:
                row = 10 * c
                played = c
                break
            lc = sc[c]
            gap = lc - max(s[tp + c], 1)  # from 1 on an expedition of wagers only
            if panic:  # the most wagers first, then the smallest gap
                wc = s[WAG + 6 * p + c]
                lk, ik = _lowest_kept(s, p, c, turns)
                if lk < 99:
                    gap = lk - max(s[tp + c], 1)
                    if wc > best_w or (wc == best_w and gap <= best_gap):
                        best_w = wc
                        best_gap = gap
                        row = ik
                        played = c
            elif lc < 99 and gap <= best_gap:
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
# The one replay of CPython's Mersenne Twister for every kernel (this module's searches, the
# vector env's deals and bots): ``mt`` any integer array of its 624 words, ``pos`` two
# entries, the next word and how many words of the block are twisted.
_NO_RC: dict[str, Any] = {"_nrt": False}  # no reference counting of arrays (vector.WORK)
_M32 = 0xFFFFFFFF


def _init_genrand(seed: int) -> npt.NDArray[np.int64]:
    mt = [seed]
    for i in range(1, 624):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & _M32)
    return np.array(mt, np.int64)


_MT_INIT = _init_genrand(19650218)  # init_by_array's start, the same for every seed
_BITLEN = np.array([n.bit_length() for n in range(256)], np.int64)


@njit(cache=True, inline="always", **_NO_RC)
def _keys(seed: int) -> tuple[int, int]:
    """What ``init_by_array`` adds at even and odd steps of its first loop (key word + j)."""
    lo = seed & _M32
    hi = (seed >> 32) & _M32
    return lo, (hi + 1 if hi != 0 else lo)


@njit(cache=True, **_NO_RC)
def mt_seed2(
    a: np.ndarray, pa: np.ndarray, sa: int, b: np.ndarray, pb: np.ndarray, sb: int
) -> None:
    """:func:`mt_seed` of two generators at once (their dependency chains interleave)."""
    ea, oa = _keys(sa)
    eb, ob = _keys(sb)
    x = _MT_INIT[0]
    y = x
    for i in range(1, 624):  # the first loop; the previous word is kept in a register
        ka = ea if i & 1 else oa
        kb = eb if i & 1 else ob
        x = ((_MT_INIT[i] ^ ((x ^ (x >> 30)) * 1664525)) + ka) & _M32
        y = ((_MT_INIT[i] ^ ((y ^ (y >> 30)) * 1664525)) + kb) & _M32
        a[i] = x
        b[i] = y
    x = ((a[1] ^ ((x ^ (x >> 30)) * 1664525)) + oa) & _M32  # wrapped: step 624 is odd
    y = ((b[1] ^ ((y ^ (y >> 30)) * 1664525)) + ob) & _M32
    a[1] = x
    b[1] = y
    for i in range(2, 624):
        x = ((a[i] ^ ((x ^ (x >> 30)) * 1566083941)) - i) & _M32
        y = ((b[i] ^ ((y ^ (y >> 30)) * 1566083941)) - i) & _M32
        a[i] = x
        b[i] = y
    a[1] = ((a[1] ^ ((x ^ (x >> 30)) * 1566083941)) - 1) & _M32
    b[1] = ((b[1] ^ ((y ^ (y >> 30)) * 1566083941)) - 1) & _M32
    a[0] = 0x80000000
    b[0] = 0x80000000
    pa[0] = 624
    pb[0] = 624
    pa[1] = 624
    pb[1] = 624


@njit(cache=True, **_NO_RC)
def mt_seed(mt: np.ndarray, pos: np.ndarray, seed: int) -> None:
    """``random.Random(seed)``'s state for a whole number ``0 <= seed < 2**64`` (CPython's
    ``init_by_array`` over the seed's 32-bit words), ``pos`` as :func:`mt_next32` reads it."""
    even, odd = _keys(seed)
    x = _MT_INIT[0]
    for i in range(1, 624):
        x = ((_MT_INIT[i] ^ ((x ^ (x >> 30)) * 1664525)) + (even if i & 1 else odd)) & _M32
        mt[i] = x
    x = ((mt[1] ^ ((x ^ (x >> 30)) * 1664525)) + odd) & _M32
    mt[1] = x
    for i in range(2, 624):
        x = ((mt[i] ^ ((x ^ (x >> 30)) * 1566083941)) - i) & _M32
        mt[i] = x
    mt[1] = ((mt[1] ^ ((x ^ (x >> 30)) * 1566083941)) - 1) & _M32
    mt[0] = 0x80000000
    pos[0] = 624
    pos[1] = 624


@njit(cache=True, inline="always", **_NO_RC)
def _twist_word(mt: np.ndarray, kk: int, nxt: int, far: int) -> None:
    y = (mt[kk] & 0x80000000) | (mt[nxt] & 0x7FFFFFFF)
    v = mt[far] ^ (y >> 1)
    if y & 1:
        v ^= 0x9908B0DF
    mt[kk] = v


@njit(cache=True, inline="always", **_NO_RC)
def _twist_rest(mt: np.ndarray, pos: np.ndarray) -> None:
    """The twist of the block's words 227..623 (their partners already twisted)."""
    for kk in range(227, 623):
        _twist_word(mt, kk, kk + 1, kk - 227)
    _twist_word(mt, 623, 0, 396)
    pos[1] = 624


@njit(cache=True, **_NO_RC)
def mt_next32(mt: np.ndarray, pos: np.ndarray) -> int:
    """The next 32-bit output (``getrandbits(32)``) of a Mersenne Twister ``mt`` with
    ``pos`` = (next word, words of the block twisted): the twist is done in two parts, the
    first 227 words (all a round's deal needs) and the rest when reached."""
    i = pos[0]
    if i >= pos[1]:
        if i >= 624:
            i = 0
            for kk in range(227):
                _twist_word(mt, kk, kk + 1, kk + 397)
            pos[1] = 227
        else:
            _twist_rest(mt, pos)
    y = mt[i] & _M32
    pos[0] = i + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return int(y & _M32)


@njit(cache=True, **_NO_RC)
def mt_randbelow(mt: np.ndarray, pos: np.ndarray, n: int) -> int:
    """``random.Random.randrange(n)`` (``_randbelow_with_getrandbits``) for ``0 < n < 2**32``:
    the shuffles' draws and the vector env's ``random`` bot's."""
    k = _BITLEN[n] if n < 256 else 8
    m = n >> 8
    while m:
        k += 1
        m >>= 1
    r = mt_next32(mt, pos) >> (32 - k)
    while r >= n:
        r = mt_next32(mt, pos) >> (32 - k)
    return int(r)


@njit(cache=True, **_NO_RC)
def mt_untwisted(mt: np.ndarray, pos: np.ndarray) -> None:
    """Twist what :func:`mt_next32` has left of its block, so that ``mt`` and ``pos[0]`` are
    CPython's state (as :meth:`MersenneState.store` hands it back)."""
    if pos[0] < 624 and pos[1] < 624:
        _twist_rest(mt, pos)


@njit(cache=True)
def mt_shuffle(x: np.ndarray, mt: np.ndarray, pos: np.ndarray) -> None:
    """``random.Random.shuffle(x)`` with the generator state ``mt``, ``pos`` (in place)."""
    for i in range(x.shape[0] - 1, 0, -1):
        j = mt_randbelow(mt, pos, i + 1)
        t = x[i]
        x[i] = x[j]
        x[j] = t


mt_next = mt_next32
"""The next 32-bit output of a Mersenne Twister state (``mt``, ``pos``): ``getrandbits(32)``."""


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
        self.pos = np.array([words[624], 624], np.int64)
        self.gauss = gauss

    def store(self, rng: random.Random) -> None:
        """Set ``rng`` to this state."""
        mt_untwisted(self.mt, self.pos)
        rng.setstate((3, (*self.mt.tolist(), int(self.pos[0])), self.gauss))


# -- flat Monte Carlo with smart rollouts ----------------------------------------------------
@njit(cache=True)
def flat_smart_kernel(
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
    smart: bool,
    totals: np.ndarray,
    margins: np.ndarray,
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
    world: np.ndarray,
    t: np.ndarray,
    sc: np.ndarray,
    actions: np.ndarray,
    me: int,
    scale: float,
    smart: bool,
    totals: np.ndarray,
    margins: np.ndarray,
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
    smart: bool,
    totals: np.ndarray,
    margins: np.ndarray,
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
        _smart_action,
        smart_action,
        _playout,
        smart_playout,
        smart_playout_scores,
        _keys,
        mt_seed2,
        mt_seed,
        _twist_word,
        _twist_rest,
        mt_next32,
        mt_randbelow,
        mt_untwisted,
        mt_shuffle,
        flat_smart_kernel,
        _play_candidates,
        flat_hands_kernel,
    ),
    _kernels_stamp(),
    "smart.kernels",
)
