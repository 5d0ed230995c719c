"""BatchGames: legal masks and steps equal to the core, deals, resets, errors, memory."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from lostcities import NUM_MOVES, IllegalMoveError, Move, Round, get_variant

from .positions import random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.batch import NUM_ACTIONS, BatchGames  # noqa: E402
from lostcities.fast.state import action_of, move_of  # noqa: E402


def _cards(s: np.ndarray) -> Counter[int]:
    """Every card of a state, by kind: hands, draw pile, discard piles, expeditions."""
    out: Counter[int] = Counter(int(x) for x in s[K.HAND : K.HAND + 16])
    out.update(int(x) for x in s[K.DECK : K.DECK + s[K.NDECK]])
    for c in range(s[K.NCOL]):
        out.update(int(x) for x in s[K.PILE + 12 * c : K.PILE + 12 * c + s[K.NPILE + c]])
        for p in (0, 1):
            o = 6 * p + c
            out[10 * c] += int(s[K.WAG + o])
            out.update(10 * c + k for k in range(1, 10) if (s[K.EMASK + o] >> k) & 1)
    return out


def _deck(variant: str) -> Counter[int]:
    return Counter(c.index for c in get_variant(variant).deck())


def test_action_encoding_round_trips() -> None:
    assert NUM_ACTIONS == NUM_MOVES
    for a in range(NUM_ACTIONS):
        assert Move.from_index(a).index == a
        assert Move.from_index(np.int64(a)).index == a  # NumPy integers too
    assert str(Move.from_index(7)) == "+y2." and str(Move.from_index(765)) == "-r10b"


def test_action_of_and_move_of_are_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match=r"removed in 0\.4\.0: use Move\.index"):
        assert action_of(Move.parse("-r10b")) == 765
    with pytest.warns(DeprecationWarning, match=r"removed in 0\.4\.0: use Move\.from_index"):
        assert str(move_of(np.int64(7))) == "+y2."
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="invalid action"):
        move_of(840)


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_mask_and_steps_follow_the_core(variant: str) -> None:
    rounds = list(random_positions(60, variant, seed=9))
    games = BatchGames.from_rounds(rounds)
    rng = random.Random(1)
    while not all(r.is_over() for r in rounds):
        mask = games.legal_mask()
        actions = np.full(len(rounds), -1, np.int64)
        for g, r in enumerate(rounds):
            legal = sorted(m.index for m in r.legal_moves())
            assert np.flatnonzero(mask[g]).tolist() == legal
            if legal:
                actions[g] = rng.choice(legal)
                r.push(Move.from_index(int(actions[g])))
        done = games.step(actions)
        assert done.tolist() == [r.is_over() for r in rounds]
    assert games.scores().tolist() == [list(r.scores()) for r in rounds]
    assert games.truncated.tolist() == [r.truncated for r in rounds]
    assert not games.legal_mask().any()


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_deals_are_whole_decks_and_play_conserves_cards(variant: str) -> None:
    games = BatchGames(50, variant, seed=3)
    n = get_variant(variant).deck_size
    assert (games.deck_size == n - 16).all() and (games.ply == 0).all()
    for s in games.states:
        assert _cards(s) == _deck(variant)
    # each deal is a different shuffle
    assert len({games.states[g, K.DECK : K.DECK + 20].tobytes() for g in range(50)}) == 50
    assert games.play_bench(400) > 0
    for s in games.states:
        assert _cards(s) == _deck(variant)


def test_random_policies_give_legal_actions_and_reset_done_deals_anew() -> None:
    games = BatchGames(64, "classic", seed=5, starter=None)
    assert set(games.to_move.tolist()) == {0, 1}
    finished = 0
    for step in range(400):
        policy = ("uniform", "bench", "rollout")[step % 3]
        actions = games.random_actions(policy)  # type: ignore[arg-type]
        mask = games.legal_mask()
        running = ~games.done
        assert (actions[~running] == -1).all()
        assert mask[running, actions[running]].all()
        if policy == "rollout":
            assert [int(K.rollout_action(s)) for s in games.states[running]] == actions[
                running
            ].tolist()
        done = games.step(actions)
        if done.any():
            reset = games.reset_done()
            assert reset.tolist() == np.flatnonzero(done).tolist()
            finished += len(reset)
            assert (games.ply[reset] == 0).all() and not games.done.any()
    assert finished > 64


def test_the_mask_kept_by_step_and_reset_is_the_mask_of_the_position() -> None:
    games = BatchGames(40, "long", seed=8, max_turns=60)
    fresh = np.zeros((40, NUM_ACTIONS), np.uint8)
    for step in range(150):
        mask = games.legal_mask()
        fresh[:] = 0
        K.batch_legal_mask(games.states, fresh)
        assert np.array_equal(mask, fresh.astype(bool)), step
        games.step(games.random_actions())
        if step % 7 == 0:
            games.reset_done()
    games.play_bench(5)
    fresh[:] = 0
    K.batch_legal_mask(games.states, fresh)
    assert np.array_equal(games.legal_mask(), fresh.astype(bool))
    out = np.zeros((40, NUM_ACTIONS), np.bool_)
    assert games.legal_mask(out) is out and np.array_equal(out, fresh.astype(bool))


def test_same_seed_same_games() -> None:
    a = BatchGames(20, "long", seed=42)
    b = BatchGames(20, "long", seed=42)
    for _ in range(50):
        a.step(a.random_actions())
        b.step(b.random_actions())
        a.reset_done()
        b.reset_done()
    assert np.array_equal(a.states, b.states)
    assert not np.array_equal(a.states, BatchGames(20, "long", seed=43).states)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    games = BatchGames(8, "classic", seed=1)
    before = games.states.copy()
    actions = games.random_actions()
    mask = games.legal_mask()
    bad = int(np.flatnonzero(~mask[3])[0])
    actions[3] = bad
    with pytest.raises(IllegalMoveError, match="in game 3"):
        games.step(actions)
    actions[3] = 99999
    with pytest.raises(IllegalMoveError, match="out of range"):
        games.step(actions)
    with pytest.raises(ValueError, match="expected 8 integer actions"):
        games.step(actions[:4])
    with pytest.raises(ValueError, match="expected 8 integer actions"):
        games.step(actions.astype(float))
    assert np.array_equal(games.states, before)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="number of games"):
        BatchGames(0)
    with pytest.raises(ValueError, match="starter"):
        BatchGames(2, starter=2)
    with pytest.raises(ValueError, match="max_turns"):
        BatchGames(2, max_turns=0)
    with pytest.raises(ValueError, match="variant"):
        BatchGames(2, "short")
    with pytest.raises(ValueError, match="policy"):
        BatchGames(2).random_actions("greedy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one variant"):
        BatchGames.from_rounds([Round.deal(seed=1), Round.deal(seed=1, variant="long")])


def test_turn_cap() -> None:
    games = BatchGames(16, "classic", seed=2, max_turns=10)
    for _ in range(10):
        games.step(games.random_actions())
    assert games.done.all() and games.truncated.all() and (games.ply == 10).all()


def test_a_batch_of_10000_games_is_small() -> None:
    games = BatchGames(10_000, "long", seed=0)
    games.legal_mask()
    assert games.nbytes < 100 * 2**20
