"""Compiled kernels of the batched environment :mod:`lostcities.envs.vector`.

One call steps every game of a batch: the agent's action (checked: an illegal one forfeits),
the built-in opponent's replies, the reward, the autoreset deal (its seat, starter and seeds
drawn here from the env's NumPy ``PCG64`` generator, replayed), and the observation and
action mask written into preallocated rows, as :mod:`lostcities.envs.encoding` lays them
out (the layout is passed in as offsets, so the encoding stays the one source).

The rows are kept *incrementally* while a round goes on: a move changes the observation
only in the cells of the few card kinds it moves (the card played or discarded, the pile
top it covers, the card drawn and the one it uncovers), the last move and the scalars, and
the mask only in the rows of the hand cards that came or went or whose playability or draw
sources changed; a round's first and last positions are written whole.

Deals replay the core's exactly: :func:`mt_seed` is CPython's ``random.seed`` of a whole
number (``init_by_array``) and :func:`deal_cpython` shuffles the sorted deck as
``random.Random(seed).shuffle`` does in :meth:`lostcities.Round.deal`; the ``random``
opponent draws with ``randrange`` on its own seeded generator, as
:class:`lostcities.bots.random.RandomBot` does; the env's seat, starter and seeds come from
:func:`pcg_integers2` / :func:`pcg_integers63`, NumPy's ``Generator.integers(2)`` and
``integers(2**63)`` over ``PCG64``. So a batch is equal, step for step, to Gymnasium's
``SyncVectorEnv`` over :class:`lostcities.envs.gymnasium.LostCitiesEnv`
(``tests/envs/test_vector.py``).

>>> import random
>>> mt = np.empty(624, np.uint32); pos = np.empty(2, np.int64)
>>> mt_seed(mt, pos, 2**40 + 7)
>>> mt_next32(mt, pos) == random.Random(2**40 + 7).getrandbits(32)
True
>>> g = np.random.Generator(np.random.PCG64(5)); r = pcg_state(g)
>>> [pcg_integers2(r), pcg_integers63(r)] == [int(x) for x in (lambda h: (h.integers(2),
...     h.integers(2**63)))(np.random.Generator(np.random.PCG64(5)))]
True
"""

from __future__ import annotations

from typing import Any

import llvmlite.binding  # type: ignore[import-untyped]
import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils as _cgutils
from numba.extending import intrinsic

import lostcities.fast.bits as bits_module
import lostcities.fast.rng as rng_module
import lostcities.netinput as L
from lostcities.fast import kernels as K
from lostcities.fast import smart as S
from lostcities.fast.bits import RANK_OF, lowest_bit
from lostcities.fast.kernels import (
    CNT,
    DECK,
    EMASK,
    HAND,
    KNOWN,
    MAXT,
    NCOL,
    NDECK,
    NPILE,
    OVER,
    PILE,
    PLY,
    TOP,
    TURN,
    WAG,
    apply,
    expedition_score,
    gen_legal,
    is_legal,
    playable,
    rollout_action,
    score,
)
from lostcities.fast.rng import mt_next32, mt_randbelow, mt_seed, mt_seed2, xorshift_below
from lostcities.fast.smart import smart_action_into

__all__ = [
    "LAYOUT_FIELDS",
    "NET_FEATURES",
    "POLICIES",
    "STEP_FIELDS",
    "WORK",
    "check_actions",
    "deal_cpython",
    "legal_count",
    "legal_nth",
    "mt_next32",
    "mt_seed",
    "net_features",
    "pcg_integers2",
    "pcg_integers63",
    "pcg_state",
    "sample_legal",
    "vec_net_finish",
    "vec_reset_rows",
    "vec_step",
]

POLICIES = {"random": 0, "rollout": 1, "smart": 2, "net": 3}
"""The built-in opponents stepped inside the compiled call, by number (``net``: the kernel
writes the opponent's network input and a second call makes the move the policy chose)."""
NET = 3

LAYOUT_FIELDS = (
    "hand",
    "own_expedition",
    "opponent_expedition",
    "discard_top",
    "discard_below",
    "opponent_known",
    "own_known",
    "unseen",
    "last_move_by_me",
    "last_move_kind",
    "last_move_card",
    "last_move_source",
    "deck_fraction",
    "own_score",
    "opponent_score",
    "on_move",
    "pending_draw",
    "capped",
    "turns_left",
)
"""The observation sections whose start offsets make the ``layout`` array (in this order),
followed by K (card kinds), the initial draw-pile size and S (draw sources)."""

NET_FEATURES = L.NUM_FEATURES
"""Length of :func:`net_features` (608, :data:`lostcities.nn.features.NUM_FEATURES`; the
layout: :mod:`lostcities.netinput`)."""

_NO_RC: dict[str, Any] = {"_nrt": False}  # no reference counting of arrays (see WORK)
_M32 = 0xFFFFFFFF
_DECK_COUNT = np.array([3 if x % 10 == 0 else 1 for x in range(60)], np.int64)
_SCRATCH = K.MAX_LEGAL + 256  # int64 scratch per worker: legal moves, seen counts, kinds
WORK = _SCRATCH + 624 + 2 + 72
"""int64 scratch a kernel call needs (the step kernels allocate nothing: numba's reference
counting of array views is switched off in this file's kernels, ``_nrt=False``, which
saves tens of nanoseconds per view passed to a function)."""

STEP_FIELDS = (
    "states",
    "actions",
    "to_index",
    "to_action",
    "seats",
    "last",
    "selfplay",
    "policy",
    "bot_mt",
    "bot_pos",
    "do_reset",
    "rngs",
    "seat_opt",
    "ncol",
    "max_turns",
    "margin_reward",
    "forfeit_reward",
    "lay",
    "obs",
    "mask",
    "rewards",
    "term",
    "trunc",
    "illegal",
    "scores",
    "player",
    "track",
    "need",
    "feats",
    "srng",
    "pre",
    "pobs",
    "pend",
    "shown",
)
"""What :func:`vec_step`'s ``game`` tuple holds, in order: the games' state rows, the actions,
the card tables, the opponent's settings and generators, the reward settings, then the
arrays the step writes (observations, masks, rewards, flags, scores, the network's input
and the self-play buffers)."""


