"""A sweep of jittered ``smart`` rollouts (``rollout=jitter``) against plain ``smart``, as
parallel matches on a many-core machine.

Each match is one process playing ``A`` against ``B`` on duplicate deals with one core
(``jobs=1``, one BLAS thread), fixed playouts (``iters=``, so the machine's load changes no
move) and no time limit: exactly what

    lostcities match A B --deals N --seed S --variant V --jobs 1 --time-limit 0 --json

plays and prints (the arena's ``play_match``, called directly, because the command's
progress display needs ``rich`` and this sweep needs only NumPy and numba). Each match
writes ``OUTDIR/NAME.json``: that command's JSON object plus the command itself, the wall
time, and each bot's mean time per move; ``OUTDIR/summary.md`` gathers them at the end.

Before the matches start it runs ``python3 -m lostcities.cli warmup`` once and then one
tiny jittered match, so that numba's cache holds every kernel and the parallel matches only
load it.

Usage (from the repository root; the package need not be installed)::

    PYTHONPATH=$PWD python3 benchmarks/jitter_sweep.py OUTDIR [--parallel 14] [--deals 300]
        [--iters 1000] [--only NAME ...] [--list]

The default plan is 14 matches (8 classic, 6 long), each ``--deals`` deals (twice each,
seats swapped) of ``expert:iters=I,rollout=jitter,...`` against ``expert:iters=I``, and
``ismcts`` likewise for one setting; every match of a variant uses the same deals (its
seed), so the settings are compared on the same rounds. Timing on the 2-core development VM
(load about 2.7, 30 rounds each): ``expert:iters=1000`` against its jittered self, 0.33 s a
classic round and 0.59 s a long one, so 300 deals (600 rounds) take about 3.3 min of one
core classic and 5.9 min long; with the warm-up (under a minute from a cold cache) the
default plan takes about 7 minutes on 16 cores, the long matches last.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

SEEDS = {"classic": 2470, "long": 2471}
"""The deals of each variant (every match of a variant plays the same ones)."""

# (name, variant, A's options beyond iters, bot): A = BOT:iters=I,OPTIONS against BOT:iters=I
PLAN: list[tuple[str, str, str, str]] = [
    ("c-j1", "classic", "rollout=jitter,jitter=1", "expert"),
    ("c-j2", "classic", "rollout=jitter,jitter=2", "expert"),
    ("c-j3", "classic", "rollout=jitter,jitter=3", "expert"),
    ("c-j5", "classic", "rollout=jitter,jitter=5", "expert"),
    ("c-e02", "classic", "rollout=jitter,jitter=0,eps=0.02", "expert"),
    ("c-j1e02", "classic", "rollout=jitter,jitter=1,eps=0.02", "expert"),
    ("c-j2e05", "classic", "rollout=jitter,jitter=2,eps=0.05", "expert"),
    ("c-ismcts-j1", "classic", "rollout=jitter,jitter=1", "ismcts"),
    ("l-j1", "long", "rollout=jitter,jitter=1", "expert"),
    ("l-j2", "long", "rollout=jitter,jitter=2", "expert"),
    ("l-j3", "long", "rollout=jitter,jitter=3", "expert"),
    ("l-e02", "long", "rollout=jitter,jitter=0,eps=0.02", "expert"),
    ("l-j1e02", "long", "rollout=jitter,jitter=1,eps=0.02", "expert"),
    ("l-ismcts-j1", "long", "rollout=jitter,jitter=1", "ismcts"),
]

ONE_THREAD = {
    v: "1"
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
}


def specs(options: str, bot: str, iters: int) -> tuple[str, str]:
    """Bot A's and bot B's specs of a plan row."""
    return f"{bot}:iters={iters},{options}", f"{bot}:iters={iters}"


def command(a: str, b: str, deals: int, seed: int, variant: str) -> str:
    """The ``lostcities match`` command that plays the same match."""
    return (
        f"lostcities match '{a}' '{b}' --deals {deals} --seed {seed} --variant {variant} "
        "--jobs 1 --time-limit 0 --json"
    )


def play_one(name: str, a: str, b: str, deals: int, seed: int, variant: str, out: Path) -> None:
    """Play one match in this process and write ``out / f"{name}.json"``."""
    from lostcities.arena import play_match

    t0 = time.perf_counter()
    started = time.strftime("%Y-%m-%d %H:%M:%S %z")
    result = play_match(
        a, b, deals=deals, seed=seed, jobs=1, variant=variant, time_limit=None, max_turns=None
    )
    data = result.to_dict()
    moves_a = moves_b = 0.0
    sec_a = sec_b = 0.0
    for g in result.games:
        # the starter moves first: with an odd number of plies it made one more move
        first = g.starter == g.a_seat
        extra = g.plies % 2
        moves_a += g.plies // 2 + (extra if first else 0)
        moves_b += g.plies // 2 + (0 if first else extra)
        sec_a += g.a_seconds
        sec_b += g.b_seconds
    data.update(
        name=name,
        command=command(a, b, deals, seed, variant),
        started=started,
        wall_s=round(time.perf_counter() - t0, 1),
        a_ms_per_move=round(1000 * sec_a / max(moves_a, 1), 2),
        b_ms_per_move=round(1000 * sec_b / max(moves_b, 1), 2),
        load=os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    )
    (out / f"{name}.json").write_text(json.dumps(data) + "\n")


def _f(x: float | None, fmt: str, times: float = 1.0) -> str:
    """``x * times`` formatted, or ``-`` for none (a CI of too few rounds)."""
    return "-" if x is None else format(x * times, fmt)


def summary(out: Path, names: Sequence[str]) -> str:
    """A markdown table of the matches written so far."""
    lines = [
        "| match | A | variant | rounds | A's win rate [95% CI] | points/round [95% CI] "
        "| ms/move A / B | wall s |",
        "|---|---|---|---:|---|---|---|---:|",
    ]
    for name in names:
        path = out / f"{name}.json"
        if not path.is_file():
            lines.append(f"| {name} | (missing) | | | | | | |")
            continue
        d = json.loads(path.read_text())
        lo, hi = d["a_win_rate_ci95"]
        mlo, mhi = d["mean_margin_ci95"]
        lines.append(
            f"| {name} | `{d['a']}` | {d['variant']} | {d['rounds']} | "
            f"{_f(d['a_win_rate'], '.1f', 100)}% [{_f(lo, '.1f', 100)}, {_f(hi, '.1f', 100)}] | "
            f"{_f(d['mean_margin'], '+.1f')} [{_f(mlo, '+.1f')}, {_f(mhi, '+.1f')}] | "
            f"{d['a_ms_per_move']:.1f} / {d['b_ms_per_move']:.1f} | {d['wall_s']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("out", type=Path, help="the directory the matches' JSON goes to")
    ap.add_argument("--parallel", type=int, default=14, help="matches at once (14)")
    ap.add_argument("--deals", type=int, default=300, help="deals a match, each twice (300)")
    ap.add_argument("--iters", type=int, default=1000, help="playouts a move, both bots (1000)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="these matches of the plan")
    ap.add_argument("--list", action="store_true", help="print the plan's commands and stop")
    ap.add_argument("--one", nargs=6, metavar=("NAME", "A", "B", "DEALS", "SEED", "VARIANT"))
    args = ap.parse_args(argv)
    out: Path = args.out
    if args.one:
        name, a, b, deals, seed, variant = args.one
        out.mkdir(parents=True, exist_ok=True)
        play_one(name, a, b, int(deals), int(seed), variant, out)
        return 0
    plan = [row for row in PLAN if not args.only or row[0] in args.only]
    if args.only and len(plan) != len(args.only):
        known = ", ".join(row[0] for row in PLAN)
        raise SystemExit(f"jitter_sweep: unknown match name in {args.only} (known: {known})")
    jobs = []
    for name, variant, options, bot in plan:
        a, b = specs(options, bot, args.iters)
        jobs.append((name, a, b, variant))
    if args.list:
        for name, a, b, variant in jobs:
            print(f"{name}: {command(a, b, args.deals, SEEDS[variant], variant)}")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **ONE_THREAD}
    me = [sys.executable, str(Path(__file__).resolve())]
    t0 = time.perf_counter()
    print("warming up numba's cache ...", flush=True)
    subprocess.run([sys.executable, "-m", "lostcities.cli", "warmup"], check=True, env=env)
    warm = (
        "warm",
        "expert:iters=40,rollout=jitter,jitter=1,eps=0.05",
        "ismcts:iters=40,rollout=jitter,jitter=1",
    )
    subprocess.run(
        [*me, "--one", *warm, "1", "1", "classic", str(out / "warm")], check=True, env=env
    )
    print(f"warm in {time.perf_counter() - t0:.0f} s; {len(jobs)} matches, {args.parallel} at once")
    running: list[tuple[str, subprocess.Popen[bytes], float]] = []
    queue = list(jobs)
    failed = []
    while queue or running:
        while queue and len(running) < args.parallel:
            name, a, b, variant = queue.pop(0)
            seed = SEEDS[variant]
            log = open(out / f"{name}.log", "wb")  # noqa: SIM115 (closed with the process)
            cmd = [*me, "--one", name, a, b, str(args.deals), str(seed), variant, str(out)]
            running.append((name, subprocess.Popen(cmd, env=env, stdout=log, stderr=log), t0))
        time.sleep(2)
        for item in list(running):
            name, proc, _ = item
            if proc.poll() is not None:
                running.remove(item)
                status = "done" if proc.returncode == 0 else f"FAILED ({proc.returncode})"
                if proc.returncode:
                    failed.append(name)
                print(f"[{time.perf_counter() - t0:6.0f} s] {name} {status}", flush=True)
    table = summary(out, [j[0] for j in jobs])
    (out / "summary.md").write_text(table)
    print(table)
    print(f"all done in {time.perf_counter() - t0:.0f} s; JSON in {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
