"""ISMCTS flat search (smart rollouts) compiled against the same search on the pure-Python core.

For each mid-round position: the ``ismcts`` bot's candidates (the heuristic's ``top`` card
actions, each with its draw and with the draw pile), then the same number of sampled worlds
searched twice from the same generator state: on the pure-Python core
(:func:`~lostcities.bots.ismcts.flat_totals`, the loop of the bot's flat mode) and compiled (:class:`lostcities.fast.search.FlatSearch` with ``rollout="smart"``).
It checks that the totals are bit-for-bit equal (so the chosen move is the same) and reports
iterations (playouts) per CPU second and the ratio, per run.

    nice -n 10 python benchmarks/ismcts_search_speed.py --runs 5 --worlds 40
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Iterator

from lostcities import Move, Round
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import flat_totals
from lostcities.fast.search import FlatSearch


def positions(count: int, seed: int) -> Iterator[Round]:
    """Mid-round positions of heuristic self-play (expeditions under way)."""
    rng = random.Random(seed)
    bots = [HeuristicBot(seed=1), HeuristicBot(seed=2)]
    k = 0
    while k < count:
        k += 1
        r = Round.deal(seed=seed * 1009 + k)
        stop = rng.randrange(4, 60)
        while not r.is_over() and r.ply < stop:
            r.push(bots[r.to_move].choose(r.view(r.to_move)))
        if not r.is_over():
            yield r


def candidates(view_round: Round, top: int = 5) -> list[Move]:
    """The ``ismcts`` bot's root candidates."""
    view = view_round.view(view_round.to_move)
    out: list[Move] = []
    for _, m in HeuristicBot(seed=0).rank_moves(view)[:top]:
        out.append(m)
        if m.draw is not None:
            out.append(Move(m.action, m.card, None))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--worlds", type=int, default=40, help="sampled worlds per position")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    pos = list(positions(a.positions, a.seed))
    cand = [candidates(r) for r in pos]
    # load the compiled code before timing
    FlatSearch(pos[0].view(pos[0].to_move), cand[0], rollout="smart", seed=0).run(1)
    print(
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()},"
        f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(
        f"{len(pos)} positions, {statistics.mean(map(len, cand)):.1f} candidates on average,"
        f" {a.worlds} worlds each"
    )
    ratios = []
    for run in range(a.runs):
        py_cpu = fast_cpu = 0.0
        playouts = 0
        for i, (r, cs) in enumerate(zip(pos, cand, strict=True)):
            seed = run * 10_000 + i
            t = time.process_time()
            want = flat_totals(r.view(r.to_move), cs, a.worlds, random.Random(seed))
            py_cpu += time.process_time() - t
            t = time.process_time()
            fs = FlatSearch(
                r.view(r.to_move), cs, scale=15.0, rollout="smart", rng=random.Random(seed)
            )
            fs.run(a.worlds)
            fast_cpu += time.process_time() - t
            if fs.value_sums.tolist() != want:
                raise SystemExit(f"position {i}: totals differ")
            playouts += a.worlds * len(cs)
        ratio = py_cpu / fast_cpu
        ratios.append(ratio)
        print(
            f"run {run + 1}: python {playouts / py_cpu:,.0f} iterations/CPU s,"
            f" compiled {playouts / fast_cpu:,.0f} iterations/CPU s, ratio {ratio:.1f}x"
            " (totals identical)"
        )
    print(
        f"ratio median {statistics.median(ratios):.1f}x, min {min(ratios):.1f}x, max {max(ratios):.1f}x"
    )


if __name__ == "__main__":
    main()