# -- prefetching ------------------------------------------------------------------------------
_PREFETCH = (
    "llvm.prefetch.p0" if llvmlite.binding.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"
)
_LINE = 64  # bytes per cache line
cgutils: Any = _cgutils  # (untyped helpers)


def _prefetch_typer(typingctx: Any, arr: Any, row: Any, col: Any) -> Any:
    """Hint the CPU to fetch the cache line of ``arr[row, col]`` (a 2-D array) for writing;
    no effect on results. The step reads a game's rows in an order the hardware cannot
    guess (a move's pile, deck and hand cells): fetched a few games ahead, they arrive
    while the games in between are stepped."""
    sig = types.void(arr, row, col)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = [
            context.cast(builder, v, t, types.intp)
            for v, t in zip(args[1:], signature.args[1:], strict=True)
        ]
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, idx, wraparound=False)
        i32 = ir.IntType(32)
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32]), _PREFETCH
        )
        builder.call(fn, [i8p, i32(1), i32(3), i32(1)])  # for writing, keep in all caches, data
        return context.get_dummy_value()

    return sig, codegen


_prefetch: Any = intrinsic(_prefetch_typer)


@njit(cache=True, inline="always", **_NO_RC)
def _prefetch_row(arr: np.ndarray, g: int) -> None:
    """:func:`_prefetch` every cache line of row ``g`` of ``arr``."""
    step = _LINE // arr.itemsize
    last = arr.shape[1] - 1
    for j in range(0, last, step):
        _prefetch(arr, g, j)
    _prefetch(arr, g, last)  # (the row need not start on a line)


@njit(cache=True, inline="always", **_NO_RC)
def _prefetch_kinds(
    obs: np.ndarray, g: int, lay: np.ndarray, kinds: np.ndarray, lo: int, hi: int
) -> None:
    """:func:`_prefetch` the eight count cells of each card kind ``kinds[lo:hi]`` in
    observation row ``g`` (eight cache lines a kind), to be written a few moves later."""
    for i in range(lo, hi):
        x = kinds[i]
        for j in range(8):
            _prefetch(obs, g, lay[j] + x)


_AHEAD = 2
"""Games ahead of the one stepped whose rows are prefetched (1 to 4 measured the same)."""


# -- NumPy's PCG64 and Generator.integers, replayed -------------------------------------------
_U32 = np.uint64(0xFFFFFFFF)
_S1 = np.uint64(1)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S58 = np.uint64(58)
_S63 = np.uint64(63)
_S64 = np.uint64(64)
_PCG_MUL_HI = np.uint64(0x2360ED051FC65DA4)
_PCG_MUL_LO = np.uint64(0x4385DF649FCCF645)


def pcg_state(
    rng: np.random.Generator, out: npt.NDArray[np.uint64] | None = None
) -> npt.NDArray[np.uint64]:
    """A NumPy ``Generator`` over ``PCG64``'s state as 6 uint64 (state high, low, increment
    high, low, ``has_uint32``, ``uinteger``), for the kernels; written into ``out`` if given.

    :raises ValueError: for another bit generator.
    """
    st = rng.bit_generator.state
    if st.get("bit_generator") != "PCG64":
        raise ValueError(f"invalid generator: {st.get('bit_generator')!r} (expected PCG64)")
    r = np.empty(6, np.uint64) if out is None else out
    s, inc = int(st["state"]["state"]), int(st["state"]["inc"])
    r[:] = [
        s >> 64,
        s & (2**64 - 1),
        inc >> 64,
        inc & (2**64 - 1),
        st["has_uint32"],
        st["uinteger"],
    ]
    return r


@njit(cache=True, inline="always", **_NO_RC)
def _mulhi64(a: np.uint64, b: np.uint64) -> np.uint64:
    a0 = a & _U32
    a1 = a >> _S32
    b0 = b & _U32
    b1 = b >> _S32
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    mid = (p00 >> _S32) + (p01 & _U32) + (p10 & _U32)
    return a1 * b1 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32)


@njit(cache=True, **_NO_RC)
def _pcg_next64(r: np.ndarray) -> Any:
    hi = r[0]
    lo = r[1]
    nlo = lo * _PCG_MUL_LO
    nhi = _mulhi64(lo, _PCG_MUL_LO) + hi * _PCG_MUL_LO + lo * _PCG_MUL_HI
    lo2 = nlo + r[3]
    hi2 = nhi + r[2] + (_S1 if lo2 < nlo else np.uint64(0))
    r[0] = hi2
    r[1] = lo2
    x = hi2 ^ lo2
    rot = hi2 >> _S58
    return (x >> rot) | (x << ((_S64 - rot) & _S63))


@njit(cache=True, **_NO_RC)
def pcg_integers2(r: np.ndarray) -> int:
    """``Generator.integers(2)`` (Lemire's method on a buffered 32-bit draw)."""
    if r[4] != 0:
        r[4] = 0
        u = r[5]
    else:
        v = _pcg_next64(r)
        r[4] = 1
        r[5] = v >> _S32
        u = v & _U32
    return int(u >> _S31)


@njit(cache=True, **_NO_RC)
def pcg_integers63(r: np.ndarray) -> int:
    """``Generator.integers(2**63)`` (Lemire's method on a 64-bit draw: its top 63 bits)."""
    return int(_pcg_next64(r) >> _S1)


