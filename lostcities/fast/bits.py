"""Card kinds and bit sets for the compiled kernels: the tables and the bit trick every
kernel file shares.

A card *kind* is :attr:`lostcities.Card.index` (``10 * colour + k``, ``k`` = 0 for a
wager, ``rank - 1`` otherwise); :data:`RANK_OF` and :data:`COL_OF` are read from the core's
cards, so the kernels cannot disagree with it. Sets of kinds are bits of an integer;
:func:`lowest_bit` finds the lowest.

This file compiles nothing from other files (numba keys its cache on this file alone); the
kernels that inline these record this file in their cache stamps
(:func:`lostcities.fast.kernels.guard_cache`).

>>> int(RANK_OF[0]), int(RANK_OF[1]), int(RANK_OF[19]), int(COL_OF[19])
(0, 2, 10, 1)
>>> lowest_bit(np.uint64(0b101000)), lowest_bit(1 << 40)
(3, 40)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from lostcities.cards import ALL_CARDS

__all__ = ["COL_OF", "NUM_KINDS", "RANK_OF", "lowest_bit"]

NUM_KINDS = len(ALL_CARDS)
"""Card kinds (60: six colours of ten)."""
RANK_OF = np.array([c.rank for c in ALL_CARDS], np.int64)
"""The rank of each card kind (0 for a wager), as the core's cards have it."""
COL_OF = np.array([int(c.color) for c in ALL_CARDS], np.int64)
"""The colour of each card kind."""

_ONE = np.uint64(1)
_S58 = np.uint64(58)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
for _i in range(64):  # the bit index of each 6-bit window of the de Bruijn sequence
    _DEBRUIJN_INDEX[((int(_DEBRUIJN) << _i) >> 58) & 63] = _i


@njit(cache=True, inline="always")
def lowest_bit(m: Any) -> int:
    """The index of the lowest set bit of ``m`` != 0 (a ``uint64``, or an ``int64`` of a
    set below bit 63): a de Bruijn multiply, no loop."""
    u = np.uint64(m)
    low = u & (~u + _ONE)
    return int(_DEBRUIJN_INDEX[int((low * _DEBRUIJN) >> _S58)])
