"""Fitting a network to self-play positions (PyTorch).

:func:`fit` trains a *fresh* :class:`~lostcities.train.model.TorchNetwork` (initialised
from the seed; or goes on training a given network) with Adam on two losses: the
cross-entropy of the policy to the soft target ``softmax(values / T)`` over the legal
moves (illegal moves' logits masked out), and the mean squared error of the value to
``tanh(margin / VALUE_SCALE)``. Whole rounds are held out (``holdout`` of them) to measure
both losses on play it did not see; the weights of the epoch with the lowest held-out loss
are kept. It runs on the CPU unless told ``device="cuda"``, and is deterministic given the
seed and the number of threads.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from lostcities.nn import Network
from lostcities.rules import NUM_MOVES
from lostcities.train.data import Positions, policy_targets, ragged_entries, value_targets
from lostcities.train.errors import TrainOptionError
from lostcities.train.model import TorchNetwork, subnormals_flushed

__all__ = ["TrainConfig", "TrainResult", "fit"]


@dataclass(frozen=True)
class TrainConfig:
    """How a network is fitted."""

    hidden: tuple[int, ...] = (256, 256)
    """Hidden layer sizes."""
    epochs: int = 12
    """Passes over the training positions."""
    batch_size: int = 256
    """Positions per step."""
    lr: float = 1e-3
    """Adam's learning rate."""
    weight_decay: float = 1e-5
    """Adam's L2 penalty."""
    value_weight: float = 1.0
    """Weight of the value loss against the policy loss."""
    holdout: float = 0.1
    """Fraction of the rounds held out."""
    temperature: float = 0.05
    """``T`` of the policy target."""
    device: str = "cpu"
    """``cpu`` or ``cuda``."""
    threads: int = 1
    """PyTorch CPU threads (results are reproducible for a given number)."""

    def __post_init__(self) -> None:
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise TrainOptionError(f"invalid hidden sizes: {list(self.hidden)!r}")
        for name in ("epochs", "batch_size", "threads"):
            if getattr(self, name) < 1:
                raise TrainOptionError(
                    f"invalid {name.replace('_', ' ')}: {getattr(self, name)!r} (must be at least 1)"
                )
        for name in ("lr", "temperature"):
            v = getattr(self, name)
            if not (v > 0 and math.isfinite(v)):
                raise TrainOptionError(f"invalid {name}: {v!r} (must be positive)")
        if not (self.weight_decay >= 0 and self.value_weight >= 0):
            raise TrainOptionError("invalid weight decay or value weight (must not be negative)")
        if not 0 <= self.holdout < 1:
            raise TrainOptionError(f"invalid holdout: {self.holdout!r} (from 0 to below 1)")
        if self.device not in ("cpu", "cuda"):
            raise TrainOptionError(f"invalid device: {self.device!r} (cpu or cuda)")


@dataclass
class TrainResult:
    """A fitted network and how the fit went."""

    model: TorchNetwork
    """The network (the best epoch's weights, on the CPU, float32)."""
    positions: int = 0
    """Positions fitted to."""
    holdout_positions: int = 0
    """Positions held out."""
    best_epoch: int = 0
    """The epoch kept (1-based)."""
    history: list[dict[str, float]] = field(default_factory=list)
    """Per epoch: training and held-out losses, the held-out move agreement."""
    seconds: float = 0.0
    """Wall time."""

    def summary(self) -> dict[str, Any]:
        """The figures of the kept epoch, for the training log."""
        best = self.history[self.best_epoch - 1] if self.history else {}
        return {
            "positions": self.positions,
            "holdout_positions": self.holdout_positions,
            "epochs": len(self.history),
            "best_epoch": self.best_epoch,
            **best,
            "seconds": round(self.seconds, 3),
        }


class _Batches:
    """Dense tensors of chosen rows: inputs, the legal mask, policy and value targets."""

    def __init__(self, data: Positions, temperature: float, device: torch.device) -> None:
        self.data = data
        self.device = device
        self.x = torch.from_numpy(np.ascontiguousarray(data.x, np.float32))
        self.target = policy_targets(data, temperature)
        self.z = torch.from_numpy(value_targets(data))
        self.legal = data.legal.astype(np.int64)

    def get(self, rows: npt.NDArray[np.int64]) -> tuple[torch.Tensor, ...]:
        starts = self.data.offsets[rows]
        lengths = self.data.offsets[rows + 1] - starts
        entries = ragged_entries(starts, lengths)
        local = np.repeat(np.arange(len(rows)), lengths)
        moves = self.legal[entries]
        mask = np.zeros((len(rows), NUM_MOVES), bool)
        mask[local, moves] = True
        target = np.zeros((len(rows), NUM_MOVES), np.float32)
        target[local, moves] = self.target[entries]
        idx = torch.from_numpy(rows)
        return (
            self.x[idx].to(self.device),
            torch.from_numpy(mask).to(self.device),
            torch.from_numpy(target).to(self.device),
            self.z[idx].to(self.device),
        )


