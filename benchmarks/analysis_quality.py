"""How good is the analysis (issue 12)? Calibration, marked-move rates and speed.

- Calibration: self-play rounds of several strengths; every move analysed at the default
  setting (``ismcts``, 1000 worlds); the mover's predicted win probability after the move
  played against the round's outcome (10 bins), and the predicted margin against the final
  margin.
- Marks on heuristic vs random: the random player's moves that a reference analysis (more
  worlds, more candidates) finds losing >= 4 points, and the share the default analysis marks.
- Marks on self-play of a strong bot: the share of moves marked.
- False blunders (issue 24): on ``heuristic`` self-play games, every move the default
  analysis marks a blunder is played out against the analysis' best move by the reference
  judge of ``benchmarks/judge_fidelity.py`` (``heuristic`` on both sides, in sampled
  worlds); a mark is false when the reference puts the move within 5 points of the best.
  Reported per 100 moves (the target: at most 1).
- Speed: a 3-round match analysed at the default setting (one process), and one hint.

Usage: ``python benchmarks/analysis_quality.py [--scale 1.0] [--only PARTS] [--out FILE.json]``
(``--scale`` multiplies the numbers of rounds). Prints a JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from judge_fidelity import heuristic_margins

from lostcities import Match, Round
from lostcities.bots import make
from lostcities.bots.analysis import INACCURACY, positions, review
from lostcities.referee import Referee

DEFAULT = ("ismcts", 1000)
ROWS: list[dict[str, object]] = []
"""Every calibration position (``--rows FILE`` writes them)."""


def play_round(a: str, b: str, seed: int) -> Round:
    m = Match(1, seed=seed)
    Referee(m, [make(a, seed=seed), make(b, seed=seed + 7)]).play_match()
    return m.rounds[0]


def calibration(scale: float) -> dict[str, object]:
    kinds = [
        ("heuristic", "heuristic", 12),
        ("ismcts:iters=1000", "ismcts:iters=1000", 12),
        ("expert:iters=1000", "expert:iters=1000", 12),
        ("heuristic", "random", 8),
    ]
    bot = make(DEFAULT[0])
    rows: list[tuple[float, float, float, float]] = []  # predicted win, outcome, margin, final
    t0 = time.process_time()
    for a, b, n in kinds:
        for k in range(max(1, round(n * scale))):
            r = play_round(a, b, 1000 + k)
            s = r.scores()
            for p in positions([r]):
                m = review(bot, p, worlds=DEFAULT[1], seed=k)
                me = p.view.player
                final = s[me] - s[me ^ 1]
                rows.append(
                    (m.win, 1.0 if final > 0 else 0.5 if final == 0 else 0.0, m.margin, final)
                )
                ROWS.append(
                    {
                        "kind": f"{a}/{b}",
                        "seed": 1000 + k,
                        "ply": p.ply,
                        "deck": p.view.deck_size,
                        "raw_win": m.win,
                        "outcome": rows[-1][1],
                        "margin": m.margin,
                        "final": final,
                    }
                )
    cpu = time.process_time() - t0
    bins = []
    for i in range(10):
        lo, hi = i / 10, (i + 1) / 10
        sel = [r for r in rows if lo <= r[0] < hi or (i == 9 and r[0] == 1.0)]
        if sel:
            bins.append(
                {
                    "bin": f"{lo:.1f}-{hi:.1f}",
                    "n": len(sel),
                    "predicted": round(sum(r[0] for r in sel) / len(sel), 3),
                    "observed": round(sum(r[1] for r in sel) / len(sel), 3),
                }
            )
    n = len(rows)
    err = [r[2] - r[3] for r in rows]
    return {
        "positions": n,
        "bins": bins,
        "brier": round(sum((r[0] - r[1]) ** 2 for r in rows) / n, 4),
        "margin_bias": round(sum(err) / n, 2),
        "margin_mae": round(sum(abs(e) for e in err) / n, 2),
        "margin_rmse": round((sum(e * e for e in err) / n) ** 0.5, 2),
        "cpu_s": round(cpu, 1),
    }


def marks_vs_random(scale: float) -> dict[str, object]:
    bot = make(DEFAULT[0])
    ref = make("ismcts:top=6")
    losing = marked_losing = marked = moves = 0
    for k in range(max(1, round(4 * scale))):
        r = play_round("heuristic", "random", 2000 + k)
        for p in positions([r]):
            if p.view.player != 1:
                continue
            moves += 1
            m = review(bot, p, worlds=DEFAULT[1], seed=k)
            big = review(ref, p, worlds=4000, seed=k + 99)
            marked += m.mark is not None
            if big.loss >= INACCURACY:
                losing += 1
                marked_losing += m.mark is not None
    return {
        "random_moves": moves,
        "losing_by_reference": losing,
        "marked_of_losing": marked_losing,
        "recall": round(marked_losing / max(losing, 1), 3),
        "marked_share": round(marked / max(moves, 1), 3),
    }


def marks_self_play(spec: str, scale: float) -> dict[str, object]:
    bot = make(DEFAULT[0])
    counts = {"inaccuracy": 0, "mistake": 0, "blunder": 0}
    moves = 0
    for k in range(max(1, round(4 * scale))):
        r = play_round(spec, spec, 3000 + k)
        for p in positions([r]):
            m = review(bot, p, worlds=DEFAULT[1], seed=k)
            moves += 1
            if m.mark:
                counts[m.mark] += 1
    return {
        "bot": spec,
        "moves": moves,
        **counts,
        "marked_share": round(sum(counts.values()) / moves, 3),
    }


FALSE_WITHIN = 5.0
"""A blunder mark is false when the reference puts the move within this many points of the
analysis' best move."""


