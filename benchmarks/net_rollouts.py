"""Network rollouts' speed: rollout moves a second on one core (CPU time), by batch size.

``expert:rollout=net`` plays its worlds out with the policy network on both sides
(:class:`lostcities.fast.netsearch.NetRollouts`), every world of every candidate in one
batch. This times that on positions of seeded rounds (plies 0, 10, ..., 40, both variants),
one thread for NumPy's BLAS and numba, in CPU seconds (so a loaded machine reads close to an
idle one), for a few world counts, with and without a value-head cut-off::

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/net_rollouts.py
"""

from __future__ import annotations

import argparse
import time

from lostcities import Round
from lostcities.bots.net import load_network
from lostcities.fast.netsearch import NetRollouts, PackedNetwork


def positions() -> list[Round]:
    out = []
    for variant in ("classic", "long"):
        for ply in range(0, 50, 10):
            r = Round.deal(seed=100 + ply, variant=variant)
            for _ in range(ply):
                r.push(r.legal_moves()[0])
            out.append(r)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", default="16,64", help="world counts to time (16,64)")
    ap.add_argument("--candidates", type=int, default=5, help="candidates a position (5)")
    args = ap.parse_args()
    net = PackedNetwork(load_network(None))
    rounds = positions()
    print("| worlds x candidates | depth | rollout moves | CPU s | moves/s per core |")
    print("|---|---|---|---|---|")
    for worlds in (int(w) for w in args.worlds.split(",")):
        for depth in (0, 10):
            moves = 0
            cpu = 0.0
            for r in rounds:
                view = r.view(r.to_move)
                cands = list(view.legal_moves())[: args.candidates]
                s = NetRollouts(net, view, cands, seed=1, depth=depth)
                s.run(1)  # (compiled and warm)
                s.moves = 0
                t = time.process_time()
                s.run(worlds)
                cpu += time.process_time() - t
                moves += s.moves
            print(
                f"| {worlds} x {args.candidates} | {depth or 'end'} | {moves:,} | {cpu:.2f} |"
                f" {moves / cpu:,.0f} |"
            )


if __name__ == "__main__":
    main()
