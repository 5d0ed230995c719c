"""Reinforcement learning from self-play: PPO on compiled batches of rounds.

The policy network of :mod:`lostcities.nn` plays both seats of ``games`` rounds at once
(both variants in one batch when asked), sampling its moves; the rounds are stepped in
compiled code (:mod:`lostcities.fast.netplay`) and the network runs batched in PyTorch.
Each *update* plays every round of the batch to its end, then improves the policy with
PPO's clipped objective (Schulman et al. 2017) on those decisions:

- the reward is the round's outcome from the mover's side, ``tanh(margin / 30)``
  (:data:`lostcities.nn.VALUE_SCALE`), given at the end only; a player's advantages are
  GAE(lambda) over that player's own decisions (gamma 1);
- the baseline is a *critic*: with ``critic="full"`` a separate network that also sees
  what the mover cannot (the opponent's hand and the draw pile,
  :func:`lostcities.fast.netplay.batch_hidden`), used in training only, as PerfectDou and
  Suphx do; with ``critic="own"`` the policy network's value head. The value head is
  trained either way, on the outcome, so the shipped network keeps a value for search;
- from ply ``force_ply`` on only draw-pile draws are legal in self-play, so a round cannot
  be prolonged without end (the arena never truncates a round of the result).

Every ``eval_every`` updates the greedy policy plays ``heuristic`` on the same duplicate
deals (``eval_deals`` per variant, seats swapped): the learning curve, ``RUNDIR/curve.svg``.
The run directory holds everything needed to resume (``checkpoint.pt``, written
atomically after each update), the per-update log (``log.jsonl``), the evaluations
(``eval.jsonl``) and the latest and best networks (``net.npz``, ``best.npz``: the
evaluation with the highest mean margin).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import math
import multiprocessing
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from lostcities.arena import derive_seed, play_match
from lostcities.arena.cluster import LOCAL, Backend, ray_ordered, ray_session
from lostcities.bots.base import one_core_per_bot, workers_without_ctrl_c
from lostcities.fast.kernels import OVER, PLY, STATE_SIZE, TURN, batch_scores
from lostcities.fast.netplay import (
    HIDDEN_FEATURES,
    NET_FEATURES,
    apply_rows,
    batch_features,
    batch_hidden,
    batch_masks,
    deal_rows,
)
from lostcities.fast.rng import xorshift_state
from lostcities.nn import VALUE_SCALE, Network, default_network
from lostcities.presentation import progress_bar
from lostcities.rules import NUM_MOVES
from lostcities.train.data import atomic_figure, atomic_path, atomic_write_text
from lostcities.train.errors import RunDirectoryError, TrainOptionError
from lostcities.train.model import TorchNetwork, subnormals_flushed
from lostcities.train.options import as_json

__all__ = [
    "SHARD_GAMES",
    "CollectJob",
    "PPOConfig",
    "Rollout",
    "collect",
    "collect_shard",
    "run_ppo",
]

_NCOL = {"classic": 5, "long": 6}

SHARD_GAMES = 64
"""Rounds per self-play shard: the unit of work a worker plays (the rounds of an update are
cut into shards of this size whatever the number of workers, each with its own seeded
sampler, so the data is the same bit for bit on one core, many, or a Ray cluster)."""


@dataclass(frozen=True)
class PPOConfig:
    """The settings of a PPO run (``lostcities train --method ppo``; docs/training.md)."""

    updates: int = 200
    games: int = 512
    seed: int = 0
    variants: tuple[str, ...] = ("classic", "long")
    init: str = "shipped"
    hidden: tuple[int, ...] = (256, 256)
    critic: str = "full"
    lr: float = 1e-4
    critic_lr: float = 5e-4
    epochs: int = 3
    minibatch: int = 4096
    clip: float = 0.2
    entropy: float = 0.003
    value_weight: float = 0.5
    lam: float = 0.95
    target_kl: float = 0.03
    critic_warmup: int = 3
    force_ply: int = 140
    eval_every: int = 10
    eval_deals: int = 100
    threads: int = 1
    device: str = "cpu"
    pool: float = 0.0
    pool_size: int = 8
    pool_every: int = 10
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        def bad(what: str) -> None:
            raise TrainOptionError(f"invalid PPO option: {what}")

        if self.updates < 1 or self.games < 2:
            bad("updates must be >= 1 and games >= 2")
        if not self.variants or any(v not in _NCOL for v in self.variants):
            bad(f"variants must be classic and/or long, not {list(self.variants)!r}")
        if self.critic not in ("full", "own"):
            bad(f"critic must be full or own, not {self.critic!r}")
        if not (0 < self.lr < 1 and 0 < self.critic_lr < 1):
            bad("learning rates must be in (0, 1)")
        if self.epochs < 1 or self.minibatch < 1 or self.threads < 1:
            bad("epochs, minibatch and threads must be >= 1")
        if not (0 < self.clip < 1 and 0 <= self.lam <= 1):
            bad("clip must be in (0, 1) and lam in [0, 1]")
        if self.eval_every < 0 or self.eval_deals < 0 or self.force_ply < 0:
            bad("eval_every, eval_deals and force_ply must be >= 0")
        if not 0 <= self.pool < 1 or self.pool_size < 1 or self.pool_every < 1:
            bad("pool must be in [0, 1), pool_size and pool_every >= 1")
        if self.device not in ("cpu", "cuda"):
            bad(f"device must be cpu or cuda, not {self.device!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return as_json(asdict(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PPOConfig:
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        kw["variants"] = tuple(kw.get("variants", ("classic", "long")))
        kw["hidden"] = tuple(kw.get("hidden", (256, 256)))
        return cls(**kw)


class Critic(nn.Module):
    """A value network over the mover's input and what the mover cannot see."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(NET_FEATURES + HIDDEN_FEATURES, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.body(x))[:, 0]


