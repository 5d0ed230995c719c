"""Judge fidelity (issue 24): how well a rollout policy values moves, against a reference.

Every search bot, the hints and the analysis decide by a *judge*: a candidate move's value is
the mean final margin of the round (the mover's score minus the opponent's) over sampled
worlds (:class:`lostcities.WorldSampler`) played out to the end by a rollout policy, ``smart``
by default. This benchmark measures that judge on a fixed, versioned set of positions
against a **reference** that does not share its policy: the same sampled worlds played out
with the ``heuristic`` bot on both sides (each side choosing from its own view of the world,
so it plays wagers and expeditions by its own, independent estimate of their worth).

Why ``heuristic``: it is the strongest player the project has that shares nothing with the
``smart`` policy (``ismcts`` and ``expert`` search with ``smart`` rollouts, and the shipped
network was taught by such a search, so they would inherit its biases). It is a reference,
not the truth: a gap to it says where the judge plays the rest of the round differently
from a sound player, and by how many points that moves a move's value. Both judge and
reference deal the same worlds (the first ``W`` of the judge's worlds are the reference's),
so what they share (the uniform model of the opponent's hidden hand) cancels out and what
is measured is the rollout policy.

The positions (``benchmarks/data/judge_positions_v1.json``, made by ``make``): the mover's
view before moves of rounds played by several bots (``heuristic``, ``ismcts:iters=400``,
``expert:iters=400``, ``random``), both variants, every stage of a round; chosen so that each
kind of move is well represented. Each position's candidates are those ``ismcts`` searches
(the heuristic's three best card actions, each with its draw and with the draw pile), the
move played, and the heuristic's best move of each kind missing among them. The set is
stored as the rounds (deal seed, variant, starter, moves) and, per position, the round, the
ply and the candidates, so it replays exactly whatever the bots become; ``make`` plays the
games again with today's bots, so a set it makes with changed bots is a new version.

Move kinds: ``wager`` (a wager played), ``opening`` (the first number card of an expedition:
onto an empty or a wager-only one), ``number`` (a number card onto an expedition with
numbers), ``discard``, and ``draw`` (a card action with a discard-pile draw, compared with
the same card action drawing from the draw pile).

Figures, per kind (a position counts for every kind among its candidates):

- *best*: how often the judge's best candidate is the reference's best; *regret*: the
  reference's points the judge's pick loses against the reference's best (mean);
- *Spearman*: the rank correlation of the judge's and the reference's values over a
  position's candidates (mean over positions with 3 or more candidates);
- *MAE*: the mean absolute error, in points, of a candidate's value relative to the mean
  of its position's candidates (judge minus reference; so a constant optimism of the judge
  does not count), and *bias* its mean signed error (negative: the judge undervalues that
  kind of move); for ``draw``: the error on a pile draw's value minus the draw pile's.

The reference is computed once and cached (``benchmarks/data/judge_reference_v1.jsonl``, one
line a position, resumable: ``reference`` computes what is missing, every 16th position
first, then every 8th, and so on, so that a partial reference covers the set evenly; ``run``
measures the positions it covers). It costs about 4 s of CPU a position (32 worlds, about 5
candidates, ``heuristic`` at about 1 ms a move); its stability is shown by its standard
errors and by the agreement of its two halves of worlds (their mean distance from the whole
is the part of the MAE that is the reference's own noise).

Usage::

    python benchmarks/judge_fidelity.py make                 # rebuild the position set
    python benchmarks/judge_fidelity.py reference --jobs 2   # compute the missing reference
    python benchmarks/judge_fidelity.py run [--quick] [--judge smart|cheap] [--worlds 1000]
                                            [--json FILE] [--markdown] [--worst 10]

``run`` measures the judge of the ``lostcities`` it imports (``PYTHONPATH=/path/to/checkout``
measures another checkout's), with the compiled engine; ``--quick`` takes every fourth
position the reference covers and 400 worlds (a few seconds).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lostcities import Move, PlayerView, Round
from lostcities.arena import derive_seed, play_round
from lostcities.bots import make
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import IsmctsBot
from lostcities.rules import Action

VERSION = 1
"""The position set's version: a new set (other games, other candidates) is a new version,
with its own reference file."""
DATA = Path(__file__).resolve().parent / "data"
POSITIONS_FILE = DATA / f"judge_positions_v{VERSION}.json"
REFERENCE_FILE = DATA / f"judge_reference_v{VERSION}.jsonl"
KINDS = ("wager", "opening", "number", "discard", "draw")
STAGES = ("early", "middle", "late")
MAX_CANDIDATES = 8
REF_WORLDS = 32
"""Worlds per position of the reference (each candidate played out in each with heuristic)."""

# the games the positions come from: (variant, bot A, bot B, rounds); seats alternate
GAMES: tuple[tuple[str, str, str, int], ...] = tuple(
    (variant, a, b, n)
    for variant in ("classic", "long")
    for a, b, n in (
        ("heuristic", "heuristic", 10),
        ("ismcts:iters=400", "heuristic", 10),
        ("ismcts:iters=400", "ismcts:iters=400", 6),
        ("expert:iters=400", "heuristic", 6),
        ("heuristic", "random", 6),
    )
)
TARGET_POSITIONS = 2000
QUOTA = 450
"""Positions wanted featuring each kind (filled first, rarest kind first; the rest at random)."""


# -- the position set ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """One position of the set: the mover's view and the candidates."""

    id: int
    round: int
    ply: int
    view: PlayerView
    candidates: tuple[Move, ...]
    variant: str
    seed: int
    starter: int
    moves: tuple[Move, ...]
    """The round's moves before the position."""


