"""The batch helpers of network play agree with the core, position by position."""

from __future__ import annotations

import numpy as np
import pytest

from lostcities.fast.kernels import PLY, STATE_SIZE
from lostcities.fast.netplay import (
    HIDDEN_FEATURES,
    NET_FEATURES,
    apply_rows,
    batch_features,
    batch_hidden,
    batch_masks,
    deal_rows,
    greedy_rows,
)
from lostcities.fast.rng import xorshift_state
from lostcities.fast.state import state_from_round
from lostcities.nn.features import features
from tests.fast.positions import random_positions


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_features_masks_and_hidden_cards_match_the_core(variant: str) -> None:
    rounds = [r for r in random_positions(40, variant, seed=5) if r.max_turns is None]
    states = np.stack([state_from_round(r) for r in rounds])
    rows = np.arange(len(rounds), dtype=np.int64)
    x = np.empty((len(rounds), NET_FEATURES), np.float32)
    batch_features(states, rows, x)
    mask = np.empty((len(rounds), 840), np.bool_)
    batch_masks(states, rows, mask, 0)
    h = np.empty((len(rounds), HIDDEN_FEATURES), np.float32)
    batch_hidden(states, rows, h)
    for i, r in enumerate(rounds):
        p = r.to_move
        np.testing.assert_allclose(x[i], features(r.view(p)), rtol=1e-6, atol=1e-6)
        assert sorted(np.flatnonzero(mask[i]).tolist()) == sorted(m.index for m in r.legal_moves())
        opp_hand = np.zeros(60)
        for c in r.hands[1 - p]:
            opp_hand[c.index] += 1
        np.testing.assert_array_equal(h[i, :60], opp_hand)
        assert h[i, 60:120].sum() == r.deck_size
        assert h[i, 120:].sum() == (1 if r.deck_size else 0)


def test_forced_plies_allow_only_draw_pile_draws() -> None:
    r = next(r for r in random_positions(30, seed=2) if r.ply >= 10 and r.max_turns is None)
    states = state_from_round(r)[None, :].copy()
    rows = np.zeros(1, np.int64)
    free = np.empty((1, 840), np.bool_)
    forced = np.empty((1, 840), np.bool_)
    batch_masks(states, rows, free, 0)
    batch_masks(states, rows, forced, r.ply)
    legal = {m.index for m in r.legal_moves()}
    assert set(np.flatnonzero(free[0]).tolist()) == legal
    assert set(np.flatnonzero(forced[0]).tolist()) == {a for a in legal if a % 7 == 0}
    assert forced[0].any()


def test_dealt_rounds_play_to_their_end_by_legal_moves() -> None:
    states = np.zeros((6, STATE_SIZE), np.int32)
    rows = np.arange(6, dtype=np.int64)
    rngs = np.stack([xorshift_state(g) for g in range(6)])
    deal_rows(states, rows, np.array([5, 6, 5, 6, 5, 6]), rngs, 0)
    assert (states[:, 5] == np.array([44, 56, 44, 56, 44, 56])).all()  # NDECK
    rng = np.random.default_rng(1)
    mask = np.empty((6, 840), np.bool_)
    for _ in range(400):
        running = rows[states[rows, 2] == 0]  # OVER
        if not running.size:
            break
        batch_masks(states, running, mask[: running.size], 0)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask[: running.size]], np.int64)
        apply_rows(states, running, acts)
    assert (states[:, 2] == 1).all()  # every round ended on an empty draw pile


@pytest.mark.parametrize("force_ply", [0, 20])
def test_greedy_rows_is_the_masked_argmax_of_the_whole_head(force_ply: int) -> None:
    rounds = [r for r in random_positions(60, "classic", seed=8) if not r.is_over()]
    states = np.stack([state_from_round(r) for r in rounds])
    rows = np.arange(len(rounds), dtype=np.int64)
    rng = np.random.default_rng(4)
    h = rng.random((len(rounds), 24), dtype=np.float32)
    w = rng.normal(size=(840, 24)).astype(np.float32)
    b = rng.normal(size=840).astype(np.float32)
    got = np.empty(len(rounds), np.int64)
    greedy_rows(states, rows, h, w, b, force_ply, got)
    mask = np.empty((len(rounds), 840), np.bool_)
    batch_masks(states, rows, mask, force_ply)
    logits = h @ w.T + b
    logits[~mask] = -np.inf
    assert got.tolist() == np.argmax(logits, axis=1).tolist()
    if force_ply:
        late = states[:, PLY] >= force_ply
        assert late.any() and all(a % 7 == 0 for a in got[late])
