"""Engine speed on a noisy machine: ``lostcities bench`` several times, medians of the ratios.

Each repeat measures everything in one run (the pure-Python core, the fast path on one core,
the 10,000-game batch, ISMCTS with compiled and pure-Python rollouts, the C reference), so
the ratios compare figures taken under the same load. Prints a Markdown table for
docs/performance.md and, with ``--json FILE``, writes every run.

    python benchmarks/engine_speed.py --repeats 3 --seconds 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

from lostcities.bench import format_report, run_bench

KEYS = (
    ("fast path / C reference (rounds/s, one core)", "fast_over_c"),
    ("fast path / C reference (rounds per CPU second)", "fast_over_c_cpu"),
    ("pure-Python Round / C reference", "python_over_c"),
    ("pure-Python Round / C reference (per CPU second)", "python_over_c_cpu"),
    ("pure-Python legal_moves() + push() / C reference (turns/s)", "python_legal_turns_over_c"),
    ("fast path / pure-Python Round", "fast_over_python"),
    ("batch kernel / C reference (moves/s)", "batch_kernel_over_c"),
    ("batch API loop / C reference (moves/s)", "batch_api_over_c"),
    (
        "ISMCTS (default mode) compiled / pure-Python rollouts (iterations/s)",
        "ismcts_fast_over_pure",
    ),
    (
        "ISMCTS mode=tree compiled / pure-Python rollouts (iterations/s)",
        "ismcts_tree_fast_over_pure",
    ),
    ("flat Monte Carlo compiled / pure-Python core (playouts/s)", "flat_fast_over_pure"),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--json", metavar="FILE", help="write every run here")
    args = ap.parse_args(argv)
    runs: list[dict[str, Any]] = []
    for i in range(args.repeats):
        print(f"run {i + 1}/{args.repeats} ...", file=sys.stderr)
        res = run_bench(args.seconds, lambda step: print(f"  {step}", file=sys.stderr))
        print(format_report(res), file=sys.stderr)
        runs.append(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)
    last = runs[-1]
    print(f"machine: {last['machine']}, {last['cpus']} CPUs, {last['date']}, {args.repeats} runs")
    print()
    print("| ratio (median of runs) | median | runs |")
    print("|---|---|---|")
    for label, key in KEYS:
        vals = [r["ratios"][key] for r in runs if key in r["ratios"]]
        if vals:
            each = ", ".join(f"{v:.3g}" for v in vals)
            print(f"| {label} | {statistics.median(vals):.3g} | {each} |")
    print()
    print("| figure (median of runs) | rounds/s | turns/s |")
    print("|---|---|---|")
    figs = (
        ("pure-Python Round, public API", lambda r: r["python"]),
        ("pure-Python legal_moves() + push()", lambda r: r["python_legal"]),
        ("fast path, one core", lambda r: r["fast"]),
        ("batch of 10,000, kernel", lambda r: r["batch"]["kernel"]),
        ("batch of 10,000, API loop", lambda r: r["batch"]["api"]),
        ("C reference", lambda r: r["c"]),
    )
    for label, get in figs:
        vals = [get(r) for r in runs if get(r)]
        if vals:
            rs = statistics.median(v["rounds_per_s"] for v in vals)
            ts = statistics.median(v["turns_per_s"] for v in vals)
            print(f"| {label} | {rs:,.0f} | {ts:,.0f} |")
    ism = [r["ismcts"] for r in runs if r["ismcts"]]
    if ism:
        f = statistics.median(x["fast_iters_per_s"] for x in ism)
        p = statistics.median(x["pure_iters_per_s"] for x in ism)
        print(f"| ISMCTS `{ism[0]['spec']}` iterations/s | compiled {f:,.0f} | pure {p:,.0f} |")
        tree = [x["tree"] for x in ism]
        f = statistics.median(x["fast_iters_per_s"] for x in tree)
        p = statistics.median(x["pure_iters_per_s"] for x in tree)
        print(f"| ISMCTS `{tree[0]['spec']}` iterations/s | compiled {f:,.0f} | pure {p:,.0f} |")
    flat = [r["flat"] for r in runs]
    f = statistics.median(x["fast_playouts_per_s"] for x in flat)
    p = statistics.median(x["pure_playouts_per_s"] for x in flat)
    print(f"| flat Monte Carlo playouts/s | compiled {f:,.0f} | pure {p:,.0f} |")
    mem = last["batch_memory_mib"]
    print()
    print(
        f"batch of 10,000 games: classic {mem['classic']:.1f} MiB, long {mem['long']:.1f} MiB;"
        " fast path start-up with cached kernels"
        f" {statistics.median(r['fast_start_s']['wall'] for r in runs):.2f} s wall,"
        f" {statistics.median(r['fast_start_s']['cpu'] for r in runs):.2f} s CPU"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