def move_kind(view: PlayerView, move: Move) -> str:
    """The kind of a move's card action: ``wager``, ``opening``, ``number`` or ``discard``."""
    if move.action is Action.DISCARD:
        return "discard"
    card = move.card
    if card.rank == 0:
        return "wager"
    own = view.expeditions[view.player][card.color]
    return "number" if any(c.rank for c in own) else "opening"


def stage(view: PlayerView) -> str:
    """``early``, ``middle`` or ``late``: thirds of the draw pile after the deal."""
    start = view.variant.deck_size - 2 * view.variant.hand_size
    f = view.deck_size / start
    return "early" if f > 2 / 3 else "middle" if f > 1 / 3 else "late"


def position_kinds(view: PlayerView, cands: Sequence[Move]) -> set[str]:
    kinds = {move_kind(view, m) for m in cands}
    if any(m.draw is not None for m in cands):
        kinds.add("draw")
    return kinds


def _candidates(
    view: PlayerView, played: Move, ismcts: IsmctsBot, heur: HeuristicBot
) -> list[Move]:
    cands = list(dict.fromkeys([*ismcts.search_candidates(view), played]))
    ranked = [m for _, m in heur.rank_moves(view)]
    have = {move_kind(view, m) for m in cands}
    for m in ranked:  # the heuristic's best move of each kind missing
        k = move_kind(view, m)
        if k not in have and len(cands) < MAX_CANDIDATES:
            have.add(k)
            cands.append(m)
    if not any(m.draw is not None for m in cands) and len(cands) < MAX_CANDIDATES:
        # a pile draw worth weighing: a top card that fits one of the mover's expeditions
        first = cands[0]
        lm = view.legal_moves()
        tops = view.expeditions[view.player]
        for src in lm.draws(first.action, first.card):
            if src is None:
                continue
            pile = view.discard_piles[src]
            top_card = pile[-1]
            exp = tops[top_card.color]
            high = max((c.rank for c in exp), default=0)
            if exp and top_card.rank > high:
                m = (
                    Move.play(first.card, src)
                    if first.action is Action.PLAY
                    else Move.discard(first.card, src)
                )
                cands.append(m)
                break
    for m in list(cands):  # every pile draw beside its draw-pile twin
        if m.draw is not None and len(cands) < MAX_CANDIDATES:
            twin = Move.play(m.card) if m.action is Action.PLAY else Move.discard(m.card)
            if twin not in cands and view.is_legal(twin):
                cands.append(twin)
    return cands


