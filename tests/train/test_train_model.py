"""The PyTorch network plays the same moves as the NumPy one ("bit-identical moves")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lostcities import Round
from lostcities.bots import make
from lostcities.nn import Network, features_batch, legal_mask
from lostcities.rules import PlayerView

torch = pytest.importorskip("torch")

from lostcities.train.model import TorchNetwork  # noqa: E402


def _views() -> list[PlayerView]:
    """Every position of random and heuristic games (mixed too), both variants."""
    views = []
    pairings = [("random", "random"), ("heuristic", "heuristic"), ("random", "heuristic")]
    for variant in ("classic", "long"):
        for k, (a, b) in enumerate(pairings):
            seed = 100 * k + (variant == "long")
            bots = [make(a, seed=seed), make(b, seed=seed + 1)]
            r = Round.deal(seed, variant, k & 1)
            while not r.is_over():
                v = r.view(r.to_move)
                views.append(v)
                r.push(bots[r.to_move].choose(v))
    return views


@pytest.fixture(scope="module")
def views() -> list[PlayerView]:
    out = _views()
    assert len(out) >= 500
    assert {v.variant.name for v in out} == {"classic", "long"}
    return out


def _trained_like(seed: int) -> Network:
    """Random weights with policy logits of a trained network's spread."""
    net = Network.random(hidden=(64, 32), seed=seed)
    w, b = net.policy_head
    net.policy_head = (w * 300.0, b + np.random.default_rng(seed).normal(0, 1, b.shape))
    net.value_head = (net.value_head[0] * 100.0, net.value_head[1])
    return net


@pytest.mark.parametrize("seed", [1, 2])
def test_same_moves_and_values(views: list[PlayerView], seed: int, tmp_path: Path) -> None:
    # through a weights file, as the loop ships them (float32 on disk)
    _trained_like(seed).save(tmp_path / "w.npz")
    net = Network.load(tmp_path / "w.npz")
    model = TorchNetwork.from_network(net)
    x = features_batch(views)
    logits_np, values_np = net.forward(x)
    with torch.no_grad():
        logits_t, values_t = model(torch.from_numpy(x))
    logits_t, values_t = logits_t.numpy(), values_t.numpy()
    assert np.abs(values_np - values_t).max() < 1e-9
    assert np.abs(logits_np - logits_t).max() < 1e-9
    assert values_np.std() > 0.05  # the values are not all alike
    spread = 0
    for i, v in enumerate(views):
        moves, idx = legal_mask(v)
        best_np = int(np.argmax(logits_np[i, idx]))
        assert best_np == int(np.argmax(logits_t[i, idx])), f"position {i}"
        spread += len(set(np.round(logits_np[i, idx], 3))) > 1
        # the NumPy network's own evaluate() agrees
        got, probs, value = net.evaluate(v)
        assert got[int(np.argmax(probs))] == moves[best_np]
        assert abs(value - values_t[i]) < 1e-9
    assert spread > 0.9 * len(views)


def test_round_trip_through_torch() -> None:
    net = Network.random(hidden=(24, 12), seed=3)
    back = TorchNetwork.from_network(net).to_network({"name": "x"})
    assert back.meta["name"] == "x" and back.meta["hidden"] == [24, 12]
    for k, v in net.arrays().items():
        assert np.array_equal(back.arrays()[k], v), k


def test_parameter_names_are_the_weights_file_names() -> None:
    model = TorchNetwork((8, 4))
    assert set(model.state_dict()) == set(model.to_network().arrays())


def test_bad_sizes() -> None:
    with pytest.raises(ValueError, match="hidden"):
        TorchNetwork(())


def _subnormals_survive() -> bool:
    return bool(torch.tensor([1e-40], dtype=torch.float32).mul(3.0).item() != 0.0)


def test_subnormals_are_flushed_while_training_and_restored_after() -> None:
    from lostcities.train.model import subnormals_flushed

    seen: list[bool] = []

    @subnormals_flushed
    def inner() -> None:
        seen.append(_subnormals_survive())

    @subnormals_flushed
    def outer() -> None:
        inner()  # a shard played inside an update: still flushed after it
        seen.append(_subnormals_survive())

    assert _subnormals_survive()
    outer()
    assert seen == [False, False]
    assert _subnormals_survive()  # the rest of the process keeps IEEE arithmetic