@dataclass
class Rollout:
    """The decisions of one update's rounds, in the order they were made."""

    x: npt.NDArray[np.float32]
    hidden: npt.NDArray[np.float32]
    mask: npt.NDArray[np.bool_]
    action: npt.NDArray[np.int64]
    logp: npt.NDArray[np.float32]
    value: npt.NDArray[np.float32]
    game: npt.NDArray[np.int64]
    player: npt.NDArray[np.int64]
    margins: npt.NDArray[np.int64]
    plies: npt.NDArray[np.int64]
    forced: int

    def __len__(self) -> int:
        return int(self.action.shape[0])


def _masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask, -1e9)


def collect(
    model: TorchNetwork,
    critic: Critic | None,
    games: int,
    ncols: npt.NDArray[np.int64],
    rngs: npt.NDArray[np.uint64],
    force_ply: int,
    generator: torch.Generator,
    opponent: TorchNetwork | None = None,
    opponent_seat: npt.NDArray[np.int64] | None = None,
) -> Rollout:
    """Play ``games`` rounds to their end with ``model`` on both seats, sampling its
    moves; the critic (or the value head) values every decision.

    With ``opponent``, the seat ``opponent_seat[g]`` of round ``g`` (``-1``: none) is played
    by that frozen network instead (sampling its moves too), and only ``model``'s decisions
    are recorded."""
    if opponent is None or opponent_seat is None:
        opponent_seat = np.full(games, -1, np.int64)
    states = np.zeros((games, STATE_SIZE), np.int32)
    deal_rows(states, np.arange(games, dtype=np.int64), ncols, rngs, 0)
    running = np.arange(games, dtype=np.int64)
    xs: list[npt.NDArray[np.float32]] = []
    hs: list[npt.NDArray[np.float32]] = []
    ms: list[npt.NDArray[np.bool_]] = []
    acts: list[npt.NDArray[np.int64]] = []
    logps: list[npt.NDArray[np.float32]] = []
    vals: list[npt.NDArray[np.float32]] = []
    gs: list[npt.NDArray[np.int64]] = []
    ps: list[npt.NDArray[np.int64]] = []
    forced = 0
    with torch.no_grad():
        while running.size:
            n = running.size
            x = np.empty((n, NET_FEATURES), np.float32)
            batch_features(states, running, x)
            mask = np.empty((n, NUM_MOVES), np.bool_)
            batch_masks(states, running, mask, force_ply)
            h = np.empty((n, HIDDEN_FEATURES if critic is not None else 0), np.float32)
            if critic is not None:
                batch_hidden(states, running, h)
            tx = torch.from_numpy(x)
            players = states[running, TURN].astype(np.int64)
            mine = players != opponent_seat[running]
            logits, v = model(tx)
            if critic is not None:
                v = critic(torch.cat([tx, torch.from_numpy(h)], dim=1))
            if opponent is not None and not mine.all():
                theirs = torch.from_numpy(~mine)
                logits[theirs] = opponent(tx[theirs])[0]
            logits = _masked_logits(logits, torch.from_numpy(mask))
            logp_all = torch.log_softmax(logits, dim=1)
            a = torch.multinomial(logp_all.exp(), 1, generator=generator)[:, 0]
            lp = logp_all.gather(1, a[:, None])[:, 0]
            actions = a.numpy().astype(np.int64)
            if force_ply:
                forced += int((states[running, PLY] >= force_ply).sum())
            xs.append(x[mine])
            hs.append(h[mine])
            ms.append(mask[mine])
            acts.append(actions[mine])
            logps.append(lp.numpy()[mine])
            vals.append(v.numpy().astype(np.float32)[mine])
            gs.append(running[mine])
            ps.append(players[mine])
            apply_rows(states, running, actions)
            running = running[states[running, OVER] == 0]
    sc = np.empty((games, 2), np.int64)
    batch_scores(states, sc)
    return Rollout(
        x=np.concatenate(xs),
        hidden=np.concatenate(hs),
        mask=np.concatenate(ms),
        action=np.concatenate(acts),
        logp=np.concatenate(logps),
        value=np.concatenate(vals),
        game=np.concatenate(gs),
        player=np.concatenate(ps),
        margins=sc[:, 0] - sc[:, 1],
        plies=states[:, PLY].astype(np.int64),
        forced=forced,
    )