def _play_games() -> list[dict[str, object]]:
    rounds: list[dict[str, object]] = []
    for g, (variant, a, b, n) in enumerate(GAMES):
        for k in range(n):
            seed = derive_seed("judge-fidelity", VERSION, g, k)
            specs = (a, b) if k % 2 == 0 else (b, a)
            bots = [make(s, seed=derive_seed(seed, "bot", i)) for i, s in enumerate(specs)]
            r = play_round(bots, Round.deal(seed, variant, starter=k % 2))
            for bot in bots:
                bot.close()
            rounds.append(
                {
                    "variant": variant,
                    "seed": seed,
                    "starter": k % 2,
                    "players": list(specs),
                    "moves": " ".join(map(str, r.history)),
                }
            )
            print(
                f"  {variant} {specs[0]} vs {specs[1]}: {r.scores()}, {r.ply} plies",
                file=sys.stderr,
            )
    return rounds


def make_positions() -> None:
    """Play the games and choose the positions (deterministic); write :data:`POSITIONS_FILE`."""
    rounds = _play_games()
    ismcts = IsmctsBot(iters=1, seed=0, top=3)
    heur = HeuristicBot(seed=0)
    pool: list[tuple[int, int, list[Move], set[str]]] = []
    for i, rec in enumerate(rounds):
        r = Round.deal(int(rec["seed"]), str(rec["variant"]), starter=int(rec["starter"]))  # type: ignore[call-overload]
        for move in map(Move.parse, str(rec["moves"]).split()):
            view = r.view(r.to_move)
            if len(view.legal_moves()) > 1:
                ismcts.reseed(0)
                heur.reseed(0)
                cands = _candidates(view, move, ismcts, heur)
                if len(cands) >= 2:
                    pool.append((i, r.ply, cands, position_kinds(view, cands)))
            r.push(move)
    rng = random.Random(VERSION)
    rng.shuffle(pool)
    chosen: list[int] = []
    taken = set()
    counts = dict.fromkeys(KINDS, 0)
    for kind in sorted(KINDS, key=lambda k: sum(k in p[3] for p in pool)):
        for j, p in enumerate(pool):
            if counts[kind] >= QUOTA or len(chosen) >= TARGET_POSITIONS:
                break
            if j not in taken and kind in p[3]:
                taken.add(j)
                chosen.append(j)
                for k in p[3]:
                    counts[k] += 1
    for j in range(len(pool)):
        if len(chosen) >= TARGET_POSITIONS:
            break
        if j not in taken:
            taken.add(j)
            chosen.append(j)
    chosen.sort(key=lambda j: (pool[j][0], pool[j][1]))
    data = {
        "version": VERSION,
        "about": "judge fidelity positions (benchmarks/judge_fidelity.py make): rounds as deal seed, "
        "variant, starter and moves; positions as round index, ply (moves made before "
        "it) and candidate moves",
        "rounds": rounds,
        "positions": [
            {"round": pool[j][0], "ply": pool[j][1], "candidates": " ".join(map(str, pool[j][2]))}
            for j in chosen
        ],
    }
    DATA.mkdir(exist_ok=True)
    POSITIONS_FILE.write_text(json.dumps(data, indent=0) + "\n")
    feat = {k: sum(k in pool[j][3] for j in chosen) for k in KINDS}
    print(
        f"{len(chosen)} positions of {len(pool)} from {len(rounds)} rounds; featuring: {feat}",
        file=sys.stderr,
    )


def load_positions(path: Path = POSITIONS_FILE) -> list[Position]:
    data = json.loads(path.read_text())
    if data.get("version") != VERSION:
        raise SystemExit(f"judge fidelity: {path} is version {data.get('version')}, not {VERSION}")
    rounds = data["rounds"]
    out: list[Position] = []
    replayed: dict[int, list[Move]] = {}
    for pid, p in enumerate(data["positions"]):
        rec = rounds[p["round"]]
        moves = replayed.setdefault(p["round"], [Move.parse(t) for t in rec["moves"].split()])
        r = Round.deal(rec["seed"], rec["variant"], starter=rec["starter"])
        for m in moves[: p["ply"]]:
            r.push(m)
        view = r.view(r.to_move)
        cands = tuple(Move.parse(t) for t in p["candidates"].split())
        out.append(
            Position(
                pid,
                p["round"],
                p["ply"],
                view,
                cands,
                rec["variant"],
                rec["seed"],
                rec["starter"],
                tuple(moves[: p["ply"]]),
            )
        )
    return out


