"""``lostcities train-judge``: the command line of :mod:`lostcities.train.judge`.

This module imports neither NumPy, PyTorch nor numba (``lostcities --help`` loads it to list
the options); :func:`cli_main` checks they are installed and says how to get them.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict
from pathlib import Path

from lostcities.train.errors import TrainOptionError

__all__ = ["add_arguments", "cli_main"]


# -- the command line ------------------------------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``lostcities train-judge``."""
    p.add_argument("--out", metavar="DIR", default=None, help="the run directory (required)")
    p.add_argument("--rounds", metavar="N", default="2000", help="self-play rounds (2000)")
    p.add_argument("--worlds", metavar="W", default="128", help="teacher's deals a candidate (128)")
    p.add_argument("--top-k", metavar="K", default="3", help="heuristic card actions searched (3)")
    p.add_argument(
        "--rollout",
        metavar="smart|learned",
        default="smart",
        help="the teacher's rollout policy (smart; learned: search with --judge)",
    )
    p.add_argument(
        "--judge",
        metavar="FILE",
        default=None,
        help="with --rollout learned: its weights (shipped)",
    )
    p.add_argument("--seed", metavar="S", default="0", help="seed of the data and the training (0)")
    p.add_argument("--jobs", metavar="J", default="1", help="self-play worker processes (1)")
    p.add_argument("--hidden", metavar="H,H2", default="128,32", help="layer sizes (128,32)")
    p.add_argument("--epochs", metavar="E", default="12", help="training epochs (12)")
    p.add_argument("--lr", metavar="LR", default="0.002", help="Adam learning rate (0.002)")
    p.add_argument("--temperature", metavar="T", default="0.05", help="target softmax T (0.05)")
    p.add_argument(
        "--data-only", action="store_true", help="only play the self-play rounds (resumable)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress lines")


def _int(text: str, flag: str, low: int) -> int:
    try:
        n = int(text)
    except ValueError:
        raise TrainOptionError(f"invalid {flag}: {text!r} (not a whole number)") from None
    if n < low:
        raise TrainOptionError(f"invalid {flag}: {text!r} (must be at least {low})")
    return n


def _float(text: str, flag: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise TrainOptionError(f"invalid {flag}: {text!r} (not a number)") from None
    if not (x > 0 and math.isfinite(x)):
        raise TrainOptionError(f"invalid {flag}: {text!r} (must be positive)")
    return x


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities train-judge --out DIR [options]``: self-play data (resumable: shards
    already written are kept), then training; writes ``DIR/judge.npz`` and
    ``DIR/judge.json`` (the figures)."""
    import importlib.util
    import sys

    from lostcities.train.errors import MissingDependencyError

    if not args.out:
        raise TrainOptionError("--out DIR is required")
    try:
        sizes = tuple(int(x) for x in str(args.hidden).split(","))
    except ValueError:
        raise TrainOptionError(
            f"invalid --hidden: {args.hidden!r} (two sizes such as 128,32)"
        ) from None
    if args.rollout not in ("smart", "learned"):
        raise TrainOptionError(f"invalid --rollout: {args.rollout!r} (smart or learned)")
    worlds = _int(args.worlds, "--worlds", 1)
    top_k = _int(args.top_k, "--top-k", 1)
    seed = _int(args.seed, "--seed", 0)
    epochs = _int(args.epochs, "--epochs", 1)
    lr = _float(args.lr, "--lr")
    temperature = _float(args.temperature, "--temperature")
    rounds = _int(args.rounds, "--rounds", 1)
    jobs = _int(args.jobs, "--jobs", 1)
    for module in ("numpy", "numba") if args.data_only else ("numpy", "numba", "torch"):
        if importlib.util.find_spec(module) is None:
            raise MissingDependencyError(
                f"this command needs {module!r}: pip install 'lostcities[train]'"
            )
    from lostcities.train.judge import JudgeTrainConfig, train_judge
    from lostcities.train.judge_data import JudgeDataConfig, generate_judge_data, load_judge_shards

    data_cfg = JudgeDataConfig(worlds=worlds, top_k=top_k, rollout=args.rollout, judge=args.judge)
    train_cfg = JudgeTrainConfig(
        hidden=sizes,  # type: ignore[arg-type]
        epochs=epochs,
        lr=lr,
        temperature=temperature,
        seed=seed,
    )
    out = Path(args.out)
    start = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if not args.no_progress and (done == total or done % 16 == 0):
            dt = time.perf_counter() - start
            print(f"self-play: {done}/{total} rounds ({dt:.0f} s)", file=sys.stderr)

    paths = generate_judge_data(
        out / "data", data_cfg, rounds=rounds, seed=seed, jobs=jobs, progress=progress
    )
    if args.data_only:
        print(f"{out}: {rounds} self-play rounds in {out / 'data'}")
        return 0
    data = load_judge_shards(paths)

    def log(fig: dict[str, float]) -> None:
        if not args.no_progress:
            print(
                "epoch {:.0f}: train loss {:.4f}, held-out loss {:.4f}, top-1 {:.3f} "
                "(smart {:.3f})".format(
                    fig["epoch"],
                    fig["train_loss"],
                    fig.get("held_loss", math.nan),
                    fig.get("held_judge_top1", math.nan),
                    fig.get("held_smart_top1", math.nan),
                ),
                file=sys.stderr,
            )

    judge, figures = train_judge(
        data, train_cfg, {"data": {**asdict(data_cfg), "rounds": rounds, "seed": seed}}, log
    )
    judge.save(out / "judge.npz")
    (out / "judge.json").write_text(json.dumps(figures, indent=1) + "\n")
    fin = figures["final"]
    print(
        f"{out / 'judge.npz'}: held-out top-1 {fin.get('held_judge_top1', math.nan):.3f} "
        f"against smart's {fin.get('held_smart_top1', math.nan):.3f}"
    )
    return 0
