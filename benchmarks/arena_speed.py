"""How fast the arena referees, and what the bot protocol costs per move.

    python benchmarks/arena_speed.py [--deals 50]

Plays ``random`` against ``random`` in this process, then against the same bot served over
the protocol (``cmd:python -m lostcities.cli bot random``), one worker each time, and
reports rounds per second and the protocol's overhead per external move (the difference
of the two, divided by the external bot's moves). Both runs play identical games (same
seeds), so the difference is the protocol alone.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

from lostcities.arena import play_match


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    external = f"cmd:{sys.executable} -m lostcities.cli bot random"

    t = time.perf_counter()
    inproc = play_match("random", "random", deals=args.deals, seed=1, jobs=1)
    t_in = time.perf_counter() - t
    t = time.perf_counter()
    ext = play_match("random", external, deals=args.deals, seed=1, jobs=1)
    t_ext = time.perf_counter() - t
    assert [g.a_score for g in ext.games] == [g.a_score for g in inproc.games], "not the same games"
    plies = sum(g.plies for g in ext.games)
    ext_moves = plies / 2
    out = {
        "machine": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "rounds": inproc.rounds,
        "in_process_rounds_per_s": inproc.rounds / t_in,
        "protocol_rounds_per_s": ext.rounds / t_ext,
        "protocol_overhead_ms_per_move": 1000 * (t_ext - t_in) / ext_moves,
        "mean_plies_per_round": plies / ext.rounds,
    }
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:32} {v:.3f}" if isinstance(v, float) else f"{k:32} {v}")


if __name__ == "__main__":
    main()
