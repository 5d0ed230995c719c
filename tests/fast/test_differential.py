"""The fast path against the core, move for move: every legal-move set (as the ordered list
of distinct moves), every move's effect (the whole array state) and every final score.

Rounds: ``Round.deal(seed)`` for consecutive seeds, played by a seeded uniform choice among
the distinct legal moves (long rounds with many discard-pile draws). The core plays and
records each turn's legal moves; one compiled call per round replays them on the fast state
and reports the first turn that differs. The full 10,000 rounds per variant are the ``slow``
tests (still run by CI); a 1,000-round sample per variant runs in the quick suite.
"""

from __future__ import annotations

import random

import pytest

from lostcities import PLAYABLE, Action, Round, playable

from .positions import random_positions

np = pytest.importorskip("numpy")
numba = pytest.importorskip("numba")

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.state import FastRound, state_from_round  # noqa: E402

# the replay loops are compiled here, for the tests only (not cached: a cached copy would
# not notice a change of the kernels it calls)


@numba.njit
def replay_check(s: np.ndarray, legal: np.ndarray, counts: np.ndarray, chosen: np.ndarray) -> int:
    """Replay recorded turns from ``s`` (in place): turn ``t`` had the ``counts[t]`` legal
    actions that follow in ``legal`` and ``chosen[t]`` was made. Returns the first turn whose
    legal moves differ (or at which the fast path ended too early or too late), else -1."""
    buf = np.empty(K.MAX_LEGAL, np.int64)
    pos = 0
    for t in range(counts.shape[0]):
        n = K.gen_legal(s, buf, False)
        if n != counts[t]:
            return t
        for i in range(n):
            if buf[i] != legal[pos + i]:
                return t
        pos += n
        if not K.is_legal(s, chosen[t]):
            return t
        K.apply(s, chosen[t])
    if s[K.OVER] == 0:
        return int(counts.shape[0])
    return -1


