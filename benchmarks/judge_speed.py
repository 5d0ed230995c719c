"""The learned judge's speed against ``smart``'s, in the same run, on one core.

Two figures per judge:

- *rollout moves per second*: whole playouts (both sides played by the policy) from the
  positions of heuristic-vs-heuristic rounds at every stage, the compiled loop alone
  (:meth:`lostcities.fast.judge.Judge.playout` / :func:`lostcities.fast.smart.smart_playout`
  on a copy of each position's array state);
- *flat-search playouts per second*: :class:`lostcities.fast.search.FlatSearch` over the
  ``ismcts`` candidates of the same positions (world dealing, candidate moves and scoring
  included), what a search bot buys with its time.

Usage::

    python benchmarks/judge_speed.py [--judge FILE] [--positions 200] [--repeat 5] [--json FILE]

The default judge is the shipped one (``lostcities/data/judge.npz``); ``--hidden 128,32``
times random weights of those sizes instead.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from lostcities import Round
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import IsmctsBot
from lostcities.fast import kernels as K
from lostcities.fast.judge import Judge, default_judge
from lostcities.fast.search import FlatSearch
from lostcities.fast.smart import smart_playout
from lostcities.fast.state import state_from_round


def positions(n: int, seed: int) -> list[Round]:
    """``n`` positions of heuristic-vs-heuristic rounds, both variants, every stage."""
    rng = random.Random(seed)
    bots = [HeuristicBot(seed=1), HeuristicBot(seed=2)]
    out: list[Round] = []
    k = 0
    while len(out) < n:
        k += 1
        r = Round.deal(seed=seed + k, variant="long" if k % 3 == 0 else "classic", starter=k % 2)
        stop = rng.randrange(0, 70)
        while not r.is_over() and r.ply < stop:
            r.push(bots[r.to_move].choose(r.view(r.to_move)))
        if not r.is_over():
            out.append(r)
    return out


def rollout_speed(states: Sequence[np.ndarray], judge: Judge | None, repeat: int) -> float:
    """Moves per second of whole playouts from ``states`` (``None``: smart)."""
    if judge is not None:
        judge.playout(states[0].copy())
    else:
        smart_playout(states[0].copy())
    moves = 0
    t0 = time.perf_counter()
    for rep in range(repeat):
        for s in states:
            t = s.copy()
            if judge is not None:
                judge.playout(t, rep)
            else:
                smart_playout(t)
            moves += int(t[K.PLY]) - int(s[K.PLY])
    return moves / (time.perf_counter() - t0)


def search_speed(rounds: Sequence[Round], rollout: str, judge: Judge | None, worlds: int) -> float:
    """Playouts per second of flat searches of the ``ismcts`` candidates."""
    bot = IsmctsBot(iters=1, seed=0)
    jobs = []
    for r in rounds:
        view = r.view(r.to_move)
        cands = bot.search_candidates(view)
        if len(cands) > 1:
            jobs.append((view, cands))
    extra = {"judge": judge} if judge is not None else {}
    FlatSearch(jobs[0][0], jobs[0][1], rollout=rollout, seed=0, **extra).run(1)  # type: ignore[arg-type]
    n = 0
    t0 = time.perf_counter()
    for i, (view, cands) in enumerate(jobs):
        f = FlatSearch(view, cands, rollout=rollout, seed=i, **extra)  # type: ignore[arg-type]
        f.run(worlds)
        n += worlds * len(cands)
    return n / (time.perf_counter() - t0)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--judge", metavar="FILE", help="weights file (default: the shipped judge)")
    ap.add_argument("--hidden", metavar="H,H2", help="time random weights of these sizes")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--worlds", type=int, default=32, help="worlds a searched position (32)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if args.hidden:
        nh, n2 = (int(x) for x in args.hidden.split(","))
        judge = Judge.random(0, (nh, n2))
    else:
        judge = Judge.load(args.judge) if args.judge else default_judge()
    rounds = positions(args.positions, args.seed)
    states = [state_from_round(r) for r in rounds]
    smart_moves = rollout_speed(states, None, args.repeat)
    judge_moves = rollout_speed(states, judge, args.repeat)
    smart_search = search_speed(rounds, "smart", None, args.worlds)
    judge_search = search_speed(rounds, "learned", judge, args.worlds)
    fig = {
        "judge": repr(judge),
        "positions": len(states),
        "smart_moves_per_s": round(smart_moves),
        "judge_moves_per_s": round(judge_moves),
        "moves_ratio": round(smart_moves / judge_moves, 1),
        "smart_playouts_per_s": round(smart_search),
        "judge_playouts_per_s": round(judge_search),
        "playouts_ratio": round(smart_search / judge_search, 1),
        "cpu": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    print(
        f"{judge!r} on one core, {len(states)} positions:\n"
        f"  rollout moves/s: smart {smart_moves:,.0f}, judge {judge_moves:,.0f} "
        f"(smart {fig['moves_ratio']}x)\n"
        f"  flat-search playouts/s: smart {smart_search:,.0f}, judge {judge_search:,.0f} "
        f"(smart {fig['playouts_ratio']}x)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(fig, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