def world_seed(pid: int) -> int:
    """The seed of position ``pid``'s worlds (judge and reference alike)."""
    return derive_seed("judge-fidelity-worlds", VERSION, pid)


# -- the reference --------------------------------------------------------------------------------


def heuristic_margins(
    view: PlayerView, cands: Sequence[Move], worlds: int, seed: int, tag: object = 0
) -> list[list[int]]:
    """The reference's raw figures: per candidate, the final margin (the mover's score minus
    the opponent's) in each of ``worlds`` worlds sampled from ``view`` with ``random.Random(seed)``,
    the round played out by ``heuristic`` on both sides (the same tie-breaks for every
    candidate of a world; ``tag`` seeds them)."""
    me = view.player
    sampler = view.sampler()
    rng = random.Random(seed)
    bots = [HeuristicBot(seed=0), HeuristicBot(seed=0)]
    margins: list[list[int]] = [[] for _ in cands]
    for w in range(worlds):
        world = sampler.sample(rng)
        for j, m in enumerate(cands):
            r = world.copy(stack=False)
            r.push_unchecked(m)
            for i, bot in enumerate(bots):
                bot.reseed(derive_seed(tag, w, i))  # the same tie-breaks for every candidate
            while not r.is_over():
                p = r.to_move
                r.push_unchecked(bots[p].choose(r.view(p)))
            s = r.scores()
            margins[j].append(s[me] - s[me ^ 1])
    return margins


def _heuristic_values(job: tuple[int, PlayerView, tuple[Move, ...], int]) -> dict[str, object]:
    """Position ``pid``'s candidates played out with heuristic on both sides in ``worlds``
    worlds: per candidate its mean margin, the standard error of its value relative to the
    candidates' mean, and that relative value in each half of the worlds."""
    pid, view, cands, worlds = job
    margins = heuristic_margins(view, cands, worlds, world_seed(pid), pid)
    k = len(cands)
    rel = [
        [margins[j][w] - sum(margins[q][w] for q in range(k)) / k for w in range(worlds)]
        for j in range(k)
    ]
    half = worlds // 2
    return {
        "id": pid,
        "worlds": worlds,
        "mean": [round(statistics.fmean(x), 3) for x in margins],
        "se": [round(statistics.stdev(x) / math.sqrt(worlds), 3) for x in rel],
        "half": [
            [round(statistics.fmean(x[:half]), 3), round(statistics.fmean(x[half:]), 3)]
            for x in rel
        ],
    }


def load_reference(path: Path = REFERENCE_FILE) -> dict[int, dict[str, object]]:
    out: dict[int, dict[str, object]] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            if "id" in row:
                out[int(row["id"])] = row
    return out


def _progress() -> object:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=False,
    )


def _level(pid: int) -> int:
    """0 for every 16th position, 1 for the rest of every 8th, ... 4 for the odd ones."""
    for level, stride in enumerate((16, 8, 4, 2)):
        if pid % stride == 0:
            return level
    return 4


def compute_reference(positions: Sequence[Position], jobs: int, limit: float) -> None:
    """Append the reference of the positions not yet in :data:`REFERENCE_FILE` (stops
    after ``limit`` seconds; a later call goes on)."""
    have = load_reference()
    # a spread subset first (every 16th position, then every 8th, ...), so that a partial
    # reference covers the whole set evenly
    todo = sorted((p for p in positions if p.id not in have), key=lambda p: (_level(p.id), p.id))
    if not todo:
        print("reference complete", file=sys.stderr)
        return
    if not REFERENCE_FILE.exists():
        REFERENCE_FILE.write_text(
            json.dumps(
                {"version": VERSION, "reference": "heuristic both sides", "worlds": REF_WORLDS}
            )
            + "\n"
        )
    start = time.monotonic()
    jobs_in = ((p.id, p.view, p.candidates, REF_WORLDS) for p in todo)
    with _progress() as bar, REFERENCE_FILE.open("a") as out:  # type: ignore[attr-defined]
        task = bar.add_task("reference", total=len(todo))
        results: Iterable[dict[str, object]]
        if jobs > 1:
            pool = ProcessPoolExecutor(jobs)
            results = pool.map(_heuristic_values, jobs_in, chunksize=1)
        else:
            pool = None
            results = map(_heuristic_values, jobs_in)
        try:
            for row in results:
                out.write(json.dumps(row) + "\n")
                out.flush()
                bar.advance(task)
                if time.monotonic() - start > limit:
                    print("time limit reached: run again to go on", file=sys.stderr)
                    break
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)


