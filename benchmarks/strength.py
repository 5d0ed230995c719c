"""Strength of the built-in bots: duplicate-deal matches played in-process.

Each deal is played twice with the seats swapped (player 0 always starts), so the luck of
the deal cancels. Prints rounds, wins/draws/losses, A's win rate (a draw counts half) with
a 95% confidence interval, the mean score margin (A minus B) with its 95% CI and the Elo
difference. The CIs are computed over deal pairs (the two rounds of a deal are not
independent).

Usage::

    python benchmarks/strength.py heuristic discard --deals 1000 --jobs 2
    python benchmarks/strength.py ismcts:iters=400 heuristic --deals 100 --variant long
    python benchmarks/strength.py --ladder random discard heuristic --deals 500 --markdown

This script does not depend on the arena (``lostcities match``); it is the benchmark
behind the strength figures of ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from lostcities import Round
from lostcities.bots import make


@dataclass
class Game:
    """One round of a pairing: A's seat, both scores, how it ended."""

    deal: int
    a_seat: int
    a_score: int
    b_score: int
    plies: int
    forfeit: str = ""
    truncated: bool = False
    a_seconds: float = 0.0
    a_moves: int = 0


def deal_seed(seed: int, deal: int) -> int:
    """The deal seed of pair ``deal`` (shared by the two rounds of the pair)."""
    return (seed * 1_000_003 + deal * 7919) % (2**62)


def play_round(
    spec_a: str, spec_b: str, seed: int, deal: int, a_seat: int, variant: str, max_turns: int
) -> Game:
    """Play one round of deal ``deal`` with A in ``a_seat``; bots seeded from the deal."""
    ds = deal_seed(seed, deal)
    r = Round.deal(seed=ds, variant=variant, starter=0, max_turns=max_turns)
    specs = [spec_a, spec_b] if a_seat == 0 else [spec_b, spec_a]
    bots = [make(specs[p], seed=(ds * 2 + p + 17 * a_seat) % (2**31)) for p in (0, 1)]
    for p in (0, 1):
        bots[p].restart(r.variant, p)
    forfeit = ""
    a_seconds = 0.0
    a_moves = 0
    try:
        while not r.is_over():
            p = r.to_move
            t0 = time.perf_counter()
            move = bots[p].choose(r.view(p))
            if p == a_seat:
                a_seconds += time.perf_counter() - t0
                a_moves += 1
            if not r.is_legal(move):
                forfeit = f"player {p} ({specs[p]}) moved illegally: {move}"
                r.forfeit(p, forfeit)
                break
            r.push(move)
            for b in bots:
                b.inform(move, p)
    finally:
        for b in bots:
            b.close()
    s = r.scores()
    return Game(
        deal, a_seat, s[a_seat], s[a_seat ^ 1], r.ply, forfeit, r.truncated, a_seconds, a_moves
    )


def _job(args: tuple[str, str, int, int, int, str, int]) -> Game:
    return play_round(*args)


@dataclass
class Result:
    """A pairing's games and its statistics."""

    a: str
    b: str
    games: list[Game] = field(default_factory=list)

    def points(self, g: Game) -> float:
        return 1.0 if g.a_score > g.b_score else 0.5 if g.a_score == g.b_score else 0.0

    @property
    def rounds(self) -> int:
        return len(self.games)

    def pairs(self) -> list[list[Game]]:
        by: dict[int, list[Game]] = {}
        for g in self.games:
            by.setdefault(g.deal, []).append(g)
        return list(by.values())

    def _mean_ci(self, values: Sequence[float]) -> tuple[float, float]:
        n = len(values)
        if n == 0:
            return (math.nan, math.nan)
        m = sum(values) / n
        if n < 2:
            return (m, math.inf)
        var = sum((v - m) ** 2 for v in values) / (n - 1)
        return (m, 1.96 * math.sqrt(var / n))

    def win_rate(self) -> tuple[float, float]:
        """A's score rate (draw = half) and the half-width of its 95% CI (over deal pairs)."""
        per_pair = [sum(self.points(g) for g in p) / len(p) for p in self.pairs()]
        return self._mean_ci(per_pair)

    def margin(self) -> tuple[float, float]:
        """Mean of A's score minus B's per round, and the half-width of its 95% CI."""
        per_pair = [sum(g.a_score - g.b_score for g in p) / len(p) for p in self.pairs()]
        return self._mean_ci(per_pair)

    def elo(self) -> tuple[float, float, float]:
        """Elo difference and its 95% CI bounds (from the win-rate CI)."""
        wr, ci = self.win_rate()

        def to_elo(p: float) -> float:
            p = min(max(p, 1e-4), 1 - 1e-4)
            return -400 * math.log10(1 / p - 1)

        return (to_elo(wr), to_elo(wr - ci), to_elo(wr + ci))

    def counts(self) -> tuple[int, int, int]:
        w = sum(1 for g in self.games if g.a_score > g.b_score)
        d = sum(1 for g in self.games if g.a_score == g.b_score)
        return (w, d, self.rounds - w - d)