@dataclass(frozen=True)
class CollectJob:
    """What every shard of one update shares: the networks' weights (as NumPy arrays, so
    the job pickles small and loads anywhere) and the update's seeds."""

    model: dict[str, npt.NDArray[np.float32]]
    hidden: tuple[int, ...]
    critic: dict[str, npt.NDArray[np.float32]] | None
    ncols: npt.NDArray[np.int64]
    seed: int
    update: int
    force_ply: int
    pool: tuple[dict[str, npt.NDArray[np.float32]], ...] = ()
    pool_hidden: tuple[tuple[int, ...], ...] = ()
    pool_share: float = 0.0

    @classmethod
    def of(
        cls,
        model: TorchNetwork,
        critic: Critic | None,
        ncols: npt.NDArray[np.int64],
        cfg: PPOConfig,
        update: int,
        pool: Sequence[Network] = (),
    ) -> CollectJob:
        def arrays(m: nn.Module) -> dict[str, npt.NDArray[np.float32]]:
            return {k: v.detach().cpu().float().numpy().copy() for k, v in m.state_dict().items()}

        return cls(
            model=arrays(model),
            hidden=model.hidden,
            critic=arrays(critic) if critic is not None else None,
            ncols=ncols,
            seed=cfg.seed,
            update=update,
            force_ply=cfg.force_ply,
            pool=tuple(
                {k: np.asarray(v, np.float32) for k, v in net.arrays().items()} for net in pool
            ),
            pool_hidden=tuple(tuple(w.shape[0] for w, _ in net.trunk) for net in pool),
            pool_share=cfg.pool if pool else 0.0,
        )

    def shards(self) -> list[int]:
        """The shard numbers of this update."""
        return list(range(-(-self.ncols.shape[0] // SHARD_GAMES)))


@subnormals_flushed
def collect_shard(job: CollectJob, shard: int) -> Rollout:
    """Play shard ``shard`` of an update's rounds (``SHARD_GAMES`` of them; module docs):
    a pure function of the job and the shard number, run in-process, by a local worker or
    on a Ray cluster. Its ``game`` numbers are the rounds' numbers in the whole update."""
    torch.set_num_threads(1)
    model = TorchNetwork(job.hidden)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in job.model.items()})
    model.eval()
    critic: Critic | None = None
    if job.critic is not None:
        critic = Critic()
        critic.load_state_dict({k: torch.from_numpy(v) for k, v in job.critic.items()})
        critic.eval()
    lo = shard * SHARD_GAMES
    hi = min(lo + SHARD_GAMES, job.ncols.shape[0])
    rngs = np.stack(
        [xorshift_state(derive_seed(job.seed, "ppo", job.update, g)) for g in range(lo, hi)]
    )
    gen = torch.Generator().manual_seed(derive_seed(job.seed, "ppo-sample", job.update, shard))
    opponent: TorchNetwork | None = None
    seats: npt.NDArray[np.int64] | None = None
    if job.pool and job.pool_share > 0:
        # one past network per shard; each round of the shard meets it with probability
        # pool_share, on a seat drawn for that round
        pick = np.random.default_rng(derive_seed(job.seed, "ppo-pool", job.update, shard))
        k = int(pick.integers(len(job.pool)))
        opponent = TorchNetwork(job.pool_hidden[k])
        opponent.load_state_dict({n: torch.from_numpy(v) for n, v in job.pool[k].items()})
        opponent.eval()
        meets = pick.random(hi - lo) < job.pool_share
        seats = np.where(meets, pick.integers(2, size=hi - lo), -1).astype(np.int64)
    ro = collect(
        model, critic, hi - lo, job.ncols[lo:hi], rngs, job.force_ply, gen, opponent, seats
    )
    ro.game += lo
    return ro


def merge_rollouts(parts: list[Rollout]) -> Rollout:
    """The shards of an update as one rollout (shards in order, so each round's decisions
    stay in the order they were made)."""
    return Rollout(
        x=np.concatenate([r.x for r in parts]),
        hidden=np.concatenate([r.hidden for r in parts]),
        mask=np.concatenate([r.mask for r in parts]),
        action=np.concatenate([r.action for r in parts]),
        logp=np.concatenate([r.logp for r in parts]),
        value=np.concatenate([r.value for r in parts]),
        game=np.concatenate([r.game for r in parts]),
        player=np.concatenate([r.player for r in parts]),
        margins=np.concatenate([r.margins for r in parts]),
        plies=np.concatenate([r.plies for r in parts]),
        forced=sum(r.forced for r in parts),
    )


class Pool:
    """The past networks self-play may meet (``--pool``): a snapshot every ``pool_every``
    updates, the latest ``size`` kept in ``RUNDIR/pool/`` (so a resumed run meets the same
    ones); ``size`` 0 keeps none."""

    def __init__(self, directory: Path, size: int) -> None:
        self.directory = directory
        self.size = size
        self._loaded: dict[str, Network] = {}

    def add(self, update: int, model: TorchNetwork) -> None:
        if self.size == 0:
            return
        self.directory.mkdir(exist_ok=True)
        with atomic_path(self.directory / f"update-{update:05d}.npz") as tmp:
            model.to_network({"update": update}).save(tmp)
        for old in self._files()[: -self.size]:
            old.unlink()

    def _files(self) -> list[Path]:
        return sorted(self.directory.glob("update-*.npz")) if self.directory.is_dir() else []

    def networks(self) -> list[Network]:
        if self.size == 0:
            return []
        files = self._files()
        self._loaded = {f.name: self._loaded.get(f.name) or Network.load(f) for f in files}
        return list(self._loaded.values())


class Collector:
    """Plays an update's shards: in this process (``jobs`` 1), in local worker processes
    kept for the whole run, or on a Ray cluster (``backend``)."""

    def __init__(self, jobs: int, backend: Backend) -> None:
        self.jobs = max(1, jobs)
        self.backend = backend
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def __call__(self, job: CollectJob) -> Rollout:
        shards = job.shards()
        if self.backend.kind == "ray":
            parts = list(
                ray_ordered(
                    collect_shard,
                    job,
                    shards,
                    jobs=self.jobs if self.jobs > 1 else None,
                    describe=lambda i: f"PPO shard {i} of update {job.update + 1}",
                )
            )
        elif self.jobs == 1 or len(shards) == 1:
            parts = [collect_shard(job, i) for i in shards]
        else:
            if self._pool is None:
                one_core_per_bot()
                with workers_without_ctrl_c():
                    self._pool = concurrent.futures.ProcessPoolExecutor(
                        self.jobs, mp_context=multiprocessing.get_context("spawn")
                    )
            parts = list(self._pool.map(collect_shard, [job] * len(shards), shards))
        return merge_rollouts(parts)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def advantages(ro: Rollout, lam: float) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """GAE(lambda, gamma 1) over each player's own decisions, and the outcome of each
    decision's round for its mover (``tanh(margin / VALUE_SCALE)``)."""
    games = ro.margins.shape[0]
    outcome = np.tanh(ro.margins / VALUE_SCALE)
    final = np.where(ro.player == 0, outcome[ro.game], -outcome[ro.game]).astype(np.float32)
    nxt = np.stack([outcome, -outcome], 1)  # (the value after each player's last decision)
    run = np.zeros((games, 2))
    adv = np.empty(len(ro), np.float32)
    game, player, value = ro.game, ro.player, ro.value
    for t in range(len(ro) - 1, -1, -1):
        g = game[t]
        p = player[t]
        run[g, p] = nxt[g, p] - value[t] + lam * run[g, p]
        adv[t] = run[g, p]
        nxt[g, p] = value[t]
    return adv, final


# -- the run ---------------------------------------------------------------------------------
def _write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")


def _drop_after(path: Path, update: int) -> None:
    """Drop the lines of ``path`` (JSON lines) of updates after ``update``."""
    if not path.is_file():
        return
    lines = [x for x in path.read_text().splitlines() if x.strip()]
    keep = [x for x in lines if int(json.loads(x)["update"]) <= update]
    if len(keep) < len(lines):
        atomic_write_text(path, "".join(x + "\n" for x in keep))


def _append_jsonl(path: Path, data: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(data) + "\n")


def _initial(cfg: PPOConfig) -> TorchNetwork:
    if cfg.init == "shipped":
        return TorchNetwork.from_network(default_network()).float()
    if cfg.init == "fresh":
        torch.manual_seed(cfg.seed)
        return TorchNetwork(cfg.hidden)
    return TorchNetwork.from_network(Network.load(cfg.init)).float()


def machine() -> dict[str, Any]:
    """What the run ran on (for the log)."""
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "torch": torch.__version__,
    }


