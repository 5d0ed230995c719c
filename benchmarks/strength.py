"""Strength of the built-in bots: duplicate-deal matches, through the arena.

A thin front end of :func:`lostcities.arena.play_match`: the arena's deals, seeds, referee
and statistics (see docs/arena.md), one line per pairing (or, with ``--markdown``, one row of
the tables in docs/performance.md). Each deal is played twice with the seats swapped; the
confidence intervals are over deals (the two rounds of a deal are not independent). With
``--ladder`` the bots are given weakest first and each plays the one before it.

Usage::

    python benchmarks/strength.py heuristic discard --deals 1000 --jobs 2
    python benchmarks/strength.py ismcts:iters=400 heuristic --deals 100 --variant long
    python benchmarks/strength.py --ladder random discard heuristic --deals 500 --markdown

``python benchmarks/strength.py A B --deals N --seed S --jobs J`` plays exactly what
``lostcities match A B --deals N --seed S --jobs J --max-turns 1000 --time-limit 0`` plays
(no time limit: bots use their own budget, as ``ismcts:time=1`` does; a 1000-move safety cap).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence

from lostcities.arena import MatchResult, check_spec, play_match


def run_pairing(
    a: str,
    b: str,
    deals: int,
    seed: int,
    jobs: int,
    variant: str,
    max_turns: int,
    progress: bool = True,
) -> MatchResult:
    """Play ``deals`` duplicate deals of A against B on ``jobs`` processes (no time limit)."""
    show: Callable[[MatchResult], None] | None = None
    if progress and sys.stderr.isatty():

        def live(r: MatchResult) -> None:
            line = f"{a} vs {b}: {r.rounds}/{2 * deals} rounds, {r.a_win_rate:.1%}"
            print(f"\r{line}", end="", file=sys.stderr, flush=True)

        show = live

    result = play_match(
        a,
        b,
        deals=deals,
        seed=seed,
        jobs=jobs,
        variant=variant,
        max_turns=max_turns,
        time_limit=None,
        progress=show,
    )
    if show is not None:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    return result


def _num(x: float, fmt: str) -> str:
    return format(x, fmt) if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _ms_per_move(res: MatchResult) -> float:
    moves = sum(g.a_moves for g in res.games)
    return 1000 * sum(g.a_seconds for g in res.games) / max(1, moves)


def _parts(res: MatchResult) -> dict[str, str]:
    lo, hi = res.a_win_rate_ci95
    mlo, mhi = res.mean_margin_ci95
    elo_lo, elo_hi = res.elo_ci95
    return {
        "wdl": f"{res.a_wins}/{res.draws}/{res.b_wins}",
        "win": f"{res.a_win_rate:.1%} [{lo:.1%}, {hi:.1%}]",
        "margin": f"{res.mean_margin:+.1f} ± {_num((mhi - mlo) / 2, '.1f')}",
        "elo": f"{_num(res.elo, '+.0f')} [{_num(elo_lo, '+.0f')}, {_num(elo_hi, '+.0f')}]",
    }


def report(res: MatchResult) -> str:
    """One line: rounds, W/D/L, win rate, margin and Elo with their 95% intervals, forfeits,
    turn-capped rounds, plies per round, A's thinking time per move, wall time."""
    p = _parts(res)
    plies = sum(g.plies for g in res.games) / max(1, res.rounds)
    return (
        f"{res.a} vs {res.b} ({res.variant}): {res.rounds} rounds ({res.deals} deals), "
        f"W/D/L {p['wdl']}, win rate {p['win']}, margin {p['margin']}, Elo {p['elo']}, "
        f"forfeits {res.forfeits}, truncated {res.truncated}, {plies:.0f} plies/round, "
        f"A {_ms_per_move(res):.1f} ms/move, {res.seconds:.0f} s"
    )


MARKDOWN_HEADER = (
    "| A vs B | rounds | A W/D/L | A win rate (95% CI) | A − B margin per round | Elo (95% CI) |\n"
    "|---|---:|---:|---:|---:|---:|"
)
"""The header of docs/performance.md's strength tables."""


def markdown_row(res: MatchResult) -> str:
    """``res`` as a row under :data:`MARKDOWN_HEADER` (A's ms/move in the first cell)."""
    p = _parts(res)
    who = f"`{res.a}` ({_ms_per_move(res):.1f} ms/move) vs `{res.b}`"
    return f"| {who} | {res.rounds:,} | {p['wdl']} | {p['win']} | {p['margin']} | {p['elo']} |"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module docs)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("bots", nargs="+", help="bot specs: A B, or with --ladder any number")
    ap.add_argument("--deals", type=int, default=100, help="duplicate deals (rounds = 2 x deals)")
    ap.add_argument("--seed", type=int, default=1, help="the match seed (1)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--variant", default="classic", choices=["classic", "long"])
    ap.add_argument("--max-turns", type=int, default=1000, help="safety cap on moves per round")
    ap.add_argument(
        "--ladder",
        action="store_true",
        help="bots given weakest first: play each against the one before it",
    )
    ap.add_argument("--markdown", action="store_true", help="print docs/performance.md rows")
    args = ap.parse_args(argv)
    if args.deals < 1 or args.jobs < 1:
        ap.error("--deals and --jobs must be positive")
    if not args.ladder and len(args.bots) != 2:
        ap.error("give two bot specs (or --ladder)")
    for spec in args.bots:
        try:
            check_spec(spec)
        except ValueError as e:
            ap.error(str(e))
    bots = args.bots
    pairs = [(bots[i + 1], bots[i]) for i in range(len(bots) - 1)] if args.ladder else [tuple(bots)]
    if args.markdown:
        print(MARKDOWN_HEADER)
    for a, b in pairs:
        res = run_pairing(a, b, args.deals, args.seed, args.jobs, args.variant, args.max_turns)
        print(markdown_row(res) if args.markdown else report(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