# -- deals -------------------------------------------------------------------------------------
@njit(cache=True, **_NO_RC)
def _deal_seeded(
    s: np.ndarray,
    ncol: int,
    starter: int,
    max_turns: int,
    mt: np.ndarray,
    pos: np.ndarray,
    cards: np.ndarray,
) -> None:
    n = 12 * ncol
    for c in range(ncol):
        for j in range(12):
            cards[12 * c + j] = 10 * c + (0 if j < 3 else j - 2)
    for i in range(n - 1, 0, -1):  # random.shuffle
        j = mt_randbelow(mt, pos, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    s[:] = 0
    for i in range(16):
        s[HAND + i] = cards[i]
    nd = n - 16
    for i in range(nd):
        s[DECK + i] = cards[n - 1 - i]
    s[NDECK] = nd
    s[TURN] = starter
    s[MAXT] = max_turns
    s[NCOL] = ncol


@njit(cache=True, **_NO_RC)
def deal_cpython(
    s: np.ndarray,
    ncol: int,
    seed: int,
    starter: int,
    max_turns: int,
    mt: np.ndarray,
    pos: np.ndarray,
    cards: np.ndarray,
) -> None:
    """``s`` = ``Round.deal(seed, variant, starter, max_turns=...)``'s position (``mt``,
    ``pos``, ``cards``: scratch of 624, 2 and 72 integers)."""
    mt_seed(mt, pos, seed)
    _deal_seeded(s, ncol, starter, max_turns, mt, pos, cards)


_POPCOUNT6 = np.array([bin(i).count("1") for i in range(64)], np.int64)


@njit(cache=True, inline="always", **_NO_RC)
def _hand_bits(s: np.ndarray, me: int) -> int:
    h = 0
    for i in range(8):
        h |= 1 << s[HAND + 8 * me + i]
    return h


@njit(cache=True, inline="always", **_NO_RC)
def _sources(s: np.ndarray) -> int:
    srcs = 0
    for col in range(s[NCOL]):
        if s[NPILE + col] > 0:
            srcs |= 1 << col
    return srcs


# -- the opponents ------------------------------------------------------------------------------
@njit(cache=True, inline="always", **_NO_RC)
def _popcount(m: int) -> int:
    n = 0
    while m:  # (LLVM makes this one instruction)
        m &= m - 1
        n += 1
    return n


@njit(cache=True, inline="always", **_NO_RC)
def _legal_sets(s: np.ndarray) -> tuple[int, int, int, int]:
    """The mover's playable hand kinds and hand kinds (bitsets), the draw sources, and the
    number of distinct legal moves."""
    p = s[TURN]
    srcs = _sources(s)
    ns = _POPCOUNT6[srcs]
    hand = _hand_bits(s, p)
    play = 0
    blocked = 0  # hand kinds whose own colour's pile has cards (not drawn after its discard)
    m = hand
    while m:
        x = lowest_bit(m)
        m &= m - 1
        c = x // 10
        if playable(RANK_OF[x], s[TOP + 6 * p + c]):
            play |= 1 << x
        blocked += (srcs >> c) & 1
    n = (_popcount(play) + _popcount(hand)) * (1 + ns) - blocked
    return play, hand, srcs, n


@njit(cache=True, inline="always", **_NO_RC)
def _legal_pick(play: int, hand: int, srcs: int, r: int) -> int:
    """The ``r``-th move of :func:`_legal_sets`' moves in :func:`gen_legal`'s order."""
    per = 1 + _POPCOUNT6[srcs]
    nplay = _popcount(play) * per
    if r < nplay:
        m = play
        while r >= per:  # (no division: numba's floor division branches on the signs)
            r -= per
            m &= m - 1
        x = lowest_bit(m)
        sm = srcs
        base = x * 7
    else:
        r -= nplay
        m = hand
        x = lowest_bit(m)
        sm = srcs & ~(1 << (x // 10))
        cnt = 1 + _POPCOUNT6[sm]
        while r >= cnt:
            r -= cnt
            m &= m - 1
            x = lowest_bit(m)
            sm = srcs & ~(1 << (x // 10))
            cnt = 1 + _POPCOUNT6[sm]
        base = (60 + x) * 7
    draw = 0
    while r > 0:
        draw = lowest_bit(sm) + 1
        sm &= sm - 1
        r -= 1
    return int(base + draw)


@njit(cache=True, **_NO_RC)
def legal_count(s: np.ndarray) -> int:
    """How many distinct legal moves the player to move has (:func:`gen_legal`'s count,
    from the hand's kinds and the draw sources, without listing them)."""
    return int(_legal_sets(s)[3])


@njit(cache=True, **_NO_RC)
def legal_nth(s: np.ndarray, r: int) -> int:
    """The ``r``-th distinct legal move in :func:`gen_legal`'s order (the core's)."""
    play, hand, srcs, _ = _legal_sets(s)
    return int(_legal_pick(play, hand, srcs, r))


@njit(cache=True, inline="always", **_NO_RC)
def _bot_action(
    s: np.ndarray, policy: int, mt: np.ndarray, pos: np.ndarray, buf: np.ndarray
) -> int:
    if policy == 0:
        play, hand, srcs, n = _legal_sets(s)
        return int(_legal_pick(play, hand, srcs, mt_randbelow(mt, pos, n)))
    if policy == 1:
        return int(rollout_action(s))
    return int(smart_action_into(s, buf[192:224]))  # a part of the scratch no caller holds


@njit(cache=True, **_NO_RC)
def net_features(s: np.ndarray, me: int, x: np.ndarray, buf: np.ndarray) -> None:
    """``x`` = :func:`lostcities.nn.features.features` of player ``me``'s view of ``s``
    (``buf``: int64 scratch of 120)."""
    x[:] = 0.0
    opp = 1 - me
    ncol = s[NCOL]
    hand = buf[:60]
    unseen = buf[60:120]
    hand[:] = 0
    for i in range(8):
        hand[s[HAND + 8 * me + i]] += 1
    for k in range(60):
        unseen[k] = _DECK_COUNT[k] - hand[k] - s[KNOWN + 60 * opp + k]
    own = 0
    theirs = 0
    for side in range(2):
        p = me if side == 0 else opp
        base = L.OWN_EXPEDITIONS if side == 0 else L.OPP_EXPEDITIONS
        for col in range(ncol):
            q = 6 * p + col
            n = s[CNT + q]
            if n == 0:
                continue
            w = s[WAG + q]
            sc = expedition_score(s, q)
            if side == 0:
                own += sc
            else:
                theirs += sc
            b = L.COLOUR + col * L.PER_COLOUR
            x[b + L.COLOUR_SCORE + side] = sc / 50.0
            x[b + L.COLOUR_TOP + side] = s[TOP + q] / 10.0
            x[b + L.COLOUR_WAGERS + side] = w / 3.0
            x[b + L.COLOUR_STARTED + side] = 1.0
            if w > 0:
                x[base + 10 * col] = w
                unseen[10 * col] -= w
            em = s[EMASK + q] >> 1
            k = 1
            while em:
                if em & 1:
                    x[base + 10 * col + k] = 1.0
                    unseen[10 * col + k] -= 1
                em >>= 1
                k += 1
    for col in range(ncol):
        n = s[NPILE + col]
        for i in range(n):
            c = s[PILE + 12 * col + i]
            x[L.DISCARDS + c] += 1.0
            unseen[c] -= 1
        if n > 0:
            x[L.DISCARD_TOPS + s[PILE + 12 * col + n - 1]] = 1.0
    known = 0
    for k in range(60):
        x[L.OPP_KNOWN + k] = s[KNOWN + 60 * opp + k]
        known += s[KNOWN + 60 * me + k]
    for col in range(ncol):
        top_me = s[TOP + 6 * me + col]
        top_opp = s[TOP + 6 * opp + col]
        hsum = 0
        usum = 0
        for k in range(10 * col, 10 * col + 10):
            r = RANK_OF[k]
            if hand[k]:
                x[L.HAND + k] = hand[k]
                if playable(r, top_me):
                    x[L.PLAYABLE + k] = hand[k]
                    hsum += r * hand[k]
            if unseen[k]:
                x[L.UNSEEN + k] = unseen[k]
                if playable(r, top_me):
                    usum += r * unseen[k]
                if playable(r, top_opp):
                    x[L.OPP_PLAYABLE + k] = unseen[k]
        b = L.COLOUR + col * L.PER_COLOUR
        x[b + L.COLOUR_HAND_SUM] = hsum / 50.0
        x[b + L.COLOUR_UNSEEN_SUM] = usum / 50.0
        n = s[NPILE + col]
        if n > 0:
            t = s[PILE + 12 * col + n - 1]
            if playable(RANK_OF[t], top_opp):
                x[L.OPP_PLAYABLE + t] += 1.0
    deck = s[NDECK]
    g = L.GLOBAL
    x[g + L.GLOBAL_DECK] = deck / 50.0
    x[g + L.GLOBAL_TURNS_LEFT] = ((deck + 1) // 2) / 25.0
    x[g + L.GLOBAL_OWN_TOTAL] = own / 100.0
    x[g + L.GLOBAL_OPP_TOTAL] = theirs / 100.0
    x[g + L.GLOBAL_MARGIN] = (own - theirs) / 100.0
    x[g + L.GLOBAL_OWN_KNOWN] = known / 8.0
    x[g + L.GLOBAL_LONG] = 1.0 if ncol == 6 else 0.0
    x[g + L.GLOBAL_PLY] = s[PLY] / 100.0


@njit(cache=True, **_NO_RC)
def _net_choice(s: np.ndarray, logits: np.ndarray, buf: np.ndarray) -> int:
    """The legal move of the highest probability under ``logits`` (over the 840 moves), the
    first of equals in the core's order, as :class:`lostcities.bots.net.NetBot` picks."""
    n = gen_legal(s, buf, False)
    top = -np.inf
    for j in range(n):
        v = logits[buf[j]]
        if v > top:
            top = v
    total = 0.0
    for j in range(n):
        total += np.exp(logits[buf[j]] - top)
    best = 0
    best_p = -1.0
    for j in range(n):
        p = np.exp(logits[buf[j]] - top) / total
        if p > best_p:
            best_p = p
            best = j
    return int(buf[best])


# -- observations and masks ----------------------------------------------------------------------
@njit(cache=True, **_NO_RC)
def _write(
    s: np.ndarray,
    me: int,
    last: int,
    lay: np.ndarray,
    to_action: np.ndarray,
    o: np.ndarray,
    m: np.ndarray,
    buf: np.ndarray,
    scores: np.ndarray,
    track: np.ndarray,
) -> None:
    """The whole observation ``o`` and action mask ``m`` of player ``me``; ``scores`` =
    (own, opponent); ``track`` = (the kinds whose mask rows are set, the draw sources) for
    :func:`_update`. ``buf``: scratch of at least 2 x 60 + 128 int64."""
    o[:] = 0.0
    m[:] = 0
    ncol = s[NCOL]
    opp = 1 - me
    seen = buf[128:188]  # per kind: the cards this player can place
    seen[:] = 0
    for i in range(8):
        x = s[HAND + 8 * me + i]
        o[lay[0] + x] += 1.0
        seen[x] += 1
    for side in range(2):
        p = me if side == 0 else opp
        off = lay[1 + side]
        for c in range(ncol):
            q = 6 * p + c
            if s[CNT + q] > 0:
                w = s[WAG + q]
                o[off + 10 * c] = w
                seen[10 * c] += w
                em = s[EMASK + q] >> 1
                k = 1
                while em:
                    if em & 1:
                        o[off + 10 * c + k] = 1.0
                        seen[10 * c + k] += 1
                    em >>= 1
                    k += 1
    for c in range(ncol):
        n = s[NPILE + c]
        if n > 0:
            x = s[PILE + 12 * c + n - 1]
            o[lay[3] + x] += 1.0
            seen[x] += 1
            for i in range(n - 1):
                x = s[PILE + 12 * c + i]
                o[lay[4] + x] += 1.0
                seen[x] += 1
    kinds = 10 * ncol
    for x in range(kinds):
        ko = s[KNOWN + 60 * opp + x]
        o[lay[5] + x] = ko
        o[lay[6] + x] = s[KNOWN + 60 * me + x]
        o[lay[7] + x] = _DECK_COUNT[x] - seen[x] - ko
    _scalars(s, me, -1, last, lay, o, scores)
    on_move = s[OVER] == 0 and s[TURN] == me
    if on_move:
        n = gen_legal(s, buf, False)
        for j in range(n):
            m[to_action[buf[j]]] = 1
    track[0] = _hand_bits(s, me) if on_move else 0
    track[1] = _sources(s)


@njit(cache=True, inline="always", **_NO_RC)
def _scalars(
    s: np.ndarray,
    me: int,
    old: int,
    last: int,
    lay: np.ndarray,
    o: np.ndarray,
    scores: np.ndarray,
) -> None:
    """The last-move and scalar entries (``old``: the last move the row shows, -1 none)."""
    if old >= 0:
        o[lay[9] + (1 if old >= 420 else 0)] = 0.0
        o[lay[10] + (old // 7) % 60] = 0.0
        o[lay[11] + old % 7] = 0.0
    over = s[OVER] != 0
    if last >= 0:
        by_me = (s[TURN] == me) == over
        o[lay[8]] = 1.0 if by_me else 0.0
        o[lay[9] + (1 if last >= 420 else 0)] = 1.0
        o[lay[10] + (last // 7) % 60] = 1.0
        o[lay[11] + last % 7] = 1.0
    o[lay[12]] = s[NDECK] / lay[20]
    own = score(s, me)
    theirs = score(s, 1 - me)
    scores[0] = own
    scores[1] = theirs
    o[lay[13]] = own / 100.0
    o[lay[14]] = theirs / 100.0
    o[lay[15]] = 1.0 if (not over and s[TURN] == me) else 0.0
    if s[MAXT] > 0:
        o[lay[17]] = 1.0
        o[lay[18]] = max(s[MAXT] - s[PLY], 0) / s[MAXT]


@njit(cache=True, inline="always", **_NO_RC)
def _touch(s: np.ndarray, a: int, me: int, kinds: np.ndarray, nk: int) -> int:
    """Before move ``a``: append the card kinds whose observation cells (for ``me``) it may
    change to ``kinds[nk:]``; the new count."""
    draw = a % 7
    x = a // 7
    discard = x >= 60
    kind = x - 60 if discard else x
    kinds[nk] = kind
    nk += 1
    if discard:
        c = kind // 10
        n = s[NPILE + c]
        if n > 0:  # the top it covers
            kinds[nk] = s[PILE + 12 * c + n - 1]
            nk += 1
    if draw == 0:
        if s[TURN] == me:  # the card drawn: seen now
            kinds[nk] = s[DECK + s[NDECK] - 1]
            nk += 1
    else:
        col = draw - 1
        n = s[NPILE + col]
        kinds[nk] = s[PILE + 12 * col + n - 1]
        nk += 1
        if n > 1:  # the card it uncovers
            kinds[nk] = s[PILE + 12 * col + n - 2]
            nk += 1
    return nk


@njit(cache=True, inline="always", **_NO_RC)
def _obs_kind(s: np.ndarray, me: int, x: int, lay: np.ndarray, o: np.ndarray) -> None:
    """The eight count cells of card kind ``x`` (hand .. unseen) from the state."""
    opp = 1 - me
    c = x // 10
    k = x % 10
    h = 0
    for i in range(8):
        if s[HAND + 8 * me + i] == x:
            h += 1
    q = 6 * me + c
    r = 6 * opp + c
    oe = s[WAG + q] if k == 0 else (s[EMASK + q] >> k) & 1
    pe = s[WAG + r] if k == 0 else (s[EMASK + r] >> k) & 1
    n = s[NPILE + c]
    base = PILE + 12 * c
    count = 0  # branch-free: pile slots past its end are compared and not counted
    for i in range(12):
        count += 1 if (s[base + i] == x) & (i < n) else 0
    top = 1 if (s[base + n - 1] == x) & (n > 0) else 0  # (n = 0 reads the slot before)
    below = count - top
    ko = s[KNOWN + 60 * opp + x]
    o[lay[0] + x] = h
    o[lay[1] + x] = oe
    o[lay[2] + x] = pe
    o[lay[3] + x] = top
    o[lay[4] + x] = below
    o[lay[5] + x] = ko
    o[lay[6] + x] = s[KNOWN + 60 * me + x]
    o[lay[7] + x] = _DECK_COUNT[x] - h - oe - pe - top - below - ko


@njit(cache=True, inline="always", **_NO_RC)
def _update(
    s: np.ndarray,
    me: int,
    old: int,
    last: int,
    kinds: np.ndarray,
    nk: int,
    dirty: int,
    lay: np.ndarray,
    o: np.ndarray,
    m: np.ndarray,
    scores: np.ndarray,
    track: np.ndarray,
) -> None:
    """Bring a running round's row up to date after moves that touched ``kinds[:nk]`` (and
    ``me``'s playable cards of the colours in ``dirty``, a kind bitset)."""
    done = 0
    for i in range(nk):
        x = kinds[i]
        if not (done >> x) & 1:
            done |= 1 << x
            _obs_kind(s, me, x, lay, o)
    _scalars(s, me, old, last, lay, o, scores)
    kk = lay[19]
    ns = lay[21]
    on_move = s[OVER] == 0 and s[TURN] == me
    hand = _hand_bits(s, me) if on_move else 0
    srcs = _sources(s)
    before = track[0]
    redo = (before ^ hand) | (dirty & hand)
    diff = srcs ^ track[1]
    keep = hand & ~redo  # rows right but for the draw sources that came or went
    while diff and keep:
        x = lowest_bit(keep)
        keep &= keep - 1
        r0 = x * ns
        r1 = (kk + x) * ns
        c = x // 10
        play = m[r0]  # (set exactly when the kind is playable)
        d = diff
        while d:
            col = lowest_bit(d)
            d &= d - 1
            bit = (srcs >> col) & 1
            if play:
                m[r0 + 1 + col] = bit
            if col != c:
                m[r1 + 1 + col] = bit
    while redo:
        x = lowest_bit(redo)
        redo &= redo - 1
        r0 = x * ns
        r1 = (kk + x) * ns
        if (hand >> x) & 1:
            c = x // 10
            if playable(RANK_OF[x], s[TOP + 6 * me + c]):
                m[r0] = 1
                for col in range(ns - 1):
                    m[r0 + 1 + col] = (srcs >> col) & 1
            else:
                for j in range(ns):
                    m[r0 + j] = 0
            m[r1] = 1
            for col in range(ns - 1):
                m[r1 + 1 + col] = 0 if col == c else (srcs >> col) & 1
        else:
            for j in range(ns):
                m[r0 + j] = 0
                m[r1 + j] = 0
    track[0] = hand
    track[1] = srcs


_ALL_KINDS = (1 << 60) - 1


@njit(cache=True, **_NO_RC)
def _write_both(
    s: np.ndarray,
    g: int,
    last: int,
    lay: np.ndarray,
    to_action: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    buf: np.ndarray,
    scores: np.ndarray,
    track: np.ndarray,
    pobs: np.ndarray,
    pend: np.ndarray,
    shown: np.ndarray,
) -> None:
    """Self-play: both players' rows written whole (``pobs[g]``), the one to move copied to
    the output; nothing pending for either."""
    p = s[TURN]
    q = 1 - p  # first: the mask, scores and track of the player to move stay
    _write(s, q, last, lay, to_action, pobs[g, q], mask[g], buf, scores, track)
    _write(s, p, last, lay, to_action, pobs[g, p], mask[g], buf, scores, track)
    shown[g, 0] = last
    shown[g, 1] = last
    pend[g, 0, 8] = 0
    pend[g, 1, 8] = 0
    for j in range(obs.shape[1]):
        obs[g, j] = pobs[g, p, j]


# -- one env ----------------------------------------------------------------------------------------
@njit(cache=True, **_NO_RC)
def _reset_one(
    s: np.ndarray,
    g: int,
    selfplay: bool,
    policy: int,
    seats: np.ndarray,
    last: np.ndarray,
    bot_mt: np.ndarray,
    bot_pos: np.ndarray,
    rngs: np.ndarray,
    seat_opt: int,
    starter_opt: int,
    ncol: int,
    max_turns: int,
    mt: np.ndarray,
    pos: np.ndarray,
    cards: np.ndarray,
    buf: np.ndarray,
) -> bool:
    """Deal env ``g`` anew from its generator (as ``LostCitiesEnv.reset`` draws: seat,
    starter, deal seed, bot seed) and let the opponent move first; True if it is the
    ``net`` opponent's move (to be made by :func:`vec_net_finish`)."""
    r = rngs[g]
    if not selfplay:
        seats[g] = pcg_integers2(r) if seat_opt < 0 else seat_opt
    starter = pcg_integers2(r) if starter_opt < 0 else starter_opt
    deal_seed = pcg_integers63(r)
    last[g] = -1
    if selfplay:
        mt_seed(mt, pos, deal_seed)
    else:
        bot_seed = pcg_integers63(r)
        if policy == 0:
            mt_seed2(mt, pos, deal_seed, bot_mt[g], bot_pos[g], bot_seed)
        else:
            mt_seed(mt, pos, deal_seed)
    _deal_seeded(s, ncol, starter, max_turns, mt, pos, cards)
    if selfplay:
        return False
    while s[OVER] == 0 and s[TURN] != seats[g]:
        if policy == NET:
            return True
        a = _bot_action(s, policy, bot_mt[g], bot_pos[g], buf)
        apply(s, a)
        last[g] = a
    return False


@njit(cache=True, inline="always", **_NO_RC)
def _result(
    s: np.ndarray,
    me: int,
    g: int,
    margin_reward: bool,
    rewards: np.ndarray,
    term: np.ndarray,
    trunc: np.ndarray,
) -> None:
    if s[OVER] == K.OVER_TURN_LIMIT:
        trunc[g] = True
    else:
        term[g] = True
    d = score(s, me) - score(s, 1 - me)
    if margin_reward:
        rewards[g] = d
    else:
        rewards[g] = 1.0 if d > 0 else -1.0 if d < 0 else 0.0


@njit(cache=True, **_NO_RC)
def _step_range(lo: int, hi: int, game: tuple[Any, ...], work: np.ndarray) -> None:
    """:func:`vec_step` of games ``lo`` to ``hi - 1`` (``work``: this thread's scratch)."""
    (
        states,
        actions,
        to_index,
        to_action,
        seats,
        last,
        selfplay,
        policy,
        bot_mt,
        bot_pos,
        do_reset,
        rngs,
        seat_opt,
        ncol,
        max_turns,
        margin_reward,
        forfeit_reward,
        lay,
        obs,
        mask,
        rewards,
        term,
        trunc,
        illegal,
        scores,
        player,
        track,
        need,
        feats,
        srng,
        pre,
        pobs,
        pend,
        shown,
    ) = game
    presample = pre.shape[0] == states.shape[0]
    buf = work[:_SCRATCH]
    kinds = buf[_SCRATCH - 32 :]
    mt = work[_SCRATCH : _SCRATCH + 624]
    pos = work[_SCRATCH + 624 : _SCRATCH + 626]
    cards = work[_SCRATCH + 626 : WORK]
    random_bot = bot_mt.shape[1] == 624
    for g in range(lo, hi):
        h = g + _AHEAD
        if h < hi:  # the next games' state and mask rows and the random bot's next word
            _prefetch_row(states, h)
            _prefetch_row(mask, h)
            if random_bot:
                _prefetch(bot_mt, h, bot_pos[h, 0] % 624)
            if selfplay:
                _prefetch_row(pobs[h], 0)
                _prefetch_row(pobs[h], 1)
        s = states[g]
        rewards[g] = 0.0
        term[g] = False
        trunc[g] = False
        illegal[g] = False
        need[g] = False
        whole = True
        if do_reset[g]:
            if _reset_one(
                s,
                g,
                selfplay,
                policy,
                seats,
                last,
                bot_mt,
                bot_pos,
                rngs,
                seat_opt,
                -1,
                ncol,
                max_turns,
                mt,
                pos,
                cards,
                buf,
            ):
                need[g] = True
                net_features(s, 1 - seats[g], feats[g], buf)
                continue
            if selfplay:
                player[g] = s[TURN]
                _write_both(
                    s,
                    g,
                    last[g],
                    lay,
                    to_action,
                    obs,
                    mask,
                    buf,
                    scores[g],
                    track[g],
                    pobs,
                    pend,
                    shown,
                )
                whole = False
        elif s[OVER] == 0:
            me = s[TURN] if selfplay else seats[g]
            a = to_index[actions[g]]
            if not is_legal(s, a):
                s[OVER] = K.OVER_FORFEIT
                illegal[g] = True
                term[g] = True
                rewards[g] = forfeit_reward
            else:
                old = last[g]
                other = 1 - me
                if selfplay:  # the next player's row: its pending kinds and this move's
                    nk = pend[g, other, 8]
                    for i in range(nk):
                        kinds[i] = pend[g, other, i]
                    nk = _touch(s, a, other, kinds, nk)
                    pend[g, me, 8] = _touch(s, a, me, pend[g, me], 0)
                    dirty = _ALL_KINDS  # the mask changes hands: every row
                else:
                    nk = _touch(s, a, me, kinds, 0)
                    _prefetch_kinds(obs, g, lay, kinds, 0, nk)
                    dirty = 0x3FF << (10 * (a // 70)) if a < 420 else 0  # a play: its colour
                apply(s, a)
                last[g] = a
                if not selfplay:
                    while s[OVER] == 0 and s[TURN] != me:
                        if policy == NET:
                            break
                        b = _bot_action(s, policy, bot_mt[g], bot_pos[g], buf)
                        n0 = nk
                        nk = _touch(s, b, me, kinds, nk)
                        _prefetch_kinds(obs, g, lay, kinds, n0, nk)
                        apply(s, b)
                        last[g] = b
                    if policy == NET and s[OVER] == 0 and s[TURN] != me:
                        need[g] = True
                        net_features(s, 1 - me, feats[g], buf)
                        continue
                if s[OVER] != 0:
                    _result(s, me, g, margin_reward, rewards, term, trunc)
                elif selfplay:
                    _update(
                        s,
                        other,
                        shown[g, other],
                        a,
                        kinds,
                        nk,
                        dirty,
                        lay,
                        pobs[g, other],
                        mask[g],
                        scores[g],
                        track[g],
                    )
                    shown[g, other] = a
                    pend[g, other, 8] = 0
                    for j in range(obs.shape[1]):
                        obs[g, j] = pobs[g, other, j]
                    player[g] = other
                    whole = False
                else:
                    _update(
                        s,
                        me,
                        old,
                        last[g],
                        kinds,
                        nk,
                        dirty,
                        lay,
                        obs[g],
                        mask[g],
                        scores[g],
                        track[g],
                    )
                    player[g] = me
                    whole = False
        if whole:
            p = s[TURN] if selfplay else seats[g]
            player[g] = p
            _write(s, p, last[g], lay, to_action, obs[g], mask[g], buf, scores[g], track[g])
        if presample:
            pre[g] = _sample_one(s, to_action, srng[g])


@njit(cache=True, **_NO_RC)
def vec_step(game: tuple[Any, ...], work: np.ndarray) -> None:
    """One step of every game, on one thread (``game``: the games' arrays and settings, in the
    order of :data:`STEP_FIELDS`; ``work``: :data:`WORK` int64 of scratch): games with ``do_reset`` are dealt anew (their
    action ignored: next-step autoreset; ``seat_opt`` < 0 draws the seat), the others make
    their action (an illegal one forfeits the round), then the opponent replies until the
    agent is to move (not in ``selfplay``). Writes each game's reward, termination,
    truncation, illegal flag, scores (own, opponent), the player observed, and its
    observation and action mask. With the ``net`` opponent, a game where it is to move
    gets ``need`` set and its network input in ``feats`` instead (:func:`vec_net_finish`).
    With ``pre`` of one entry per game, ``pre[g]`` = :func:`sample_legal`'s draw for the new
    position (made here, while the game is in cache)."""
    _step_range(0, game[0].shape[0], game, work)


@njit(cache=True, parallel=True)
def vec_step_parallel(game: tuple[Any, ...], chunks: int) -> None:
    """:func:`vec_step` over numba's threads, the batch cut into ``chunks`` (each chunk with
    scratch of its own)."""
    n = game[0].shape[0]
    for ch in prange(chunks):
        mine = np.empty(WORK, np.int64)
        _step_range(ch * n // chunks, (ch + 1) * n // chunks, game, mine)


@njit(cache=True, **_NO_RC)
def vec_net_finish(
    states: np.ndarray,
    rows: np.ndarray,
    logits: np.ndarray,
    to_action: np.ndarray,
    seats: np.ndarray,
    last: np.ndarray,
    margin_reward: bool,
    lay: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    rewards: np.ndarray,
    term: np.ndarray,
    trunc: np.ndarray,
    scores: np.ndarray,
    player: np.ndarray,
    track: np.ndarray,
    srng: np.ndarray,
    pre: np.ndarray,
    work: np.ndarray,
) -> None:
    """The ``net`` opponent's moves in games ``rows`` (``logits[i]``: its policy over the
    840 moves in game ``rows[i]``), then their results, observations and masks."""
    buf = work[:_SCRATCH]
    for i in range(rows.shape[0]):
        g = rows[i]
        s = states[g]
        me = seats[g]
        b = _net_choice(s, logits[i], buf)
        apply(s, b)
        last[g] = b
        if s[OVER] != 0:
            _result(s, me, g, margin_reward, rewards, term, trunc)
        player[g] = me
        _write(s, me, b, lay, to_action, obs[g], mask[g], buf, scores[g], track[g])
        if pre.shape[0] == states.shape[0]:
            pre[g] = _sample_one(s, to_action, srng[g])


@njit(cache=True, **_NO_RC)
def check_actions(
    states: np.ndarray,
    actions: np.ndarray,
    skip: np.ndarray,
    num_actions: int,
    to_index: np.ndarray,
    legal_too: bool,
) -> int:
    """The first game (not in ``skip``, still running) whose action is out of range, or
    illegal when ``legal_too``, as ``g`` (out of range) or ``-2 - g`` (illegal); -1 if none."""
    for g in range(states.shape[0]):
        if skip[g] or states[g, OVER] != 0:
            continue
        a = actions[g]
        if a < 0 or a >= num_actions:
            return g
        if legal_too and not is_legal(states[g], to_index[a]):
            return -2 - g
    return -1


@njit(cache=True, **_NO_RC)
def vec_reset_rows(
    states: np.ndarray,
    rows: np.ndarray,
    to_action: np.ndarray,
    seats: np.ndarray,
    last: np.ndarray,
    selfplay: bool,
    policy: int,
    bot_mt: np.ndarray,
    bot_pos: np.ndarray,
    rngs: np.ndarray,
    seat_opt: int,
    starter_opt: int,
    ncol: int,
    max_turns: int,
    lay: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    scores: np.ndarray,
    player: np.ndarray,
    track: np.ndarray,
    need: np.ndarray,
    feats: np.ndarray,
    srng: np.ndarray,
    pre: np.ndarray,
    pobs: np.ndarray,
    pend: np.ndarray,
    shown: np.ndarray,
    work: np.ndarray,
) -> None:
    """Deal the games ``rows`` anew (serially; ``seat_opt``, ``starter_opt`` < 0: drawn)
    and write their observations and masks (or, for the ``net`` opponent to move first,
    set ``need`` and its input)."""
    buf = work[:_SCRATCH]
    mt = work[_SCRATCH : _SCRATCH + 624]
    pos = work[_SCRATCH + 624 : _SCRATCH + 626]
    cards = work[_SCRATCH + 626 : WORK]
    for i in range(rows.shape[0]):
        g = rows[i]
        s = states[g]
        if _reset_one(
            s,
            g,
            selfplay,
            policy,
            seats,
            last,
            bot_mt,
            bot_pos,
            rngs,
            seat_opt,
            starter_opt,
            ncol,
            max_turns,
            mt,
            pos,
            cards,
            buf,
        ):
            need[g] = True
            net_features(s, 1 - seats[g], feats[g], buf)
            continue
        p = s[TURN] if selfplay else seats[g]
        player[g] = p
        if selfplay:
            _write_both(
                s,
                g,
                last[g],
                lay,
                to_action,
                obs,
                mask,
                buf,
                scores[g],
                track[g],
                pobs,
                pend,
                shown,
            )
        else:
            _write(s, p, last[g], lay, to_action, obs[g], mask[g], buf, scores[g], track[g])
        if pre.shape[0] == states.shape[0]:
            pre[g] = _sample_one(s, to_action, srng[g])


@njit(cache=True, inline="always", **_NO_RC)
def _sample_one(s: np.ndarray, to_action: np.ndarray, rng: np.ndarray) -> int:
    if s[OVER] != 0:
        return 0
    play, hand, srcs, n = _legal_sets(s)
    return int(to_action[_legal_pick(play, hand, srcs, xorshift_below(rng, n))])


@njit(cache=True, **_NO_RC)
def sample_legal(
    states: np.ndarray, to_action: np.ndarray, rngs: np.ndarray, out: np.ndarray
) -> None:
    """``out[g]`` = a uniformly random legal action (an env action number, through
    ``to_action``) of the player to move in game ``g`` (0 when it is over), drawn from the
    game's xorshift128+ stream ``rngs[g]`` (two uint64, not both zero)."""
    for g in range(states.shape[0]):
        out[g] = _sample_one(states[g], to_action, rngs[g])


# -- numba's cache: this file inlines and calls kernels.py's, smart.py's, bits.py's and rng.py's code -------------
K.guard_cache(
    (
        _pcg_next64,
        pcg_integers2,
        pcg_integers63,
        _prefetch_row,
        _prefetch_kinds,
        _deal_seeded,
        deal_cpython,
        legal_count,
        legal_nth,
        _bot_action,
        net_features,
        _net_choice,
        _write,
        _scalars,
        _update,
        _write_both,
        _reset_one,
        _step_range,
        vec_step,
        vec_step_parallel,
        vec_net_finish,
        check_actions,
        vec_reset_rows,
        _sample_one,
        sample_legal,
    ),
    K.source_stamp(K, S, bits_module, rng_module, L),
    "vector.kernels",
)
