"""A learned rollout policy, compiled: the *judge* a flat search can play out with.

Every search bot values a candidate by playing sampled worlds to the end of the round with a
rollout policy (``smart`` by default, :mod:`lostcities.fast.smart`). This module is a small
policy network for that, in numba, fast enough to play whole rounds in the search's inner
loop (``benchmarks/judge_speed.py`` measures it against ``smart``).

**What a rollout player sees.** Only its own view: its hand, both players' expeditions, the
discard piles, the cards the opponent is known to hold (taken from a pile and not played
since), which of its own cards the opponent knows, and the draw pile's size; never the
sampled world's hidden cards (the opponent's unknown hand, the order of the draw pile). The
network is taught on real players' decisions, which are made from a view; playing both sides
of a rollout with open hands would value positions as if the game were of perfect
information (measured worth about 4 points a round, issue 24), and ``smart`` too reads only
the mover's view. The rollout players do know what a player knows: the cards the opponent
took from the piles.

**Inputs** (:data:`NUM_INPUTS`, all counts, most zero): for each card kind (60:
``10 * colour + k``) how many are in each of seven places seen from the mover: its hand,
its expeditions, the opponent's expeditions, a discard pile's top, under a pile's top, the
opponent's hand as known, its own hand as the opponent knows it; then the draw pile's size
(one-hot) and whether the variant is the long one.

**Network** (NNUE style): the first layer's output, the *accumulator*, is kept per
perspective (one for each player, each from that player's view) and updated incrementally
as cards move: a move changes a handful of counts, so it adds and subtracts a handful of
weight rows instead of multiplying the whole input. Then ``relu``, a hidden layer with
``relu``, and a head that scores only the legal moves: ``logit(card action, draw) =
card_head[card action] + draw_head[draw]`` (each a dot product with the hidden layer, plus a
bias) plus learned bonuses where the move, its card action or its draw is the one ``smart``
would make, so that the network learns *corrections* to ``smart``. The move is the
best-scoring legal move (``temperature`` 0) or drawn from ``softmax(logits / temperature)``.

Everything is deterministic given the state, the weights and (with a temperature) the seed.

>>> from lostcities import Round
>>> from lostcities.fast.state import state_from_round
>>> judge = Judge.random(seed=0, hidden=(16, 8))
>>> s = state_from_round(Round.deal(seed=3))
>>> a = judge.action(s)
>>> bool(K.is_legal(s, a)), a == judge.action(s)
(True, True)
>>> judge.playout_scores(s.copy()) == judge.playout_scores(s.copy())
True
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from lostcities.fast import bits, rng
from lostcities.fast import kernels as K
from lostcities.fast import smart as S
from lostcities.fast.bits import COL_OF, RANK_OF
from lostcities.fast.kernels import (
    CNT,
    DECK,
    EMASK,
    HAND,
    KNOWN,
    NCOL,
    NDECK,
    NPILE,
    OVER,
    PILE,
    TOP,
    TURN,
    WAG,
    apply,
    playable,
    score,
)
from lostcities.fast.rng import xorshift_next, xorshift_state
from lostcities.fast.smart import mt_next32, smart_action_into

__all__ = [
    "JUDGE_FILE",
    "NUM_INPUTS",
    "InvalidJudgeError",
    "Judge",
    "default_judge",
    "flat_judge_hands_kernel",
    "flat_judge_kernel",
    "input_counts",
    "judge_accumulate",
    "judge_action",
    "judge_playout",
    "judge_trace",
    "load_judge",
    "sparse_inputs",
]

# -- the inputs --------------------------------------------------------------------------
L_HAND = 0
"""Place: the mover's hand."""
L_MINE = 1
"""Place: the mover's expeditions."""
L_THEIRS = 2
"""Place: the opponent's expeditions."""
L_TOP = 3
"""Place: a discard pile's top card."""
L_UNDER = 4
"""Place: under a discard pile's top."""
L_THEY_HOLD = 5
"""Place: the opponent's hand, the cards known to be there."""
L_THEY_KNOW = 6
"""Place: the mover's hand, the cards the opponent knows are there."""
PLACES = 7
DECK_INPUT = 60 * PLACES
"""The first of the one-hot inputs of the draw pile's size (0 .. 59 cards)."""
LONG_INPUT = DECK_INPUT + 60
"""The input set in the long (six-colour) variant."""
NUM_INPUTS = LONG_INPUT + 1
"""Inputs of the network."""
MAX_ACTIVE = 128
"""More than the most non-zero inputs a position has (72 cards, a deck size, a variant)."""
CARD_ACTIONS = 120
"""Card actions of the head: ``60 * discard + card kind``."""
DRAWS = 7
"""Draw sources of the head: the draw pile, then the discard piles by colour."""
MAX_PAIRS = 16 * DRAWS
"""More than the most legal moves (8 kinds x 2 actions x 7 draws)."""
PLY_CAP = 400
"""A safety net on a playout's length (a round has fewer than 150 turns)."""


