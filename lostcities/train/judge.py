"""Training the learned judge (:mod:`lostcities.fast.judge`; ``lostcities train-judge``,
:mod:`lostcities.train.judge_cli`).

The data (:mod:`lostcities.train.judge_data`): self-play positions where a flat search with
the current rollout policy valued a few candidate moves. The judge learns the search's
choices: its loss is the cross-entropy of its move probabilities over the legal moves
against ``softmax(values / T)`` over the searched ones (moves not searched get no
probability). PyTorch is used for training only, on the CPU; the weights are exported to
the ``.npz`` that the numba kernels read, so nothing of PyTorch is needed at play time.

The network is the kernels' exactly: the accumulator is an ``EmbeddingBag`` over the
sparse input counts (:func:`lostcities.fast.judge.sparse_inputs`), then ``relu``, a hidden
layer with ``relu``, the card-action and draw heads and the three bonuses of ``smart``'s
move, started at ``(2, 1, 1)`` so that a fresh network begins close to ``smart``.

Everything derives from the seed (one PyTorch thread), so a run is repeatable.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from lostcities.train.errors import TrainOptionError

__all__ = ["JudgeTensors", "JudgeTrainConfig", "judge_tensors", "train_judge"]

MAX_LEGAL = 112
"""The most legal moves a position has (8 kinds x 2 actions x 7 draws)."""


@dataclass(frozen=True)
class JudgeTrainConfig:
    """How the judge is trained (stored in its weights file's meta)."""

    hidden: tuple[int, int] = (128, 32)
    """Sizes of the accumulator and the hidden layer."""
    epochs: int = 12
    """Passes over the training positions."""
    batch_size: int = 512
    """Positions per step."""
    lr: float = 2e-3
    """Adam's learning rate (cosine-annealed to a tenth)."""
    weight_decay: float = 1e-6
    """Adam's L2 penalty."""
    temperature: float = 0.05
    """``T`` of the target ``softmax(values / T)``."""
    holdout: float = 0.1
    """The fraction of the rounds held out to measure the judge."""
    seed: int = 0
    """Seed of the initial weights and the order of the positions."""
    threads: int = 1
    """PyTorch threads."""

    def __post_init__(self) -> None:
        if len(self.hidden) != 2 or any(h < 1 for h in self.hidden):
            raise TrainOptionError(f"invalid hidden sizes: {self.hidden!r} (two, each >= 1)")
        if self.epochs < 1 or self.batch_size < 1 or self.threads < 1:
            raise TrainOptionError("invalid judge training: epochs, batch size, threads >= 1")
        if not (self.lr > 0 and self.temperature > 0 and self.weight_decay >= 0):
            raise TrainOptionError("invalid judge training: lr, temperature > 0, decay >= 0")
        if not 0 <= self.holdout < 1:
            raise TrainOptionError(f"invalid holdout: {self.holdout!r} (from 0 to below 1)")


@dataclass
class JudgeTensors:
    """The training arrays of positions with more than one legal move."""

    index: npt.NDArray[np.int64]
    """Non-zero inputs, padded with :data:`~lostcities.fast.judge.NUM_INPUTS`."""
    count: npt.NDArray[np.float32]
    """Their counts (0 where padded)."""
    actions: npt.NDArray[np.int64]
    """Legal moves, padded with 0 (``(n, MAX_LEGAL)``)."""
    mask: npt.NDArray[np.bool_]
    """Which of :attr:`actions` are real."""
    target: npt.NDArray[np.float32]
    """The target probability of each of :attr:`actions`."""
    smart: npt.NDArray[np.int64]
    """``smart``'s move."""
    round: npt.NDArray[np.int32]
    """The round of each position."""

    def __len__(self) -> int:
        return int(self.index.shape[0])

    def take(self, rows: npt.NDArray[np.int64]) -> JudgeTensors:
        """The positions ``rows``."""
        return JudgeTensors(*(getattr(self, k)[rows] for k in self.__dataclass_fields__))


def judge_tensors(data: dict[str, npt.NDArray[Any]], temperature: float) -> JudgeTensors:
    """The training arrays of judge data (:func:`lostcities.train.judge_data.load_judge_shards`).

    >>> from lostcities.train.judge_data import JudgeDataConfig, judge_round
    >>> t = judge_tensors(judge_round(JudgeDataConfig(worlds=2), 1, 0), 0.05)
    >>> bool(np.allclose(t.target.sum(axis=1), 1)), bool((t.target[~t.mask] == 0).all())
    (True, True)
    """
    from lostcities.fast.judge import MAX_ACTIVE, NUM_INPUTS, sparse_inputs

    offsets = data["offsets"]
    sizes = np.diff(offsets)
    keep = np.flatnonzero(sizes > 1)
    n = len(keep)
    states = np.ascontiguousarray(data["states"][keep])
    movers = data["mover"][keep].astype(np.int64)
    index = np.full((n, MAX_ACTIVE), NUM_INPUTS, np.int64)
    count = np.zeros((n, MAX_ACTIVE), np.float32)
    sparse_inputs(states, movers, index, count)
    actions = np.zeros((n, MAX_LEGAL), np.int64)
    mask = np.zeros((n, MAX_LEGAL), np.bool_)
    target = np.zeros((n, MAX_LEGAL), np.float32)
    legal = data["legal"].astype(np.int64)
    values = data["values"].astype(np.float64)
    for r, i in enumerate(keep.tolist()):
        a, b = int(offsets[i]), int(offsets[i + 1])
        k = b - a
        actions[r, :k] = legal[a:b]
        mask[r, :k] = True
        v = values[a:b]
        ok = ~np.isnan(v)
        z = np.where(ok, v / temperature, -np.inf)
        e = np.exp(z - z[ok].max())
        target[r, :k] = e / e.sum()
    return JudgeTensors(
        index,
        count,
        actions,
        mask,
        target,
        data["smart"][keep].astype(np.int64),
        data["round"][keep],
    )


def _model(hidden: tuple[int, int], seed: int) -> Any:
    import torch
    from torch import nn

    from lostcities.fast.judge import CARD_ACTIONS, DRAWS, NUM_INPUTS

    torch.manual_seed(seed)

    class JudgeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            nh, n2 = hidden
            self.acc = nn.EmbeddingBag(NUM_INPUTS + 1, nh, mode="sum", padding_idx=NUM_INPUTS)
            nn.init.normal_(self.acc.weight, 0.0, 1.0 / math.sqrt(40))
            with torch.no_grad():
                self.acc.weight[NUM_INPUTS].zero_()
            self.b1 = nn.Parameter(torch.zeros(nh))
            self.l2 = nn.Linear(nh, n2)
            self.card = nn.Linear(n2, CARD_ACTIONS)
            self.draw = nn.Linear(n2, DRAWS)
            self.ws = nn.Parameter(torch.tensor([2.0, 1.0, 1.0]))

        def forward(self, index: Any, count: Any, actions: Any, mask: Any, smart: Any) -> Any:
            h1 = torch.relu(self.acc(index, per_sample_weights=count) + self.b1)
            h2 = torch.relu(self.l2(h1))
            ca = actions // 7
            d = actions % 7
            cl = torch.gather(self.card(h2), 1, ca)
            dl = torch.gather(self.draw(h2), 1, d)
            sca = (smart // 7).unsqueeze(1)
            sd = (smart % 7).unsqueeze(1)
            same_c = (ca == sca).float()
            same_d = (d == sd).float()
            z = cl + dl + self.ws[0] * same_c + self.ws[1] * same_d + self.ws[2] * same_c * same_d
            return z.masked_fill(~mask, -1e9)

    return JudgeNet()


def _export(model: Any, meta: dict[str, Any]) -> Any:
    from lostcities.fast.judge import NUM_INPUTS, Judge

    def a(t: Any) -> npt.NDArray[np.float32]:
        return np.asarray(t.detach().cpu().numpy(), np.float32)

    return Judge(
        {
            "w1": a(model.acc.weight)[:NUM_INPUTS],
            "b1": a(model.b1),
            "w2": a(model.l2.weight),
            "b2": a(model.l2.bias),
            "wc": a(model.card.weight),
            "bc": a(model.card.bias),
            "wd": a(model.draw.weight),
            "bd": a(model.draw.bias),
            "ws": a(model.ws),
        },
        meta=meta,
    )


def _measure(model: Any, t: JudgeTensors) -> dict[str, float]:
    """Loss, how often the judge's and ``smart``'s moves are the target's best."""
    import torch

    if not len(t):
        return {}
    with torch.no_grad():
        z = model(*_batch(t, np.arange(len(t))))
        logp = torch.log_softmax(z, 1)
        tgt = torch.from_numpy(t.target)
        loss = float(-(tgt * logp.clamp(min=-1e4)).sum(1).mean())
        pick = z.argmax(1).numpy()
    best = t.target.argmax(1)
    rows = np.arange(len(t))
    smart_col = (t.actions == t.smart[:, None]) & t.mask
    smart_best = float(smart_col[rows, best].mean())
    return {
        "loss": loss,
        "judge_top1": float((pick == best).mean()),
        "smart_top1": smart_best,
        "judge_target_mass": float(t.target[rows, pick].mean()),
        "smart_target_mass": float((t.target * smart_col).sum(1).mean()),
        "positions": float(len(t)),
    }


def _batch(t: JudgeTensors, rows: npt.NDArray[np.int64]) -> tuple[Any, ...]:
    import torch

    return (
        torch.from_numpy(t.index[rows]),
        torch.from_numpy(t.count[rows]),
        torch.from_numpy(t.actions[rows]),
        torch.from_numpy(t.mask[rows]),
        torch.from_numpy(t.smart[rows]),
    )


def train_judge(
    data: dict[str, npt.NDArray[Any]],
    cfg: JudgeTrainConfig,
    meta: dict[str, Any] | None = None,
    log: Any = None,
) -> tuple[Any, dict[str, Any]]:
    """Train a judge on ``data``; the :class:`~lostcities.fast.judge.Judge` and the
    figures (held-out loss and agreement with the teacher's best move, per epoch)."""
    import torch

    torch.set_num_threads(cfg.threads)
    t = judge_tensors(data, cfg.temperature)
    rounds = np.unique(t.round)
    rng = np.random.default_rng(cfg.seed)
    held = set(rng.permutation(rounds)[: round(cfg.holdout * len(rounds))].tolist())
    is_held = np.array([r in held for r in t.round.tolist()], np.bool_)
    train, test = t.take(np.flatnonzero(~is_held)), t.take(np.flatnonzero(is_held))
    if not len(train):
        raise TrainOptionError("no training positions (more rounds, or a smaller holdout)")
    model = _model(cfg.hidden, cfg.seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps = cfg.epochs * math.ceil(len(train) / cfg.batch_size)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps, eta_min=cfg.lr / 10)
    history: list[dict[str, float]] = []
    tgt_all = torch.from_numpy(train.target)
    for epoch in range(cfg.epochs):
        t0 = time.perf_counter()
        order = rng.permutation(len(train))
        total = 0.0
        for b in range(0, len(order), cfg.batch_size):
            rows = order[b : b + cfg.batch_size]
            z = model(*_batch(train, rows))
            logp = torch.log_softmax(z, 1).clamp(min=-1e4)
            loss = -(tgt_all[rows] * logp).sum(1).mean()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(rows)
        fig = {"epoch": float(epoch + 1), "train_loss": total / len(train)}
        fig.update({f"held_{k}": v for k, v in _measure(model, test).items()})
        fig["seconds"] = time.perf_counter() - t0
        history.append(fig)
        if log is not None:
            log(fig)
    figures: dict[str, Any] = {
        "train_positions": len(train),
        "held_positions": len(test),
        "history": history,
        "final": history[-1],
    }
    judge = _export(
        model,
        {
            **(meta or {}),
            "train": {**asdict(cfg), "hidden": list(cfg.hidden)},
            "figures": history[-1],
        },
    )
    return judge, figures
