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
from numba.cpython.unsafe.numbers import trailing_zeros as _cttz

from lostcities.cards import ALL_CARDS

__all__ = ["COL_OF", "NUM_KINDS", "RANK_OF", "lowest_bit"]

NUM_KINDS = len(ALL_CARDS)
"""Card kinds (60: six colours of ten)."""
RANK_OF = np.array([c.rank for c in ALL_CARDS], np.int64)
"""The rank of each card kind (0 for a wager), as the core's cards have it."""
COL_OF = np.array([int(c.color) for c in ALL_CARDS], np.int64)
"""The colour of each card kind."""

_trailing_zeros: Any = _cttz  # numba's intrinsic for LLVM's cttz (typed loosely for mypy)


@njit(cache=True, inline="always")
def lowest_bit(m: Any) -> int:
    """The index of the lowest set bit of ``m`` != 0 (a ``uint64``, or an ``int64`` of a
    set below bit 63): one ``tzcnt`` instruction (LLVM's ``cttz``), no loop, no table."""
    return int(_trailing_zeros(np.uint64(m)))
