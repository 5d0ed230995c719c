"""numba kernels over a compact array state: the engine's fast path.

One game is a 1-D ``int32`` array of :data:`STATE_SIZE` numbers (a batch is a 2-D array,
one row per game). Cards are card *kinds*, :attr:`lostcities.Card.index` (``10 * colour +
k``, k = 0 for a wager, rank - 1 otherwise). Layout (``p`` = player 0/1, ``c`` = colour):

==================  =====  ==========================================================
field               size   meaning
==================  =====  ==========================================================
``TURN``            1      the player to move (after the end: the one who moved last)
``PLY``             1      moves made in the round
``OVER``            1      0 running, 1 draw pile empty, 2 turn limit, 3 forfeit
``MAXT``            1      the turn cap, 0 for none
``NCOL``            1      colours in play (5 classic, 6 long)
``NDECK``           1      cards in the draw pile
``NPILE + c``       6      discard pile sizes
``HAND + 8p + i``   16     hand slots (the core's hand order; a card replaces the one
                           played in its slot)
``TOP + 6p + c``    12     highest number card of the expedition (0: none)
``CNT + 6p + c``    12     its cards
``SUM + 6p + c``    12     sum of its number cards
``WAG + 6p + c``    12     its wagers
``EMASK + 6p + c``  12     bit ``k`` set when the card of kind-digit ``k`` (1..9 = rank
                           2..10) is in it; wagers come first, numbers ascend, so count,
                           wagers and mask give the expedition in play order
``KNOWN + 60p + x`` 120    how many cards of kind ``x`` player ``p`` is known to hold
                           (taken from a discard pile and not played or discarded since)
``DECK + i``        72     the draw pile, next card to draw at ``DECK + NDECK - 1``
``PILE + 12c + i``  72     discard pile ``c``, bottom first
==================  =====  ==========================================================

Slots past the ends of the draw pile and the discard piles hold 0, so equal positions have
equal arrays.

A move is a flat *action* index, the same key the core uses internally:
``action = (60 * discard + card_kind) * 7 + draw`` with ``discard`` 0 (play) or 1,
``draw`` 0 for the draw pile or ``1 + colour`` for that discard pile; 840 in all
(:data:`NUM_ACTIONS`). Kernels never raise: the Python wrappers check inputs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit, prange

import lostcities.fast.bits as bits_module
import lostcities.fast.rng as rng_module
from lostcities.fast.bits import RANK_OF, lowest_bit
from lostcities.fast.rng import xorshift_below
from lostcities.rules import NUM_MOVES
from lostcities.scoring import BONUS, BONUS_CARDS, COST

__all__ = [
    "NUM_ACTIONS",
    "STATE_SIZE",
    "expedition_score",
    "guard_cache",
    "playable",
    "score",
    "source_stamp",
]

# -- layout (fields used every turn first: a turn touches few cache lines of a row) --------
TURN = 0
PLY = 1
OVER = 2
MAXT = 3
NCOL = 4
NDECK = 5
NPILE = 6
HAND = 12
TOP = 28
CNT = 40
SUM = 52
WAG = 64
EMASK = 76
KNOWN = 88
DECK = 208
PILE = 280
STATE_SIZE = 352
"""Numbers per game state."""

NUM_ACTIONS = NUM_MOVES
"""Flat action indexes: 2 actions x 60 card kinds x 7 draw sources (an action is its
move's :attr:`lostcities.Move.index`)."""
MAX_LEGAL = 128
"""More than the most distinct legal moves a position can have (8 x 7 x 2 = 112)."""

OVER_RUNNING = 0
OVER_DRAW_PILE = 1
OVER_TURN_LIMIT = 2
OVER_FORFEIT = 3

_ONE = np.uint64(1)


# -- the rules ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def playable(rank: int, top: int) -> bool:
    """:func:`lostcities.rules.playable` compiled, the one copy of the rule in the fast path
    (``tests/fast`` checks the two agree on every rank and top): a card of ``rank`` (0 for a
    wager) may go onto an expedition whose highest number is ``top`` (0 for none)."""
    return rank > top if rank > 0 else top == 0


@njit(cache=True)
def gen_legal(s: np.ndarray, out: np.ndarray, as_mask: bool) -> int:
    """The distinct legal moves of the player to move, in the core's order (plays, then
    discards, card kinds ascending, draw pile first, then discard piles by colour).

    ``as_mask``: set ``out[action] = 1`` (``out`` cleared by the caller); else write the
    actions to ``out[0..n-1]``. Returns ``n``, the number of legal moves.
    """
    if s[OVER] != 0:
        return 0
    p = s[TURN]
    ncol = s[NCOL]
    hand = np.uint64(0)
    for i in range(8):
        hand |= _ONE << np.uint64(s[HAND + 8 * p + i])
    srcs = 0
    for col in range(ncol):
        if s[NPILE + col] > 0:
            srcs |= 1 << col
    n = 0
    for phase in range(2):
        m = hand
        while m:
            kind = lowest_bit(m)
            m &= m - _ONE
            c = kind // 10
            if phase == 0:
                top = s[TOP + 6 * p + c]
                rank = RANK_OF[kind]
                if not playable(rank, top):
                    continue
                sm = srcs
            else:
                sm = srcs & ~(1 << c)
            base = (60 * phase + kind) * 7
            if as_mask:
                out[base] = 1
            else:
                out[n] = base
            n += 1
            col = 0
            while sm:
                if sm & 1:
                    if as_mask:
                        out[base + 1 + col] = 1
                    else:
                        out[n] = base + 1 + col
                    n += 1
                sm >>= 1
                col += 1
    return n


@njit(cache=True)
def is_legal(s: np.ndarray, action: int) -> bool:
    """Whether flat ``action`` is legal for the player to move."""
    if s[OVER] != 0 or action < 0 or action >= NUM_ACTIONS:
        return False
    p = s[TURN]
    draw = action % 7
    x = action // 7
    discard = x >= 60
    kind = x - 60 if discard else x
    c = kind // 10
    if c >= s[NCOL]:
        return False
    held = False
    for i in range(8):
        if s[HAND + 8 * p + i] == kind:
            held = True
    if not held:
        return False
    if not discard:
        top = s[TOP + 6 * p + c]
        rank = RANK_OF[kind]
        if not playable(rank, top):
            return False
    if draw > 0:
        col = draw - 1
        if col >= s[NCOL] or s[NPILE + col] == 0 or (discard and col == c):
            return False
    return True


@njit(cache=True, inline="always")
def _lay(s: np.ndarray, o: int, kind: int) -> None:
    """Card ``kind`` joins expedition ``o`` (``6 * player + colour``): its wagers, or its top,
    sum and rank mask (the card count is the caller's)."""
    k = kind % 10
    if k == 0:
        s[WAG + o] += 1
    else:
        s[TOP + o] = k + 1
        s[SUM + o] += k + 1
        s[EMASK + o] |= 1 << k


@njit(cache=True)
def apply(s: np.ndarray, action: int) -> None:
    """Make a move known to be legal (unchecked), ending the round when it ends."""
    p = s[TURN]
    draw = action % 7
    x = action // 7
    discard = x >= 60
    kind = x - 60 if discard else x
    c = kind // 10
    slot = 0
    for i in range(8):
        if s[HAND + 8 * p + i] == kind:
            slot = i
            break
    if discard:
        n = s[NPILE + c]
        s[PILE + 12 * c + n] = kind
        s[NPILE + c] = n + 1
    else:
        o = 6 * p + c
        s[CNT + o] += 1
        _lay(s, o, kind)
    kn = KNOWN + 60 * p
    if s[kn + kind] > 0:
        s[kn + kind] -= 1
    if draw == 0:
        nd = s[NDECK] - 1
        drawn = s[DECK + nd]
        s[DECK + nd] = 0
        s[NDECK] = nd
    else:
        col = draw - 1
        n = s[NPILE + col] - 1
        drawn = s[PILE + 12 * col + n]
        s[PILE + 12 * col + n] = 0
        s[NPILE + col] = n
        s[kn + drawn] += 1
    s[HAND + 8 * p + slot] = drawn
    s[PLY] += 1
    if s[NDECK] == 0:
        s[OVER] = OVER_DRAW_PILE
    elif s[MAXT] > 0 and s[PLY] >= s[MAXT]:
        s[OVER] = OVER_TURN_LIMIT
    else:
        s[TURN] = p ^ 1


@njit(cache=True, inline="always")
def expedition_score(s: np.ndarray, o: int) -> int:
    """The points of expedition ``o`` (``6 * player + colour``; 0 when not started):
    :func:`lostcities.scoring.raw_score` with its constants (numba compiles them in),
    without branches (the terms are multiplied by whether it is started). The one copy of
    the scoring formula in the fast path."""
    n = s[CNT + o]
    started = 1 if n > 0 else 0
    bonus = BONUS if n >= BONUS_CARDS else 0
    return int(started * ((s[SUM + o] - COST) * (s[WAG + o] + 1)) + bonus)


@njit(cache=True, inline="always")
def score(s: np.ndarray, p: int) -> int:
    """Player ``p``'s points as the expeditions stand: :func:`expedition_score` summed."""
    total = 0
    for c in range(s[NCOL]):
        total += expedition_score(s, 6 * p + c)
    return total


@njit(cache=True)
def deal(s: np.ndarray, ncol: int, rng: np.ndarray, starter: int, max_turns: int) -> None:
    """A fresh round: shuffle the ``ncol``-colour deck with ``rng`` and deal 8 + 8."""
    s[:] = 0
    ncards = 12 * ncol
    for c in range(ncol):
        for j in range(12):
            s[DECK + 12 * c + j] = 10 * c + (0 if j < 3 else j - 2)
    for i in range(ncards - 1, 0, -1):
        j = xorshift_below(rng, i + 1)
        t = s[DECK + i]
        s[DECK + i] = s[DECK + j]
        s[DECK + j] = t
    nd = ncards
    for i in range(16):
        nd -= 1
        s[HAND + i] = s[DECK + nd]
        s[DECK + nd] = 0
    s[NDECK] = nd
    s[TURN] = starter
    s[MAXT] = max_turns
    s[NCOL] = ncol


# -- policies ----------------------------------------------------------------------------
@njit(cache=True)
def bench_action(s: np.ndarray, rng: np.ndarray) -> int:
    """The benchmark's uniform-random policy (that of the C reference): uniform over the
    hand's (card slot, play if legal | discard) actions, then uniform over the legal draw
    sources (the draw pile and every non-empty discard pile but the one just discarded onto).
    """
    p = s[TURN]
    na = 8
    for i in range(8):
        kind = s[HAND + 8 * p + i]
        top = s[TOP + 6 * p + kind // 10]
        rank = RANK_OF[kind]
        if playable(rank, top):
            na += 1
    j = xorshift_below(rng, na)
    x = 0
    for i in range(8):
        kind = s[HAND + 8 * p + i]
        top = s[TOP + 6 * p + kind // 10]
        rank = RANK_OF[kind]
        if playable(rank, top):
            if j == 0:
                x = kind
                break
            j -= 1
        if j == 0:
            x = 60 + kind
            break
        j -= 1
    c = (x % 60) // 10
    discard = x >= 60
    nsrc = 1
    for col in range(s[NCOL]):
        if s[NPILE + col] > 0 and not (discard and col == c):
            nsrc += 1
    j = xorshift_below(rng, nsrc)
    draw = 0
    if j > 0:
        for col in range(s[NCOL]):
            if s[NPILE + col] > 0 and not (discard and col == c):
                j -= 1
                if j == 0:
                    draw = col + 1
                    break
    return x * 7 + draw


@njit(cache=True)
def uniform_action(s: np.ndarray, rng: np.ndarray, buf: np.ndarray) -> Any:
    """Uniform over the distinct legal moves (``buf``: scratch of :data:`MAX_LEGAL`)."""
    n = gen_legal(s, buf, False)
    return buf[xorshift_below(rng, n)]


@njit(cache=True)
def rollout_action(s: np.ndarray) -> int:
    """The rollout policy of :mod:`lostcities.bots.rollout` (see its docstring)."""
    p = s[TURN]
    o = p ^ 1
    best = -1
    best_gap = 4
    for i in range(8):
        kind = s[HAND + 8 * p + i]
        k = kind % 10
        if k > 0:
            c = kind // 10
            if s[CNT + 6 * p + c] > 0:
                gap = k + 1 - s[TOP + 6 * p + c]
                if gap > 0 and (gap < best_gap or (gap == best_gap and kind < best)):
                    best = kind
                    best_gap = gap
    if best >= 0:
        return best * 7
    dead = -1
    safe = -1
    safe_rank = 99
    low = -1
    low_rank = 99
    for i in range(8):
        kind = s[HAND + 8 * p + i]
        c = kind // 10
        rank = RANK_OF[kind]
        otop = s[TOP + 6 * o + c]  # (loaded before the test: measured faster)
        if s[CNT + 6 * o + c] > 0 and playable(rank, otop):
            opp_can = True
        else:
            opp_can = False
        if not opp_can:
            top = s[TOP + 6 * p + c]
            if not playable(rank, top) and (dead < 0 or kind < dead):
                dead = kind
            if safe < 0 or rank < safe_rank or (rank == safe_rank and kind < safe):
                safe = kind
                safe_rank = rank
        if low < 0 or rank < low_rank or (rank == low_rank and kind < low):
            low = kind
            low_rank = rank
    choice = dead if dead >= 0 else safe if safe >= 0 else low
    return (60 + choice) * 7


@njit(cache=True)
def playout(s: np.ndarray) -> None:
    """Play ``s`` to its end with the rollout policy (in place)."""
    while s[OVER] == 0:
        apply(s, rollout_action(s))


@njit(cache=True)
def playout_scores(s: np.ndarray) -> tuple[int, int]:
    """Play ``s`` to its end with the rollout policy (in place); the final scores."""
    playout(s)
    return score(s, 0), score(s, 1)


@njit(cache=True)
def random_rounds(n: int, ncol: int, rng: np.ndarray) -> int:
    """Play ``n`` whole rounds under :func:`bench_action` on one core; total moves made."""
    s = np.zeros(STATE_SIZE, np.int32)
    turns = 0
    chk = 0
    for _ in range(n):
        deal(s, ncol, rng, 0, 0)
        while s[OVER] == 0:
            apply(s, bench_action(s, rng))
        turns += s[PLY]
        chk += score(s, 0) - score(s, 1)
    return turns + 0 * chk


# -- batches (parallel over games) -------------------------------------------------------
@njit(cache=True, parallel=True)
def batch_legal_mask(states: np.ndarray, mask: np.ndarray) -> None:
    """``mask[g, action]`` = whether ``action`` is legal in game ``g`` (False when over)."""
    for g in prange(states.shape[0]):
        mask[g, :] = 0
        gen_legal(states[g], mask[g], True)


@njit(cache=True)
def batch_check(states: np.ndarray, actions: np.ndarray) -> int:
    """The first running game whose action is illegal, or -1 (serial: ~20 ns a game, less
    than starting a parallel region)."""
    for g in range(states.shape[0]):
        if states[g, OVER] == 0 and not is_legal(states[g], actions[g]):
            return g
    return -1


@njit(cache=True)
def batch_deal_over(
    states: np.ndarray,
    rngs: np.ndarray,
    ncol: int,
    starter: int,
    max_turns: int,
    dealt: np.ndarray,
) -> None:
    """:func:`batch_deal` of the finished games only, serially (few games end per step)."""
    for g in range(states.shape[0]):
        if states[g, OVER] == 0:
            dealt[g] = 0
        else:
            st = starter if starter >= 0 else xorshift_below(rngs[g], 2)
            deal(states[g], ncol, rngs[g], st, max_turns)
            dealt[g] = 1


@njit(cache=True, parallel=True)
def batch_apply(states: np.ndarray, actions: np.ndarray, mask: np.ndarray) -> None:
    """Apply each running game's (checked) action; finished games are left alone. With a
    ``mask`` of one row per game, each stepped game's row is refreshed (while its state is
    in cache) to the legal moves of the new position; pass an empty array for none."""
    with_mask = mask.shape[0] == states.shape[0]
    for g in prange(states.shape[0]):
        if states[g, OVER] == 0:
            apply(states[g], actions[g])
            if with_mask:
                mask[g, :] = 0
                gen_legal(states[g], mask[g], True)


@njit(cache=True)
def mask_rows(states: np.ndarray, rows: np.ndarray, mask: np.ndarray) -> None:
    """Refresh the legal-move mask rows of the games ``rows`` (serially)."""
    for i in range(rows.shape[0]):
        g = rows[i]
        mask[g, :] = 0
        gen_legal(states[g], mask[g], True)


@njit(cache=True, parallel=True)
def batch_deal(
    states: np.ndarray, rngs: np.ndarray, ncol: int, starter: int, max_turns: int
) -> None:
    """Deal a fresh round in every game (``starter`` < 0: a random starter per game)."""
    for g in prange(states.shape[0]):
        st = starter if starter >= 0 else xorshift_below(rngs[g], 2)
        deal(states[g], ncol, rngs[g], st, max_turns)


@njit(cache=True, parallel=True)
def batch_scores(states: np.ndarray, out: np.ndarray) -> None:
    """``out[g] = (score 0, score 1)``."""
    for g in prange(states.shape[0]):
        out[g, 0] = score(states[g], 0)
        out[g, 1] = score(states[g], 1)


@njit(cache=True, parallel=True)
def batch_policy_actions(
    states: np.ndarray, rngs: np.ndarray, policy: int, out: np.ndarray
) -> None:
    """An action per running game (-1 for finished ones): policy 0 uniform over the distinct
    legal moves, 1 the benchmark policy, 2 the rollout policy."""
    for g in prange(states.shape[0]):
        s = states[g]
        if s[OVER] != 0:
            out[g] = -1
        elif policy == 0:
            buf = np.empty(MAX_LEGAL, np.int64)
            out[g] = uniform_action(s, rngs[g], buf)
        elif policy == 1:
            out[g] = bench_action(s, rngs[g])
        else:
            out[g] = rollout_action(s)


@njit(cache=True, parallel=True)
def batch_play_bench(
    states: np.ndarray, rngs: np.ndarray, turns: int, ncol: int, max_turns: int
) -> np.ndarray:
    """Each game makes ``turns`` moves under the benchmark policy, dealt anew whenever it
    ends; returns the rounds finished per game."""
    done = np.zeros(states.shape[0], np.int64)
    for g in prange(states.shape[0]):
        s = states[g]
        rng = rngs[g]
        for _ in range(turns):
            if s[OVER] != 0:
                done[g] += 1
                deal(s, ncol, rng, 0, max_turns)
            apply(s, bench_action(s, rng))
    return done


# -- loading a core round ------------------------------------------------------------------
@njit(cache=True)
def decode(
    cards: bytes,
    lens: bytes,
    ncol: int,
    turn: int,
    ply: int,
    over: int,
    maxt: int,
    s: np.ndarray,
) -> None:
    """Fill ``s`` from a round encoded as card kinds: ``lens`` gives the lengths of the
    sequences that follow each other in ``cards``: hand 0, hand 1, the draw pile (next card
    last), the ``ncol`` discard piles (bottom first), player 0's then player 1's ``ncol``
    expeditions (play order), player 0's then player 1's known cards."""
    s[:] = 0
    pos = 0
    for i in range(lens[0]):
        s[HAND + i] = cards[pos]
        pos += 1
    for i in range(lens[1]):
        s[HAND + 8 + i] = cards[pos]
        pos += 1
    nd = lens[2]
    for i in range(nd):
        s[DECK + i] = cards[pos]
        pos += 1
    s[NDECK] = nd
    for c in range(ncol):
        n = lens[3 + c]
        for i in range(n):
            s[PILE + 12 * c + i] = cards[pos]
            pos += 1
        s[NPILE + c] = n
    for p in range(2):
        for c in range(ncol):
            n = lens[3 + ncol + ncol * p + c]
            o = 6 * p + c
            s[CNT + o] = n
            for _ in range(n):
                _lay(s, o, cards[pos])
                pos += 1
    for p in range(2):
        for _ in range(lens[3 + 3 * ncol + p]):
            s[KNOWN + 60 * p + cards[pos]] += 1
            pos += 1
    s[TURN] = turn
    s[PLY] = ply
    s[OVER] = over
    s[MAXT] = maxt
    s[NCOL] = ncol


@njit(cache=True)
def playout_encoded(
    cards: bytes, lens: bytes, ncol: int, turn: int, ply: int, over: int, maxt: int
) -> tuple[int, int]:
    """:func:`decode` then :func:`playout_scores`: one call per rollout from a core round."""
    s = np.empty(STATE_SIZE, np.int32)
    decode(cards, lens, ncol, turn, ply, over, maxt, s)
    return playout_scores(s)


# -- flat Monte Carlo over determinizations (the kernels: lostcities.fast.smart) ------------
@njit(cache=True)
def deal_world(
    s: np.ndarray, template: np.ndarray, opp: int, first: int, cards: np.ndarray
) -> None:
    """``s`` = the template with the opponent's hand slots ``first..7`` filled from
    ``cards[:8 - first]`` and the draw pile from the rest, in order (the next card to draw
    is ``cards[-1]``)."""
    s[:] = template
    k = 0
    for i in range(first, 8):
        s[HAND + 8 * opp + i] = cards[k]
        k += 1
    for i in range(cards.shape[0] - k):
        s[DECK + i] = cards[k + i]


@njit(cache=True)
def playouts_after_encoded(
    cards: bytes,
    lens: bytes,
    ncol: int,
    turn: int,
    ply: int,
    over: int,
    maxt: int,
    actions: np.ndarray,
    out: np.ndarray,
) -> int:
    """For each action: a copy of the decoded round, the action made, then played out with the
    rollout policy; ``out[j]`` = the final scores. Returns the index of the first illegal
    action (nothing is played then), or -1."""
    s = np.empty(STATE_SIZE, np.int32)
    decode(cards, lens, ncol, turn, ply, over, maxt, s)
    for j in range(actions.shape[0]):
        if not is_legal(s, actions[j]):
            return j
    t = np.empty_like(s)
    for j in range(actions.shape[0]):
        t[:] = s
        apply(t, actions[j])
        playout(t)
        out[j, 0] = score(t, 0)
        out[j, 1] = score(t, 1)
    return -1


# -- numba's on-disk cache -------------------------------------------------------------------
SCORING_STAMP = f"cost {COST}, bonus {BONUS} from {BONUS_CARDS} cards"
"""What this file's compiled code takes from :mod:`lostcities.scoring` (compiled in)."""


def guard_cache(functions: Iterable[Any], stamp: str, name: str) -> None:
    """Drop the on-disk cached code of the numba ``functions`` unless it was compiled
    against ``stamp``, and record ``stamp`` (as ``name`` next to the cache).

    Numba keys a cached function on its own source file only: neither a constant it
    compiled in from another module (the scoring constants here) nor a function inlined
    from another file (``smart.py`` inlines this file's) makes it stale. Call this at
    import, before any of ``functions`` runs, with a stamp of what else they depend on.
    Public numba API only (``Dispatcher.stats``, ``Dispatcher.recompile``); nothing
    happens when caching is off or the cache cannot be written.
    """
    fns = list(functions)
    try:
        where = fns[0].stats.cache_path
    except (AttributeError, IndexError):  # pragma: no cover - NUMBA_DISABLE_JIT
        return
    if where is None:  # pragma: no cover - caching off
        return
    try:
        path = Path(where)
        mark = path / f"{name}.stamp"
        if mark.is_file() and mark.read_text() == stamp:
            return
        if path.is_dir():
            for fn in fns:  # before anything compiled: recompile() only empties the cache
                fn.recompile()
        else:  # nothing cached yet: what compiles now is compiled against this stamp
            os.makedirs(path, exist_ok=True)
        mark.write_text(stamp)
    except OSError:  # pragma: no cover - a read-only install: keep numba's own checks
        return


def source_stamp(*modules: ModuleType) -> str:
    """A stamp of the source files of ``modules`` (size and modification time of each) and
    of what this file takes from :mod:`lostcities.scoring`, for :func:`guard_cache`: the
    kernels of a file that compile in (inline or call) functions of ``modules`` pass it,
    so their cached code is dropped when one of those files changes."""
    parts = []
    for mod in modules:
        try:
            st = os.stat(str(mod.__file__))
        except OSError:  # pragma: no cover - no source file
            continue
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return "; ".join([*parts, SCORING_STAMP])


def _dispatchers() -> list[Any]:
    """This module's numba functions."""
    return [f for f in globals().values() if hasattr(f, "recompile") and hasattr(f, "py_func")]


guard_cache(_dispatchers(), SCORING_STAMP, "kernels.scoring")
# this file inlines the card tables, the lowest-bit trick and the xorshift generator
guard_cache(_dispatchers(), source_stamp(bits_module, rng_module), "kernels.sources")
