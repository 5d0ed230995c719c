"""The ``ismcts`` bot's *smart* rollout policy and its flat Monte Carlo search, compiled.

:func:`smart_action` is a numba port of the policy of
:func:`lostcities.bots.ismcts.smart_playout` over the array state of
:mod:`lostcities.fast.kernels` (it reads the hand in the core's slot order, as the Python
policy does, so ties are broken alike); ``tests/fast/test_smart.py`` checks move for move
that both choose the same move and reach the same final scores. The policy is two parts,
:func:`smart_card_action` and :func:`smart_draw`, over a vector of its thresholds
(:data:`SMART_THRESHOLDS`, compiled in as constants here), so that a rollout with other
thresholds or other card actions can share its code (issue 24's jittered thresholds did,
until they were removed in 0.4.0, measured no better than these).

:func:`flat_smart_kernel` is the whole inner loop of ``ismcts``'s flat mode: per sampled
world, deal the hidden cards exactly as the bot's sampler does with ``random.Random.shuffle``
(the Mersenne Twister of CPython's :mod:`random` is replayed here, from and back into the
Python generator's state, so the compiled search consumes the same random numbers and deals
the same worlds), make every candidate move, play it out with the smart policy and add
``tanh(margin / scale)`` to the candidate's total, in the same order as the Python loop: the
same budget gives bit-for-bit the same totals and so the same move.

:func:`flat_kernel` (the compiled generator's worlds, dealt by
:func:`lostcities.fast.kernels.deal_world`), :func:`flat_smart_kernel` and
:func:`flat_hands_kernel` share one candidate loop: they differ only in how a world is
dealt. The two Mersenne Twister kernels run one world loop, :func:`flat_worlds`, given the
deal and the rollout as jitted functions (so that another rollout policy needs no copy of it).
The generators are :mod:`lostcities.fast.rng`'s (the Mersenne Twister names are
kept here too, for old imports).

Numba caches a compiled function keyed on its own file only; at import this module's cached
machine code is dropped (:func:`lostcities.fast.kernels.guard_cache`) when
:mod:`lostcities.fast.kernels`, :mod:`lostcities.fast.bits` or :mod:`lostcities.fast.rng`
(whose code it compiles in) changed since the cache was written.

>>> from lostcities import Round
>>> from lostcities.fast.state import state_from_round
>>> s = state_from_round(Round.deal(seed=2))
>>> a, b = smart_playout_scores(s)
>>> bool(s[K.OVER]), (a, b) == smart_playout_scores(state_from_round(Round.deal(seed=2)))
(True, True)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

import lostcities.fast.bits as bits_module
import lostcities.fast.rng as rng_module
from lostcities.fast import kernels as K
from lostcities.fast.bits import COL_OF, RANK_OF
from lostcities.fast.kernels import (
    CNT,
    DECK,
    HAND,
    NCOL,
    NDECK,
    NPILE,
    OVER,
    PILE,
    TOP,
    TURN,
    WAG,
    apply,
    deal_world,
    playable,
    score,
)
from lostcities.fast.rng import mt_shuffle, xorshift_below

__all__ = [
    "NUM_THRESHOLDS",
    "SMART_THRESHOLDS",
    "TH_GAP",
    "TH_OPEN_BASE",
    "TH_OPEN_SUM",
    "TH_OPEN_WAGER_SLACK",
    "TH_OPEN_WAGER_SUM",
    "TH_WAGER_SLACK",
    "TH_WAGER_SUM",
    "TH_WINDOW",
    "deal_hand",
    "deal_unseen",
    "flat_hands_kernel",
    "flat_kernel",
    "flat_smart_kernel",
    "flat_worlds",
    "smart_action",
    "smart_card_action",
    "smart_draw",
    "smart_playout",
    "smart_playout_scores",
]

_PLY_CAP = 400  # the Python policy's safety net (never reached: a round has < 150 turns)


@njit(cache=True, inline="always")
def _lowest_kept(s: np.ndarray, p: int, c: int, turns: int) -> tuple[int, int]:
    """In the end game: the lowest number (rank, kind) of colour ``c`` in the hand of ``p``
    among the ``turns`` playable numbers on started expeditions worth most (rank times the
    expedition's multiplier, the lower kind first on a tie); ``(99, 0)`` if none."""
    hp = HAND + 8 * p
    tp = TOP + 6 * p
    cp = CNT + 6 * p
    wp = WAG + 6 * p
    lk = 99
    ik = 0
    for i in range(8):
        kind = s[hp + i]
        r = RANK_OF[kind]
        if COL_OF[kind] != c or r == 0 or not playable(r, s[tp + c]):
            continue
        v = r * (1 + s[wp + c])
        better = 0
        for j in range(8):
            k2 = s[hp + j]
            c2 = COL_OF[k2]
            r2 = RANK_OF[k2]
            if r2 == 0 or s[cp + c2] == 0 or not playable(r2, s[tp + c2]):
                continue
            v2 = r2 * (1 + s[wp + c2])
            if v2 > v or (v2 == v and k2 < kind):
                better += 1
        if better < turns and r < lk:
            lk = r
            ik = kind
    return lk, ik


# -- smart's thresholds: the policy's numbers, as a vector another rollout may vary ---------
TH_GAP = 0
"""Threshold index: the largest gap (lowest playable number minus the top, from 1 on a
wagers-only expedition) a started expedition is played up at."""
TH_WAGER_SUM = 1
"""Threshold index: the least sum of a colour's playable numbers in hand for a wager onto
its started expedition."""
TH_WAGER_SLACK = 2
"""Threshold index: turns beyond the colour's numbers in hand needed for that wager."""
TH_OPEN_BASE = 3
"""Threshold index: an unstarted colour's value is its hand sum minus this and its lowest
card; it is opened when the value is positive (the best colour first)."""
TH_OPEN_SUM = 4
"""Threshold index: the least hand sum of a colour to open it."""
TH_OPEN_WAGER_SUM = 5
"""Threshold index: the least hand sum to open a colour with a wager."""
TH_OPEN_WAGER_SLACK = 6
"""Threshold index: turns beyond the colour's cards in hand needed to open with a wager."""
TH_WINDOW = 7
"""Threshold index: the largest step from a started expedition's top to a discard pile's
top number that the policy draws."""
SMART_THRESHOLDS = (3, 27, 3, 18, 22, 30, 3, 2)
"""The smart policy's thresholds, by the ``TH_*`` indexes: :func:`smart_action` plays with
these (a tuple, so numba compiles them in as constants)."""
NUM_THRESHOLDS = len(SMART_THRESHOLDS)


@njit(cache=True, inline="always")
def smart_card_action(s: np.ndarray, sc: np.ndarray, th: Any) -> int:
    """The smart policy's card action (``60 * discard + card kind``) for the player to move
    in ``s``, with the thresholds ``th`` (indexed by the ``TH_*`` names:
    :data:`SMART_THRESHOLDS` or a varied copy); fills the scratch ``sc`` (30 int64) with
    what :func:`smart_draw` reads."""
    p = s[TURN]
    hp = HAND + 8 * p
    tp = TOP + 6 * p
    cp = CNT + 6 * p
    n = s[NCOL]
    turns = (s[NDECK] + 1) >> 1
    # sc[0:6] low, sc[6:12] low kind, sc[12:18] hand sum, sc[18:24] count, sc[24:30] wagers
    for c in range(6):
        sc[c] = 99
        sc[6 + c] = 0
        sc[12 + c] = 0
        sc[18 + c] = 0
        sc[24 + c] = 0
    need = 0
    for i in range(8):
        kind = s[hp + i]
        c = COL_OF[kind]
        r = RANK_OF[kind]
        top = s[tp + c]
        if playable(r, top):
            if r > 0:
                sc[12 + c] += r
                sc[18 + c] += 1
                if s[cp + c] > 0:
                    need += 1
                if r < sc[c]:
                    sc[c] = r
                    sc[6 + c] = kind
            else:
                sc[24 + c] += 1
                if s[cp + c] > 0:
                    need += 1
    row = -1  # the card kind to play or discard
    panic = need >= turns
    best_gap = 99 if panic else th[TH_GAP]
    best_w = -1
    for c in range(n):
        if s[cp + c] > 0:
            if (
                sc[24 + c] > 0
                and sc[12 + c] >= th[TH_WAGER_SUM]
                and turns > sc[18 + c] + th[TH_WAGER_SLACK]
            ):
                row = 10 * c
                break
            lc = sc[c]
            gap = lc - max(s[tp + c], 1)  # from 1 on an expedition of wagers only
            if panic:  # the most wagers first, then the smallest gap
                wc = s[WAG + 6 * p + c]
                lk, ik = _lowest_kept(s, p, c, turns)
                if lk < 99:
                    gap = lk - max(s[tp + c], 1)
                    if wc > best_w or (wc == best_w and gap <= best_gap):
                        best_w = wc
                        best_gap = gap
                        row = ik
            elif lc < 99 and gap <= best_gap:
                best_gap = gap
                row = sc[6 + c]
    if row < 0:
        best_v = 0
        for c in range(n):
            hc = sc[18 + c]
            if hc > 0 and s[cp + c] == 0 and turns > hc:
                hs = sc[12 + c]
                v = hs - th[TH_OPEN_BASE] - sc[c]
                if v > best_v and hs >= th[TH_OPEN_SUM]:
                    best_v = v
                    if (
                        sc[24 + c] > 0
                        and hs >= th[TH_OPEN_WAGER_SUM]
                        and turns > hc + sc[24 + c] + th[TH_OPEN_WAGER_SLACK]
                    ):
                        row = 10 * c
                    else:
                        row = sc[6 + c]
    if row >= 0:
        return row
    op = TOP + 6 * (p ^ 1)
    oc = CNT + 6 * (p ^ 1)
    dead = -1
    safe = -1
    safe_x = 297  # 3 x the Python policy's 99.0 (it compares x / 3)
    lowest = -1
    lowest_r = 99
    for i in range(8):
        kind = s[hp + i]
        c = COL_OF[kind]
        r = RANK_OF[kind]
        if r < lowest_r:
            lowest = kind
            lowest_r = r
        otop = s[op + c]
        if s[oc + c] > 0 and playable(r, otop):
            continue
        top = s[tp + c]
        if not playable(r, top):
            dead = kind
            break
        x = r + 2 * sc[12 + c] + (30 if s[cp + c] > 0 else 0)
        if x < safe_x:
            safe_x = x
            safe = kind
    return 60 + (dead if dead >= 0 else safe if safe >= 0 else lowest)


@njit(cache=True, inline="always")
def smart_draw(s: np.ndarray, sc: np.ndarray, th: Any, card_action: int) -> int:
    """The smart policy's draw (0: the draw pile, ``1 + c``: colour ``c``'s discard pile)
    after ``card_action`` for the player to move in ``s`` (not yet made), with the
    thresholds ``th`` and the scratch :func:`smart_card_action` filled for this position:
    the first pile (not of the card action's colour) whose top number fits a started
    expedition within ``th[TH_WINDOW]`` of its top and below the lowest of that colour in
    hand."""
    p = s[TURN]
    tp = TOP + 6 * p
    cp = CNT + 6 * p
    own = COL_OF[card_action % 60]
    for c in range(s[NCOL]):
        np_ = s[NPILE + c]
        if np_ > 0 and s[cp + c] > 0 and c != own:
            r = RANK_OF[s[PILE + 12 * c + np_ - 1]]
            top = s[tp + c]
            if r > 0 and playable(r, top) and r - top <= th[TH_WINDOW] and r < sc[c]:
                return c + 1
    return 0


@njit(cache=True, inline="always")
def _smart_action(s: np.ndarray, sc: np.ndarray) -> int:
    """:func:`smart_action` with a scratch array ``sc`` of 30 int64."""
    ca = smart_card_action(s, sc, SMART_THRESHOLDS)
    return ca * 7 + smart_draw(s, sc, SMART_THRESHOLDS, ca)


@njit(cache=True)
def smart_action(s: np.ndarray) -> int:
    """The smart rollout policy's move (a flat action) for the player to move in ``s``
    (a running round): the policy of :func:`lostcities.bots.ismcts.smart_playout`."""
    sc = np.empty(30, np.int64)
    return _smart_action(s, sc)


@njit(cache=True)
def smart_action_into(s: np.ndarray, scratch: np.ndarray) -> int:
    """:func:`smart_action` with its scratch passed in (an int64 array of at least 30),
    for kernels that allocate nothing (compiled without numba's reference counting)."""
    return _smart_action(s, scratch)


@njit(cache=True)
def _playout(s: np.ndarray, sc: np.ndarray) -> None:
    plies = 0
    while s[OVER] == 0:
        plies += 1
        if plies > _PLY_CAP:
            break
        apply(s, _smart_action(s, sc))


@njit(cache=True)
def smart_playout(s: np.ndarray) -> None:
    """Play ``s`` to its end with the smart policy (in place)."""
    sc = np.empty(30, np.int64)
    _playout(s, sc)


@njit(cache=True)
def smart_playout_scores(s: np.ndarray) -> tuple[int, int]:
    """:func:`smart_playout`, then both players' final scores."""
    smart_playout(s)
    return score(s, 0), score(s, 1)


# -- flat Monte Carlo: one candidate loop, three ways to deal the worlds ----------------------
@njit(cache=True)
def flat_kernel(
    template: np.ndarray,
    opp: int,
    first: int,
    cards: np.ndarray,
    actions: np.ndarray,
    worlds: int,
    rng: np.ndarray,
    me: int,
    scale: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Sums over ``worlds`` random deals of the unseen ``cards`` (shuffled in place with the
    xorshift128+ state ``rng``, so that calls in chunks continue one sequence of deals;
    dealt by :func:`lostcities.fast.kernels.deal_world`): per candidate action, the rewards
    ``tanh(margin / scale)`` and the margins, played out with the policy of
    :mod:`lostcities.bots.rollout`."""
    value = np.zeros(actions.shape[0], np.float64)
    margin = np.zeros(actions.shape[0], np.int64)
    world = np.empty_like(template)
    t = np.empty_like(template)
    sc = np.empty(30, np.int64)
    for _ in range(worlds):
        for i in range(cards.shape[0] - 1, 0, -1):
            j = xorshift_below(rng, i + 1)
            x = cards[i]
            cards[i] = cards[j]
            cards[j] = x
        deal_world(world, template, opp, first, cards)
        _play_candidates(world, t, (sc, False), actions, me, scale, value, margin)
    return value, margin


@njit(cache=True)
def flat_smart_kernel(
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
    smart: bool,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """``worlds`` iterations of ``ismcts``'s flat mode: per world, ``cards`` = a copy of
    ``unseen`` shuffled with the Mersenne Twister state (``mt``, ``pos``, advanced), the
    opponent's hand slots ``first..7`` get ``cards[:h]`` and the draw pile the rest (next
    card ``cards[h]``), then for each candidate action ``j``: make it, play out (``smart``:
    the smart policy, else that of :mod:`lostcities.bots.rollout`), ``totals[j] +=
    tanh(margin / scale)``, ``margins[j] += margin`` (margin: ``me``'s score minus the
    opponent's)."""
    deal = (unseen, np.empty_like(unseen))
    ctx = (np.empty(30, np.int64), smart)
    flat_worlds(
        template, opp, first, deal_unseen, deal, actions, worlds, mt, pos, me, scale,
        _play_candidates, ctx, totals, margins,
    )  # fmt: skip


@njit(cache=True)
def _play_candidates(
    world: np.ndarray,
    t: np.ndarray,
    ctx: tuple[np.ndarray, bool],
    actions: np.ndarray,
    me: int,
    scale: float,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """Each candidate action in ``world``, played out (``t``: scratch; ``ctx``: the
    policy's scratch and whether it is the smart one)."""
    sc, smart = ctx
    for j in range(actions.shape[0]):
        t[:] = world
        apply(t, actions[j])
        if smart:
            _playout(t, sc)
        else:
            K.playout(t)
        m = score(t, me) - score(t, 1 - me)
        margins[j] += m
        totals[j] += math.tanh(m / scale)


@njit(cache=True)
def flat_hands_kernel(
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
    smart: bool,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """:func:`flat_smart_kernel` with the opponent's hidden cards given: world ``w`` deals
    ``hands[(start + w) % len(hands)]`` into the opponent's slots ``first..7`` and that
    row of ``rests`` (the other unseen cards), shuffled, into the draw pile."""
    deal = (hands, rests, start, np.empty(rests.shape[1], rests.dtype))
    ctx = (np.empty(30, np.int64), smart)
    flat_worlds(
        template, opp, first, deal_hand, deal, actions, worlds, mt, pos, me, scale,
        _play_candidates, ctx, totals, margins,
    )  # fmt: skip


# -- the world loop the Mersenne Twister kernels share --------------------------------------
@njit(cache=True, inline="always")
def flat_worlds(
    template: np.ndarray,
    opp: int,
    first: int,
    deal: Any,
    source: Any,
    actions: np.ndarray,
    worlds: int,
    mt: np.ndarray,
    pos: np.ndarray,
    me: int,
    scale: float,
    play: Any,
    ctx: Any,
    totals: np.ndarray,
    margins: np.ndarray,
) -> None:
    """``worlds`` worlds: world ``w`` dealt by the jitted ``deal(world, template, opp,
    first, source, w, mt, pos)`` (:func:`deal_unseen` or :func:`deal_hand`), then its
    candidates played out by the jitted ``play(world, t, ctx, actions, me, scale, totals,
    margins)`` (``ctx``: the rollout's weights and scratch). Numba compiles the two functions
    passed in (first-class function arguments) into each caller, so that a rollout policy
    is one function, not a copy of this loop."""
    world = np.empty_like(template)
    t = np.empty_like(template)
    for w in range(worlds):
        deal(world, template, opp, first, source, w, mt, pos)
        play(world, t, ctx, actions, me, scale, totals, margins)


@njit(cache=True, inline="always")
def deal_unseen(
    world: np.ndarray,
    template: np.ndarray,
    opp: int,
    first: int,
    source: tuple[np.ndarray, np.ndarray],
    w: int,
    mt: np.ndarray,
    pos: np.ndarray,
) -> None:
    """World ``w`` of :func:`flat_smart_kernel` into ``world``: ``source`` = ``(unseen,
    cards)``, ``cards`` a scratch copy of ``unseen`` shuffled with the Mersenne Twister."""
    unseen, cards = source
    h = 8 - first
    nd = unseen.shape[0] - h
    cards[:] = unseen
    mt_shuffle(cards, mt, pos)
    world[:] = template
    for i in range(h):
        world[HAND + 8 * opp + first + i] = cards[i]
    for i in range(nd):
        world[DECK + nd - 1 - i] = cards[h + i]
    world[NDECK] = nd


@njit(cache=True, inline="always")
def deal_hand(
    world: np.ndarray,
    template: np.ndarray,
    opp: int,
    first: int,
    source: tuple[np.ndarray, np.ndarray, int, np.ndarray],
    w: int,
    mt: np.ndarray,
    pos: np.ndarray,
) -> None:
    """World ``w`` of :func:`flat_hands_kernel` into ``world``: ``source`` = ``(hands,
    rests, start, cards)``, ``cards`` the scratch the rest is shuffled in."""
    hands, rests, start, cards = source
    i = (start + w) % hands.shape[0]
    nd = rests.shape[1]
    cards[:] = rests[i]
    mt_shuffle(cards, mt, pos)
    world[:] = template
    for s in range(hands.shape[1]):
        world[HAND + 8 * opp + first + s] = hands[i, s]
    for s in range(nd):
        world[DECK + nd - 1 - s] = cards[s]
    world[NDECK] = nd


# -- numba's cache: this file compiles in kernels.py's, bits.py's and rng.py's code -----------
K.guard_cache(
    (
        smart_card_action,
        smart_draw,
        _smart_action,
        smart_action,
        smart_action_into,
        _playout,
        smart_playout,
        smart_playout_scores,
        flat_kernel,
        flat_smart_kernel,
        _play_candidates,
        flat_hands_kernel,
        flat_worlds,
        deal_unseen,
        deal_hand,
    ),
    K.source_stamp(K, bits_module, rng_module),
    "smart.kernels",
)
