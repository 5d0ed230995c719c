"""``lostcities train --method ppo``: the command line of :mod:`lostcities.train.rl`.

Imports neither PyTorch nor numba at module level (``lostcities --help`` loads it).
"""

from __future__ import annotations

import argparse

from lostcities.train.options import Option, add_options, given, read_given, reader

__all__ = ["PPO_OPTIONS", "add_ppo_arguments", "ppo_main"]

# (option, PPOConfig field, kind, help): the options only PPO reads
PPO_OPTIONS: list[Option] = [
    ("--updates", "updates", "int>=1", "PPO: updates (rounds played, then learned from) (200)"),
    ("--games", "games", "int>=2", "PPO: rounds played at once per update (512)"),
    ("--critic", "critic", "critic", "PPO: full (sees both hands, training only) or own (full)"),
    ("--init", "init", "init", "PPO: shipped, fresh or a weights file to start from (shipped)"),
    ("--eval-every", "eval_every", "int>=0", "PPO: updates between evaluations (10)"),
    ("--eval-deals", "eval_deals", "int>=0", "PPO: deals per variant of each evaluation (100)"),
    ("--force-ply", "force_ply", "int>=0", "PPO: from this ply on only draw-pile draws (140)"),
    ("--entropy", "entropy", "float>=0", "PPO: entropy bonus (0.003)"),
    (
        "--pool",
        "pool",
        "float>=0",
        "PPO: share of rounds in which one seat is a past network of the run (0)",
    ),
    ("--pool-size", "pool_size", "int>=1", "PPO: past networks kept for --pool (8)"),
    ("--pool-every", "pool_every", "int>=1", "PPO: updates between the pool's snapshots (10)"),
]

# shared options of `lostcities train` that PPO reads too (flag -> PPOConfig field)
SHARED = {
    "--seed": "seed",
    "--variant": "variants",
    "--lr": "lr",
    "--epochs": "epochs",
    "--batch-size": "minibatch",
    "--hidden": "hidden",
    "--threads": "threads",
    "--value-weight": "value_weight",
    "--device": "device",
}


def add_ppo_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--method",
        metavar="exit|ppo",
        default=None,
        help="exit: expert iteration (default); ppo: reinforcement learning from self-play",
    )
    add_options(p, PPO_OPTIONS)


def ppo_main(args: argparse.Namespace, shared: list[Option]) -> int:
    """Run or resume a PPO run as ``args`` say (``shared``: the common option table)."""
    from pathlib import Path

    from lostcities.train.errors import TrainOptionError

    for (flag, *_), _text in given(args, shared):
        if flag not in SHARED:
            raise TrainOptionError(f"{flag} is an option of --method exit, not of --method ppo")
    ppo_shared = [(flag, SHARED[flag], kind, h) for flag, _, kind, h in shared if flag in SHARED]
    kw = {**read_given(args, ppo_shared), **read_given(args, PPO_OPTIONS)}
    if args.stop_after is not None:
        raise TrainOptionError("--stop-after is not an option of --method ppo")
    from lostcities.arena.cluster import Backend
    from lostcities.train.rl import PPOConfig, run_ppo

    backend = Backend.parse(args.backend, args.address)
    jobs = reader("int>=1", "--jobs")(args.jobs) if args.jobs is not None else 1
    cfg = PPOConfig(**kw)
    out = Path(args.out)
    ev = run_ppo(
        cfg, out, resume=args.resume, progress=not args.no_progress, jobs=jobs, backend=backend
    )
    if ev:
        print(
            f"{out}: update {ev['update']}; greedy policy vs heuristic"
            f" {100 * ev['win_rate']:.1f}% of {ev['rounds']} rounds, {ev['margin']:+.1f} points a round;"
            f" latest {out / 'net.npz'}, best {out / 'best.npz'}"
        )
    else:
        print(f"{out}: done; latest network {out / 'net.npz'}")
    return 0
