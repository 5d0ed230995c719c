"""Judges side by side on the judge-fidelity positions: ``smart``, the learned judge, jitter.

``benchmarks/judge_fidelity.py`` measures one judge against its cached reference (sampled
worlds played out with ``heuristic`` on both sides). This script measures several on the
*same* positions with the *same* worlds (each position's worlds come from the same
generator seed, and argmax learned rollouts consume no extra random numbers, so every judge
plays exactly the same deals) and prints the figures of each in one table, with the
figures of judge_fidelity.py itself (:func:`judge_fidelity.figures`).

Usage::

    python benchmarks/judge_compare.py [--judge FILE] [--worlds 200] [--every 1]
                                       [--jitter LEVEL:EPS ...] [--no-learned]
                                       [--json FILE] [--markdown]

``--judge`` is a learned judge's weights file (default: the shipped one), ``--temperature``
its sampling temperature (with one, its worlds differ from ``smart``'s); ``--every 4`` takes
every fourth position the reference covers. ``--jitter 2:0.05`` adds the jittered ``smart``
rollouts of :mod:`lostcities.fast.jitter` (threshold level 2, move noise 0.05; the same
worlds as ``smart``), as often as given; ``--no-learned`` leaves the learned judge out.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import judge_fidelity as jf

from lostcities.fast.jitter import Jitter
from lostcities.fast.judge import Judge, default_judge
from lostcities.fast.search import FlatSearch


def values(
    pos: jf.Position, worlds: int, rollout: str, judge: Judge | Jitter | None
) -> list[float]:
    """The judge's mean margin of each candidate over ``worlds`` worlds (compiled)."""
    extra: dict[str, object] = {}
    if isinstance(judge, Jitter):
        extra["jitter"] = judge
    elif judge is not None:
        extra["judge"] = judge
    search = FlatSearch(
        pos.view,
        pos.candidates,
        rollout=rollout,
        rng=random.Random(jf.world_seed(pos.id)),
        **extra,  # type: ignore[arg-type]
    )
    search.run(worlds)
    return [float(x) / worlds for x in search.margin_sums]


def _mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    """The mean of ``xs`` and the half-width of its 95% normal CI."""
    if len(xs) < 2:
        return math.nan, math.nan
    return statistics.fmean(xs), 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def paired(
    a: Sequence[jf.Scored], b: Sequence[jf.Scored], kind: str | None = None
) -> tuple[float, float, float, float]:
    """Judge ``a`` minus judge ``b`` on the same positions, paired by position: the mean
    difference of a position's MAE (over its candidates of ``kind``, all but draws when
    ``None``) and its 95% CI half-width, then the same for the regret."""
    dm: list[float] = []
    dr: list[float] = []
    for x, y in zip(a, b, strict=True):
        ex = [abs(e) for k, e in x.errors() if k == kind or (kind is None and k != "draw")]
        ey = [abs(e) for k, e in y.errors() if k == kind or (kind is None and k != "draw")]
        if ex:
            dm.append(sum(ex) / len(ex) - sum(ey) / len(ey))
        dr.append(x.regret - y.regret)
    return _mean_ci(dm) + _mean_ci(dr)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--judge", metavar="FILE", help="learned judge weights (the shipped one)")
    ap.add_argument("--temperature", type=float, default=0.0, help="the judge's sampling T (0)")
    ap.add_argument("--worlds", type=int, default=200, help="worlds a position (200)")
    ap.add_argument("--every", type=int, default=1, help="every N-th covered position (1)")
    ap.add_argument(
        "--jitter", metavar="LEVEL:EPS", action="append", default=[], help="a jittered smart"
    )
    ap.add_argument("--no-learned", action="store_true", help="leave the learned judge out")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    judge = Judge.load(args.judge) if args.judge else default_judge()
    judge = judge.with_temperature(args.temperature)
    ref = jf.load_reference()
    positions = [p for p in jf.load_positions() if p.id in ref][:: args.every]
    out: dict[str, object] = {"positions": len(positions), "worlds": args.worlds}
    rows = []
    judges: list[tuple[str, str, Judge | Jitter | None]] = [("smart", "smart", None)]
    if not args.no_learned:
        judges.append(("learned", "learned", judge))
    for spec in args.jitter:
        level, _, eps = spec.partition(":")
        judges.append((f"jitter {spec}", "jitter", Jitter(int(level), float(eps or 0))))
    all_scored: list[list[jf.Scored]] = []
    diffs: list[tuple[str, dict[str | None, tuple[float, float, float, float]]]] = []
    for name, rollout, j in judges:
        t0 = time.perf_counter()
        scored = []
        for p in positions:
            row = ref[p.id]
            scored.append(
                jf.Scored(
                    p,
                    values(p, args.worlds, rollout, j),
                    list(row["mean"]),  # type: ignore[call-overload]
                    list(row["se"]),  # type: ignore[call-overload]
                    list(row["half"]),  # type: ignore[call-overload]
                )
            )
        seconds = time.perf_counter() - t0
        fig = jf.figures(scored)
        out[name] = {"figures": fig, "seconds": seconds}
        rows.append((name, fig, seconds))
        if all_scored:
            d = {k: paired(scored, all_scored[0], k) for k in (None, "wager", "opening")}
            out[name]["paired_vs_first"] = {str(k): v for k, v in d.items()}  # type: ignore[index]
            diffs.append((name, d))
        all_scored.append(scored)
    groups = ["all", *jf.KINDS]
    head = ["judge", "s", *[f"{g} MAE" for g in groups], "picks ref's best", "regret"]
    lines = []
    for name, fig, seconds in rows:
        kinds = fig["kinds"]  # type: ignore[index]
        cells = [name, f"{seconds:.0f}"]
        for g in groups:
            x = fig["all"] if g == "all" else kinds[g]  # type: ignore[index]
            cells.append(f"{x['mae']:.2f} ± {x['mae_ci']:.2f}")
        a = fig["all"]  # type: ignore[index]
        cells.append(f"{100 * a['best']:.1f}%")
        cells.append(f"{a['regret']:.2f} ± {a['regret_ci']:.2f}")
        lines.append(cells)
    title = (
        f"{len(positions)} positions of set v{jf.VERSION}, {args.worlds} worlds each, the same "
        f"worlds for every judge; learned = {judge!r}"
    )
    if args.markdown:
        print(f"{title}\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for cells in lines:
            print("| " + " | ".join(cells) + " |")
    else:
        print(title)
        for cells in [head, *lines]:
            print("  ".join(f"{c:>14}" for c in cells))
    if diffs:
        print(f"\npaired by position, each judge minus {judges[0][0]} (mean ± 95% CI):")
        for name, d in diffs:
            (m, mc, r, rc), w, o = d[None], d["wager"], d["opening"]
            print(
                f"  {name:>16}: MAE {m:+.3f} ± {mc:.3f}, wager MAE {w[0]:+.3f} ± {w[1]:.3f}, "
                f"opening MAE {o[0]:+.3f} ± {o[1]:.3f}, regret {r:+.3f} ± {rc:.3f}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