@numba.njit
def replay_check_compact(
    s: np.ndarray, turns: np.ndarray, kinds: np.ndarray, chosen: np.ndarray
) -> int:
    """:func:`replay_check` with each turn's legal moves given compactly, as the core's
    ``LegalMoves`` describes them: ``turns[t] = (number of moves, number of playable kinds,
    number of discardable kinds, bitmask of the draw sources)`` with the kinds following each
    other in ``kinds``. The expected ordered move list is expanded from them (plays, then
    discards, each with the draw pile first, then the sources by colour, a discard never
    drawing back from its own pile) and must equal the fast path's, as must the count."""
    buf = np.empty(K.MAX_LEGAL, np.int64)
    want = np.empty(K.MAX_LEGAL, np.int64)
    pos = 0
    for t in range(turns.shape[0]):
        n = K.gen_legal(s, buf, False)
        if n != turns[t, 0]:
            return t
        k = 0
        srcs = turns[t, 3]
        for phase in range(2):
            for _ in range(turns[t, 1 + phase]):
                kind = kinds[pos]
                pos += 1
                base = (60 * phase + kind) * 7
                want[k] = base
                k += 1
                for col in range(6):
                    if (srcs >> col) & 1 and not (phase == 1 and col == kind // 10):
                        want[k] = base + 1 + col
                        k += 1
        if k != n:
            return t
        for i in range(n):
            if buf[i] != want[i]:
                return t
        if not K.is_legal(s, chosen[t]):
            return t
        K.apply(s, chosen[t])
    if s[K.OVER] == 0:
        return int(turns.shape[0])
    return -1


def test_the_compiled_playability_rule_is_the_cores() -> None:
    """The fast path's one copy of the rule (``kernels.playable``) against
    :func:`lostcities.rules.playable` and its table, for every rank and top."""
    for rank in range(11):
        for top in range(11):
            want = playable(rank, top)
            assert bool(K.playable(rank, top)) is want is PLAYABLE[rank][top], (rank, top)


def _check_round(seed: int, variant: str, max_turns: int | None = None) -> int:
    """Play one random round in the core and check the fast path on it; returns its plies."""
    r = Round.deal(seed=seed, variant=variant, starter=seed % 2, max_turns=max_turns)
    s = state_from_round(r)
    rng = random.Random(seed)
    legal: list[int] = []
    counts: list[int] = []
    chosen: list[int] = []
    while not r.is_over():
        moves = r.legal_moves()
        codes = [m.index for m in moves]
        legal.extend(codes)
        counts.append(len(codes))
        k = rng.randrange(len(codes))
        chosen.append(codes[k])
        r.push_unchecked(moves[k])
    bad = replay_check(
        s, np.array(legal, np.int64), np.array(counts, np.int64), np.array(chosen, np.int64)
    )
    assert bad == -1, f"{variant} seed {seed}: fast path differs at turn {bad}"
    assert (K.score(s, 0), K.score(s, 1)) == r.scores(), f"{variant} seed {seed}: scores"
    # the whole state, hands in slot order, known cards, piles, expeditions, end reason
    assert np.array_equal(s, state_from_round(r)), f"{variant} seed {seed}: final state"
    assert K.gen_legal(s, np.empty(K.MAX_LEGAL, np.int64), False) == 0
    return len(counts)


def _check_round_compact(seed: int, variant: str) -> int:
    """:func:`_check_round` comparing each turn's moves in the compact form the core's
    ``LegalMoves`` holds (count, playable kinds, discardable kinds, draw sources), about
    twice as fast; the fast side expands it to the ordered list and compares that."""
    r = Round.deal(seed=seed, variant=variant, starter=seed % 2)
    s = state_from_round(r)
    rng = random.Random(seed)
    turns: list[tuple[int, int, int, int]] = []
    kinds: list[int] = []
    chosen: list[int] = []
    piles = r.tables().piles
    while not r.is_over():
        moves = r.legal_moves()
        plays = [c.index for c in moves.cards(Action.PLAY)]
        discards = [c.index for c in moves.cards(Action.DISCARD)]
        srcmask = 0
        for col, pile in enumerate(piles):
            if pile:
                srcmask |= 1 << col
        turns.append((len(moves), len(plays), len(discards), srcmask))
        kinds.extend(plays)
        kinds.extend(discards)
        k = rng.randrange(len(moves))
        m = moves[k]
        chosen.append(m.index)
        r.push_unchecked(m)
    bad = replay_check_compact(
        s, np.array(turns, np.int64), np.array(kinds, np.int64), np.array(chosen, np.int64)
    )
    assert bad == -1, f"{variant} seed {seed}: fast path differs at turn {bad}"
    assert (K.score(s, 0), K.score(s, 1)) == r.scores(), f"{variant} seed {seed}: scores"
    assert np.array_equal(s, state_from_round(r)), f"{variant} seed {seed}: final state"
    return len(turns)


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_differential_sample(variant: str) -> None:
    """The quick suite's sample: every turn's full ordered move list."""
    plies = sum(_check_round(seed, variant) for seed in range(300))
    assert plies > 30_000  # the rounds really were played


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["classic", "long"])
def test_differential_10000_rounds(variant: str) -> None:
    """10,000 rounds per variant (seeds 0..9999), every turn checked in compact form."""
    plies = sum(_check_round_compact(seed, variant) for seed in range(10_000))
    assert plies > 1_000_000


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_differential_with_turn_caps(variant: str) -> None:
    for seed in range(300):
        plies = _check_round(seed, variant, max_turns=1 + seed % 150)
        assert plies <= 1 + seed % 150


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_any_position_and_sampled_determinizations(variant: str) -> None:
    """From mid-round positions and ``PlayerView.sample_round`` worlds: legal moves, legality
    of every one of the 840 actions, and play to the end."""
    rng = random.Random(5)
    for r in random_positions(150, variant, seed=3):
        f = FastRound.from_round(r)
        assert f.legal_moves() == list(r.legal_moves())
        legal = {m.index for m in r.legal_moves()}
        assert {a for a in range(K.NUM_ACTIONS) if f.is_legal(a)} == legal
        while not r.is_over():
            moves = r.legal_moves()
            m = moves[rng.randrange(len(moves))]
            r.push(m)
            f.push(m)
            assert f.legal_moves() == list(r.legal_moves())
        assert f.is_over() and f.termination is r.termination
        assert f.scores() == r.scores()
        assert np.array_equal(f.state, state_from_round(r))
