"""Inference about the opponent's hand (lostcities.nn.inference) and the expert's use of it."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcities import Round
from lostcities.bots import make
from lostcities.nn import Network, default_network
from lostcities.nn.features import features, hand_affine
from lostcities.nn.inference import HandInference


def _played(seed: int, plies: int, variant: str = "classic") -> Round:
    r = Round.deal(seed=seed, variant=variant)
    rng = random.Random(seed)
    for _ in range(plies):
        if r.deck_size <= 2:
            break
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    return r


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 60), st.sampled_from(["classic", "long"]))
def test_features_are_affine_in_the_hand(seed: int, plies: int, variant: str) -> None:
    r = _played(seed, plies, variant)
    view = r.view(r.to_move)
    f0, a = hand_affine(view)
    rng = random.Random(seed)
    for _ in range(3):
        hand = tuple(sorted(rng.sample(view.unseen_cards() + list(view.hand), 8)))
        counts = np.zeros(60)
        for c in hand:
            counts[c.index] += 1
        assert np.allclose(f0 + a @ counts, features(replace(view, hand=hand)))


def test_the_folded_network_is_the_network() -> None:
    """One step back over a move that drew from a discard pile (no guess involved): the
    weight is the network's log-probability of that move with the reconstructed hand."""
    net = Network.random(hidden=(32, 16), seed=3)
    checked = 0
    for seed in range(200):
        r = _played(seed, 2 * (seed % 15) + 1)
        if r.is_over() or r.history[-1].draw is None:
            continue
        view = r.view(r.to_move)
        sampler = view.sampler()
        guesses = [random.Random(i).sample(sampler.unseen, sampler.hidden) for i in range(3)]
        got = HandInference(net, steps=1).log_weights(view, guesses, random.Random(0))
        before = view.earlier_views()[-1]
        move = view.history[-1]
        drawn = before.discard_piles[move.draw][-1]
        for g, w in zip(guesses, got, strict=True):
            hand = [*view.opponent_known, *g]
            hand.remove(drawn)
            hand.append(move.card)
            moves, probs = net.policy(replace(before, hand=tuple(sorted(hand))))
            assert w == pytest.approx(np.log(probs[moves.index(move)]), abs=1e-4)
        checked += 1
    assert checked >= 5


def test_the_true_hand_is_more_likely_than_a_random_one() -> None:
    net = default_network()
    inf = HandInference(net, steps=4)
    diffs = []
    for seed in range(3):
        r = Round.deal(seed=seed)
        bots = [make("heuristic", seed=seed), make("heuristic", seed=seed + 1)]
        rng = random.Random(seed)
        while not r.is_over():
            v = r.view(r.to_move)
            if r.to_move == 0 and r.ply > 6 and r.ply % 4 == 0 and r.deck_size > 0:
                s = v.sampler()
                true = list(r.hands[1])
                for c in s.known:
                    true.remove(c)
                w = inf.log_weights(
                    v, [true] + [rng.sample(s.unseen, s.hidden) for _ in range(15)], rng
                )
                diffs.append(w[0] - w[1:].mean())
            r.push(bots[r.to_move].choose(v))
    assert np.mean(diffs) > 1.0  # measured about 3.7 nats over the last four moves


def test_inference_needs_no_hidden_card() -> None:
    """Swapping the opponent's hidden cards (same public history) changes nothing."""
    r = _played(7, 21)
    view = r.view(r.to_move)
    s = view.sampler()
    guesses = [random.Random(i).sample(s.unseen, s.hidden) for i in range(8)]
    a = HandInference(default_network(), steps=3).log_weights(view, guesses, random.Random(2))
    b = HandInference(default_network(), steps=3).log_weights(view, guesses, random.Random(2))
    assert np.array_equal(a, b)


def test_expert_with_inference_plays_legal_reproducible_moves() -> None:
    pytest.importorskip("numba")
    r = _played(3, 15)
    view = r.view(r.to_move)
    a = make("expert:iters=300,infer=3,guesses=16,rollout=smart", seed=5).choose(view)
    assert a in view.legal_moves()
    assert a == make("expert:iters=300,infer=3,guesses=16,rollout=smart", seed=5).choose(view)


@pytest.mark.parametrize("spec", ["expert:infer=-1", "expert:guesses=0", "expert:power=2"])
def test_bad_inference_options_are_one_line_errors(spec: str) -> None:
    from lostcities.bots.base import BotSpecError

    with pytest.raises(BotSpecError, match="invalid bot spec"):
        make(spec)
