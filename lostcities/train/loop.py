"""The training loop of ``lostcities train``: iterations of self-play, training and gating.

Each iteration ``t``:

1. **self-play**: ``rounds`` rounds by the teacher (:mod:`~lostcities.train.selfplay`):
   the heuristic-guided search, the network-guided one from the first champion network
   on when asked (``teacher="guided"``), or the search over every move (``"flat"``);
2. **train**: a fresh network fitted to the data of the last ``window`` iterations
   (:mod:`~lostcities.train.trainer`), or the champion network trained further on it
   (``student="champion"``): the *candidate*;
3. **gate**: the candidate plays the champion (the ``heuristic`` bot until a network has
   won a gate) on ``gate_deals`` duplicate deals per variant with the arena
   (:func:`lostcities.arena.play_match`); it becomes the champion if its score per round
   minus one standard error is above 1/2 (the standard error over the deals, each deal's
   two rounds averaged);
4. **reference**: the candidate plays ``heuristic`` on the same ``reference_deals`` deals
   every iteration, for the strength curve.

Everything goes into the run directory, each file written whole or not at all, so a
killed run continues with ``--resume`` where it stopped (finished stages are not redone;
a stage that was cut is redone from its seed, giving the same result for the same
options, device and threads)::

    RUNDIR/config.json             the run's options
    RUNDIR/log.json                per iteration: positions, losses, gate, reference, times
    RUNDIR/strength.svg            win rate against heuristic per iteration (95% CI)
    RUNDIR/net.npz                 the champion network (once there is one)
    RUNDIR/iter-001/data/*.npz     self-play shards (lostcities.train.data)
    RUNDIR/iter-001/candidate.npz  the candidate network
    RUNDIR/iter-001/*.json         each stage's result; done.json ends the iteration
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from lostcities.arena import LOCAL, Backend, derive_seed, play_match
from lostcities.arena.cluster import ray_session
from lostcities.arena.results import MatchResult
from lostcities.bots.expert import NET_DEPTH, NET_PRIOR
from lostcities.nn import Network, default_network
from lostcities.stats import mean_ci, score_to_elo, wilson_ci
from lostcities.train.data import Positions, atomic_figure, atomic_path, atomic_write_text
from lostcities.train.errors import RunDirectoryError, TrainOptionError
from lostcities.train.options import as_json
from lostcities.train.selfplay import (
    ExpertTeacher,
    FlatTeacher,
    GuidedTeacher,
    HeuristicTeacher,
    SelfPlayConfig,
    Teacher,
    generate,
    progress_bar,
    shard_path,
)
from lostcities.train.trainer import TrainConfig, fit

__all__ = [
    "REFERENCE",
    "RESUMABLE",
    "RunConfig",
    "gate_rule",
    "machine",
    "net_spec",
    "plot_strength",
    "prepare",
    "run",
]

REFERENCE = "heuristic"
"""The fixed opponent of the strength curve (and the first champion)."""

TEACHERS = ("heuristic", "guided", "flat", "expert")
"""The built-in teachers (:mod:`lostcities.train.selfplay`)."""

STUDENTS = ("fresh", "champion")
"""What each iteration trains: a fresh network, or the champion further."""

RESUMABLE = frozenset({"iterations", "rounds", "device", "threads"})
"""Options a resumed run may change: more iterations; the self-play rounds of the
iterations not played yet (e.g. a large first data set, then smaller iterations); another
device or number of training threads (at the price of bit-identity with an unstopped run)."""


@dataclass(frozen=True)
class RunConfig:
    """Every option of a run that its results depend on (stored in ``config.json``)."""

    iterations: int = 10
    """Iterations to run (a resumed run may raise it)."""
    rounds: int = 1000
    """Self-play rounds per iteration."""
    worlds: int = 64
    """The teacher's sampled deals per move."""
    seed: int = 0
    """The run's seed: every deal, search, split and initialisation derives from it."""
    variants: tuple[str, ...] = ("classic", "long")
    """Variants played (self-play rounds alternate; gates and references play each)."""
    gate_deals: int = 200
    """Deals per variant of the gate match (each played twice); 0 keeps every candidate."""
    reference_deals: int = 200
    """Deals per variant of the match against heuristic (0: none)."""
    window: int = 12
    """Iterations of data the candidate is trained on (the last ones)."""
    teacher: str = "heuristic"
    """``heuristic`` (the heuristic's best card actions), ``guided`` (the champion's top
    moves and the heuristic's, once there is a champion network), ``flat`` (every move) or
    ``expert`` (the ``expert`` bot's search with the champion network, from the first
    iteration: the shipped network unless ``champion`` names one)."""
    heuristic_k: int = 3
    """Card actions the heuristic and guided teachers take from the heuristic's ranking."""
    top_k: int = 4
    """The guided teacher's moves taken by prior."""
    guided_worlds: int = 128
    """The guided and expert teachers' sampled deals per move."""
    depth: int = NET_DEPTH
    """The expert teacher's rollout moves before the value head judges (0: to the end)."""
    prior: float = NET_PRIOR
    """The expert teacher's points per unit of log-probability (``mean margin + prior ln p``)."""
    rollout: str = "smart"
    """The teacher's rollout policy: ``smart``, ``cheap`` or ``net`` (the network on both
    sides: the champion's with the guided teacher, else the shipped one)."""
    champion: str = ""
    """A weights file that is the champion from the start (e.g. a PPO run's ``best.npz``):
    the guided teacher searches with it at once and the first gate challenges it."""
    student: str = "fresh"
    """Each iteration's candidate: a ``fresh`` network, or the ``champion`` network trained
    further (the heuristic champion has none: then a fresh one)."""
    temperature: float = TrainConfig.temperature
    """``T`` of the policy target and of the sampled opening moves."""
    sample_plies: int = 8
    """Plies at the start of each self-play round whose move is sampled."""
    shard_rounds: int = 8
    """Self-play rounds per data shard."""
    # how each iteration's network is fitted: TrainConfig's fields, defaults from there
    hidden: tuple[int, ...] = TrainConfig.hidden
    """Hidden layer sizes of the network."""
    epochs: int = TrainConfig.epochs
    """Training epochs per iteration."""
    batch_size: int = TrainConfig.batch_size
    """Positions per training step."""
    lr: float = TrainConfig.lr
    """Adam's learning rate."""
    weight_decay: float = TrainConfig.weight_decay
    """Adam's L2 penalty."""
    value_weight: float = TrainConfig.value_weight
    """Weight of the value loss."""
    holdout: float = TrainConfig.holdout
    """Fraction of the rounds held out to measure the losses."""
    threads: int = TrainConfig.threads
    """PyTorch threads for training."""
    device: str = TrainConfig.device
    """Where the network trains: ``cpu`` or ``cuda``."""

    def __post_init__(self) -> None:
        for name in ("iterations", "rounds", "window"):
            if getattr(self, name) < 1:
                raise TrainOptionError(
                    f"invalid {name}: {getattr(self, name)!r} (must be at least 1)"
                )
        for name in ("gate_deals", "reference_deals"):
            if getattr(self, name) < 0:
                raise TrainOptionError(
                    f"invalid {name.replace('_', ' ')}: {getattr(self, name)!r} (must not be negative)"
                )
        if self.student not in STUDENTS:
            raise TrainOptionError(f"invalid student: {self.student!r} ({', '.join(STUDENTS)})")
        if self.teacher not in TEACHERS:
            raise TrainOptionError(f"invalid teacher: {self.teacher!r} ({', '.join(TEACHERS)})")
        self.selfplay()
        self.train()
        self.first_teacher()
        GuidedTeacher("", self.top_k, self.heuristic_k, self.guided_worlds, self.rollout)
        ExpertTeacher("", self.guided_worlds, self.top_k, self.depth, self.prior)

    def selfplay(self) -> SelfPlayConfig:
        """The self-play options."""
        return SelfPlayConfig(self.temperature, self.sample_plies, self.variants, self.shard_rounds)

    def train(self) -> TrainConfig:
        """The training options."""
        return TrainConfig(
            hidden=self.hidden,
            epochs=self.epochs,
            batch_size=self.batch_size,
            lr=self.lr,
            weight_decay=self.weight_decay,
            value_weight=self.value_weight,
            holdout=self.holdout,
            temperature=self.temperature,
            device=self.device,
            threads=self.threads,
        )

    def first_teacher(self) -> FlatTeacher | HeuristicTeacher:
        """The teacher while there is no champion network (``flat`` or ``heuristic``)."""
        if self.teacher == "flat":
            return FlatTeacher(self.worlds, self.rollout)
        return HeuristicTeacher(self.worlds, max(self.heuristic_k, 1), self.rollout)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return as_json(asdict(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunConfig:
        """The inverse of :meth:`to_dict` (unknown keys are an error).

        :raises TrainOptionError: for an unknown or bad option.
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise TrainOptionError(f"unknown training options: {', '.join(unknown)}")
        d = dict(d)
        for key in ("variants", "hidden"):
            if key in d:
                d[key] = tuple(d[key])
        return cls(**d)


def net_spec(path: str | Path) -> str:
    """The bot spec of the network in ``path`` (``net:weights=PATH``)."""
    return f"net:weights={Path(path).resolve()}"


def gate_rule(pair_points: Sequence[float]) -> tuple[float, float, bool]:
    """The candidate's mean score per deal (each deal's two rounds averaged), its standard
    error, and whether the candidate passes: mean minus one standard error above 1/2.

    >>> gate_rule([1.0, 0.5, 1.0, 0.5])
    (0.75, 0.14433756729740643, True)
    >>> gate_rule([1.0, 0.0, 0.5])[2]
    False
    """
    if not pair_points:
        return 0.5, float("inf"), False
    mean, (lo, _) = mean_ci(list(pair_points), z=1.0)
    se = mean - lo
    return mean, se, lo > 0.5


# -- the run directory -------------------------------------------------------------------


def _iter_dir(out: Path, t: int) -> Path:
    return out / f"iter-{t:03d}"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise RunDirectoryError(f"unreadable run file {str(path)!r}: {e}") from None


def _write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def _copy_atomic(src: Path, dst: Path) -> None:
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)


def prepare(
    out: Path, config: RunConfig | None, overrides: dict[str, Any], resume: bool
) -> RunConfig:
    """Create or reopen the run directory and settle the run's options: a new run takes
    ``config``; a resumed one its stored options, with ``overrides`` (options the user
    gave) allowed only for :data:`RESUMABLE` ones or when equal.

    :raises RunDirectoryError: as its docs say.
    """
    if "," in str(out.resolve()):
        raise RunDirectoryError(
            f"invalid run directory {str(out)!r}: a comma cannot be in a bot spec's path"
        )
    if out.exists() and not out.is_dir():
        raise RunDirectoryError(f"invalid run directory {str(out)!r}: not a directory")
    cfg_path = out / "config.json"
    if not resume:
        if out.exists() and any(out.iterdir()):
            raise RunDirectoryError(
                f"run directory {str(out)!r} is not empty (use --resume to continue its run)"
            )
        assert config is not None
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise RunDirectoryError(f"invalid run directory {str(out)!r}: {e.strerror}") from None
        _write_json(cfg_path, config.to_dict())
        return config
    if not cfg_path.exists():
        raise RunDirectoryError(f"no run to resume in {str(out)!r} (no config.json)")
    stored = _read_json(cfg_path)
    if not isinstance(stored, dict):
        raise RunDirectoryError(f"invalid run file {str(cfg_path)!r}")
    merged = dict(stored)
    for key, value in overrides.items():
        if key in RESUMABLE:
            merged[key] = value
        elif key in stored and stored[key] != value:
            raise RunDirectoryError(
                f"--{key.replace('_', '-')} {_show(value)} differs from the run's {_show(stored[key])}"
                " (a resumed run keeps its options)"
            )
    try:
        cfg = RunConfig.from_dict(merged)
    except TrainOptionError as e:
        raise RunDirectoryError(f"invalid run file {str(cfg_path)!r}: {e}") from None
    if merged != stored:
        _write_json(cfg_path, cfg.to_dict())
    return cfg


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


# -- one iteration's stages ----------------------------------------------------------------


Echo = Callable[[str], None]


@dataclass
class _Context:
    out: Path
    config: RunConfig
    jobs: int | None
    progress: bool
    echo: Echo
    backend: Backend = LOCAL


INITIAL_CHAMPION = "champion-0.npz"
"""Where a run keeps its ``champion`` option's network (in the run directory)."""


def _champion_after(ctx: _Context, t: int) -> str | None:
    """The champion's weights (relative to the run directory) after iteration ``t``."""
    if t < 1:
        if not ctx.config.champion and ctx.config.teacher != "expert":
            return None
        if not (ctx.out / INITIAL_CHAMPION).exists():
            if ctx.config.champion:
                _copy_atomic(Path(ctx.config.champion), ctx.out / INITIAL_CHAMPION)
            else:  # the expert teacher searches with the shipped network
                with atomic_path(ctx.out / INITIAL_CHAMPION) as tmp:
                    default_network().save(tmp)
        return INITIAL_CHAMPION
    done = _read_json(_iter_dir(ctx.out, t) / "done.json")
    champ = done.get("champion")
    return None if champ is None else str(champ)


def _selfplay(ctx: _Context, t: int, champion: str | None) -> dict[str, Any]:
    d = _iter_dir(ctx.out, t)
    path = d / "selfplay.json"
    if path.exists():
        stats: dict[str, Any] = _read_json(path)
        return stats
    cfg = ctx.config
    teacher: Teacher
    if cfg.teacher in ("expert", "guided") and champion is not None:
        weights = str((ctx.out / champion).resolve())
        if cfg.teacher == "expert":
            teacher = ExpertTeacher(weights, cfg.guided_worlds, cfg.top_k, cfg.depth, cfg.prior)
        else:
            teacher = GuidedTeacher(
                weights, cfg.top_k, cfg.heuristic_k, cfg.guided_worlds, cfg.rollout
            )
        kind = cfg.teacher
    else:
        teacher = cfg.first_teacher()
        kind = "flat" if cfg.teacher == "flat" else "heuristic"
    start = time.perf_counter()
    with progress_bar(f"iter {t} self-play", ctx.progress) as bar:
        paths = generate(
            d / "data",
            teacher,
            cfg.selfplay(),
            rounds=cfg.rounds,
            seed=cfg.seed,
            iteration=t,
            jobs=ctx.jobs,
            progress=bar,
            backend=ctx.backend,
        )
    positions = 0
    for p in paths:
        with np.load(p) as z:
            positions += int(z["played"].shape[0])
    stats = {
        "teacher": kind,
        "rounds": cfg.rounds,
        "positions": positions,
        "shards": len(paths),
        "seconds": round(time.perf_counter() - start, 3),
    }
    _write_json(path, stats)
    return stats


def _data_shards(ctx: _Context, t: int) -> tuple[list[Path], list[int]]:
    """The shards of the window ending at iteration ``t`` and the iteration of each."""
    paths: list[Path] = []
    iters: list[int] = []
    cfg = ctx.config
    for s in range(max(1, t - cfg.window + 1), t + 1):
        rounds = int(_read_json(_iter_dir(ctx.out, s) / "selfplay.json")["rounds"])
        for first in range(0, rounds, cfg.shard_rounds):
            paths.append(shard_path(_iter_dir(ctx.out, s) / "data", first))
            iters.append(s)
    return paths, iters


def _train(ctx: _Context, t: int, champion: str | None) -> dict[str, Any]:
    d = _iter_dir(ctx.out, t)
    path = d / "train.json"
    cand = d / "candidate.npz"
    if path.exists() and cand.exists():
        stats: dict[str, Any] = _read_json(path)
        return stats
    cfg = ctx.config
    paths, iters = _data_shards(ctx, t)
    parts = []
    groups = []
    for p, s in zip(paths, iters, strict=True):
        pos, _ = Positions.load(p)
        parts.append(pos)
        groups.append(pos.round.astype(np.int64) + s * 1_000_000)
    data = Positions.concat(parts)
    ctx.echo(
        f"iter {t} train: {len(data):,} positions from iteration{'s' if len(parts) > 1 else ''}"
        f" {iters[0]}..{iters[-1]}"
    )

    def log_epoch(epoch: int, fig: dict[str, float]) -> None:
        held = (
            f", held out {fig['holdout_policy_loss']:.4f} / {fig['holdout_value_loss']:.4f}"
            f" (agreement {fig['holdout_agreement']:.1%})"
            if "holdout_policy_loss" in fig
            else ""
        )
        ctx.echo(
            f"iter {t} train: epoch {epoch}/{cfg.epochs} policy/value loss"
            f" {fig['train_policy_loss']:.4f} / {fig['train_value_loss']:.4f}{held}"
        )

    seed = derive_seed(cfg.seed, "train", t)
    init = None
    if cfg.student == "champion" and champion is not None:
        init = Network.load(ctx.out / champion)
        ctx.echo(f"iter {t} train: training the champion {champion} further")
    result = fit(
        data, cfg.train(), seed=seed, groups=np.concatenate(groups), log=log_epoch, init=init
    )
    net = result.model.to_network(
        {
            "name": f"iteration {t}",
            "iteration": t,
            "trained_by": "lostcities train",
            "run_seed": cfg.seed,
            "variants": list(cfg.variants),
            "positions": len(data),
        }
    )
    with atomic_path(cand) as tmp:
        net.save(tmp)
    stats = {
        "data_iterations": [iters[0], iters[-1]],
        **result.summary(),
        "history": result.history,
    }
    _write_json(path, stats)
    return stats


def _match(
    ctx: _Context, label: str, a: str, b: str, deals: int, seed_parts: tuple[object, ...]
) -> dict[str, Any]:
    """``a`` against ``b`` on ``deals`` deals of every variant, summed up (A's side)."""
    per_variant: dict[str, Any] = {}
    pair_points: list[float] = []
    pair_margins: list[float] = []
    rounds = 0
    points = 0.0
    margin = 0
    start = time.perf_counter()
    for variant in ctx.config.variants:
        seed = derive_seed(ctx.config.seed, *seed_parts, variant)
        with _match_bar(f"{label} {variant}", deals, ctx.progress) as bar:
            res = play_match(
                a,
                b,
                deals=deals,
                seed=seed,
                jobs=ctx.jobs,
                variant=variant,
                progress=bar,
                backend=ctx.backend,
            )
        per_variant[variant] = _summary(res)
        by_deal: dict[int, list[float]] = {}
        by_deal_m: dict[int, list[int]] = {}
        for g in res.games:
            by_deal.setdefault(g.deal, []).append(g.a_points)
            by_deal_m.setdefault(g.deal, []).append(g.margin)
            rounds += 1
            points += g.a_points
            margin += g.margin
        pair_points += [sum(v) / len(v) for v in by_deal.values()]
        pair_margins += [sum(v) / len(v) for v in by_deal_m.values()]
    _, se, passed = gate_rule(pair_points)
    win_rate = points / rounds if rounds else 0.5
    _, (lo, hi) = mean_ci(pair_points) if len(pair_points) > 1 else (0.0, (0.0, 1.0))
    if rounds and len(set(pair_points)) == 1:  # no spread to estimate from (a sweep): Wilson's
        lo, hi = wilson_ci(points, rounds)
    lo, hi = max(0.0, lo), min(1.0, hi)
    _, (m_lo, m_hi) = mean_ci(pair_margins) if len(pair_margins) > 1 else (0.0, (0.0, 0.0))
    return {
        "a": a,
        "b": b,
        "deals": len(pair_points),
        "rounds": rounds,
        "win_rate": win_rate,
        "win_rate_se": se,
        "win_rate_ci95": [lo, hi],
        "margin": margin / rounds if rounds else 0.0,
        "margin_ci95": [m_lo, m_hi] if len(pair_margins) > 1 else [None, None],
        "elo": _finite(score_to_elo(win_rate)),
        "elo_ci95": [_finite(score_to_elo(lo)), _finite(score_to_elo(hi))],
        "passes_gate_rule": passed,
        "by_variant": per_variant,
        "seconds": round(time.perf_counter() - start, 3),
    }


def _finite(x: float) -> float | None:
    return x if np.isfinite(x) else None


def _summary(res: MatchResult) -> dict[str, Any]:
    d = res.to_dict()
    keep = (
        "rounds",
        "a_win_rate",
        "a_win_rate_ci95",
        "mean_margin",
        "mean_margin_ci95",
        "elo",
        "forfeits",
    )
    return {k: d[k] for k in keep}


@contextlib.contextmanager
def _match_bar(
    label: str, deals: int, enabled: bool
) -> Iterator[Callable[[MatchResult], None] | None]:
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn(f"{label:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("deals  {task.fields[score]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task(label, total=deals, score="")

        def update(partial: MatchResult) -> None:
            bar.update(task, completed=partial.deals, score=f"{partial.a_win_rate:.1%}")

        yield update


def _gate(ctx: _Context, t: int, champion: str | None) -> dict[str, Any]:
    path = _iter_dir(ctx.out, t) / "gate.json"
    if path.exists():
        stats: dict[str, Any] = _read_json(path)
        return stats
    cand = net_spec(_iter_dir(ctx.out, t) / "candidate.npz")
    opponent = REFERENCE if champion is None else net_spec(ctx.out / champion)
    if ctx.config.gate_deals == 0:
        stats = {
            "opponent": champion or REFERENCE,
            "accepted": True,
            "rule": "no gate (--gate-deals 0)",
        }
    else:
        res = _match(ctx, f"iter {t} gate", cand, opponent, ctx.config.gate_deals, ("gate", t))
        stats = {
            "opponent": champion or REFERENCE,
            "accepted": bool(res["passes_gate_rule"]),
            "rule": "score per deal - 1 standard error > 1/2",
            **res,
        }
    _write_json(path, stats)
    return stats


def _reference(ctx: _Context, t: int) -> dict[str, Any] | None:
    if ctx.config.reference_deals == 0:
        return None
    path = _iter_dir(ctx.out, t) / "reference.json"
    if path.exists():
        stats: dict[str, Any] = _read_json(path)
        return stats
    cand = net_spec(_iter_dir(ctx.out, t) / "candidate.npz")
    stats = _match(
        ctx, f"iter {t} vs {REFERENCE}", cand, REFERENCE, ctx.config.reference_deals, ("reference",)
    )
    _write_json(path, stats)
    return stats


# -- the loop -------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """What the run runs on (for the log)."""
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    with contextlib.suppress(ImportError):
        import torch

        info["torch"] = torch.__version__
        if torch.cuda.is_available():
            info["cuda_device"] = torch.cuda.get_device_name(0)
    return info


def run(
    out: str | Path,
    config: RunConfig | None = None,
    *,
    resume: bool = False,
    overrides: dict[str, Any] | None = None,
    jobs: int | None = None,
    progress: bool = True,
    echo: Echo | None = None,
    stop_after: str | None = None,
    backend: Backend = LOCAL,
) -> dict[str, Any]:
    """Run (or, with ``resume``, continue) the training in ``out``; returns the log.

    ``jobs`` and ``backend``: the self-play and the matches' worker processes, on this
    machine or on a Ray cluster (:class:`~lostcities.arena.Backend`; one connection for
    the whole run); the run is the same on either.

    ``overrides``: on resume, the options given again (see :func:`prepare`).
    ``stop_after``: ``"selfplay"``, ``"train"``, ``"gate"`` or ``"reference"``: return
    after that stage of the first unfinished iteration (as if killed there: ``resume``
    continues), e.g. to make a data set first and train later.

    :raises RunDirectoryError: for a directory that cannot be used.
    :raises TrainOptionError: for bad options.
    """
    out = Path(out)
    cfg = prepare(out, config or RunConfig(), overrides or {}, resume)
    ctx = _Context(out, cfg, jobs, progress, echo or (lambda s: print(s, file=sys.stderr)), backend)
    with ray_session(backend):
        return _iterations(ctx, stop_after)


def _iterations(ctx: _Context, stop_after: str | None) -> dict[str, Any]:
    out, cfg = ctx.out, ctx.config
    log = _log(ctx)
    for t in range(1, cfg.iterations + 1):
        d = _iter_dir(out, t)
        if (d / "done.json").exists():
            continue
        d.mkdir(exist_ok=True)
        champion = _champion_after(ctx, t - 1)
        stages: dict[str, Callable[[], Any]] = {
            "selfplay": partial(_selfplay, ctx, t, champion),
            "train": partial(_train, ctx, t, champion),
            "gate": partial(_gate, ctx, t, champion),
            "reference": partial(_reference, ctx, t),
        }
        done: dict[str, Any] = {}
        for stage, step in stages.items():
            done[stage] = step()
            if stop_after == stage:
                return log
        sp, tr, gate, ref = done.values()
        new_champion = f"iter-{t:03d}/candidate.npz" if gate["accepted"] else champion
        if new_champion is not None:
            _copy_atomic(out / new_champion, out / "net.npz")
        record = {
            "iteration": t,
            "teacher": sp["teacher"],
            "positions": sp["positions"],
            "rounds": sp["rounds"],
            "train": {k: v for k, v in tr.items() if k != "history"},
            "gate": _brief(gate),
            "reference": None if ref is None else _brief(ref),
            "champion": new_champion,
            "seconds": {
                "selfplay": sp["seconds"],
                "train": tr["seconds"],
                "gate": gate.get("seconds", 0.0),
                "reference": 0.0 if ref is None else ref["seconds"],
            },
        }
        record["seconds"]["total"] = round(sum(record["seconds"].values()), 3)
        _write_json(d / "done.json", record)
        log = _log(ctx)
        _echo_iteration(ctx, record)
    return log


def _brief(match: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in match.items() if k not in ("a", "b")}


def _echo_iteration(ctx: _Context, r: dict[str, Any]) -> None:
    g = r["gate"]
    gate = (
        "kept (no gate)"
        if "win_rate" not in g
        else f"{g['win_rate']:.1%} ± {g['win_rate_se']:.1%} (1 s.e.) vs {g['opponent']}: "
        + ("kept" if g["accepted"] else "rejected")
    )
    ref = r["reference"]
    vs = (
        ""
        if ref is None
        else f"; vs {REFERENCE} {ref['win_rate']:.1%} [{ref['win_rate_ci95'][0]:.1%}, {ref['win_rate_ci95'][1]:.1%}], {ref['margin']:+.1f} points/round"
    )
    ctx.echo(
        f"iteration {r['iteration']}: {r['positions']:,} positions; gate {gate}{vs}; {r['seconds']['total']:.0f} s"
    )


def _log(ctx: _Context) -> dict[str, Any]:
    """Rebuild log.json (and the plot) from the finished iterations."""
    records = []
    t = 1
    while (_iter_dir(ctx.out, t) / "done.json").exists():
        records.append(_read_json(_iter_dir(ctx.out, t) / "done.json"))
        t += 1
    champion = records[-1]["champion"] if records else None
    log = {
        "config": ctx.config.to_dict(),
        "machine": machine(),
        "champion": champion,
        "iterations": records,
        "seconds": round(sum(r["seconds"]["total"] for r in records), 3),
    }
    _write_json(ctx.out / "log.json", log)
    if records and any(r["reference"] for r in records):
        plot_strength(records, ctx.out / "strength.svg")
    return log


def plot_strength(records: list[dict[str, Any]], path: Path) -> None:
    """Plot the candidates' win rate against the reference per iteration, with 95% CIs
    (filled markers: the candidates that became champion) to ``path`` (``.svg``, ``.png``)."""
    with atomic_figure(path) as ax:
        rows = [r for r in records if r["reference"]]
        its = [r["iteration"] for r in rows]
        rate = [100 * r["reference"]["win_rate"] for r in rows]
        lo = [100 * r["reference"]["win_rate_ci95"][0] for r in rows]
        hi = [100 * r["reference"]["win_rate_ci95"][1] for r in rows]
        kept = [bool(r["gate"]["accepted"]) for r in rows]
        ax.axhline(50, color="0.6", lw=1, ls="--")
        yerr = np.array(
            [
                [r - a for r, a in zip(rate, lo, strict=True)],
                [b - r for r, b in zip(rate, hi, strict=True)],
            ]
        )
        ax.errorbar(its, rate, yerr=yerr, fmt="-", color="tab:blue", lw=1, capsize=3, zorder=1)
        ax.scatter(
            [i for i, k in zip(its, kept, strict=True) if k],
            [r for r, k in zip(rate, kept, strict=True) if k],
            color="tab:blue",
            zorder=2,
            label="kept (champion)",
        )
        ax.scatter(
            [i for i, k in zip(its, kept, strict=True) if not k],
            [r for r, k in zip(rate, kept, strict=True) if not k],
            facecolor="white",
            edgecolor="tab:blue",
            zorder=2,
            label="rejected by the gate",
        )
        ax.set_xlabel("iteration")
        ax.set_ylabel(f"% of rounds won vs {REFERENCE}")
        ax.set_title(
            f"lostcities train: strength per iteration (95% CI, {rows[-1]['reference']['rounds']} rounds each)"
        )
        ax.set_xticks(its)
        ax.legend(loc="lower right", fontsize=8)