def evaluate(
    weights: Path, cfg: PPOConfig, jobs: int = 1, backend: Backend = LOCAL
) -> dict[str, Any]:
    """The greedy policy in ``weights`` against ``heuristic`` on the run's fixed deals."""
    out: dict[str, Any] = {"rounds": 0, "by_variant": {}}
    wins = 0.0
    margins: list[float] = []
    for variant in cfg.variants:
        res = play_match(
            f"net:weights={weights}",
            "heuristic",
            deals=cfg.eval_deals,
            seed=derive_seed(cfg.seed, "ppo-eval", variant),
            jobs=jobs,
            variant=variant,
            backend=backend,
        )
        d = res.to_dict()
        out["by_variant"][variant] = {
            k: d[k]
            for k in ("rounds", "a_win_rate", "a_win_rate_ci95", "mean_margin", "mean_margin_ci95")
        }
        for g in res.games:
            wins += g.a_points
            margins.append(g.margin)
    n = len(margins)
    out["rounds"] = n
    out["win_rate"] = wins / n if n else 0.5
    out["margin"] = float(np.mean(margins)) if n else 0.0
    out["margin_se"] = float(np.std(margins, ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    return out


def plot_curve(evals: list[dict[str, Any]], path: Path) -> None:
    """The learning curve: win rate and mean margin against ``heuristic`` per update."""
    with atomic_figure(path) as ax:
        ups = [e["update"] for e in evals]
        ax.axhline(0, color="0.6", lw=1, ls="--")
        m = [e["margin"] for e in evals]
        se = [1.96 * e["margin_se"] for e in evals]
        ax.errorbar(
            ups,
            m,
            yerr=se,
            fmt="-o",
            ms=3,
            color="tab:blue",
            capsize=2,
            label="mean margin (95% CI)",
        )
        ax.set_xlabel("PPO update")
        ax.set_ylabel("points a round vs heuristic")
        ax2 = ax.twinx()
        ax2.plot(
            ups,
            [100 * e["win_rate"] for e in evals],
            "-",
            color="tab:orange",
            lw=1,
            label="% of rounds won",
        )
        ax2.set_ylabel("% of rounds won", color="tab:orange")
        rounds = evals[-1]["rounds"] if evals else 0
        ax.set_title(
            f"lostcities train --method ppo: greedy policy vs heuristic ({rounds} rounds each)"
        )


@subnormals_flushed
def run_ppo(
    cfg: PPOConfig,
    out: Path,
    *,
    resume: bool = False,
    progress: bool = True,
    echo: Callable[[str], None] | None = None,
    jobs: int = 1,
    backend: Backend = LOCAL,
) -> dict[str, Any]:
    """Run (or resume) a PPO run in ``out``; returns the last evaluation (or ``{}``).

    ``jobs`` and ``backend``: where the self-play shards are played (:class:`Collector`) and
    the evaluations' matches; the data is the same whichever. The learner runs on
    ``cfg.device``."""
    say = echo or (lambda s: print(s, file=sys.stderr, flush=True))
    ckpt_path = out / "checkpoint.pt"
    if resume:
        if not (out / "config.json").is_file():
            raise RunDirectoryError(f"no PPO run to resume in {out}")
        saved = PPOConfig.from_dict(json.loads((out / "config.json").read_text()))
        # a resumed run keeps its settings; only the length and where it runs may change
        run_only = {"updates": cfg.updates, "device": cfg.device, "threads": cfg.threads}
        cfg = PPOConfig.from_dict({**saved.to_dict(), **run_only})
    else:
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise RunDirectoryError(f"{out} is not an empty directory (use --resume to continue)")
        out.mkdir(parents=True, exist_ok=True)
    _write_json(out / "config.json", cfg.to_dict())
    torch.set_num_threads(cfg.threads)
    numba.set_num_threads(min(cfg.threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    if cfg.device == "cuda" and not torch.cuda.is_available():
        raise TrainOptionError("device cuda is not available (use --device cpu)")
    device = torch.device(cfg.device)
    model = _initial(cfg).float().to(device)
    critic = Critic().to(device) if cfg.critic == "full" else None
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    copt = torch.optim.Adam(critic.parameters(), lr=cfg.critic_lr) if critic is not None else None
    gen = torch.Generator().manual_seed(cfg.seed)
    start_update = 0
    best = -math.inf
    spent = 0.0
    cores = max(cfg.threads, jobs)  # what an update may keep busy: the learner or the actors
    core_spent = 0.0
    if ckpt_path.is_file():
        ck = torch.load(ckpt_path, weights_only=False, map_location=device)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        if critic is not None and copt is not None:
            critic.load_state_dict(ck["critic"])
            copt.load_state_dict(ck["copt"])
        gen.set_state(ck["gen"])
        start_update = int(ck["update"])
        best = float(ck["best"])
        spent = float(ck.get("seconds", 0.0))
        core_spent = float(ck.get("core_seconds", spent))  # older runs: one core
        for name in ("log.jsonl", "eval.jsonl"):  # lines of an update cut before its checkpoint
            _drop_after(out / name, start_update)
        say(f"resuming at update {start_update + 1}")
    if start_update == 0 and not (out / "machine.json").exists():
        _write_json(out / "machine.json", machine())
    ncols = np.array(
        [_NCOL[cfg.variants[g % len(cfg.variants)]] for g in range(cfg.games)], np.int64
    )
    last_eval: dict[str, Any] = {}
    pool = Pool(out / "pool", cfg.pool_size if cfg.pool > 0 else 0)
    if start_update == 0:
        pool.add(0, model)
    bar = _Bar(cfg.updates, start_update, progress)
    collector = Collector(jobs, backend)
    session = contextlib.ExitStack()
    session.enter_context(ray_session(backend))
    try:
        for u in range(start_update, cfg.updates):
            t0 = time.perf_counter()
            ro = collector(CollectJob.of(model, critic, ncols, cfg, u, pool.networks()))
            t_collect = time.perf_counter() - t0
            stats = _learn(model, critic, opt, copt, ro, cfg, u, gen)
            took = time.perf_counter() - t0
            spent += took
            core_spent += took * cores
            rec = {
                "update": u + 1,
                "decisions": len(ro),
                "mean_plies": float(ro.plies.mean()),
                "max_plies": int(ro.plies.max()),
                "forced_decisions": ro.forced,
                "abs_margin": float(np.abs(ro.margins).mean()),
                "collect_s": round(t_collect, 2),
                "seconds": round(took, 2),
                **stats,
            }
            _append_jsonl(out / "log.jsonl", rec)
            state = {
                "model": model.state_dict(),
                "opt": opt.state_dict(),
                "critic": critic.state_dict() if critic is not None else None,
                "copt": copt.state_dict() if copt is not None else None,
                "gen": gen.get_state(),
                "update": u + 1,
                "best": best,
                "seconds": spent,
                "core_seconds": core_spent,
            }
            meta = {
                "trained_by": "lostcities train --method ppo",
                "update": u + 1,
                "run_seed": cfg.seed,
            }
            with atomic_path(out / "net.npz") as tmp:
                model.to_network(meta).save(tmp)
            if (u + 1) % cfg.pool_every == 0:
                pool.add(u + 1, model)
            if cfg.eval_every and ((u + 1) % cfg.eval_every == 0 or u + 1 == cfg.updates):
                ev = evaluate(out / "net.npz", cfg, jobs, backend)
                ev.update(
                    {
                        "update": u + 1,
                        "decisions_so_far": None,
                        "core_seconds": round(core_spent, 1),
                    }
                )
                _append_jsonl(out / "eval.jsonl", ev)
                evals = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
                plot_curve(evals, out / "curve.svg")
                if ev["margin"] > best:
                    best = ev["margin"]
                    state["best"] = best
                    with atomic_path(out / "best.npz") as tmp:
                        model.to_network({**meta, "eval": ev}).save(tmp)
                last_eval = ev
                say(
                    f"update {u + 1}: vs heuristic {100 * ev['win_rate']:.1f}% of {ev['rounds']} rounds, "
                    f"{ev['margin']:+.1f} ± {1.96 * ev['margin_se']:.1f} points a round"
                )
            with atomic_path(ckpt_path) as tmp:
                torch.save(state, tmp)
            bar.advance(rec)
    finally:
        collector.close()
        session.close()
        bar.close()
    return last_eval


def _learn(
    model: TorchNetwork,
    critic: Critic | None,
    opt: torch.optim.Optimizer,
    copt: torch.optim.Optimizer | None,
    ro: Rollout,
    cfg: PPOConfig,
    update: int,
    gen: torch.Generator,
) -> dict[str, Any]:
    adv_np, final_np = advantages(ro, cfg.lam)
    ret_np = adv_np + ro.value
    model.train()
    dev = next(model.parameters()).device
    x = torch.from_numpy(ro.x).to(dev)
    h = torch.from_numpy(ro.hidden).to(dev)
    mask = torch.from_numpy(ro.mask).to(dev)
    act = torch.from_numpy(ro.action).to(dev)
    old_lp = torch.from_numpy(ro.logp).to(dev)
    adv = torch.from_numpy(adv_np).to(dev)
    ret = torch.from_numpy(ret_np).to(dev)
    final = torch.from_numpy(final_np).to(dev)
    n = len(ro)
    learn_policy = update >= cfg.critic_warmup or critic is None
    kls: list[float] = []
    pls: list[float] = []
    vls: list[float] = []
    cls_: list[float] = []
    ents: list[float] = []
    clipped: list[float] = []
    stop = False
    for _ in range(cfg.epochs):
        perm = torch.randperm(n, generator=gen).to(dev)
        for lo in range(0, n, cfg.minibatch):
            idx = perm[lo : lo + cfg.minibatch]
            logits, v = model(x[idx])
            logp_all = torch.log_softmax(_masked_logits(logits, mask[idx]), dim=1)
            lp = logp_all.gather(1, act[idx][:, None])[:, 0]
            ratio = torch.exp(lp - old_lp[idx])
            a = adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8)
            pg = -torch.min(ratio * a, torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip) * a).mean()
            p_all = logp_all.exp()
            ent = -(p_all * logp_all.clamp(min=-30)).sum(1).mean()
            vloss = ((v - final[idx]) ** 2).mean()
            if critic is None:
                vloss = ((v - ret[idx]) ** 2).mean()
            loss = cfg.value_weight * vloss
            if learn_policy:
                loss = loss + pg - cfg.entropy * ent
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if critic is not None and copt is not None:
                cv = critic(torch.cat([x[idx], h[idx]], dim=1))
                closs = ((cv - ret[idx]) ** 2).mean()
                copt.zero_grad()
                closs.backward()
                nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
                copt.step()
                cls_.append(closs.item())
            with torch.no_grad():
                kl = float(((ratio - 1) - torch.log(ratio)).mean())
            kls.append(kl)
            pls.append(pg.item())
            vls.append(vloss.item())
            ents.append(ent.item())
            clipped.append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
            if learn_policy and kl > 1.5 * cfg.target_kl:
                stop = True
                break
        if stop:
            break
    return {
        "policy_loss": round(float(np.mean(pls)), 5),
        "value_loss": round(float(np.mean(vls)), 5),
        "critic_loss": round(float(np.mean(cls_)), 5) if cls_ else None,
        "entropy": round(float(np.mean(ents)), 4),
        "kl": round(float(np.mean(kls)), 5),
        "clip_frac": round(float(np.mean(clipped)), 4),
        "early_stop": stop,
        "learned_policy": learn_policy,
    }


class _Bar:
    """A rich progress bar over the updates on stderr (nothing when disabled)."""

    def __init__(self, total: int, done: int, enabled: bool) -> None:
        self.progress: Any = None
        if not enabled:
            return
        self.progress = progress_bar(fields="{task.fields[info]}", keep=True)
        self.progress.start()
        self.task = self.progress.add_task("PPO updates", total=total, completed=done, info="")

    def advance(self, rec: dict[str, Any]) -> None:
        if self.progress is not None:
            info = (
                f"{rec['decisions']:,} decisions, entropy {rec['entropy']:.2f}, kl {rec['kl']:.3f}"
            )
            self.progress.update(self.task, advance=1, info=info)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
