"""The rollout policy of :mod:`lostcities.bots.rollout`, compiled: playouts from core rounds."""

from __future__ import annotations

from lostcities.fast import kernels as K
from lostcities.fast.state import encode_round
from lostcities.rules import Round

__all__ = ["playout_round"]


def playout_round(round: Round) -> tuple[int, int]:
    """Play a copy of ``round`` to its end with the rollout policy (numba); the final scores.
    ``round`` is unchanged; a ``max_turns`` cap stops the playout at the cap."""
    a, b = K.playout_encoded(*encode_round(round))
    return int(a), int(b)
