"""The rollout policy of :mod:`lostcities.bots.rollout`, compiled: playouts from core rounds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lostcities.errors import IllegalMoveError
from lostcities.fast import kernels as K
from lostcities.fast.state import encode_round
from lostcities.rules import Move, Round

__all__ = ["playout_round", "playouts_after_round"]


def playout_round(round: Round) -> tuple[int, int]:
    """Play a copy of ``round`` to its end with the rollout policy (numba); the final scores.
    ``round`` is unchanged; a ``max_turns`` cap stops the playout at the cap."""
    a, b = K.playout_encoded(*encode_round(round))
    return int(a), int(b)


def playouts_after_round(round: Round, moves: Sequence[Move]) -> list[tuple[int, int]]:
    """For each move: a copy of ``round`` with the move made, played out with the rollout
    policy (numba); the final scores. The round is packed once for all the moves.

    :raises IllegalMoveError: if a move is not legal in ``round`` (nothing is played).
    """
    actions = np.array([m.index for m in moves], np.int64)
    out = np.empty((len(moves), 2), np.int64)
    bad = K.playouts_after_encoded(*encode_round(round), actions, out)
    if bad >= 0:
        raise IllegalMoveError(f"illegal move: {str(moves[bad])!r} (not legal in this round)")
    return [(int(a), int(b)) for a, b in out.tolist()]