def false_blunders(scale: float, ref_worlds: int = 100) -> dict[str, object]:
    """Blunder marks on ``heuristic`` self-play (50 games at scale 1) that the reference
    judge refutes (:data:`FALSE_WITHIN`)."""
    bot = make(DEFAULT[0])
    moves = blunders = false = 0
    worst: list[dict[str, object]] = []
    n = max(1, round(50 * scale))
    for k in range(n):
        r = play_round("heuristic", "heuristic", 5000 + k)
        for p in positions([r]):
            m = review(bot, p, worlds=DEFAULT[1], seed=k)
            if m.forced:
                continue
            moves += 1
            if m.mark != "blunder":
                continue
            blunders += 1
            a, b = heuristic_margins(p.view, [m.best, m.move], ref_worlds, 7000 + k, (k, p.ply))
            ref_loss = (sum(a) - sum(b)) / ref_worlds
            if ref_loss < FALSE_WITHIN:
                false += 1
                worst.append(
                    {
                        "game": k,
                        "ply": p.ply,
                        "move": str(m.move),
                        "best": str(m.best),
                        "analysis_loss": round(m.loss, 1),
                        "reference_loss": round(ref_loss, 1),
                    }
                )
        print(
            f"false blunders: game {k + 1}/{n}, {moves} moves, {blunders} blunders, {false} false",
            file=sys.stderr,
            flush=True,
        )
    rate = 100.0 * false / max(moves, 1)
    # a Poisson count's 95% interval, normal approximation with a floor at 0
    half = 196.0 * math.sqrt(max(false, 1)) / max(moves, 1)
    return {
        "games": n,
        "moves": moves,
        "blunder_marks": blunders,
        "false_blunders": false,
        "false_per_100_moves": round(rate, 2),
        "ci95": [round(max(0.0, rate - half), 2), round(rate + half, 2)],
        "reference_worlds": ref_worlds,
        "false": sorted(worst, key=lambda x: -float(x["analysis_loss"]))[:20],  # type: ignore[arg-type]
    }


def speed() -> dict[str, object]:
    m = Match(3, seed=5)
    Referee(m, [make("heuristic", seed=1), make("heuristic", seed=2)]).play_match()
    ps = positions(m.rounds)
    bot = make(DEFAULT[0])
    review(bot, ps[0], worlds=10)  # compile / load the kernels first
    t0, c0 = time.perf_counter(), time.process_time()
    for p in ps:
        review(bot, p, worlds=DEFAULT[1])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    hint = make("ismcts")
    h0 = time.perf_counter()
    for p in ps[::10]:
        hint.analyse(p.view, worlds=DEFAULT[1])
    per_hint = (time.perf_counter() - h0) / len(ps[::10])
    return {
        "moves": len(ps),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "hint_s": round(per_hint, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--rows", default=None, help="write every calibration position here (JSON)")
    ap.add_argument(
        "--only", default="speed,random,self,false,calibration", help="comma-separated parts"
    )
    args = ap.parse_args()
    out: dict[str, object] = {}
    parts = args.only.split(",")
    if "speed" in parts:
        out["speed"] = speed()
        print(json.dumps(out["speed"]), flush=True)
    if "random" in parts:
        out["marks_heuristic_vs_random"] = marks_vs_random(args.scale)
        print(json.dumps(out["marks_heuristic_vs_random"]), flush=True)
    if "self" in parts:
        out["marks_self_play"] = marks_self_play("expert:iters=4000", args.scale)
        print(json.dumps(out["marks_self_play"]), flush=True)
    if "false" in parts:
        out["false_blunders"] = false_blunders(args.scale)
        print(json.dumps(out["false_blunders"]), flush=True)
    if "calibration" in parts:
        out["calibration"] = calibration(args.scale)
        print(json.dumps(out["calibration"]), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    if args.rows:
        with open(args.rows, "w", encoding="utf-8") as f:
            json.dump(ROWS, f)


if __name__ == "__main__":
    main()
