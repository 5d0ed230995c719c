"""The arena's reports: the match table and the tournament's cross table (rich), the live
line and progress bar, the ladder plot (matplotlib), and the ``lostcities match`` and
``lostcities tournament`` commands. The engine (:mod:`lostcities.arena`) plays; this module
only shows what it played."""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, TypedDict

from lostcities.achievements import GoalSet
from lostcities.arena.cluster import Backend
from lostcities.arena.engine import (
    check_spec,
    configure_logging,
    goal_pool,
    play_match,
    play_tournament,
    unique_labels,
)
from lostcities.arena.results import MatchResult, PairedFigures, TournamentResult
from lostcities.bots import BotError, BotSpecError
from lostcities.errors import MissingDependencyError
from lostcities.presentation import progress_bar
from lostcities.stats import SprtParams

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

__all__ = ["MissingDependencyError", "cli_match", "cli_tournament", "plot_ladder"]


def _require(module: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(f"this needs {module!r}: pip install 'lostcities[arena]'")


def plot_ladder(result: TournamentResult, path: str) -> None:
    """Draw the Elo ladder with its 95% intervals as a horizontal error-bar chart
    (SVG, PNG or PDF by ``path``'s extension; matplotlib's Agg backend).

    :raises ValueError: for another extension.
    :raises MissingDependencyError: without matplotlib.
    """
    _check_plot_path(path)
    _require("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result.ladder()[::-1]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rows)))
    ys = list(range(len(rows)))
    ax.errorbar(
        [e for _, e, _ in rows],
        ys,
        xerr=[h for _, _, h in rows],
        fmt="o",
        capsize=4,
        color="#1f5fa8",
    )
    ax.set_yticks(ys, [b for b, _, _ in rows])
    ax.axvline(0.0, color="#999999", linewidth=0.8, linestyle="--")
    ax.set_xlabel(f"Elo (95% interval), {result.bots[0]} = 0")
    ax.set_title("Lost Cities bot ladder")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _check_plot_path(path: str) -> None:
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".svg", ".png", ".pdf"):
        raise ValueError(f"invalid plot file: {path!r} (use .svg, .png or .pdf)")


# -- the command line ------------------------------------------------------------------------------


def _fmt(x: float, digits: int = 1, sign: bool = False) -> str:
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _fmt_ci(
    ci: tuple[float, float], digits: int = 1, sign: bool = False, scale: float = 1.0
) -> str:
    return f"[{_fmt(ci[0] * scale, digits, sign)}, {_fmt(ci[1] * scale, digits, sign)}]"


def _live(result: MatchResult) -> str:
    pts = result.a_wins + result.draws / 2
    lo, hi = result.elo_ci95
    half = (hi - lo) / 2 if math.isfinite(lo) and math.isfinite(hi) else math.inf
    return f"{pts:g}-{result.rounds - pts:g}  Elo {_fmt(result.elo, 0, True)} ± {_fmt(half, 0)}"


def _rate_rows(t: Any, figures: PairedFigures, what: str) -> None:
    """The win rate and mean margin rows, with their intervals, of rounds or matches."""
    t.add_row(
        f"A {what}win rate",
        f"{100 * figures.a_win_rate:.1f}%",
        _fmt_ci(figures.a_win_rate_ci95, scale=100.0),
    )
    t.add_row(
        f"mean {what}margin (A - B)",
        _fmt(figures.mean_margin, 1, True),
        _fmt_ci(figures.mean_margin_ci95, sign=True),
    )


def _match_table(result: MatchResult) -> Any:
    from rich.table import Table

    t = Table(title=f"{result.a} vs {result.b}", title_justify="left")
    t.add_column("")
    t.add_column("value", justify="right")
    t.add_column("95% CI", justify="right")
    t.add_row("deals / rounds", f"{result.deals} / {result.rounds}", "")
    t.add_row("A wins / draws / B wins", f"{result.a_wins} / {result.draws} / {result.b_wins}", "")
    _rate_rows(t, result, "")
    t.add_row("Elo (A - B)", _fmt(result.elo, 1, True), _fmt_ci(result.elo_ci95, sign=True))
    t.add_row("forfeits (A / B)", f"{result.a_forfeits} / {result.b_forfeits}", "")
    whole = result.whole
    if whole is not None:
        t.add_row(f"matches of {whole.rounds} / pairs", f"{whole.matches} / {whole.pairs}", "")
        t.add_row("A / draws / B matches", f"{whole.a_wins} / {whole.draws} / {whole.b_wins}", "")
        _rate_rows(t, whole, "match ")
    if result.truncated:
        t.add_row("turn-capped rounds", str(result.truncated), "")
    if result.sprt is not None:
        s = result.sprt
        verdict = s["result"] or "undecided"
        llr = s["llr"]
        if math.isfinite(llr):
            shown = f"LLR {llr:.2f} ({verdict})"
        else:  # every deal pair scored the same: no spread, the ratio's limit
            shown = f"{verdict}: no spread (LLR {'+' if llr > 0 else '-'}∞)"
        t.add_row(
            f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g}",
            shown,
            f"[{s['lower']:.2f}, {s['upper']:.2f}]",
        )
    return t