@njit(cache=True)
def input_counts(s: np.ndarray, p: int, out: np.ndarray) -> None:
    """The network's inputs for player ``p`` in state ``s`` (counts, :data:`NUM_INPUTS`
    float32 into ``out``), from its view only (module docs)."""
    out[:] = 0
    q = p ^ 1
    for i in range(8):
        out[60 * L_HAND + s[HAND + 8 * p + i]] += 1
    ncol = s[NCOL]
    for c in range(ncol):
        for who in range(2):
            place = L_MINE if who == p else L_THEIRS
            o = 6 * who + c
            if s[CNT + o] > 0:
                out[60 * place + 10 * c] += s[WAG + o]
                m = s[EMASK + o]
                for k in range(1, 10):
                    if m & (1 << k):
                        out[60 * place + 10 * c + k] += 1
        n = s[NPILE + c]
        for i in range(n):
            kind = s[PILE + 12 * c + i]
            out[60 * (L_TOP if i == n - 1 else L_UNDER) + kind] += 1
    for x in range(60):
        out[60 * L_THEY_HOLD + x] += s[KNOWN + 60 * q + x]
        out[60 * L_THEY_KNOW + x] += s[KNOWN + 60 * p + x]
    out[DECK_INPUT + min(s[NDECK], 59)] += 1
    if ncol == 6:
        out[LONG_INPUT] += 1


@njit(cache=True)
def sparse_inputs(
    states: np.ndarray, players: np.ndarray, index: np.ndarray, count: np.ndarray
) -> None:
    """:func:`input_counts` of many positions, sparse: row ``i`` (state ``states[i]`` for
    ``players[i]``) gets its non-zero inputs in ``index[i]`` and their counts in
    ``count[i]``, padded with index :data:`NUM_INPUTS` and count 0 (for training)."""
    buf = np.zeros(NUM_INPUTS, np.float32)
    for i in range(states.shape[0]):
        input_counts(states[i], players[i], buf)
        j = 0
        for f in range(NUM_INPUTS):
            if buf[f] != 0:
                index[i, j] = f
                count[i, j] = buf[f]
                j += 1
        for t in range(j, index.shape[1]):
            index[i, t] = NUM_INPUTS
            count[i, t] = 0


# -- the accumulator -----------------------------------------------------------------------
@njit(cache=True)
def judge_accumulate(
    s: np.ndarray, p: int, w1: np.ndarray, b1: np.ndarray, out: np.ndarray
) -> None:
    """Player ``p``'s accumulator computed from scratch: ``b1 + inputs @ w1``."""
    buf = np.zeros(NUM_INPUTS, np.float32)
    input_counts(s, p, buf)
    out[:] = b1
    for f in range(NUM_INPUTS):
        x = buf[f]
        if x != 0:
            for j in range(out.shape[0]):
                out[j] += x * w1[f, j]


@njit(cache=True, inline="always")
def _add(acc: np.ndarray, w1: np.ndarray, f: int, sign: float) -> None:
    for j in range(acc.shape[0]):
        acc[j] += sign * w1[f, j]


