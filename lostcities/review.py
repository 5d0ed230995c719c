"""``lostcities analyse RECORD...`` (``analyze`` too): every move of every recorded game
evaluated by a search bot (:mod:`lostcities.bots.analysis`), the mistakes marked, a table
or one JSON object per game, and the win-probability curve of each round (``--plot``).

Each move is analysed from the mover's view alone, in worlds seeded by the analysis seed and
the move's place (:func:`~lostcities.bots.analysis.position_seed`), so the figures are the
same whatever ``--jobs`` is. See ``docs/analysis.md``.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from lostcities.bots import BUILTIN, Bot, BotSpecError, make, parse_spec
from lostcities.bots.analysis import (
    DEFAULT_BOT,
    DEFAULT_WORLDS,
    MoveReview,
    Position,
    positions,
    report,
    review,
)
from lostcities.presentation import format_analysis, progress_bar
from lostcities.record import GameRecord, RecordError, read_records

if TYPE_CHECKING:
    import argparse

__all__ = [
    "DEFAULT_BOT",
    "DEFAULT_WORLDS",
    "analyse_positions",
    "check_plot_path",
    "check_spec",
    "cli_main",
    "game_report",
    "plot_games",
]


@dataclass(frozen=True)
class _Task:
    pos: Position
    worlds: int | None
    time: float | None
    seed: int


_worker_bot: Bot | None = None


def _init_worker(spec: str) -> None:
    global _worker_bot
    _worker_bot = make(spec, seed=0)


def _run(task: _Task) -> MoveReview:
    assert _worker_bot is not None
    return review(_worker_bot, task.pos, worlds=task.worlds, time_limit=task.time, seed=task.seed)


def analyse_positions(
    spec: str,
    items: Sequence[Position],
    *,
    worlds: int | None = DEFAULT_WORLDS,
    time: float | None = None,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[MoveReview]:
    """Review every position with the bot ``spec`` (``worlds`` per move, or ``time`` seconds
    a move), in ``jobs`` worker processes; ``progress(n)`` after each of the ``n`` done.

    :raises BotSpecError: for a bad spec.
    :raises BotError: for a bot that does not search.
    """
    tasks = [_Task(p, worlds, time, seed) for p in items]
    out: list[MoveReview] = []
    if jobs <= 1 or len(tasks) < 2:
        _init_worker(spec)
        for t in tasks:
            out.append(_run(t))
            if progress is not None:
                progress(len(out))
        return out
    with concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, initializer=_init_worker, initargs=(spec,)
    ) as pool:
        for r in pool.map(_run, tasks, chunksize=4):
            out.append(r)
            if progress is not None:
                progress(len(out))
    return out


def game_report(
    rec: GameRecord,
    reviews: Sequence[MoveReview],
    *,
    file: str,
    game: int,
    bot: str,
    worlds: int | None,
    time: float | None,
) -> dict[str, object]:
    """The JSON object of one analysed game: where it is, its players, the bot and budget,
    and :func:`~lostcities.bots.analysis.report`'s ``"players"``, ``"moves"`` and
    ``"summary"``."""
    return {
        "file": file,
        "game": game,
        "result": rec.result,
        "bot": bot,
        "worlds": worlds,
        "time": time,
        **report(reviews, rec.players),
    }


def plot_games(games: Sequence[dict[str, Any]], path: str) -> None:
    """Draw the win-probability curve of each round of each game (player 0's chance to win
    the round after every move, the marked moves dotted), SVG/PNG/PDF by ``path``'s
    extension.

    :raises ValueError: for another extension.
    """
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".svg", ".png", ".pdf"):
        raise ValueError(f"invalid plot file: {path!r} (use .svg, .png or .pdf)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves: list[tuple[str, list[dict[str, Any]]]] = []
    for g in games:
        rounds = sorted({m["round"] for m in g["moves"]})
        for k in rounds:
            label = f"{g['file']} game {g['game']} round {k}"
            curves.append((label, [m for m in g["moves"] if m["round"] == k]))
    n = max(1, len(curves))
    fig, axes = plt.subplots(n, 1, figsize=(8, 2.2 * n), squeeze=False)
    colors = {"inaccuracy": "#d9a400", "mistake": "#e06c00", "blunder": "#c00000"}
    for ax, (label, ms) in zip(axes[:, 0], curves, strict=False):
        xs = [m["ply"] + 1 for m in ms]
        ys = [m["win"] if m["player"] == 0 else 1 - m["win"] for m in ms]
        ax.plot(xs, ys, color="#1f5fa8", linewidth=1.4)
        ax.axhline(0.5, color="#999999", linewidth=0.8, linestyle="--")
        for m, x, y in zip(ms, xs, ys, strict=True):
            if m["mark"]:
                ax.plot([x], [y], "o", color=colors[m["mark"]], markersize=4)
        ax.set_ylim(0, 1)
        ax.set_xlim(0, max(xs, default=1) + 1)
        ax.set_ylabel("P(player 0 wins)")
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("move")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _open(path: str) -> IO[str]:
    return sys.stdin if path == "-" else open(path, encoding="utf-8")


def _games(paths: Sequence[str]) -> Iterator[tuple[str, int, GameRecord | None, str | None]]:
    """Each record of the files: ``(file, game number, record, None)``, or ``(file, n,
    None, error line)`` for one that does not replay (the record reader's error), a file
    that cannot be read or one that holds no record (as ``lostcities replay`` says)."""
    for path in paths:
        try:
            stream = _open(path)
        except OSError as e:
            yield path, 0, None, f"{path}: error: {e.strerror or e}"
            continue
        try:
            n = 0
            for n, rec in enumerate(read_records(stream), 1):
                try:
                    rec.replay()
                except RecordError as e:
                    where = f"{path}:{e.line}" if e.line is not None else path
                    yield path, n, None, f"{where}: error: game {n}: {e.reason}"
                    continue
                yield path, n, rec, None
            if n == 0:
                yield path, 0, None, f"{path}: error: no game record in the file"
        except UnicodeDecodeError:
            yield path, 0, None, f"{path}: error: not a UTF-8 text file"
        finally:
            if stream is not sys.stdin:
                stream.close()


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities analyse FILE... [--bot SPEC] [--worlds N | --time S] [--jobs N]
    [--json] [--plot FILE] [--marked]``: exit code 0, or 2 if a record did not replay (or
    a file could not be read or held none)."""
    spec: str = args.bot
    check_spec(spec)  # a bad spec or a bot that cannot analyse fails here, at once
    if args.plot:
        check_plot_path(args.plot)  # before the analysis, not after it
    worlds = None if args.time is not None else args.worlds
    jobs = args.jobs or 1
    bad = 0
    games: list[dict[str, Any]] = []
    with progress_bar() as bar:
        for path, n, rec, error in _games(args.files):
            if rec is None:
                print(error, file=sys.stderr)
                bad += 1
                continue
            items = positions(rec.replay().rounds)
            task = bar.add_task(f"{path} game {n}", total=len(items))

            def advance(k: int, task: Any = task) -> None:
                bar.update(task, completed=k)

            reviews = analyse_positions(
                spec,
                items,
                worlds=worlds,
                time=args.time,
                seed=args.seed,
                jobs=jobs,
                progress=advance,
            )
            bar.remove_task(task)
            g = game_report(
                rec, reviews, file=path, game=n, bot=spec, worlds=worlds, time=args.time
            )
            games.append(g)
            if args.json:
                print(json.dumps(g), flush=True)
            else:
                a, b = rec.players
                print(f"{path}: game {n}: {a} vs {b}, result {rec.result}")
                print(format_analysis(g, only_marked=args.marked))
                print(flush=True)
    if args.plot and games:
        plot_games(games, args.plot)
    return 2 if bad else 0


def check_plot_path(path: str) -> None:
    """Fail now if the plot cannot be written to ``path``: an extension other than
    ``.svg``, ``.png`` or ``.pdf``, a missing folder, a folder, or no permission (checked
    by opening it for appending; a file that did not exist is removed again).

    :raises ValueError: saying why.
    """
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".svg", ".png", ".pdf"):
        raise ValueError(f"invalid plot file: {path!r} (use .svg, .png or .pdf)")
    if os.path.isdir(path):
        raise ValueError(f"cannot write the plot to {path!r}: it is a folder")
    existed = os.path.exists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as e:
        raise ValueError(f"cannot write the plot to {path!r}: {e.strerror or e}") from None
    if not existed:
        os.remove(path)


def check_spec(spec: str) -> None:
    """Fail now if ``spec`` is not a bot that analyses.

    :raises BotSpecError: for a bad spec or a bot that does not search.
    """
    name, _ = parse_spec(spec)
    if name not in BUILTIN and name != "cmd":
        make(spec).close()  # raises the unknown bot's error, naming the known ones
    if name not in ("ismcts", "expert"):
        raise BotSpecError(f"invalid bot spec: {spec!r} cannot analyse (use ismcts or expert)")
    make(spec).close()