def _open_records(path: str | None) -> contextlib.AbstractContextManager[IO[str] | None]:
    if path is None:
        return contextlib.nullcontext()
    if path == "-":
        return contextlib.nullcontext(sys.stdout)
    return _records_file(path)


@contextlib.contextmanager
def _records_file(path: str) -> Iterator[IO[str]]:
    """``--records FILE`` open for writing; a run cut short (Ctrl-C, an error) before any
    game was written leaves no empty file behind, and one cut short after says where the
    finished games are."""
    stream = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed below, removed if empty
    try:
        yield stream
    except BaseException:
        stream.close()
        with contextlib.suppress(OSError):
            if os.path.getsize(path) == 0:
                os.remove(path)
            else:
                print(
                    f"lostcities: the games finished before the end are saved in {path}",
                    file=sys.stderr,
                    flush=True,
                )
        raise
    finally:
        stream.close()


def _check_specs(specs: Sequence[str]) -> None:
    for spec in specs:
        try:
            check_spec(spec)
        except BotError as e:
            raise BotSpecError(f"bot {spec!r} failed to start: {e}") from None


def _backend(args: argparse.Namespace) -> Backend:
    """The ``--backend``/``--address`` options (a bad pair fails before any work)."""
    return Backend.parse(getattr(args, "backend", None), getattr(args, "address", None))


class _PlayOptions(TypedDict):
    seed: int
    jobs: int | None
    variant: str
    max_turns: int | None
    time_limit: float | None
    records: IO[str] | None
    progress: Callable[[MatchResult], None]
    verbose: bool
    achievements: GoalSet | None
    backend: Backend


def _play_options(
    args: argparse.Namespace,
    records: IO[str] | None,
    progress: Callable[[MatchResult], None],
    verbose: bool,
    pool: GoalSet | None,
    backend: Backend,
) -> _PlayOptions:
    """The options ``lostcities match`` passes alike to single deals and whole matches."""
    return {
        "seed": args.seed,
        "jobs": args.jobs,
        "variant": args.variant,
        "max_turns": args.max_turns,
        "time_limit": args.time_limit or None,
        "records": records,
        "progress": progress,
        "verbose": verbose,
        "achievements": pool,
        "backend": backend,
    }


def _show(result: MatchResult, as_json: bool) -> Console | None:
    """Print ``result`` as one JSON line (and return ``None``) or as the table (and return
    the console, for what follows it)."""
    from rich.console import Console

    if as_json:
        print(json.dumps(result.to_dict()))
        return None
    console = Console()
    console.print(_match_table(result))
    return console


def cli_match(args: argparse.Namespace) -> int:
    """``lostcities match A B ...``: play, show progress, print the table (or JSON)."""
    _require("rich")
    backend = _backend(args)
    params = SprtParams.parse(args.sprt) if args.sprt else None
    verbose = bool(getattr(args, "verbose", False))
    configure_logging(verbose)
    pool = goal_pool(getattr(args, "achievements", None))  # a bad goal file: before anything
    _check_specs([args.a, args.b])
    if args.records == "-" and args.json:
        raise ValueError("--records - and --json both want stdout; give --records a file")
    if getattr(args, "matches", None):
        return _cli_matches(args, backend, verbose, pool)
    if getattr(args, "rounds", None) is not None:
        raise ValueError("--rounds is the length of a whole match: it needs --matches N")
    total = args.deals * 2
    with progress_bar() as bar, _open_records(args.records) as records:
        task = bar.add_task(f"{args.a} vs {args.b}", total=total)

        def update(r: MatchResult) -> None:
            bar.update(task, completed=r.rounds, description=f"{args.a} vs {args.b}  {_live(r)}")

        result = play_match(
            args.a,
            args.b,
            deals=args.deals,
            sprt=params,
            **_play_options(args, records, update, verbose, pool, backend),
        )
    console = _show(result, args.json)
    if console is None:
        return 0
    reasons: dict[str, int] = {}
    for g in result.games:
        if g.forfeit:
            key = f"{g.forfeit.upper()}: {g.reason}"
            reasons[key] = reasons.get(key, 0) + 1
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:10]:
        console.print(f"forfeit x{n}  {reason}", markup=False, highlight=False)
    return 0