@njit(cache=True)
def _update(s: np.ndarray, action: int, acc: np.ndarray, w1: np.ndarray) -> None:
    """Make ``action`` (legal) in ``s`` and update both players' accumulators (``acc``, one
    row each) by the counts it changes."""
    p = s[TURN]
    q = p ^ 1
    ap = acc[p]
    aq = acc[q]
    draw = action % 7
    x = action // 7
    discard = x >= 60
    kind = x - 60 if discard else x
    c = kind // 10
    known = s[KNOWN + 60 * p + kind] > 0
    nd = s[NDECK]
    drawn = -1
    if draw == 0:
        drawn = s[DECK + nd - 1]
    _add(ap, w1, 60 * L_HAND + kind, -1.0)
    if known:
        _add(ap, w1, 60 * L_THEY_KNOW + kind, -1.0)
        _add(aq, w1, 60 * L_THEY_HOLD + kind, -1.0)
    if discard:
        n = s[NPILE + c]
        if n > 0:
            old = s[PILE + 12 * c + n - 1]
            for a in (ap, aq):
                _add(a, w1, 60 * L_TOP + old, -1.0)
                _add(a, w1, 60 * L_UNDER + old, 1.0)
        _add(ap, w1, 60 * L_TOP + kind, 1.0)
        _add(aq, w1, 60 * L_TOP + kind, 1.0)
    else:
        _add(ap, w1, 60 * L_MINE + kind, 1.0)
        _add(aq, w1, 60 * L_THEIRS + kind, 1.0)
    if draw == 0:
        _add(ap, w1, 60 * L_HAND + drawn, 1.0)
        if nd > 0:
            f0 = DECK_INPUT + min(nd, 59)
            f1 = DECK_INPUT + min(nd - 1, 59)
            for a in (ap, aq):
                _add(a, w1, f0, -1.0)
                _add(a, w1, f1, 1.0)
    else:
        d = draw - 1
        n = s[NPILE + d]
        y = s[PILE + 12 * d + n - 1]
        _add(ap, w1, 60 * L_TOP + y, -1.0)
        _add(aq, w1, 60 * L_TOP + y, -1.0)
        _add(ap, w1, 60 * L_HAND + y, 1.0)
        _add(ap, w1, 60 * L_THEY_KNOW + y, 1.0)
        _add(aq, w1, 60 * L_THEY_HOLD + y, 1.0)
        if n >= 2:
            z = s[PILE + 12 * d + n - 2]
            for a in (ap, aq):
                _add(a, w1, 60 * L_UNDER + z, -1.0)
                _add(a, w1, 60 * L_TOP + z, 1.0)
    apply(s, action)


# -- the random numbers of sampling (xorshift128+, :mod:`lostcities.fast.rng`) -----------------
_S11 = np.uint64(11)


@njit(cache=True, inline="always")
def _uniform(rng: np.ndarray) -> float:
    """A uniform float in [0, 1) from the xorshift128+ state ``rng`` (2 uint64)."""
    return float(xorshift_next(rng) >> _S11) / 9007199254740992.0


# -- the policy ------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _work_size(net: tuple[Any, ...]) -> int:
    """Float32 scratch of :func:`_choose`: both layers, the draw logits, the moves'."""
    return int(net[1].shape[0] + net[3].shape[0] + DRAWS + MAX_PAIRS)


