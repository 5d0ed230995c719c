"""Fitting: deterministic, rounds held out whole, the policy learns the teacher's moves."""

from __future__ import annotations

import numpy as np
import pytest

from lostcities.nn import NUM_FEATURES

torch = pytest.importorskip("torch")

from lostcities.train.data import Positions, policy_targets  # noqa: E402
from lostcities.train.errors import TrainOptionError  # noqa: E402
from lostcities.train.trainer import TrainConfig, fit, split_rounds  # noqa: E402


def _synthetic(n: int, seed: int) -> Positions:
    """Positions whose best legal move is a function of the input."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (n, NUM_FEATURES)).astype(np.float32)
    legal, values, offsets = [], [], [0]
    for i in range(n):
        moves = rng.choice(840, size=rng.integers(3, 9), replace=False)
        best = int(np.argmax(x[i, moves % NUM_FEATURES]))
        v = np.full(len(moves), -0.5, np.float32)
        v[best] = 0.5
        legal += moves.tolist()
        values += v.tolist()
        offsets.append(len(legal))
    return Positions(
        x=x,
        offsets=np.array(offsets, np.int64),
        legal=np.array(legal, np.int16),
        values=np.array(values, np.float32),
        played=np.zeros(n, np.int16),
        mover=np.zeros(n, np.int8),
        margin=np.sign(x[:, 0]).astype(np.int16) * 30,
        round=(np.arange(n) // 10).astype(np.int32),
        ply=np.zeros(n, np.int16),
        variant=np.zeros(n, np.int8),
    )


CONFIG = TrainConfig(hidden=(64,), epochs=6, batch_size=32, lr=3e-3)


def test_fit_is_deterministic_and_learns() -> None:
    data = _synthetic(400, 1)
    a = fit(data, CONFIG, seed=3)
    b = fit(data, CONFIG, seed=3)
    for (k, va), vb in zip(
        a.model.state_dict().items(), b.model.state_dict().values(), strict=True
    ):
        assert torch.equal(va, vb), k
    assert a.history == b.history
    first, last = a.history[0], a.history[-1]
    assert last["train_policy_loss"] < first["train_policy_loss"]
    assert last["train_agreement"] > 0.5
    # the epoch kept is the one with the lowest held-out loss
    held = [h["holdout_policy_loss"] + h["holdout_value_loss"] for h in a.history]
    assert a.best_epoch == 1 + int(np.argmin(held))
    assert a.positions + a.holdout_positions == 400 and a.holdout_positions == 40
    assert a.summary()["best_epoch"] == a.best_epoch
    c = fit(data, CONFIG, seed=4)
    assert not torch.equal(
        c.model.state_dict()["policy.weight"], a.model.state_dict()["policy.weight"]
    )


def test_illegal_moves_get_no_probability_mass_in_the_loss() -> None:
    data = _synthetic(60, 2)
    res = fit(data, TrainConfig(hidden=(8,), epochs=1, holdout=0.0), seed=0)
    assert res.holdout_positions == 0 and res.best_epoch == 1
    target = policy_targets(data, 0.05)
    assert np.allclose(np.add.reduceat(target, data.offsets[:-1]), 1.0)
    assert np.isfinite(res.history[0]["train_policy_loss"])


def test_split_holds_out_whole_rounds() -> None:
    groups = np.repeat(np.arange(20), 5)
    held = split_rounds(groups, 0.25, seed=1)
    assert held.sum() == 25
    for g in range(20):
        assert len(set(held[groups == g].tolist())) == 1
    assert not split_rounds(
        np.zeros(5, np.int64), 0.5, seed=1
    ).any()  # one round: kept for training


@pytest.mark.parametrize(
    "kwargs",
    [
        {"epochs": 0},
        {"lr": 0.0},
        {"holdout": 1.0},
        {"device": "tpu"},
        {"hidden": ()},
        {"weight_decay": -1.0},
    ],
)
def test_bad_options(kwargs: dict[str, object]) -> None:
    with pytest.raises(TrainOptionError, match="invalid"):
        TrainConfig(**kwargs)  # type: ignore[arg-type]


def test_no_positions() -> None:
    with pytest.raises(TrainOptionError, match="no positions"):
        fit(Positions.empty(), CONFIG, seed=0)
