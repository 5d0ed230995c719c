"""Compiled kernels of the batched environment :mod:`lostcities.envs.vector`.

One call steps every game of a batch: the agent's action (checked: an illegal one forfeits),
the built-in opponent's replies, the reward, the autoreset deal, and the observation and
action mask written into preallocated rows, as :mod:`lostcities.envs.encoding` lays them
out (the layout is passed in as offsets, so the encoding stays the one source).

Deals replay the core's exactly: :func:`mt_seed` is CPython's ``random.seed`` of a whole
number (``init_by_array``) and :func:`deal_cpython` shuffles the sorted deck with
:func:`lostcities.fast.smart.mt_shuffle`, as :meth:`lostcities.Round.deal` does with
``random.Random(seed).shuffle``; the ``random`` opponent draws with ``randrange`` on its
own seeded generator, as :class:`lostcities.bots.random.RandomBot` does. So a batch is equal,
step for step, to Gymnasium's ``SyncVectorEnv`` over :class:`lostcities.envs.gymnasium.LostCitiesEnv`
(``tests/envs/test_vector.py``).

>>> import random
>>> mt = np.empty(624, np.int64); pos = np.empty(1, np.int64)
>>> mt_seed(mt, pos, 2**40 + 7)
>>> from lostcities.fast.smart import mt_next
>>> mt_next(mt, pos) == random.Random(2**40 + 7).getrandbits(32)
True
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit, prange

from lostcities.fast import kernels as K
from lostcities.fast import smart as S
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
    TURN,
    WAG,
    apply,
    gen_legal,
    is_legal,
    rollout_action,
    score,
)
from lostcities.fast.smart import mt_randbelow, mt_shuffle, smart_action

__all__ = [
    "LAYOUT_FIELDS",
    "POLICIES",
    "check_actions",
    "deal_cpython",
    "mt_seed",
    "sample_legal",
    "vec_reset_rows",
    "vec_step",
]

POLICIES = {"random": 0, "rollout": 1, "smart": 2}
"""The built-in opponents stepped inside the compiled call, by number."""

LAYOUT_FIELDS = (
    "hand", "own_expedition", "opponent_expedition", "discard_top", "discard_below",
    "opponent_known", "own_known", "unseen", "last_move_by_me", "last_move_kind",
    "last_move_card", "last_move_source", "deck_fraction", "own_score", "opponent_score",
    "on_move", "pending_draw", "capped", "turns_left",
)
"""The observation sections whose start offsets make the ``layout`` array (in this order),
followed by K (card kinds) and the initial draw-pile size."""

_M32 = 0xFFFFFFFF
_DECK_COUNT = np.array([3 if x % 10 == 0 else 1 for x in range(60)], np.int64)


@njit(cache=True)
def mt_seed(mt: np.ndarray, pos: np.ndarray, seed: int) -> None:
    """``random.Random(seed)``'s state for a whole number ``0 <= seed < 2**64`` (CPython's
    ``init_by_array`` over the seed's 32-bit words)."""
    mt[0] = 19650218
    for i in range(1, 624):
        prev = mt[i - 1]
        mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & _M32
    lo = seed & _M32
    hi = (seed >> 32) & _M32
    klen = 2 if hi != 0 else 1
    i = 1
    j = 0
    for _ in range(624):
        prev = mt[i - 1]
        key = lo if j == 0 else hi
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & _M32)) + key + j) & _M32
        i += 1
        j += 1
        if i >= 624:
            mt[0] = mt[623]
            i = 1
        if j >= klen:
            j = 0
    for _ in range(623):
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & _M32)) - i) & _M32
        i += 1
        if i >= 624:
            mt[0] = mt[623]
            i = 1
    mt[0] = 0x80000000
    pos[0] = 624


@njit(cache=True)
def deal_cpython(
    s: np.ndarray, ncol: int, seed: int, starter: int, max_turns: int,
    mt: np.ndarray, pos: np.ndarray, cards: np.ndarray,
) -> None:
    """``s`` = ``Round.deal(seed, variant, starter, max_turns=...)``'s position (``mt``,
    ``pos``, ``cards``: scratch of 624, 1 and 72 int64)."""
    n = 12 * ncol
    for c in range(ncol):
        for j in range(12):
            cards[12 * c + j] = 10 * c + (0 if j < 3 else j - 2)
    mt_seed(mt, pos, seed)
    mt_shuffle(cards[:n], mt, pos)
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


@njit(cache=True)
def _bot_action(s: np.ndarray, policy: int, mt: np.ndarray, pos: np.ndarray, buf: np.ndarray) -> int:
    if policy == 0:
        n = gen_legal(s, buf, False)
        return int(buf[mt_randbelow(mt, pos, n)])
    if policy == 1:
        return int(rollout_action(s))
    return int(smart_action(s))


