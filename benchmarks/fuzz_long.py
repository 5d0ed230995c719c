"""Long fuzzing run (issue 14): every fuzz target of the suite for a fixed wall time each.

Each target (tests/test_fuzz.py and tests/web/test_web_fuzz.py) runs in its own pytest process
with ``LOSTCITIES_FUZZ_SECONDS`` (tests/fuzzbudget.py: the Hypothesis test rerun, a fresh random
batch each time, until the time is spent); ``--parallel`` processes at a time. It reports each
target's examples, batches, wall and CPU seconds (CPU of its process: a web target's
in-process server included) and whether it passed; a failure's pytest output goes to
``--logs``.

    nice -n 10 python benchmarks/fuzz_long.py --seconds 1800 --parallel 9
    python benchmarks/fuzz_long.py --seconds 20 --only notation     # a short run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# (group, pytest node id); the group is what --only selects
TARGETS = [
    ("notation", "tests/test_fuzz.py::test_card_notation"),
    ("notation", "tests/test_fuzz.py::test_move_notation_changes_nothing"),
    ("score", "tests/test_fuzz.py::test_score_sheets"),
    ("score", "tests/test_fuzz.py::test_score_command"),
    ("records", "tests/test_fuzz.py::test_record_reader_and_replay"),
    ("bot", "tests/test_fuzz.py::test_lines_from_a_bot"),
    ("http", "tests/web/test_web_fuzz.py::test_http_bodies_and_paths"),
    ("moves", "tests/web/test_web_fuzz.py::test_http_moves_with_a_real_token"),
    ("ws", "tests/web/test_web_fuzz.py::test_websocket_messages"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=1800.0, help="wall time per target (1800)")
    ap.add_argument("--parallel", type=int, default=1, help="targets run at once (1)")
    ap.add_argument(
        "--examples",
        type=int,
        default=None,
        help="LOSTCITIES_FUZZ_EXAMPLES: the batch size (default: the suite's)",
    )
    ap.add_argument(
        "--only", nargs="*", default=None, help="groups: notation score records bot http moves ws"
    )
    ap.add_argument(
        "--logs", default=None, help="folder for each target's pytest output (a temp dir)"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.seconds <= 0 or args.parallel < 1:
        ap.error("--seconds and --parallel must be positive")
    targets = [t for t in TARGETS if args.only is None or t[0] in args.only]
    logs = Path(args.logs or tempfile.mkdtemp(prefix="lc-fuzz-"))
    logs.mkdir(parents=True, exist_ok=True)
    report = logs / "report.jsonl"
    report.unlink(missing_ok=True)
    env = dict(
        os.environ, LOSTCITIES_FUZZ_SECONDS=str(args.seconds), LOSTCITIES_FUZZ_REPORT=str(report)
    )
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    # fresh random batches: the "ci" profile of tests/conftest.py (its default, "dev", is
    # derandomized, so every batch would test the same examples)
    env["HYPOTHESIS_PROFILE"] = "ci"
    if args.examples:
        env["LOSTCITIES_FUZZ_EXAMPLES"] = str(args.examples)
    todo = list(targets)
    running: list[tuple[str, str, subprocess.Popen[bytes], float]] = []
    results: dict[str, dict[str, Any]] = {}
    t_start = time.monotonic()
    while todo or running:
        while todo and len(running) < args.parallel:
            group, node = todo.pop(0)
            name = node.rsplit("::", 1)[1]
            # no pytest-timeout (the suite's per-test limit would end a long target)
            cmd = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:timeout",
                node,
            ]
            with (logs / f"{name}.log").open("wb") as log:  # the child keeps its own copy
                proc = subprocess.Popen(
                    cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
                )
            running.append((group, name, proc, time.monotonic()))
        time.sleep(1.0)
        for item in list(running):
            group, name, proc, t0 = item
            if proc.poll() is not None:
                running.remove(item)
                results[name] = {
                    "group": group,
                    "passed": proc.returncode == 0,
                    "process_wall_s": round(time.monotonic() - t0, 1),
                }
    for line in report.read_text().splitlines() if report.exists() else []:
        r = json.loads(line)
        results.setdefault(r["target"], {}).update(r)
    out = {
        "seconds_per_target": args.seconds,
        "parallel": args.parallel,
        "logs": str(logs),
        "wall_s": round(time.monotonic() - t_start, 1),
        "targets": list(results.values()),
    }
    if args.json:
        print(json.dumps(out))
    else:
        for r in results.values():
            print(
                f"{r.get('target', '?'):40} {'pass' if r['passed'] else 'FAIL':4} {r.get('examples', 0):>9} "
                f"examples {r.get('batches', 0):>5} batches {r.get('wall_s', 0):>7} s wall {r.get('cpu_s', 0):>7} s CPU"
            )
        print(f"total wall {out['wall_s']} s; logs in {logs}")
    return 0 if all(r["passed"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