# -- the judge ----------------------------------------------------------------------------------


def judge_values(pos: Position, worlds: int, rollout: str) -> list[float]:
    """The judge's mean margin of each candidate over ``worlds`` worlds (compiled)."""
    from lostcities.fast.search import FlatSearch

    search = FlatSearch(
        pos.view, pos.candidates, rollout=rollout, rng=random.Random(world_seed(pos.id))
    )
    search.run(worlds)
    return [float(x) / worlds for x in search.margin_sums]


# -- the figures ----------------------------------------------------------------------------------


def _ranks(x: Sequence[float]) -> list[float]:
    order = sorted(range(len(x)), key=lambda i: x[i])
    ranks = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for q in range(i, j + 1):
            ranks[order[q]] = (i + j) / 2
        i = j + 1
    return ranks


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties averaged); ``None`` when either is constant."""
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((x - mb) ** 2 for x in rb)
    if va == 0 or vb == 0:
        return None
    return sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True)) / math.sqrt(va * vb)


@dataclass
class Scored:
    pos: Position
    judge: list[float]
    ref: list[float]
    se: list[float]
    half: list[list[float]]

    @property
    def judge_best(self) -> int:
        return max(range(len(self.judge)), key=lambda j: (self.judge[j], -j))

    @property
    def ref_best(self) -> int:
        return max(range(len(self.ref)), key=lambda j: (self.ref[j], -j))

    @property
    def regret(self) -> float:
        return self.ref[self.ref_best] - self.ref[self.judge_best]

    def rel(self, x: Sequence[float]) -> list[float]:
        m = statistics.fmean(x)
        return [v - m for v in x]

    def errors(self) -> list[tuple[str, float]]:
        """(kind, judge minus reference) of each candidate's relative value, and of each
        pile draw against its draw-pile twin (kind ``draw``)."""
        view = self.pos.view
        rj, rr = self.rel(self.judge), self.rel(self.ref)
        out = [(move_kind(view, m), rj[j] - rr[j]) for j, m in enumerate(self.pos.candidates)]
        index = {m: j for j, m in enumerate(self.pos.candidates)}
        for j, m in enumerate(self.pos.candidates):
            if m.draw is not None:
                twin = Move.play(m.card) if m.action is Action.PLAY else Move.discard(m.card)
                t = index.get(twin)
                if t is not None:
                    out.append(
                        ("draw", (self.judge[j] - self.judge[t]) - (self.ref[j] - self.ref[t]))
                    )
        return out


def score_positions(
    positions: Sequence[Position], worlds: int, rollout: str, reference: Path = REFERENCE_FILE
) -> list[Scored]:
    ref = load_reference(reference)
    out = []
    with _progress() as bar:  # type: ignore[attr-defined]
        task = bar.add_task(f"judge {rollout}", total=len(positions))
        for p in positions:
            row = ref[p.id]
            out.append(
                Scored(
                    p,
                    judge_values(p, worlds, rollout),
                    list(row["mean"]),  # type: ignore[call-overload]
                    list(row["se"]),
                    list(row["half"]),
                )
            )  # type: ignore[call-overload]
            bar.advance(task)
    return out


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else math.nan


def _ci(xs: Sequence[float]) -> float:
    """Half-width of a 95% normal CI of the mean."""
    return 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.nan


def figures(scored: Sequence[Scored]) -> dict[str, object]:
    """The benchmark's figures: per kind, per stage and overall."""

    def group(sel: Sequence[Scored], kind: str | None) -> dict[str, object]:
        errs = [
            e for s in sel for k, e in s.errors() if k == kind or (kind is None and k != "draw")
        ]
        rhos = [
            r for s in sel if len(s.judge) >= 3 for r in [spearman(s.judge, s.ref)] if r is not None
        ]
        regrets = [s.regret for s in sel]
        return {
            "positions": len(sel),
            "best": _mean([float(s.judge_best == s.ref_best) for s in sel]),
            "regret": _mean(regrets),
            "regret_ci": _ci(regrets),
            "spearman": _mean(rhos),
            "mae": _mean([abs(e) for e in errs]),
            "mae_ci": _ci([abs(e) for e in errs]),
            "bias": _mean(errs),
            "errors": len(errs),
        }

    kinds = {
        k: group([s for s in scored if k in position_kinds(s.pos.view, s.pos.candidates)], k)
        for k in KINDS
    }
    stages = {st: group([s for s in scored if stage(s.pos.view) == st], None) for st in STAGES}
    variants = {
        v: group([s for s in scored if s.pos.variant == v], None) for v in ("classic", "long")
    }
    return {"all": group(scored, None), "kinds": kinds, "stages": stages, "variants": variants}


