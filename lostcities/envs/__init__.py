"""Reinforcement-learning environments (``pip install lostcities[rl]``).

Importing this package loads nothing heavy; each submodule imports its framework:

- :mod:`lostcities.envs.encoding`: action numbers and observation tensors (NumPy only);
- :mod:`lostcities.envs.pettingzoo`: the two-player AEC env ``lostcities_v0``;
- :mod:`lostcities.envs.gymnasium`: one seat against a bot, id ``lostcities/LostCities-v0``;
- :mod:`lostcities.envs.openspiel`: the pyspiel game ``lost_cities`` (registered on import).

See docs/rl.md for the action encoding and the observation layout.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["encoding", "gymnasium", "lostcities_v0", "openspiel", "pettingzoo"]

_ALIASES = {"lostcities_v0": "pettingzoo"}


def __getattr__(name: str) -> ModuleType:
    """Import a submodule on first use; ``lostcities_v0`` is the PettingZoo env module."""
    if name in __all__:
        return importlib.import_module(f"{__name__}.{_ALIASES.get(name, name)}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
