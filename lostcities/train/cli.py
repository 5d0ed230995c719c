"""``lostcities train``: the command line of :mod:`lostcities.train.loop`.

This module imports neither PyTorch nor numba (``lostcities --help`` loads it to list the
options); :func:`cli_main` checks they are installed and says how to get them. Values are
read by :mod:`lostcities.train.options`, not by argparse, so that any bad value is one line
on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib.util
from dataclasses import fields
from typing import Any

from lostcities.train.options import Option, add_options, as_json, given, read_given, reader

__all__ = ["add_arguments", "cli_main"]


def _defaults() -> dict[str, Any]:
    from lostcities.train.loop import RunConfig

    return {f.name: f.default for f in fields(RunConfig)}


# (option, RunConfig field, kind, help) of every option of `lostcities train`; the defaults are RunConfig's
OPTIONS: list[Option] = [
    ("--iterations", "iterations", "int>=1", "iterations of self-play, training and gating (10)"),
    ("--rounds", "rounds", "int>=1", "self-play rounds per iteration (1000)"),
    ("--worlds", "worlds", "int>=1", "the teacher's sampled deals per move (64)"),
    ("--seed", "seed", "int", "seed of the whole run (0)"),
    ("--variant", "variants", "variant", "classic, long or both: self-play alternates (both)"),
    (
        "--gate-deals",
        "gate_deals",
        "int>=0",
        "gate match deals per variant, each played twice; 0: no gate (200)",
    ),
    (
        "--reference-deals",
        "reference_deals",
        "int>=0",
        "deals per variant of the match against heuristic (200)",
    ),
    ("--window", "window", "int>=1", "train on the last K iterations' data (12)"),
    (
        "--teacher",
        "teacher",
        "teacher",
        "heuristic, guided (the champion's and the heuristic's top moves), flat, or expert"
        " (the expert bot's search with the champion network) (heuristic)",
    ),
    (
        "--heuristic-k",
        "heuristic_k",
        "int>=0",
        "card actions taken from the heuristic's ranking (3)",
    ),
    ("--top-k", "top_k", "int>=1", "the guided teacher's moves by prior (4)"),
    (
        "--guided-worlds",
        "guided_worlds",
        "int>=1",
        "the guided and expert teachers' deals per move (128)",
    ),
    (
        "--student",
        "student",
        "student",
        "each iteration trains a fresh network or the champion further (fresh)",
    ),
    ("--depth", "depth", "int>=0", "the expert teacher's rollout moves before the value head (30)"),
    ("--prior", "prior", "float>=0", "the expert teacher's points per unit of ln p (2)"),
    ("--rollout", "rollout", "rollout", "the teacher's rollout policy: smart or cheap (smart)"),
    (
        "--temperature",
        "temperature",
        "float>0",
        "T of the policy target softmax(values / T) (0.05)",
    ),
    (
        "--sample-plies",
        "sample_plies",
        "int>=0",
        "opening plies whose move is sampled from the target (8)",
    ),
    ("--shard-rounds", "shard_rounds", "int>=1", "self-play rounds per data shard (8)"),
    (
        "--champion",
        "champion",
        "weights",
        "a weights file that is the champion from the start, e.g. a PPO run's best.npz (none)",
    ),
    ("--hidden", "hidden", "sizes", "hidden layer sizes (256,256)"),
    ("--epochs", "epochs", "int>=1", "training epochs per iteration (12)"),
    ("--batch-size", "batch_size", "int>=1", "positions per training step (256)"),
    ("--lr", "lr", "float>0", "Adam learning rate (0.001)"),
    ("--weight-decay", "weight_decay", "float>=0", "Adam L2 penalty (1e-05)"),
    ("--value-weight", "value_weight", "float>=0", "weight of the value loss (1)"),
    ("--holdout", "holdout", "fraction", "fraction of the rounds held out (0.1)"),
    ("--threads", "threads", "int>=1", "PyTorch threads for training (1)"),
    ("--device", "device", "device", "where the network trains: cpu or cuda (cpu)"),
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``lostcities train`` (all read as text; :func:`cli_main` checks them)."""
    p.add_argument("--out", metavar="RUNDIR", default=None, help="the run directory (required)")
    p.add_argument(
        "--resume", action="store_true", help="continue the run in RUNDIR where it stopped"
    )
    p.add_argument(
        "--jobs", metavar="J", default=None, help="self-play and match worker processes (all cores)"
    )
    p.add_argument(
        "--backend",
        metavar="local|ray",
        default=None,
        help="where self-play and the matches run: local worker processes (default) or a Ray cluster",
    )
    p.add_argument(
        "--address",
        metavar="ADDR",
        default=None,
        help="with --backend ray: the cluster's host:port or auto (default: a Ray of this machine's cores)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--stop-after",
        metavar="STAGE",
        default=None,
        help="stop after this stage (selfplay, train, gate or reference) of the next unfinished iteration",
    )
    add_options(p, OPTIONS)
    from lostcities.train.rl_cli import add_ppo_arguments

    add_ppo_arguments(p)


def _need(module: str) -> None:
    from lostcities.train.errors import MissingDependencyError

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(
            f"this command needs {module!r}: pip install 'lostcities[train]'"
        )


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities train --out RUNDIR [options]`` (docs/training.md)."""
    from pathlib import Path

    from lostcities.train.errors import TrainOptionError

    if not args.out:
        raise TrainOptionError("--out RUNDIR is required")
    method = args.method or "exit"
    if method not in ("exit", "ppo"):
        raise TrainOptionError(f"invalid --method: {method!r} (exit or ppo)")
    if method == "ppo":
        for module in ("torch", "numba", "rich", "matplotlib"):
            _need(module)
        from lostcities.train.rl_cli import ppo_main

        return ppo_main(args, OPTIONS)
    from lostcities.train.rl_cli import PPO_OPTIONS

    for (flag, *_), _text in given(args, PPO_OPTIONS):
        raise TrainOptionError(f"{flag} is an option of --method ppo")
    overrides = read_given(args, OPTIONS)
    jobs = None if args.jobs is None else reader("int>=1", "--jobs")(args.jobs)
    from lostcities.arena import Backend

    backend = Backend.parse(args.backend, args.address)
    stages = ("selfplay", "train", "gate", "reference")
    if args.stop_after is not None and args.stop_after not in stages:
        raise TrainOptionError(f"invalid --stop-after: {args.stop_after!r} ({', '.join(stages)})")
    for module in ("torch", "numba", "rich", "matplotlib"):
        _need(module)
    from lostcities.train.loop import RunConfig, run

    config = None
    if not args.resume:
        config = RunConfig(**{**_defaults(), **overrides})
    log = run(
        Path(args.out),
        config,
        resume=args.resume,
        overrides=as_json(overrides),
        jobs=jobs,
        progress=not args.no_progress,
        stop_after=args.stop_after,
        backend=backend,
    )
    out = Path(args.out)
    n = len(log["iterations"])
    done = f"{n} iteration{'s' if n != 1 else ''}"
    if args.stop_after is not None:
        print(f"{out}: stopped after {args.stop_after} ({done} done); --resume continues")
        return 0
    if log["champion"] is None:
        print(f"{out}: {done}; no network has beaten the {_reference()} bot yet")
    else:
        print(f"{out}: {done}; champion {log['champion']} copied to {out / 'net.npz'}")
    return 0


def _reference() -> str:
    from lostcities.train.loop import REFERENCE

    return REFERENCE
