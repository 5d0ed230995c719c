"""Cheap deterministic rollouts for search: :func:`playout` and :func:`rollout_move`.

The rollout policy (fixed, deterministic, no randomness of its own). For the player to move,
with ``top`` = the highest number card of an expedition (0 when it has only wagers or is
empty) and an expedition *started* when it holds at least one card:

(a) **Play** the number card with the smallest gap ``rank - top`` among the number cards in
    hand that can be played onto an expedition the player has already started, if that gap
    is at most 3 (ties: the lowest card index, i.e. colour order ``y b w g r p``). Wagers
    are never played and no expedition is started by a rollout.
(b) Otherwise **discard**:

    1. a *dead* card (one the player can never play: a wager once that expedition has a
       number card, a number not above its top; this is exactly "not playable now", since
       tops only rise) that the opponent cannot play onto its started expedition of that
       colour; the lowest card index;
    2. else the lowest-value card (wager = 0, else its rank) that the opponent cannot play
       onto its started expedition of that colour (ties: lowest card index);
    3. else the lowest-value card (ties: lowest card index).

    The opponent *can play* a card when its expedition of that colour is started and the
    card is legal there (a number above its top, or a wager while it has no number).
(c) Always **draw from the draw pile**, so a rollout ends within ``deck_size`` turns.

:func:`rollout_move` is the pure-Python reference of the policy. :func:`playout` plays a
copy of a round to the end with it; when numba is importable (the ``fast`` extra) it runs
the compiled port in :mod:`lostcities.fast.kernels` (imported on the first playout), which a
differential test proves equal to the reference (same moves, same final scores). Without
numba it falls back to Python (:func:`uses_numba` says which runs).

>>> from lostcities import Round
>>> r = Round.deal(seed=5)
>>> s = playout(r)
>>> r.ply, s == playout_python(r)
(0, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from lostcities.cards import ALL_CARDS
from lostcities.rules import NUM_MOVES, PLAYABLE, Move, Round, RoundTables

__all__ = [
    "DISCARD_KEY_BASE",
    "MOVES",
    "playout",
    "playout_python",
    "playouts_after",
    "python_rollouts",
    "rollout_move",
    "smart_playout",
    "uses_numba",
]

MOVES: tuple[Move, ...] = tuple(map(Move.from_index, range(NUM_MOVES)))
"""Every move by its :attr:`~lostcities.Move.index` (``MOVES[i] is Move.from_index(i)``), for
the rollout policies' hot loops: a card's play from the draw pile is ``MOVES[7 * card.index]``,
its discard ``MOVES[7 * (60 + card.index)]``, plus ``1 + colour`` to draw from that pile."""


def rollout_move(round: Round) -> Move:
    """The rollout policy's move for the player to move in ``round`` (see the module doc).

    :raises ValueError: if the round is over.
    """
    if round.is_over():
        raise ValueError("rollout_move: the round is over")
    return _rollout_move(round.tables(), round.to_move)


def _rollout_move(t: RoundTables, p: int) -> Move:
    """:func:`rollout_move` for player ``p`` to move in the round of tables ``t``."""
    hand = t.hands[p]
    tops = t.tops[p]
    exp = t.expeditions[p]
    otops = t.tops[p ^ 1]
    oexp = t.expeditions[p ^ 1]
    # (a) the closest number card onto an already started expedition
    best = -1
    best_gap = 4
    for card in hand:
        rank = card.rank
        if rank:
            c = card.color
            if exp[c]:
                gap = rank - tops[c]
                if gap > 0 and (gap < best_gap or (gap == best_gap and card.index < best)):
                    best = card.index
                    best_gap = gap
    if best >= 0:
        return MOVES[7 * best]
    # (b) discard
    dead = None
    safe = None
    low = None
    ok = PLAYABLE
    for card in hand:
        rank = card.rank
        c = card.color
        row = ok[rank]
        if not (oexp[c] and row[otops[c]]):  # the opponent cannot play it
            if not row[tops[c]] and (dead is None or card.index < dead.index):
                dead = card
            if safe is None or rank < safe.rank or (rank == safe.rank and card.index < safe.index):
                safe = card
        if low is None or rank < low.rank or (rank == low.rank and card.index < low.index):
            low = card
    choice = dead if dead is not None else safe if safe is not None else low
    assert choice is not None
    return MOVES[7 * (60 + choice.index)]


def playout_python(round: Round) -> tuple[int, int]:
    """:func:`playout` in pure Python (the reference; also the fallback without numba)."""
    r = round.copy(stack=False)
    push = r.push_unchecked
    over = r.is_over
    move = _rollout_move
    t = r.tables()  # live: each push updates them
    while not over():
        push(move(t, r.to_move))
    return r.scores()


_playout_fast: Callable[[Round], tuple[int, int]] | None = None
_playouts_after_fast: Callable[[Round, Sequence[Move]], list[tuple[int, int]]] | None = None
_loaded = False


def _load_fast() -> Callable[[Round], tuple[int, int]] | None:
    """The compiled playout, imported on first use (numba's import and kernel loading cost
    a fraction of a second, paid only by code that plays out)."""
    global _playout_fast, _playouts_after_fast, _loaded
    if not _loaded:
        _loaded = True
        try:
            from lostcities.fast.rollouts import playout_round, playouts_after_round
        except ImportError:  # the ``fast`` extra (numba) is not installed
            pass
        else:
            _playout_fast = playout_round
            _playouts_after_fast = playouts_after_round
    return _playout_fast


def uses_numba() -> bool:
    """Whether :func:`playout` runs the compiled port (numba importable)."""
    return _load_fast() is not None


@contextmanager
def python_rollouts() -> Iterator[None]:
    """Within the block, :func:`playout` runs the pure-Python reference (for benchmarks
    and tests that compare the two)."""
    global _playout_fast, _playouts_after_fast
    saved = _load_fast(), _playouts_after_fast
    _playout_fast = _playouts_after_fast = None
    try:
        yield
    finally:
        _playout_fast, _playouts_after_fast = saved


def playout(round: Round) -> tuple[int, int]:
    """Play a copy of ``round`` to its end with the rollout policy and return the final
    scores ``(player 0, player 1)``. ``round`` is unchanged. A ``round.max_turns`` cap
    stops the playout at the cap, as it stops the round. An ended round gives its scores.
    """
    fast = _playout_fast if _loaded else _load_fast()
    if fast is not None:
        return fast(round)
    return playout_python(round)


def playouts_after(round: Round, moves: Sequence[Move]) -> list[tuple[int, int]]:
    """For each of ``moves`` (legal in ``round``): the final scores of a copy of ``round``
    with that move made and then played out with the rollout policy. ``round`` is unchanged.
    With numba the round is packed once and every playout runs compiled (for flat Monte
    Carlo: one call per sampled world instead of a copy, a push and a playout per move).

    :raises IllegalMoveError: if a move is not legal in ``round`` (nothing is played).
    """
    if not _loaded:
        _load_fast()
    if _playouts_after_fast is not None:
        return _playouts_after_fast(round, moves)
    out = []
    for m in moves:
        r = round.copy(stack=False)
        r.push(m)
        out.append(playout_python(r))
    return out


DISCARD_KEY_BASE = 60
"""The search's card-level keys: a card's index to play it, 60 + its index to discard it."""

_ROLLOUT_PLY_CAP = 400


_COL: list[int] = [int(c.color) for c in ALL_CARDS]
_RANK: list[int] = [c.rank for c in ALL_CARDS]


def smart_playout(world: Round) -> tuple[int, int]:
    """Play ``world`` (changed in place) to its end with a richer rollout policy than
    :func:`lostcities.bots.rollout.playout` (pure Python, slower, stronger) and return the
    final scores. For the player to move, with ``turns`` = its turns left:

    1. a wager onto its started expedition still without numbers when the numbers in hand
       add up to 27 or more with turns to spare; else the lowest playable card of a
       started expedition with the smallest gap to its top (to 1 on an expedition of
       wagers only), if the gap is at most 3; once the playable cards of started
       expeditions need all the turns left, any gap, the expedition with the most wagers
       first, playing only the numbers the turns left allow (the ``turns`` worth most,
       rank times the expedition's multiplier: the lowest are skipped);
    2. else open the expedition whose numbers in hand add up to 22 or more with the best
       ``sum - 20 - (lowest - 2)``, with a wager first when the sum is 30 or more and
       there are turns to spare, else with its lowest card;
    3. else discard the first dead card (never playable) the opponent cannot use, else the
       least useful card the opponent cannot use, else the lowest card;

    then take a discard-pile top that fits one of its started expeditions (not the one
    just played on) within 2 of its top and below its lowest card there, else draw from
    the draw pile.
    """
    hands, tops, exps, piles, deck, _ = world.tables()
    n = len(piles)
    rng_n = range(n)
    push = world.push_unchecked
    over = world.is_over
    col_of = _COL
    rank_of = _RANK
    ok = PLAYABLE
    moves = MOVES
    plies = 0
    p = world.to_move
    while not over():
        plies += 1
        if plies > _ROLLOUT_PLY_CAP:  # pragma: no cover - a safety net
            break
        hand = hands[p]
        top = tops[p]
        exp = exps[p]
        turns = (len(deck) + 1) >> 1
        low = [99] * n
        low_idx = [0] * n
        hsum = [0] * n
        hcnt = [0] * n
        wag = [0] * n
        need = 0
        for card in hand:
            i = card.index
            c = col_of[i]
            r = rank_of[i]
            if ok[r][top[c]]:
                if exp[c]:
                    need += 1
                if r:
                    hsum[c] += r
                    hcnt[c] += 1
                    if r < low[c]:
                        low[c] = r
                        low_idx[c] = i
                else:
                    wag[c] += 1
        row = -1  # the move index of the card action, drawing from the draw pile
        played = -1
        panic = need >= turns
        best_gap = 99 if panic else 3
        best_w = -1
        if panic:  # the plays the turns left allow: the `turns` numbers worth most
            wcs = [sum(1 for x in exp[c] if not x.rank) for c in rng_n]
            pool = []
            for card in hand:
                i = card.index
                c = col_of[i]
                r = rank_of[i]
                if r and exp[c] and ok[r][top[c]]:
                    pool.append((-r * (1 + wcs[c]), i))
            pool.sort()
            low_keep = [99] * n
            idx_keep = [0] * n
            for _, i in pool[:turns]:
                c = col_of[i]
                if rank_of[i] < low_keep[c]:
                    low_keep[c] = rank_of[i]
                    idx_keep[c] = i
        for c in rng_n:
            if exp[c]:
                if wag[c] and hsum[c] >= 27 and turns > hcnt[c] + 3:
                    row = 70 * c  # the wager's play
                    played = c
                    break
                lc = low[c]
                gap = lc - (top[c] or 1)  # from 1 on an expedition of wagers only
                if panic:  # the most wagers first, then the smallest gap
                    lk = low_keep[c]
                    if lk < 99:
                        wc = wcs[c]
                        gap = lk - (top[c] or 1)
                        if wc > best_w or (wc == best_w and gap <= best_gap):
                            best_w = wc
                            best_gap = gap
                            row = 7 * idx_keep[c]
                            played = c
                elif lc < 99 and gap <= best_gap:
                    best_gap = gap
                    row = 7 * low_idx[c]
                    played = c
        if row < 0:
            best_v = 0
            for c in rng_n:
                hc = hcnt[c]
                if hc and not exp[c] and turns > hc:
                    hs = hsum[c]
                    v = hs - 18 - low[c]
                    if v > best_v and hs >= 22:
                        best_v = v
                        played = c
                        if wag[c] and hs >= 30 and turns > hc + wag[c] + 3:
                            row = 70 * c
                        else:
                            row = 7 * low_idx[c]
        disc_color = -1
        if row < 0:
            otop = tops[p ^ 1]
            oexp = exps[p ^ 1]
            dead = -1
            safe = -1
            safe_v = 99.0
            lowest = -1
            lowest_r = 99
            for card in hand:
                i = card.index
                c = col_of[i]
                r = rank_of[i]
                if r < lowest_r:
                    lowest = i
                    lowest_r = r
                if oexp[c] and ok[r][otop[c]]:
                    continue
                if not ok[r][top[c]]:
                    dead = i
                    break
                sv = (r + 2 * hsum[c] + (30 if exp[c] else 0)) / 3
                if sv < safe_v:
                    safe_v = sv
                    safe = i
            choice = dead if dead >= 0 else safe if safe >= 0 else lowest
            row = 7 * (DISCARD_KEY_BASE + choice)
            disc_color = col_of[choice]
        d = 0
        for c in rng_n:
            pile = piles[c]
            if pile and exp[c] and c != disc_color and c != played:
                r = rank_of[pile[-1].index]
                if r and ok[r][top[c]] and r - top[c] <= 2 and r < low[c]:
                    d = c + 1
                    break
        push(moves[row + d])
        p ^= 1  # (the turn passes unless the round ended, and then the loop stops)
    return world.scores()