@njit(cache=True, fastmath=True)
def _choose(
    s: np.ndarray,
    net: tuple[Any, ...],
    acc_p: np.ndarray,
    work: np.ndarray,
    sc: np.ndarray,
    acts: np.ndarray,
    rng: np.ndarray,
    temperature: float,
) -> int:
    """The move of the player to move from its accumulator ``acc_p`` (scratch: ``work``,
    float32 of :func:`_work_size`, ``sc`` smart's 30 int64, ``acts`` :data:`MAX_PAIRS`)."""
    _, _, w2, b2, wc, bc, wd, bd, ws = net
    nh = acc_p.shape[0]
    n2 = b2.shape[0]
    h1 = work[:nh]
    h2 = work[nh : nh + n2]
    dl = work[nh + n2 : nh + n2 + DRAWS]
    logits = work[nh + n2 + DRAWS :]
    for j in range(nh):
        a = acc_p[j]
        h1[j] = a if a > 0 else 0.0
    for k in range(n2):
        t = b2[k]
        for j in range(nh):
            t += w2[k, j] * h1[j]
        h2[k] = t if t > 0 else 0.0
    sa = smart_action_into(s, sc)
    sca = sa // 7
    sd = sa % 7
    p = s[TURN]
    ncol = s[NCOL]
    for d in range(ncol + 1):
        if d == 0 or s[NPILE + d - 1] > 0:
            t = bd[d]
            for k in range(n2):
                t += wd[d, k] * h2[k]
            if d == sd:
                t += ws[1]
            dl[d] = t
    n = 0
    for i in range(8):
        kind = s[HAND + 8 * p + i]
        dup = False
        for j in range(i):
            if s[HAND + 8 * p + j] == kind:
                dup = True
        if dup:
            continue
        c = COL_OF[kind]
        for phase in range(2):
            if phase == 0 and not playable(RANK_OF[kind], s[TOP + 6 * p + c]):
                continue
            ca = 60 * phase + kind
            t = bc[ca]
            for k in range(n2):
                t += wc[ca, k] * h2[k]
            if ca == sca:
                t += ws[0]
            for d in range(ncol + 1):
                if (d == 0 or s[NPILE + d - 1] > 0) and not (phase == 1 and d == c + 1):
                    v = t + dl[d]
                    if ca == sca and d == sd:
                        v += ws[2]
                    logits[n] = v
                    acts[n] = ca * 7 + d
                    n += 1
    best = 0
    for i in range(1, n):
        if logits[i] > logits[best]:
            best = i
    if temperature <= 0:
        return int(acts[best])
    top = logits[best]
    total = 0.0
    for i in range(n):
        e = math.exp((logits[i] - top) / temperature)
        logits[i] = e
        total += e
    u = _uniform(rng) * total
    for i in range(n):
        u -= logits[i]
        if u < 0:
            return int(acts[i])
    return int(acts[best])


@njit(cache=True, inline="always")
def _scratch(net: tuple[Any, ...]) -> Any:
    """A playout's scratch: both players' accumulators, the network's work, ``smart``'s and
    the legal moves'."""
    return (
        np.empty((2, net[1].shape[0]), np.float32),
        np.empty(_work_size(net), np.float32),
        np.empty(30, np.int64),
        np.empty(MAX_PAIRS, np.int64),
    )


@njit(cache=True)
def judge_action(s: np.ndarray, net: tuple[Any, ...], rng: np.ndarray, temperature: float) -> int:
    """The judge's move (a flat action) for the player to move in ``s`` (a running round),
    its accumulator computed from scratch."""
    acc, work, sc, acts = _scratch(net)
    judge_accumulate(s, s[TURN], net[0], net[1], acc[0])
    return _choose(s, net, acc[0], work, sc, acts, rng, temperature)


@njit(cache=True)
def _playout(
    s: np.ndarray,
    net: tuple[Any, ...],
    acc: np.ndarray,
    work: np.ndarray,
    sc: np.ndarray,
    acts: np.ndarray,
    rng: np.ndarray,
    temperature: float,
) -> int:
    """Play ``s`` to its end with the judge on both sides (in place); the moves made."""
    if s[OVER] != 0:
        return 0
    w1 = net[0]
    b1 = net[1]
    judge_accumulate(s, 0, w1, b1, acc[0])
    judge_accumulate(s, 1, w1, b1, acc[1])
    plies = 0
    while s[OVER] == 0 and plies < PLY_CAP:
        a = _choose(s, net, acc[s[TURN]], work, sc, acts, rng, temperature)
        _update(s, a, acc, w1)
        plies += 1
    return plies