def run_pairing(
    a: str,
    b: str,
    deals: int,
    seed: int,
    jobs: int,
    variant: str,
    max_turns: int,
    progress: bool = True,
) -> Result:
    """Play ``deals`` duplicate deals of A against B on ``jobs`` processes."""
    tasks = [
        (a, b, seed, d, seat, variant, max_turns) for d in range(deals) for seat in (0, 1)
    ]
    res = Result(a, b)
    it: Iterator[Game]
    pool = None
    if jobs > 1:
        pool = mp.get_context("fork").Pool(jobs)
        it = pool.imap_unordered(_job, tasks, chunksize=1)
    else:
        it = map(_job, tasks)
    try:
        if progress and sys.stderr.isatty():
            from rich.progress import Progress

            with Progress(transient=True) as bar:
                tid = bar.add_task(f"{a} vs {b}", total=len(tasks))
                for g in it:
                    res.games.append(g)
                    wr, _ = res.win_rate()
                    bar.update(tid, advance=1, description=f"{a} vs {b}: {wr:.1%}")
        else:
            res.games.extend(it)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return res


def report(res: Result, seconds: float, variant: str) -> str:
    w, d, l_ = res.counts()
    wr, wci = res.win_rate()
    mm, mci = res.margin()
    elo, lo, hi = res.elo()
    forfeits = sum(1 for g in res.games if g.forfeit)
    trunc = sum(1 for g in res.games if g.truncated)
    plies = sum(g.plies for g in res.games) / max(1, res.rounds)
    a_ms = 1000 * sum(g.a_seconds for g in res.games) / max(1, sum(g.a_moves for g in res.games))
    return (
        f"{res.a} vs {res.b} ({variant}): {res.rounds} rounds ({res.rounds // 2} deals), "
        f"W/D/L {w}/{d}/{l_}, win rate {wr:.1%} ± {wci:.1%}, "
        f"margin {mm:+.1f} ± {mci:.1f}, Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}], "
        f"forfeits {forfeits}, truncated {trunc}, {plies:.0f} plies/round, "
        f"A {a_ms:.1f} ms/move, {seconds:.0f} s"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bots", nargs="+", help="bot specs: A B, or with --ladder any number")
    ap.add_argument("--deals", type=int, default=100, help="duplicate deals (rounds = 2 x deals)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=max(1, (mp.cpu_count() or 1)))
    ap.add_argument("--variant", default="classic", choices=["classic", "long"])
    ap.add_argument("--max-turns", type=int, default=1000, help="safety cap on moves per round")
    ap.add_argument(
        "--ladder", action="store_true",
        help="bots given weakest first: play each against the one before it",
    )
    args = ap.parse_args(argv)
    if args.deals < 1 or args.jobs < 1:
        ap.error("--deals and --jobs must be positive")
    if not args.ladder and len(args.bots) != 2:
        ap.error("give two bot specs (or --ladder)")
    for spec in args.bots:
        try:
            make(spec).close()
        except ValueError as e:
            ap.error(str(e))
    bots = args.bots
    pairs = (
        [(bots[i + 1], bots[i]) for i in range(len(bots) - 1)] if args.ladder else [tuple(bots)]
    )
    for a, b in pairs:
        t0 = time.perf_counter()
        res = run_pairing(a, b, args.deals, args.seed, args.jobs, args.variant, args.max_turns)
        print(report(res, time.perf_counter() - t0, args.variant), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
