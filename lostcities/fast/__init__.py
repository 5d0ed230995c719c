"""The fast path for bulk simulation (the ``fast`` extra: numba, NumPy).

The rules of :mod:`lostcities.rules` compiled with numba over a compact array state:

- :class:`~lostcities.fast.state.FastRound`: one round from any core
  :class:`~lostcities.Round` position: legal moves (the core's distinct moves, in its
  order), stepping, the end, scores, rollouts.
- :class:`~lostcities.fast.batch.BatchGames`: many games stepped together (for RL), over a
  flat action encoding of 840 actions.
- :func:`~lostcities.fast.rollouts.playout_round`: the compiled rollout policy of
  :mod:`lostcities.bots.rollout`.
- :class:`~lostcities.fast.search.FlatSearch` / :func:`~lostcities.fast.search.flat_values`:
  flat Monte Carlo over determinizations of a :class:`~lostcities.PlayerView`, compiled.

``lostcities bench`` (:mod:`lostcities.bench`) measures it. This package imports only the
core: the bots use it (lazily), never the other way round. The fast path's actions are the
core's move numbering (:attr:`lostcities.Move.index`) and its one copy of the playability
rule (:func:`lostcities.fast.kernels.playable`) is checked against
:func:`lostcities.rules.playable`.

A differential test plays tens of thousands of random rounds through both the core and this
path and checks every legal-move set and every final score are equal. Compiled kernels are
cached on disk (numba ``cache=True``), so only the first start after an install compiles.
Importing this package raises :class:`ImportError` when numba is missing; code that uses it
falls back to the core.
"""

from __future__ import annotations

from lostcities.fast.kernels import NUM_ACTIONS, STATE_SIZE
from lostcities.fast.state import FastRound, action_of, move_of, state_from_round

__all__ = ["NUM_ACTIONS", "STATE_SIZE", "FastRound", "action_of", "move_of", "state_from_round"]