@njit(cache=True)
def judge_playout(s: np.ndarray, net: tuple[Any, ...], rng: np.ndarray, temperature: float) -> int:
    """Play ``s`` to its end with the judge on both sides (in place), the accumulators
    updated incrementally; returns the moves made."""
    acc, work, sc, acts = _scratch(net)
    return _playout(s, net, acc, work, sc, acts, rng, temperature)


@njit(cache=True)
def judge_trace(
    s: np.ndarray,
    net: tuple[Any, ...],
    rng: np.ndarray,
    temperature: float,
    out: np.ndarray,
    moves: np.ndarray,
) -> int:
    """:func:`judge_playout` that also checks the incremental accumulators: after every move
    ``out[ply]`` = the largest difference between an updated accumulator and the same one
    computed from scratch, and ``moves[ply]`` = the move; returns the moves made (for the
    tests)."""
    nh = net[1].shape[0]
    acc, work, sc, acts = _scratch(net)
    fresh = np.empty(nh, np.float32)
    w1 = net[0]
    b1 = net[1]
    judge_accumulate(s, 0, w1, b1, acc[0])
    judge_accumulate(s, 1, w1, b1, acc[1])
    plies = 0
    while s[OVER] == 0 and plies < min(PLY_CAP, out.shape[0]):
        a = _choose(s, net, acc[s[TURN]], work, sc, acts, rng, temperature)
        moves[plies] = a
        _update(s, a, acc, w1)
        worst = 0.0
        for p in range(2):
            judge_accumulate(s, p, w1, b1, fresh)
            for j in range(nh):
                worst = max(worst, abs(fresh[j] - acc[p, j]))
        out[plies] = worst
        plies += 1
    return plies


