"""The benchmark CI runs: a short run (well under a minute) whose figures are printed and
stored, never asserted, so a 2x regression shows in the next run's log.

Measured in one run, each the median of ``--repeat`` repeats of about ``--seconds``:

- ``core``: the pure-Python core part by part (``benchmarks/core_speed.py``):
  ``legal_moves()`` + ``push()`` per turn, ``pop()``, ``view()``, ``scores()``;
- ``python_api``: a round through the public API under the C reference's policy
  (``lostcities bench``'s ``python`` row);
- ``fast``: the compiled fast path on one core (with the ``fast`` extra);
- ``c``: the C reference (``lostcities/data/bench/playout.c``) when a C compiler is there.

Absolute figures follow the machine and its load; the ratios to the C reference taken in
the same run follow the code. Writes ``bench-results.json`` (this run) and appends a line to
``bench-history.jsonl`` in the folder ``--out`` (default ``$LOSTCITIES_BENCH_OUT``, else
``./.bench``); when that folder holds an earlier ``bench-results.json``, each ratio is shown
against it, marked when it fell to half or less.

    python benchmarks/ci_bench.py --seconds 1 --repeat 3
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from core_speed import measure_core  # beside this script

ROOT = Path(__file__).resolve().parents[1]
RESULTS = "bench-results.json"
HISTORY = "bench-history.jsonl"

RATIOS = (
    ("core_over_c", "legal_moves() + push() / C (turns/s)"),
    ("core_over_c_cpu", "legal_moves() + push() / C (turns per CPU second)"),
    ("python_api_over_c", "public-API round / C (turns/s)"),
    ("fast_over_c", "fast path, one core / C (turns/s)"),
    ("fast_over_core", "fast path / legal_moves() + push() (turns/s)"),
)


def _median_run(runs: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The run with the median ``key`` (the lower middle one), with every run's ``key`` and
    the spread ((max - min) / median)."""
    ordered = sorted(runs, key=lambda r: float(r[key]))
    out = dict(ordered[(len(ordered) - 1) // 2])
    values = [float(r[key]) for r in runs]
    out["runs"] = values
    mid = float(out[key])
    out["spread"] = (max(values) - min(values)) / mid if mid else 0.0
    return out


def _repeat(
    n: int, measure: Callable[[], dict[str, Any] | None], key: str
) -> dict[str, Any] | None:
    runs = []
    for _ in range(n):
        r = measure()
        if r is None or key not in r:
            return r
        runs.append(r)
    return _median_run(runs, key)


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def run(seconds: float, repeat: int) -> dict[str, Any]:
    """Every figure of one run, with the ratios to the C reference."""
    res: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "python_version": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_before": os.getloadavg()[0],
        "seconds": seconds,
        "repeat": repeat,
    }
    t0 = time.perf_counter()
    res["core"] = _repeat(repeat, lambda: measure_core(seconds), "turns_per_s")
    try:
        from lostcities import bench
    except ImportError as e:  # without the fast extra (numba): the core alone
        res["machine"] = platform.processor() or platform.machine()
        res["python_api"] = res["fast"] = None
        res["c"] = {"skipped": f"lostcities.bench needs the fast extra ({e})"}
    else:
        res["machine"] = bench.machine()
        res["python_api"] = _repeat(repeat, lambda: bench.bench_python(seconds), "turns_per_s")
        bench.bench_fast(0.01)  # load the compiled kernels before timing
        res["fast"] = _repeat(repeat, lambda: bench.bench_fast(seconds), "turns_per_s")
        res["c"] = _repeat(repeat, lambda: bench.bench_c(seconds), "turns_per_s")
    res["load_after"] = os.getloadavg()[0]
    res["wall_s"] = time.perf_counter() - t0
    ratios: dict[str, float] = {}
    core, c, fast = res["core"], res["c"], res["fast"]
    if c and "turns_per_s" in c:
        ratios["core_over_c"] = core["turns_per_s"] / c["turns_per_s"]
        if c.get("turns_per_cpu_s") and core.get("turns_per_cpu_s"):
            ratios["core_over_c_cpu"] = core["turns_per_cpu_s"] / c["turns_per_cpu_s"]
        if res["python_api"]:
            ratios["python_api_over_c"] = res["python_api"]["turns_per_s"] / c["turns_per_s"]
        if fast:
            ratios["fast_over_c"] = fast["turns_per_s"] / c["turns_per_s"]
    if fast:
        ratios["fast_over_core"] = fast["turns_per_s"] / core["turns_per_s"]
    res["ratios"] = ratios
    return res


def report(res: dict[str, Any], previous: dict[str, Any] | None) -> str:
    """The log's text: the figures, the ratios, and each ratio against the previous run."""
    lines = [
        f"benchmark (CI, short): {res['machine']}, {res['cpus']} CPUs, {res['date']},"
        f" commit {res['commit'] or '?'}, load {res['load_before']:.1f} -> {res['load_after']:.1f},"
        f" {res['repeat']} x {res['seconds']:g} s per figure (medians), {res['wall_s']:.0f} s",
        "",
        f"{'figure':<44} {'per second':>14} {'spread':>7}",
    ]

    def fig(label: str, r: dict[str, Any] | None, key: str) -> None:
        if r and key in r:
            spread = f"{100 * r['spread']:.0f}%" if key == "turns_per_s" and "spread" in r else ""
            lines.append(f"{label:<44} {r[key]:>14,.0f} {spread:>7}")

    core = res["core"]
    fig("core: legal_moves() + push(), turns", core, "turns_per_s")
    fig("core: turns per CPU second", core, "turns_per_cpu_s")
    fig("core: pop()", core, "pops_per_s")
    fig("core: view()", core, "views_per_s")
    fig("core: scores()", core, "scores_per_s")
    fig("public-API round (C's policy), turns", res["python_api"], "turns_per_s")
    fig("fast path, one core, turns", res["fast"], "turns_per_s")
    fig("C reference, turns", res["c"], "turns_per_s")
    c = res["c"]
    if not (c and "turns_per_s" in c):
        lines.append(f"C reference: {(c or {}).get('skipped') or (c or {}).get('error') or 'none'}")
    lines += ["", f"{'ratio (same run)':<52} {'this run':>10} {'previous':>10} {'change':>8}"]
    before = (previous or {}).get("ratios", {})
    for key, label in RATIOS:
        if key not in res["ratios"]:
            continue
        now = res["ratios"][key]
        text = f"{label:<52} {now:>10.4g}"
        if key in before and before[key] > 0:
            change = now / before[key]
            mark = "  <- half or less of the previous run" if change <= 0.5 else ""
            text += f" {before[key]:>10.4g} {change:>7.2f}x{mark}"
        lines.append(text)
    if previous is None:
        lines.append("(no previous bench-results.json in the output folder: nothing to compare)")
    else:
        lines.append(f"previous run: {previous.get('date')}, commit {previous.get('commit')}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="per figure and repeat (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="repeats per figure (default 3)")
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(os.environ.get("LOSTCITIES_BENCH_OUT") or ".bench"),
        help="folder for bench-results.json and bench-history.jsonl "
        "(default $LOSTCITIES_BENCH_OUT, else ./.bench)",
    )
    args = ap.parse_args(argv)
    if not 0 < args.seconds <= 60 or not 1 <= args.repeat <= 20:
        ap.error("--seconds must be in (0, 60] and --repeat in 1..20")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / RESULTS
    previous = None
    if path.is_file():
        try:
            previous = json.loads(path.read_text())
        except (OSError, ValueError):
            previous = None
    res = run(args.seconds, args.repeat)
    print(report(res, previous))
    path.write_text(json.dumps(res, indent=1) + "\n")
    with (args.out / HISTORY).open("a") as f:
        f.write(json.dumps(res) + "\n")
    print(f"written: {path}, {args.out / HISTORY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