def _cli_matches(
    args: argparse.Namespace, backend: Backend, verbose: bool, pool: GoalSet | None
) -> int:
    """``lostcities match A B --matches N``: whole matches (:mod:`lostcities.arena.matches`)."""

    from lostcities.arena.matches import play_matches

    if args.sprt:
        raise ValueError("--sprt stops single deals; with --matches give the number to play")
    total = args.matches * 2
    with progress_bar() as bar, _open_records(args.records) as records:
        task = bar.add_task(f"{args.a} vs {args.b}", total=total)

        def update(r: MatchResult) -> None:
            w = r.whole
            assert w is not None
            pts = w.a_wins + w.draws / 2
            live = f"matches {pts:g}-{w.matches - pts:g}, rounds {_live(r)}"
            bar.update(task, completed=w.matches, description=f"{args.a} vs {args.b}  {live}")

        result = play_matches(
            args.a,
            args.b,
            matches=args.matches,
            rounds=args.rounds or 3,
            **_play_options(args, records, update, verbose, pool, backend),
        )
    console = _show(result, args.json)
    if console is None:
        return 0
    assert result.whole is not None
    for g in result.whole.games:
        if g.forfeit:
            console.print(f"match {g.match + 1}: {g.reason}", markup=False, highlight=False)
    return 0


def _cross_table(result: TournamentResult) -> Any:
    from rich.table import Table

    t = Table(title="cross table: row's score vs column (points / rounds)", title_justify="left")
    t.add_column("bot")
    t.add_column("Elo", justify="right")
    t.add_column("95% CI", justify="right")
    order = sorted(range(len(result.bots)), key=lambda i: -result.ratings[i][0])
    for k, _ in enumerate(order, 1):
        t.add_column(str(k), justify="right")
    for k, i in enumerate(order, 1):
        elo, half = result.ratings[i]
        cells = []
        for j in order:
            s = result.score(i, j)
            cells.append("-" if s is None else f"{s[0]:g}/{s[1]}")
        ci = f"±{half:.0f}" if i != 0 else "anchor"
        t.add_row(f"{k}. {result.bots[i]}", f"{elo:+.0f}", ci, *cells)
    return t


def cli_tournament(args: argparse.Namespace) -> int:
    """``lostcities tournament A B C ...``: round robin, cross table, ladder, plot."""
    from rich.console import Console

    if len(args.bots) < 2:
        raise ValueError("a tournament needs at least two bots")
    _require("rich")
    plot = getattr(args, "plot", None)
    if plot:
        _check_plot_path(plot)
        _require("matplotlib")
    backend = _backend(args)
    params = SprtParams.parse(args.sprt) if getattr(args, "sprt", None) else None
    verbose = bool(getattr(args, "verbose", False))
    configure_logging(verbose)
    pool = goal_pool(getattr(args, "achievements", None))
    _check_specs(list(dict.fromkeys(args.bots)))
    records_path = getattr(args, "records", None)
    if records_path == "-" and args.json:
        raise ValueError("--records - and --json both want stdout; give --records a file")
    n = len(args.bots)
    pairs = n * (n - 1) // 2
    total = pairs * args.deals * 2
    with progress_bar() as bar, _open_records(records_path) as records:
        task = bar.add_task("tournament", total=total)
        labels = unique_labels(args.bots)
        names = [(labels[i], labels[j]) for i in range(n) for j in range(i + 1, n)]
        played = [0] * pairs  # rounds of each pairing so far (an SPRT may stop one early)

        def update(k: int, r: MatchResult) -> None:
            played[k] = r.rounds
            left = (pairs - k - 1) * args.deals * 2 + max(args.deals * 2 - r.rounds, 0)
            a, b = names[k]
            bar.update(
                task,
                completed=sum(played),
                total=sum(played) + left,
                description=f"{a} vs {b}  {_live(r)}",
            )

        result = play_tournament(
            args.bots,
            deals=args.deals,
            seed=args.seed,
            jobs=args.jobs,
            variant=args.variant,
            max_turns=args.max_turns,
            time_limit=getattr(args, "time_limit", 10.0) or None,
            progress=update,
            achievements=pool,
            backend=backend,
            sprt=params,
            records=records,
            verbose=verbose,
        )
    if plot:
        plot_ladder(result, plot)
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    console = Console()
    console.print(_cross_table(result))
    if plot:
        console.print(f"ladder plot: {plot}", markup=False, highlight=False)
    return 0
