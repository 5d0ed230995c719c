"""Compiled helpers that let a policy network play whole batches of rounds.

Self-play reinforcement learning (:mod:`lostcities.train.rl`) steps thousands of rounds at
once: every step writes the network input of each mover (:func:`batch_features`, the
layout of :mod:`lostcities.nn.features`), the legal moves as a mask over the 840 moves
(:func:`batch_masks`), optionally what only a training critic may see (:func:`batch_hidden`:
the opponent's hand and the draw pile), then applies the chosen moves (:func:`apply_rows`).
Rounds of both variants can share one batch (:func:`deal_rows` takes a colour count per
game). Rows are games of a 2-D state array of :mod:`lostcities.fast.kernels`; ``rows``
picks the games a call works on, in order.

>>> import numpy as np
>>> from lostcities.fast.kernels import STATE_SIZE
>>> from lostcities.fast.rng import xorshift_state
>>> states = np.zeros((2, STATE_SIZE), np.int32)
>>> rngs = np.stack([xorshift_state(1), xorshift_state(2)])
>>> rows = np.arange(2)
>>> deal_rows(states, rows, np.array([5, 6]), rngs, 0)
>>> x = np.zeros((2, NET_FEATURES), np.float32)
>>> batch_features(states, rows, x)
>>> [float(v) for v in x[:, :60].sum(axis=1)]   # eight cards in each hand
[8.0, 8.0]
>>> mask = np.zeros((2, 840), np.bool_)
>>> batch_masks(states, rows, mask, 0)
>>> bool(mask.any(axis=1).all())
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from lostcities.fast.kernels import (
    DECK,
    HAND,
    NDECK,
    NUM_ACTIONS,
    PLY,
    TURN,
    apply,
    deal,
    gen_legal,
)
from lostcities.fast.rng import xorshift_below
from lostcities.fast.vector import NET_FEATURES, net_features

__all__ = [
    "HIDDEN_FEATURES",
    "NET_FEATURES",
    "apply_rows",
    "batch_features",
    "batch_hidden",
    "batch_masks",
    "deal_rows",
    "greedy_rows",
]

HIDDEN_FEATURES = 180
"""Length of :func:`batch_hidden`'s rows: the opponent's hand (60 kinds), the draw pile's
cards (60 kinds) and the next card to be drawn (60, one-hot)."""


@njit(cache=True)
def deal_rows(
    states: np.ndarray, rows: np.ndarray, ncols: np.ndarray, rngs: np.ndarray, max_turns: int
) -> None:
    """Deal a fresh round in games ``rows`` (``ncols[g]`` colours, a starter drawn from
    ``rngs[g]``, which also shuffles)."""
    for i in range(rows.shape[0]):
        g = rows[i]
        starter = xorshift_below(rngs[g], 2)
        deal(states[g], ncols[g], rngs[g], starter, max_turns)


@njit(cache=True)
def batch_features(states: np.ndarray, rows: np.ndarray, x: np.ndarray) -> None:
    """``x[i]`` = the network input of the player to move in game ``rows[i]``."""
    for i in range(rows.shape[0]):
        buf = np.empty(120, np.int64)
        s = states[rows[i]]
        net_features(s, s[TURN], x[i], buf)


@njit(cache=True)
def batch_hidden(states: np.ndarray, rows: np.ndarray, h: np.ndarray) -> None:
    """``h[i]`` = what the mover of game ``rows[i]`` cannot see (:data:`HIDDEN_FEATURES`):
    for a critic used in training only, never for play."""
    for i in range(rows.shape[0]):
        s = states[rows[i]]
        opp = 1 - s[TURN]
        h[i, :] = 0.0
        for j in range(8):
            h[i, s[HAND + 8 * opp + j]] += 1.0
        nd = s[NDECK]
        for j in range(nd):
            h[i, 60 + s[DECK + j]] += 1.0
        if nd > 0:
            h[i, 120 + s[DECK + nd - 1]] = 1.0


@njit(cache=True)
def batch_masks(states: np.ndarray, rows: np.ndarray, mask: np.ndarray, force_ply: int) -> None:
    """``mask[i, a]`` = whether move ``a`` is legal in game ``rows[i]``. From ply
    ``force_ply`` on (0: never) only draw-pile draws are allowed, so a round cannot be
    prolonged without end by drawing from the discard piles."""
    for i in range(rows.shape[0]):
        s = states[rows[i]]
        mask[i, :] = 0
        gen_legal(s, mask[i], True)
        if force_ply > 0 and s[PLY] >= force_ply:
            for a in range(mask.shape[1]):
                if a % 7 != 0:
                    mask[i, a] = 0


@njit(cache=True)
def apply_rows(states: np.ndarray, rows: np.ndarray, actions: np.ndarray) -> None:
    """Apply ``actions[i]`` (legal, unchecked) in game ``rows[i]``."""
    for i in range(rows.shape[0]):
        apply(states[rows[i]], actions[i])


@njit(cache=True, fastmath=True)
def greedy_rows(
    states: np.ndarray,
    rows: np.ndarray,
    h: np.ndarray,
    w: np.ndarray,
    b: np.ndarray,
    force_ply: int,
    out: np.ndarray,
) -> None:
    """``out[i]`` = the legal move of game ``rows[i]`` with the highest policy logit
    ``h[i] @ w[a] + b[a]`` (``w``: the policy head, a row per move; ties to the lower
    move), with :func:`batch_masks`'s rule from ``force_ply`` on. Only the legal moves'
    logits are computed: the whole head's matrix product costs 10 to 20 times more."""
    legal = np.empty(NUM_ACTIONS, np.int64)
    width = h.shape[1]
    for i in range(rows.shape[0]):
        s = states[rows[i]]
        n = gen_legal(s, legal, False)
        forced = force_ply > 0 and s[PLY] >= force_ply
        best = -np.inf
        arg = -1
        for j in range(n):
            a = legal[j]
            if forced and a % 7 != 0:
                continue
            acc = np.float32(0.0)
            for k in range(width):
                acc += h[i, k] * w[a, k]
            acc += b[a]
            if acc > best or (acc == best and a < arg):
                best = acc
                arg = a
        out[i] = arg
