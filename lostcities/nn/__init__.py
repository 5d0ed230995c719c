"""The policy/value network of the ``net`` and ``expert`` bots, in NumPy.

:mod:`~lostcities.nn.features` turns a :class:`~lostcities.PlayerView` into the input
vector; :mod:`~lostcities.nn.model` evaluates the network and loads its weights. Training
(PyTorch) is in :mod:`lostcities.train` (the ``train`` extra); playing needs only NumPy.
"""

from __future__ import annotations

from lostcities.nn.features import FEATURES_VERSION, NUM_FEATURES, features, features_batch
from lostcities.nn.model import (
    TINY_WEIGHT,
    VALUE_SCALE,
    InvalidWeightsError,
    Network,
    as_float32,
    default_network,
    legal_mask,
)

__all__ = [
    "FEATURES_VERSION",
    "NUM_FEATURES",
    "TINY_WEIGHT",
    "VALUE_SCALE",
    "InvalidWeightsError",
    "Network",
    "as_float32",
    "default_network",
    "features",
    "features_batch",
    "legal_mask",
]
