"""The random number generators the compiled kernels draw from, in one place.

- **xorshift128+** (:func:`xorshift_next`, :func:`xorshift_below`): the fast path's own
  generator, a state of two ``uint64`` (not both zero) per game or search; the C reference
  implementation's, so the benchmark's deals and random moves are comparable.
- **CPython's Mersenne Twister** (:func:`mt_seed`, :func:`mt_next32`, :func:`mt_randbelow`,
  :func:`mt_shuffle`, :class:`MersenneState`): :mod:`random`'s MT19937 and
  ``Random.shuffle`` replayed, from and back into a :class:`random.Random`'s state, so a
  compiled search or environment draws the same numbers Python would (the flat search's
  worlds, the vector env's deals and ``random`` bot).

This file compiles nothing from other files (numba keys its cache on this file alone); the
kernels that inline these functions record this file in their cache stamps
(:func:`lostcities.fast.kernels.guard_cache`).

>>> import random
>>> rng = np.array([12345, 678], np.uint64)
>>> xs = [xorshift_below(rng, 10) for _ in range(5)]
>>> all(0 <= x < 10 for x in xs)
True
>>> mt = np.empty(624, np.int64); pos = np.empty(2, np.int64)
>>> mt_seed(mt, pos, 7)
>>> mt_next32(mt, pos) == random.Random(7).getrandbits(32)
True
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

__all__ = [
    "MersenneState",
    "mt_next",
    "mt_next32",
    "mt_randbelow",
    "mt_seed",
    "mt_seed2",
    "mt_shuffle",
    "mt_untwisted",
    "xorshift_below",
    "xorshift_next",
    "xorshift_state",
]

_S23 = np.uint64(23)
_S17 = np.uint64(17)
_S26 = np.uint64(26)
_S32 = np.uint64(32)


# -- xorshift128+ (state: 2 uint64) ------------------------------------------------------------
def xorshift_state(seed: int | None) -> npt.NDArray[np.uint64]:
    """A fresh xorshift128+ state from ``seed`` (NumPy's ``SeedSequence``; ``None``: from
    the operating system), never all zero.

    >>> bool((xorshift_state(3) == xorshift_state(3)).all()), int(xorshift_state(3)[0]) & 1
    (True, 1)
    """
    w = np.random.SeedSequence(seed).generate_state(2, np.uint64)
    return np.array([w[0] | np.uint64(1), w[1]], np.uint64)


@njit(cache=True, inline="always")
def xorshift_next(rng: np.ndarray) -> Any:
    """The next 64-bit output of the xorshift128+ state ``rng`` (two ``uint64``, advanced)."""
    s1 = rng[0]
    s0 = rng[1]
    rng[0] = s0
    s1 ^= s1 << _S23
    s1 = s1 ^ s0 ^ (s1 >> _S17) ^ (s0 >> _S26)
    rng[1] = s1
    return s1 + s0


@njit(cache=True, inline="always")
def xorshift_below(rng: np.ndarray, n: int) -> int:
    """Uniform in ``0 .. n-1`` from ``rng`` (Lemire's multiply-shift of the high 32 bits,
    as the C reference does)."""
    r = xorshift_next(rng) >> _S32
    return int((r * np.uint64(n)) >> _S32)


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