# -- flat Monte Carlo with the judge (FlatSearch's rollout="learned") ----------------------------
@njit(cache=True)
def _play_candidates(
    world: np.ndarray,
    t: np.ndarray,
    ctx: tuple[Any, ...],
    actions: np.ndarray,
    me: int,
    scale: float,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """Each candidate action in ``world``, played out by the judge (``t``: scratch; ``ctx``:
    :func:`_context`'s)."""
    net, acc, work, sc, acts, rng, temperature = ctx
    for j in range(actions.shape[0]):
        t[:] = world
        apply(t, actions[j])
        _playout(t, net, acc, work, sc, acts, rng, temperature)
        m = score(t, me) - score(t, 1 - me)
        margins[j] += m
        totals[j] += math.tanh(m / scale)


@njit(cache=True, inline="always")
def _context(net: tuple[Any, ...], temperature: float, mt: np.ndarray, pos: np.ndarray) -> Any:
    """The judge's playouts' weights, scratch and sampling generator, for
    :func:`_play_candidates` (with a ``temperature``, four words of the Mersenne Twister
    first seed the sampling)."""
    acc, work, sc, acts = _scratch(net)
    rng = np.zeros(2, np.uint64)
    if temperature > 0:
        _seed_from(mt, pos, rng)
    return (net, acc, work, sc, acts, rng, temperature)


@njit(cache=True)
def _seed_from(mt: np.ndarray, pos: np.ndarray, rng: np.ndarray) -> None:
    """Seed the sampling's xorshift generator from four words of the Mersenne Twister."""
    a = np.uint64(mt_next32(mt, pos)) << np.uint64(32) | np.uint64(mt_next32(mt, pos))
    b = np.uint64(mt_next32(mt, pos)) << np.uint64(32) | np.uint64(mt_next32(mt, pos))
    rng[0] = a | np.uint64(1)
    rng[1] = b


@njit(cache=True)
def flat_judge_kernel(
    template: np.ndarray,
    opp: int,
    first: int,
    unseen: np.ndarray,
    actions: np.ndarray,
    worlds: int,
    mt: np.ndarray,
    pos: np.ndarray,
    me: int,
    scale: float,
    net: tuple[Any, ...],
    temperature: float,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """:func:`lostcities.fast.smart.flat_smart_kernel` with the judge's playouts: the same
    worlds from the same generator state (with a ``temperature``, four words of the
    generator first seed the sampling, so the worlds differ from ``smart``'s)."""
    ctx = _context(net, temperature, mt, pos)
    deal = (unseen, np.empty_like(unseen))
    S.flat_worlds(
        template, opp, first, S.deal_unseen, deal, actions, worlds, mt, pos, me, scale,
        _play_candidates, ctx, totals, margins,
    )  # fmt: skip


@njit(cache=True)
def flat_judge_hands_kernel(
    template: np.ndarray,
    opp: int,
    first: int,
    hands: np.ndarray,
    rests: np.ndarray,
    start: int,
    actions: np.ndarray,
    worlds: int,
    mt: np.ndarray,
    pos: np.ndarray,
    me: int,
    scale: float,
    net: tuple[Any, ...],
    temperature: float,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """:func:`lostcities.fast.smart.flat_hands_kernel` with the judge's playouts."""
    ctx = _context(net, temperature, mt, pos)
    deal = (hands, rests, start, np.empty(rests.shape[1], rests.dtype))
    S.flat_worlds(
        template, opp, first, S.deal_hand, deal, actions, worlds, mt, pos, me, scale,
        _play_candidates, ctx, totals, margins,
    )  # fmt: skip


# -- the weights -------------------------------------------------------------------------------
class InvalidJudgeError(ValueError):
    """A judge's weights file is missing, unreadable or of another shape."""


_ARRAYS = ("w1", "b1", "w2", "b2", "wc", "bc", "wd", "bd", "ws")
JUDGE_FILE = "judge.npz"
"""The shipped judge's file in ``lostcities/data``."""


class Judge:
    """A judge's weights (float32) and how it samples.

    ``w1`` (:data:`NUM_INPUTS` x H) and ``b1`` the accumulator, ``w2`` (H2 x H) and ``b2``
    the hidden layer, ``wc`` (120 x H2), ``bc`` the card-action head, ``wd`` (7 x H2),
    ``bd`` the draw head, ``ws`` the three bonuses of ``smart``'s move (its card action,
    its draw, both). ``temperature``: 0 plays the best-scoring move.

    :raises InvalidJudgeError: for arrays whose shapes do not fit together.
    """

    __slots__ = ("arrays", "meta", "temperature")

    def __init__(
        self,
        arrays: dict[str, npt.NDArray[Any]],
        temperature: float = 0.0,
        meta: dict[str, Any] | None = None,
    ) -> None:
        try:
            t = tuple(np.ascontiguousarray(arrays[k], np.float32) for k in _ARRAYS)
        except KeyError as e:
            raise InvalidJudgeError(f"invalid judge weights: no {e.args[0]!r}") from None
        w1, b1, w2, b2, wc, bc, wd, bd, ws = t
        nh, n2 = b1.shape[0], b2.shape[0]
        shapes = [
            (w1, (NUM_INPUTS, nh)),
            (b1, (nh,)),
            (w2, (n2, nh)),
            (b2, (n2,)),
            (wc, (CARD_ACTIONS, n2)),
            (bc, (CARD_ACTIONS,)),
            (wd, (DRAWS, n2)),
            (bd, (DRAWS,)),
            (ws, (3,)),
        ]
        for (a, want), name in zip(shapes, _ARRAYS, strict=True):
            if a.shape != want:
                raise InvalidJudgeError(
                    f"invalid judge weights: {name} has shape {a.shape}, not {want}"
                )
        if not (temperature >= 0 and math.isfinite(temperature)):
            raise InvalidJudgeError(f"invalid judge temperature: {temperature!r}")
        self.arrays = t
        """The arrays in the kernels' order (``w1, b1, w2, b2, wc, bc, wd, bd, ws``)."""
        self.temperature = float(temperature)
        """0: the best-scoring move; else sampled from ``softmax(logits / temperature)``."""
        self.meta = dict(meta or {})
        """What the weights file says about itself (how it was trained)."""

    @property
    def hidden(self) -> tuple[int, int]:
        """The sizes of the accumulator and the hidden layer."""
        return int(self.arrays[1].shape[0]), int(self.arrays[3].shape[0])

    @classmethod
    def random(cls, seed: int, hidden: tuple[int, int] = (128, 32)) -> Judge:
        """Random weights (for tests and as a starting point).

        >>> Judge.random(1, (8, 4)).hidden
        (8, 4)
        """
        rng = np.random.default_rng(seed)
        nh, n2 = hidden
        shapes = {
            "w1": (NUM_INPUTS, nh),
            "b1": (nh,),
            "w2": (n2, nh),
            "b2": (n2,),
            "wc": (CARD_ACTIONS, n2),
            "bc": (CARD_ACTIONS,),
            "wd": (DRAWS, n2),
            "bd": (DRAWS,),
            "ws": (3,),
        }
        return cls({k: rng.normal(0, 0.3, v) for k, v in shapes.items()})

    def with_temperature(self, temperature: float) -> Judge:
        """The same weights sampling at ``temperature``."""
        return Judge(dict(zip(_ARRAYS, self.arrays, strict=True)), temperature, self.meta)

    def save(self, path: str | Path) -> None:
        """Write the weights (``.npz``, the meta as JSON)."""
        arrays: dict[str, Any] = dict(zip(_ARRAYS, self.arrays, strict=True))
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path, temperature: float = 0.0) -> Judge:
        """Read weights written by :meth:`save`.

        :raises InvalidJudgeError: if the file is missing, unreadable or of another shape.
        """
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError) as e:
            raise InvalidJudgeError(f"invalid judge weights {str(path)!r}: {e}") from None
        meta: dict[str, Any] = {}
        if "meta" in arrays:
            try:
                meta = json.loads(str(arrays.pop("meta")))
            except ValueError:
                raise InvalidJudgeError(f"invalid judge weights {str(path)!r}: bad meta") from None
        return cls(arrays, temperature, meta)

    def action(self, s: npt.NDArray[np.int32], seed: int = 0) -> int:
        """The judge's move (a flat action) for the player to move in the running round
        ``s`` (an array state)."""
        return int(judge_action(s, self.arrays, xorshift_state(seed), self.temperature))

    def playout(self, s: npt.NDArray[np.int32], seed: int = 0) -> int:
        """Play ``s`` to its end with the judge on both sides (in place); the moves made."""
        return int(judge_playout(s, self.arrays, xorshift_state(seed), self.temperature))

    def playout_scores(self, s: npt.NDArray[np.int32], seed: int = 0) -> tuple[int, int]:
        """:meth:`playout`, then both players' final scores."""
        self.playout(s, seed)
        return int(score(s, 0)), int(score(s, 1))

    def __repr__(self) -> str:
        nh, n2 = self.hidden
        return f"<Judge hidden=({nh}, {n2}) temperature={self.temperature:g}>"


@functools.cache
def default_judge() -> Judge:
    """The judge shipped in the package (``lostcities/data/judge.npz``), loaded once.

    :raises InvalidJudgeError: if the package has none.
    """
    ref = resources.files("lostcities") / "data" / JUDGE_FILE
    with resources.as_file(ref) as path:
        if not path.exists():
            raise InvalidJudgeError(f"no judge weights in the package ({JUDGE_FILE})")
        return Judge.load(path)


@functools.cache
def load_judge(path: str | None = None, temperature: float = 0.0) -> Judge:
    """The judge of weights file ``path`` (``None``: the shipped one), loaded once per path
    and temperature.

    :raises InvalidJudgeError: if the file is missing or bad.
    """
    judge = default_judge() if path is None else Judge.load(path)
    return judge if temperature == judge.temperature else judge.with_temperature(temperature)


# -- numba's cache and the files this one compiles in --------------------------------------------
def _stamp() -> str:
    """What this module's compiled code took from the files it compiles in (kernels.py,
    smart.py, the card tables and the random numbers): :func:`~lostcities.fast.kernels.source_stamp`."""
    return K.source_stamp(K, S, bits, rng)


K.guard_cache(
    [f for f in list(globals().values()) if hasattr(f, "recompile") and hasattr(f, "py_func")],
    _stamp(),
    "judge.kernels",
)
