"""The pure-Python core's speed, part by part, optionally against another revision in the
same run (machines are noisy: compare figures taken under the same load).

Over whole random rounds (uniform over the distinct legal moves, as ``lostcities bench``'s
``python legal`` row): ``legal_moves()`` + checked ``push()`` per turn, ``pop()`` back to
the deal, and, replaying the round, ``view()`` of the player to move and ``scores()`` at
every ply; with the C reference's turns per second measured in the same run. Only the
public API is used, so any revision can be measured: ``--against REV`` exports it with
``git archive`` and runs the same code on it in a subprocess, the two taking turns.

    python benchmarks/core_speed.py --seconds 2 --repeats 5 --against HEAD~3

Each figure is the median of the repeats; ``cpu`` figures divide by the process's CPU
time (less sensitive to other work on the machine than wall time).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def measure_core(seconds: float, seed: int = 1) -> dict[str, float]:
    """Calls per second of the core's parts over about ``seconds`` of random rounds (the
    turns include dealing each round)."""
    from lostcities import Round

    rng = random.Random(seed)
    turns = 0
    t_turn = t_pop = t_view = t_scores = 0.0
    clock = time.perf_counter
    cpu0 = time.process_time()
    cpu_turn = 0.0
    start = clock()
    while True:
        c0 = time.process_time()
        t0 = clock()
        r = Round.deal(seed=rng.randrange(2**63))  # counted, as in `lostcities bench`
        moves = []
        while not r.is_over():
            legal = r.legal_moves()
            m = legal[rng.randrange(len(legal))]
            r.push(m)
            moves.append(m)
        t1 = clock()
        cpu_turn += time.process_time() - c0
        for _ in moves:
            r.pop()
        t2 = clock()
        t_turn += t1 - t0
        t_pop += t2 - t1
        for m in moves:
            t0 = clock()
            r.view(r.to_move)
            t1 = clock()
            r.scores()
            t2 = clock()
            r.push_unchecked(m)
            t_view += t1 - t0
            t_scores += t2 - t1
        turns += len(moves)
        if clock() - start >= seconds:
            break
    return {
        "turns_per_s": turns / t_turn,
        "turns_per_cpu_s": turns / cpu_turn if cpu_turn > 0 else 0.0,
        "pops_per_s": turns / t_pop,
        "views_per_s": turns / t_view,
        "scores_per_s": turns / t_scores,
        "turns": turns,
        "cpu_s": time.process_time() - cpu0,
    }


FIGURES = ("turns_per_s", "turns_per_cpu_s", "pops_per_s", "views_per_s", "scores_per_s")
LABELS = {
    "turns_per_s": "legal_moves() + push(), turns/s",
    "turns_per_cpu_s": "legal_moves() + push(), turns per CPU second",
    "pops_per_s": "pop(), calls/s",
    "views_per_s": "view(), calls/s",
    "scores_per_s": "scores(), calls/s",
}


def _export(rev: str, into: Path) -> Path:
    """The package of revision ``rev`` (``git archive``), unpacked under ``into``."""
    archive = into / "rev.tar"
    with archive.open("wb") as f:
        subprocess.run(["git", "archive", rev, "lostcities"], cwd=ROOT, stdout=f, check=True)
    with tarfile.open(archive) as t:
        t.extractall(into, filter="data")
    return into


def _run_in(path: Path | None, seconds: float, seed: int) -> dict[str, float]:
    """:func:`measure_core` in a fresh interpreter on the package under ``path`` (this
    checkout's when ``None``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(path or ROOT)
    code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "from core_speed import measure_core\n"
        f"print(json.dumps(measure_core({seconds!r}, {seed!r})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),  # not the checkout: PYTHONPATH decides the package
    )
    res: dict[str, float] = json.loads(out.stdout)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="per measurement (default 2)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--against", metavar="REV", help="a git revision to measure in the same run")
    ap.add_argument("--no-c", action="store_true", help="skip the C reference")
    ap.add_argument("--json", metavar="FILE", help="write every run here")
    args = ap.parse_args(argv)
    if not 0 < args.seconds < float("inf") or args.repeats < 1:
        ap.error("--seconds must be positive and --repeats at least 1")
    from lostcities import bench

    load0 = os.getloadavg()
    runs: dict[str, list[dict[str, Any]]] = {"this": [], "c": []}
    with tempfile.TemporaryDirectory() as tmp:
        other = _export(args.against, Path(tmp)) if args.against else None
        if other is not None:
            runs["against"] = []
        for i in range(args.repeats):
            print(f"run {i + 1}/{args.repeats}", file=sys.stderr)
            runs["this"].append(_run_in(None, args.seconds, 1 + i))
            if other is not None:
                runs["against"].append(_run_in(other, args.seconds, 1 + i))
            if not args.no_c:
                c = bench.bench_c(args.seconds)
                if c is not None and "turns_per_s" in c:
                    runs["c"].append(c)
    load1 = os.getloadavg()

    def med(name: str, key: str) -> float:
        return statistics.median(float(r[key]) for r in runs[name])

    print(
        f"machine: {bench.machine()}, {os.cpu_count()} CPUs; load {load0[0]:.1f} -> "
        f"{load1[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M %Z')}; {args.repeats} runs of "
        f"{args.seconds:g} s, medians"
    )
    head = "| figure | this tree |"
    if other is not None:
        head += f" {args.against} | ratio |"
    print()
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for key in FIGURES:
        line = f"| {LABELS[key]} | {med('this', key):,.0f} |"
        if other is not None:
            a = med("against", key)
            line += f" {a:,.0f} | {med('this', key) / a:.2f}x |"
        print(line)
    if runs["c"]:
        print(f"| C reference, turns/s | {med('c', 'turns_per_s'):,.0f} |")

        def vs_c(name: str) -> float:  # the median of each run's ratio to that run's C
            c = [float(x["turns_per_s"]) for x in runs["c"]]
            return statistics.median(
                float(r["turns_per_s"]) / ci for r, ci in zip(runs[name], c, strict=False)
            )

        text = f"legal_moves() + push() / C reference (turns/s, each run): 1/{1 / vs_c('this'):.0f}"
        if other is not None:
            text += f"; {args.against}: 1/{1 / vs_c('against'):.0f}"
        print()
        print(text)
    elif not args.no_c:
        print()
        print(f"C reference: {bench.NO_COMPILER}")
    if args.json:
        Path(args.json).write_text(json.dumps({"load": [load0, load1], "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