def reference_stability(scored: Sequence[Scored]) -> dict[str, float]:
    """How stable the reference is: its standard errors and its two halves' agreement."""
    ses = sorted(x for s in scored for x in s.se)
    half_diff = [abs(h[0] - h[1]) / 2 for s in scored for h in s.half]  # |half - whole| estimate
    agree = []
    for s in scored:
        a = max(range(len(s.half)), key=lambda j: s.half[j][0])
        b = max(range(len(s.half)), key=lambda j: s.half[j][1])
        agree.append(float(a == b))
    return {
        "worlds": float(len(scored) and REF_WORLDS),
        "se_median": ses[len(ses) // 2],
        "se_p90": ses[int(len(ses) * 0.9)],
        "ci95_median": 1.96 * ses[len(ses) // 2],
        "half_vs_whole_mae": _mean(half_diff),
        "halves_same_best": _mean(agree),
    }


def notation(s: Scored) -> str:
    p = s.pos
    lines = [
        f"position {p.id}: {p.variant}, deal seed {p.seed}, starter {p.starter}, ply {p.ply}, "
        f"player {p.view.player} to move, {p.view.deck_size} cards in the draw pile",
        f"  moves: {' '.join(map(str, p.moves)) or '-'}",
        f"  hand: {' '.join(map(str, p.view.hand))}",
    ]
    order = sorted(range(len(s.ref)), key=lambda j: -s.ref[j])
    for j in order:
        tag = (" <- reference's best" if j == s.ref_best else "") + (
            " <- judge's pick" if j == s.judge_best else ""
        )
        lines.append(
            f"  {p.candidates[j]!s:6} reference {s.ref[j]:+7.1f} (se {s.se[j]:.1f})"
            f"  judge {s.judge[j]:+7.1f}{tag}"
        )
    return "\n".join(lines)


def _fmt(x: object, pct: bool = False) -> str:
    if not isinstance(x, float) or math.isnan(x):
        return "-" if not isinstance(x, int) else str(x)
    return f"{100 * x:.1f}%" if pct else f"{x:+.2f}" if x < 0 else f"{x:.2f}"


def print_report(
    fig: dict[str, object],
    stab: dict[str, float],
    worst: Sequence[Scored],
    markdown: bool,
    title: str,
) -> None:
    rows: list[tuple[str, dict[str, object]]] = []
    rows.append(("all", fig["all"]))  # type: ignore[arg-type]
    rows += [(k, v) for k, v in fig["kinds"].items()]  # type: ignore[attr-defined]
    rows += [(f"stage {k}", v) for k, v in fig["stages"].items()]  # type: ignore[attr-defined]
    rows += [(f"variant {k}", v) for k, v in fig["variants"].items()]  # type: ignore[attr-defined]
    head = (
        "group",
        "positions",
        "judge picks ref's best",
        "regret (points)",
        "Spearman",
        "MAE (points)",
        "bias (points)",
    )

    def cells(name: str, g: dict[str, object]) -> tuple[str, ...]:
        return (
            name,
            str(g["positions"]),
            _fmt(g["best"], pct=True),
            f"{_fmt(g['regret'])} ± {_fmt(g['regret_ci'])}",
            _fmt(g["spearman"]),
            f"{_fmt(g['mae'])} ± {_fmt(g['mae_ci'])}",
            _fmt(g["bias"]),
        )

    if markdown:
        print(f"{title}\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for name, g in rows:
            print("| " + " | ".join(cells(name, g)) + " |")
    else:
        from rich.console import Console
        from rich.table import Table

        t = Table(title=title)
        for h in head:
            t.add_column(h, justify="left" if h == "group" else "right")
        for name, g in rows:
            t.add_row(*cells(name, g))
        Console(width=160).print(t)
    print(
        f"\nreference: heuristic on both sides, {int(stab['worlds'])} worlds a position; standard error "
        f"of a relative value: median {stab['se_median']:.2f}, 90th percentile {stab['se_p90']:.2f} points; "
        f"its two halves of worlds pick the same best move in {100 * stab['halves_same_best']:.1f}% of "
        f"positions (mean |half - whole| {stab['half_vs_whole_mae']:.2f} points)"
    )
    if worst:
        print("\nworst positions (the reference's points lost by the judge's pick):\n")
        for s in worst:
            print(notation(s) + "\n")


def run(args: argparse.Namespace) -> None:
    every = load_positions()
    reference = Path(args.reference) if args.reference else REFERENCE_FILE
    have = load_reference(reference)
    positions = [p for p in every if p.id in have]
    if not positions:
        raise SystemExit(
            "judge fidelity: no reference yet (run: python benchmarks/judge_fidelity.py reference)"
        )
    if len(positions) < len(every):
        print(
            f"judge fidelity: the reference covers {len(positions)} of the {len(every)} positions "
            "(python benchmarks/judge_fidelity.py reference computes the rest)",
            file=sys.stderr,
        )
    worlds = args.worlds
    if args.quick:
        positions = positions[::4]
        worlds = worlds or 400
    worlds = worlds or 1000
    t0 = time.perf_counter()
    scored = score_positions(positions, worlds, args.judge, reference)
    elapsed = time.perf_counter() - t0
    fig = figures(scored)
    stab = reference_stability(scored)
    worst = sorted(scored, key=lambda s: -s.regret)[: args.worst]
    import lostcities

    title = (
        f"judge {args.judge} ({worlds} worlds, {Path(lostcities.__file__).parent.parent}) against "
        f"the reference, {len(scored)} positions of set v{VERSION}, {elapsed:.0f} s"
    )
    print_report(fig, stab, worst, args.markdown, title)
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "judge": args.judge,
                    "worlds": worlds,
                    "positions": len(scored),
                    "figures": fig,
                    "reference": stab,
                    "values": [
                        {"id": s.pos.id, "judge": [round(x, 3) for x in s.judge]} for s in scored
                    ],
                },
                indent=1,
            )
            + "\n"
        )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    sub = ap.add_subparsers(dest="command")
    sub.add_parser("make", help="play the games and choose the positions (rewrites the set)")
    ref = sub.add_parser("reference", help="compute the reference values not yet cached")
    ref.add_argument("--jobs", type=int, default=1)
    ref.add_argument(
        "--limit", type=float, default=840.0, help="stop after this many seconds (840)"
    )
    ref.add_argument("--every", type=int, default=1, help="only every N-th position (1)")
    r = sub.add_parser("run", help="measure a judge against the reference (the default)")
    for p in (ap, r):
        p.add_argument("--quick", action="store_true", help="every fourth position, 400 worlds")
        p.add_argument("--judge", choices=("smart", "cheap"), default="smart")
        p.add_argument("--worlds", type=int, default=0, help="judge's worlds a position (1000)")
        p.add_argument("--json", metavar="FILE")
        p.add_argument("--markdown", action="store_true")
        p.add_argument("--worst", type=int, default=8, help="worst positions listed (8)")
        p.add_argument("--reference", metavar="FILE", help="the reference's file (the cached one)")
    args = ap.parse_args(argv)
    if args.command == "make":
        make_positions()
    elif args.command == "reference":
        compute_reference(load_positions()[:: args.every], args.jobs, args.limit)
    else:
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
