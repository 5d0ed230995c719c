"""Rounds per second of the arena against the number of workers, locally and on Ray, and
what one deal pair costs the backend; and self-play rounds likewise (docs/scaling.md).

    python benchmarks/arena_scaling.py [--deals 40] [--bot ismcts:iters=300] [--address ADDR]

Two bots each time: ``random`` against ``random`` (the referee costs next to nothing, so
the time per deal pair is the backend's overhead: sending the unit, making the bots,
sending the results back), and ``random`` against ``--bot`` (a search bot, CPU-bound, to
see the speed-up from 1 to 2 workers); then ``--selfplay`` rounds of ``lostcities train``'s
default teacher (the unit there is one round: ``ms/unit``). Every run plays the same games (same seed; checked).
The local backend's ``jobs=1`` plays in this process. For Ray, a cluster of this machine's
cores is started once (not timed) unless ``--address`` names one (on loopback: the run
connects to nothing else, checked by :class:`loopback.ConnectionWatch`); the workers warm
up on an untimed first match.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from loopback import ConnectionWatch, hermetic_ray, require_loopback

from lostcities.arena import Backend, MatchResult, play_match
from lostcities.arena.cluster import ray_session


def timed(a: str, b: str, deals: int, jobs: int, backend: Backend) -> tuple[float, MatchResult]:
    t = time.perf_counter()
    res = play_match(a, b, deals=deals, seed=1, jobs=jobs, backend=backend, time_limit=None)
    return time.perf_counter() - t, res


def selfplay(rounds: int, jobs: int, backend: Backend) -> dict[str, object]:
    """Time ``rounds`` self-play rounds of the default teacher (``lostcities train``'s)."""
    import tempfile

    from lostcities.train.selfplay import HeuristicTeacher, SelfPlayConfig, generate, load_shards

    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        paths = generate(d, HeuristicTeacher(), SelfPlayConfig(), rounds=rounds, seed=1,
                         iteration=1, jobs=jobs, backend=backend)  # fmt: skip
        seconds = time.perf_counter() - t
        plies = len(load_shards(paths))
    return {
        "backend": backend.kind, "bot": "self-play", "workers": jobs, "deals": rounds,
        "rounds_per_s": rounds / seconds, "ms_per_deal_pair": 1000 * seconds / rounds,
        "plies_per_round": plies / rounds,
    }  # fmt: skip


def round_trip(jobs: int, units: int = 400) -> dict[str, object]:
    """Ray's own cost per unit: units that do nothing (``operator.add``), ``jobs`` in flight."""
    import operator

    from lostcities.arena.cluster import ray_ordered

    t = time.perf_counter()
    assert list(ray_ordered(operator.add, 0, range(units), jobs=jobs)) == list(range(units))
    seconds = time.perf_counter() - t
    return {
        "backend": "ray", "bot": "(empty unit)", "workers": jobs, "deals": units,
        "rounds_per_s": 0.0, "ms_per_deal_pair": 1000 * seconds / units, "plies_per_round": 0.0,
    }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--bot", default="ismcts:iters=300")
    p.add_argument("--address", default=None)
    p.add_argument(
        "--selfplay",
        type=int,
        default=4,
        metavar="ROUNDS",
        help="self-play rounds timed per run (the default teacher; 0: none)",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.address is not None:
        require_loopback(args.address)
    hermetic_ray()
    with ConnectionWatch() as watch:
        rows = measure(args)
    watch.check()
    report(rows, args.json)


def measure(args: argparse.Namespace) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    ray = Backend("ray", args.address)
    reference: dict[str, list[int]] = {}
    for backend in (Backend(), ray):
        with ray_session(backend):
            if backend.kind == "ray":  # workers started and warm (imports, numba cache)
                play_match("random", args.bot, deals=4, seed=9, jobs=2, backend=backend)
            for b, deals in (("random", 10 * args.deals), (args.bot, args.deals)):
                for jobs in (1, 2):
                    seconds, res = timed("random", b, deals, jobs, backend)
                    scores = [g.a_score for g in res.games]
                    assert reference.setdefault(b, scores) == scores, "not the same games"
                    rows.append({
                        "backend": backend.kind, "bot": b, "workers": jobs, "deals": deals,
                        "rounds_per_s": res.rounds / seconds,
                        "ms_per_deal_pair": 1000 * seconds / deals,
                        "plies_per_round": sum(g.plies for g in res.games) / res.rounds,
                    })  # fmt: skip
            for jobs in (1, 2) if args.selfplay else ():
                rows.append(selfplay(args.selfplay, jobs, backend))
            if backend.kind == "ray":
                for jobs in (1, 2):
                    rows.append(round_trip(jobs))
    return rows


def report(rows: list[dict[str, object]], as_json: bool) -> None:
    out = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
    }
    if as_json:
        print(json.dumps(out))
        return
    print(out["machine"], out["date"])
    print(f"{'backend':8} {'bot':22} {'workers':>7} {'rounds/s':>9} {'ms/unit':>13} {'plies':>6}")
    for r in rows:
        print(
            f"{r['backend']:8} {r['bot']:22} {r['workers']:>7} {r['rounds_per_s']:>9.1f}"
            f" {r['ms_per_deal_pair']:>13.1f} {r['plies_per_round']:>6.1f}"
        )


if __name__ == "__main__":
    main()
