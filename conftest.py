"""Doctest collection over ``lostcities/`` skips the parts whose extra is not installed, so
the core's own tests run on a core-only install too."""

from __future__ import annotations

import importlib.util

_EXTRAS = {
    "numba": ["lostcities/fast/*", "lostcities/fast/**/*"],
    "fastapi": ["lostcities/web/*", "lostcities/web/**/*"],
    "textual": ["lostcities/tui/*", "lostcities/tui/**/*"],
    "pettingzoo": ["lostcities/envs/pettingzoo.py"],
    "gymnasium": ["lostcities/envs/gymnasium.py"],
    "pyspiel": ["lostcities/envs/openspiel.py"],
    "numpy": ["lostcities/envs/*"],
    "torch": ["lostcities/train/*"],
}

collect_ignore_glob = [
    pattern
    for module, patterns in _EXTRAS.items()
    if importlib.util.find_spec(module) is None
    for pattern in patterns
]