@njit(cache=True)
def _write(
    s: np.ndarray, me: int, last: int, lay: np.ndarray, to_action: np.ndarray,
    o: np.ndarray, m: np.ndarray, buf: np.ndarray, scores: np.ndarray,
) -> None:
    """The observation ``o`` and action mask ``m`` of player ``me``; ``scores`` = (own,
    opponent). ``buf``: scratch of at least 2 x 60 + 128 int64."""
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
    o_known = o[lay[5] : lay[5] + kinds]
    o_mine = o[lay[6] : lay[6] + kinds]
    o_unseen = o[lay[7] : lay[7] + kinds]
    k_opp = s[KNOWN + 60 * opp : KNOWN + 60 * opp + kinds]
    k_me = s[KNOWN + 60 * me : KNOWN + 60 * me + kinds]
    for x in range(kinds):
        ko = k_opp[x]
        o_known[x] = ko
        o_mine[x] = k_me[x]
        o_unseen[x] = _DECK_COUNT[x] - seen[x] - ko
    over = s[OVER] != 0
    if last >= 0:
        by_me = (s[TURN] == me) == over
        o[lay[8]] = 1.0 if by_me else 0.0
        o[lay[9] + (1 if last >= 420 else 0)] = 1.0
        o[lay[10] + (last // 7) % 60] = 1.0
        o[lay[11] + last % 7] = 1.0
    o[lay[12]] = s[NDECK] / lay[20]
    own = score(s, me)
    theirs = score(s, opp)
    scores[0] = own
    scores[1] = theirs
    o[lay[13]] = own / 100.0
    o[lay[14]] = theirs / 100.0
    o[lay[15]] = 1.0 if (not over and s[TURN] == me) else 0.0
    if s[MAXT] > 0:
        o[lay[17]] = 1.0
        o[lay[18]] = max(s[MAXT] - s[PLY], 0) / s[MAXT]
    if not over and s[TURN] == me:
        n = gen_legal(s, buf, False)
        for j in range(n):
            m[to_action[buf[j]]] = 1


@njit(cache=True)
def _reset_one(
    s: np.ndarray, g: int, selfplay: bool, policy: int, seats: np.ndarray, last: np.ndarray,
    bot_mt: np.ndarray, bot_pos: np.ndarray, r_seat: np.ndarray, r_starter: np.ndarray,
    r_deal: np.ndarray, r_bot: np.ndarray, ncol: int, max_turns: int,
    mt: np.ndarray, pos: np.ndarray, cards: np.ndarray, buf: np.ndarray,
) -> None:
    deal_cpython(s, ncol, r_deal[g], r_starter[g], max_turns, mt, pos, cards)
    last[g] = -1
    if not selfplay:
        seats[g] = r_seat[g]
        if policy == 0:
            mt_seed(bot_mt[g], bot_pos[g], r_bot[g])
        while s[OVER] == 0 and s[TURN] != seats[g]:
            a = _bot_action(s, policy, bot_mt[g], bot_pos[g], buf)
            apply(s, a)
            last[g] = a


@njit(cache=True)
def check_actions(
    states: np.ndarray, actions: np.ndarray, skip: np.ndarray, num_actions: int,
    to_index: np.ndarray, legal_too: bool,
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


@njit(cache=True, parallel=True)
def vec_step(
    states: np.ndarray, actions: np.ndarray, to_index: np.ndarray, to_action: np.ndarray,
    seats: np.ndarray, last: np.ndarray, selfplay: bool, policy: int,
    bot_mt: np.ndarray, bot_pos: np.ndarray, do_reset: np.ndarray, r_seat: np.ndarray,
    r_starter: np.ndarray, r_deal: np.ndarray, r_bot: np.ndarray, ncol: int, max_turns: int,
    margin_reward: bool, forfeit_reward: float, lay: np.ndarray, obs: np.ndarray,
    mask: np.ndarray, rewards: np.ndarray, term: np.ndarray, trunc: np.ndarray,
    illegal: np.ndarray, scores: np.ndarray, player: np.ndarray, chunks: int,
) -> None:
    """One step of every game: games with ``do_reset`` are dealt anew (their action
    ignored: next-step autoreset), the others make their action (an illegal one forfeits the
    round), then the opponent replies until the agent is to move (not in ``selfplay``).
    Writes each game's reward, termination, truncation, illegal flag, scores (own,
    opponent), the player observed, and its observation and action mask."""
    n = states.shape[0]
    for ch in prange(chunks):
        lo = ch * n // chunks
        hi = (ch + 1) * n // chunks
        buf = np.empty(K.MAX_LEGAL + 64, np.int64)
        mt = np.empty(624, np.int64)
        pos = np.empty(1, np.int64)
        cards = np.empty(72, np.int64)
        for g in range(lo, hi):
            s = states[g]
            rewards[g] = 0.0
            term[g] = False
            trunc[g] = False
            illegal[g] = False
            if do_reset[g]:
                _reset_one(s, g, selfplay, policy, seats, last, bot_mt, bot_pos, r_seat,
                           r_starter, r_deal, r_bot, ncol, max_turns, mt, pos, cards, buf)
            elif s[OVER] == 0:
                me = s[TURN] if selfplay else seats[g]
                a = to_index[actions[g]]
                if not is_legal(s, a):
                    s[OVER] = K.OVER_FORFEIT
                    illegal[g] = True
                    term[g] = True
                    rewards[g] = forfeit_reward
                else:
                    apply(s, a)
                    last[g] = a
                    if not selfplay:
                        while s[OVER] == 0 and s[TURN] != me:
                            b = _bot_action(s, policy, bot_mt[g], bot_pos[g], buf)
                            apply(s, b)
                            last[g] = b
                    if s[OVER] != 0:
                        if s[OVER] == K.OVER_TURN_LIMIT:
                            trunc[g] = True
                        else:
                            term[g] = True
                        d = score(s, me) - score(s, 1 - me)
                        if margin_reward:
                            rewards[g] = d
                        else:
                            rewards[g] = 1.0 if d > 0 else -1.0 if d < 0 else 0.0
            p = s[TURN] if selfplay else seats[g]
            player[g] = p
            _write(s, p, last[g], lay, to_action, obs[g], mask[g], buf, scores[g])


@njit(cache=True)
def vec_reset_rows(
    states: np.ndarray, rows: np.ndarray, to_action: np.ndarray, seats: np.ndarray,
    last: np.ndarray, selfplay: bool, policy: int, bot_mt: np.ndarray, bot_pos: np.ndarray,
    r_seat: np.ndarray, r_starter: np.ndarray, r_deal: np.ndarray, r_bot: np.ndarray,
    ncol: int, max_turns: int, lay: np.ndarray, obs: np.ndarray, mask: np.ndarray,
    scores: np.ndarray, player: np.ndarray,
) -> None:
    """Deal the games ``rows`` anew (serially) and write their observations and masks."""
    buf = np.empty(K.MAX_LEGAL + 64, np.int64)
    mt = np.empty(624, np.int64)
    pos = np.empty(1, np.int64)
    cards = np.empty(72, np.int64)
    for i in range(rows.shape[0]):
        g = rows[i]
        s = states[g]
        _reset_one(s, g, selfplay, policy, seats, last, bot_mt, bot_pos, r_seat, r_starter,
                   r_deal, r_bot, ncol, max_turns, mt, pos, cards, buf)
        p = s[TURN] if selfplay else seats[g]
        player[g] = p
        _write(s, p, last[g], lay, to_action, obs[g], mask[g], buf, scores[g])


_S23 = np.uint64(23)
_S17 = np.uint64(17)
_S26 = np.uint64(26)
_S32 = np.uint64(32)


@njit(cache=True, parallel=True)
def sample_legal(states: np.ndarray, to_action: np.ndarray, rngs: np.ndarray, out: np.ndarray) -> None:
    """``out[g]`` = a uniformly random legal action (an env action number, through
    ``to_action``) of the player to move in game ``g`` (0 when it is over), drawn from the
    game's xorshift128+ stream ``rngs[g]`` (two uint64, not both zero)."""
    for g in prange(states.shape[0]):
        s = states[g]
        if s[OVER] != 0:
            out[g] = 0
            continue
        buf = np.empty(K.MAX_LEGAL, np.int64)
        n = gen_legal(s, buf, False)
        rng = rngs[g]
        s1 = rng[0]
        s0 = rng[1]
        rng[0] = s0
        s1 ^= s1 << _S23
        s1 = s1 ^ s0 ^ (s1 >> _S17) ^ (s0 >> _S26)
        rng[1] = s1
        out[g] = to_action[buf[int((((s1 + s0) >> _S32) * np.uint64(n)) >> _S32)]]


# -- numba's cache: this file inlines and calls kernels.py's and smart.py's code -------------
def _stamp() -> str:
    parts = []
    for mod in (K, S):
        try:
            st = os.stat(str(mod.__file__))
        except OSError:  # pragma: no cover - no source file
            continue
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return "; ".join([*parts, K.SCORING_STAMP])


K.guard_cache(
    (mt_seed, deal_cpython, _bot_action, _write, _reset_one, check_actions, vec_step,
     vec_reset_rows, sample_legal),
    _stamp(),
    "vector.kernels",
)