def _losses(
    model: TorchNetwork, batch: tuple[torch.Tensor, ...]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    x, mask, target, z = batch
    logits, v = model(x)
    logp = torch.log_softmax(logits.masked_fill(~mask, -math.inf), dim=1)
    policy = -(target * logp.masked_fill(~mask, 0.0)).sum(1).mean()
    value = torch.mean((v - z) ** 2)
    agree = (logits.masked_fill(~mask, -math.inf).argmax(1) == target.argmax(1)).float().sum()
    return policy, value, agree


def split_rounds(groups: npt.NDArray[np.int64], holdout: float, seed: int) -> npt.NDArray[np.bool_]:
    """Which rows are held out: whole groups (rounds), about ``holdout`` of them, chosen
    from ``seed``; at least one group is kept for training.

    >>> split_rounds(np.array([0, 0, 1, 1, 2]), 0.0, 1).tolist()
    [False, False, False, False, False]
    """
    uniq = np.unique(groups)
    n_out = min(math.ceil(holdout * len(uniq)), len(uniq) - 1) if holdout > 0 else 0
    rng = np.random.default_rng(seed)
    out_groups = rng.permutation(uniq)[:n_out]
    held: npt.NDArray[np.bool_] = np.isin(groups, out_groups)
    return held


@subnormals_flushed
def fit(
    data: Positions,
    config: TrainConfig,
    *,
    seed: int,
    groups: npt.NDArray[np.int64] | None = None,
    log: Any = None,
    init: Network | None = None,
) -> TrainResult:
    """Train a fresh network on ``data`` (module docs), or go on training ``init`` (its
    hidden sizes must be ``config.hidden``). ``groups``: the round of each position, for
    the held-out split (default ``data.round``); ``log(epoch, figures)`` is called after
    every epoch.

    :raises ValueError: for no positions, ``cuda`` asked for but not available, or an
        ``init`` of other hidden sizes.
    """
    if len(data) == 0:
        raise TrainOptionError("no positions to train on")
    if config.device == "cuda" and not torch.cuda.is_available():
        raise TrainOptionError("device cuda is not available (use --device cpu)")
    start = time.perf_counter()
    device = torch.device(config.device)
    torch.set_num_threads(config.threads)
    torch.manual_seed(seed & 0xFFFF_FFFF_FFFF)
    if init is None:
        model = TorchNetwork(config.hidden).to(device)
    else:
        sizes = tuple(w.shape[0] for w, _ in init.trunk)
        if sizes != tuple(config.hidden):
            raise TrainOptionError(
                f"the network to train has hidden sizes {list(sizes)}, not {list(config.hidden)}"
            )
        model = TorchNetwork.from_network(init).float().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    g = data.round.astype(np.int64) if groups is None else groups
    held = split_rounds(g, config.holdout, seed)
    train_rows = np.flatnonzero(~held).astype(np.int64)
    test_rows = np.flatnonzero(held).astype(np.int64)
    batches = _Batches(data, config.temperature, device)
    rng = np.random.default_rng(seed)
    result = TrainResult(model=model, positions=len(train_rows), holdout_positions=len(test_rows))
    best_loss = math.inf
    best_state: dict[str, torch.Tensor] | None = None
    for epoch in range(1, config.epochs + 1):
        model.train()
        order = rng.permutation(train_rows)
        sums = [0.0, 0.0, 0.0]
        for lo in range(0, len(order), config.batch_size):
            rows = order[lo : lo + config.batch_size]
            policy, value, agree = _losses(model, batches.get(rows))
            loss = policy + config.value_weight * value
            opt.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sums[0] += policy.item() * len(rows)
            sums[1] += value.item() * len(rows)
            sums[2] += agree.item()
        n = max(len(order), 1)
        figures = {
            "train_policy_loss": sums[0] / n,
            "train_value_loss": sums[1] / n,
            "train_agreement": sums[2] / n,
        }
        if len(test_rows):
            figures.update(_evaluate(model, batches, test_rows, config.batch_size))
            score = (
                figures["holdout_policy_loss"] + config.value_weight * figures["holdout_value_loss"]
            )
        else:
            score = -epoch  # no held-out data: keep the last epoch
        result.history.append({k: round(v, 6) for k, v in figures.items()})
        if score < best_loss:
            best_loss = score
            result.best_epoch = epoch
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        if log is not None:
            log(epoch, figures)
    assert best_state is not None
    model.load_state_dict(best_state)
    result.model = model.to("cpu").float()
    result.seconds = time.perf_counter() - start
    return result


def _evaluate(
    model: TorchNetwork, batches: _Batches, rows: npt.NDArray[np.int64], batch_size: int
) -> dict[str, float]:
    model.eval()
    sums = [0.0, 0.0, 0.0]
    with torch.no_grad():
        for lo in range(0, len(rows), batch_size):
            part = rows[lo : lo + batch_size]
            policy, value, agree = _losses(model, batches.get(part))
            sums[0] += float(policy) * len(part)
            sums[1] += float(value) * len(part)
            sums[2] += float(agree)
    n = len(rows)
    return {
        "holdout_policy_loss": sums[0] / n,
        "holdout_value_loss": sums[1] / n,
        "holdout_agreement": sums[2] / n,
    }
