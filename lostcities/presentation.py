"""Text presentation shared by the command line, the terminal UI and the web app.

Formatting lives here, apart from the rules (which compute) and the front ends (which show):
``lostcities score``, the TUI's round-end breakdowns and the web calculator print the very
same table; the progress bar of the long commands (``lostcities match``, ``tournament``,
``analyse``) too. Imports only the rules core (and rich, lazily, for the progress bar).

>>> from lostcities.scoring import parse_score_sheet
>>> print(format_score_table(parse_score_sheet(["y:x,4,6,9,10"])))
        cards            sum  -20   x  bonus  score
------  ---------------  ---  ---  --  -----  -----
yellow  yx y4 y6 y9 y10   29    9  x2            18
blue    -                                         0
white   -                                         0
green   -                                         0
red     -                                         0
------  ---------------  ---  ---  --  -----  -----
total                                            18
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lostcities.cards import Color
from lostcities.rules import Round
from lostcities.scoring import GOAL_POINTS, ExpeditionScore, goal_points

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = [
    "ACCURACY_NOTE",
    "assistance",
    "format_analysis",
    "format_score_table",
    "progress_bar",
    "round_score_table",
]


def assistance(hints: int, take_backs: int = 0) -> str:
    """The help a person had, as a game record's ``Assisted`` tag says it (the terminal's
    and the web app's records alike): ``""`` for none, else ``1 hint``, ``2 take-backs``
    or both, comma-separated.

    >>> assistance(1), assistance(2, 1), assistance(0)
    ('1 hint', '2 hints, 1 take-back', '')
    """
    parts = []
    if hints:
        parts.append(f"{hints} hint{'s' if hints != 1 else ''}")
    if take_backs:
        parts.append(f"{take_backs} take-back{'s' if take_backs != 1 else ''}")
    return ", ".join(parts)


def format_score_table(sheet: Mapping[Color, ExpeditionScore], achievements: int = 0) -> str:
    """The score-sheet table: one row per colour (cards, sum, -20, multiplier, bonus, score),
    a row for ``achievements`` (goals won, 10 points each) when there are any, and the
    total, as ``lostcities score`` prints it. A score from totals (no cards known) shows
    its card count.

    >>> from lostcities.scoring import parse_totals_sheet
    >>> print(format_score_table(parse_totals_sheet(["r:32,1,6"]), achievements=2))
            cards    sum  -20   x  bonus  score
    ------  -------  ---  ---  --  -----  -----
    yellow  -                                 0
    blue    -                                 0
    white   -                                 0
    green   -                                 0
    red     6 cards   32   12  x2            24
    goals   2 x 10                           20
    ------  -------  ---  ---  --  -----  -----
    total                                    44
    """
    rows = [("", "cards", "sum", "-20", "x", "bonus", "score")]
    total = 0
    for color, e in sheet.items():
        total += e.score
        name = color.name.lower()
        if not e.started:
            rows.append((name, "-", "", "", "", "", "0"))
            continue
        rows.append(
            (
                name,
                " ".join(str(c) for c in e.cards)
                if e.cards
                else f"{e.num_cards} card{'s' if e.num_cards != 1 else ''}",
                str(e.number_sum),
                str(e.minus_cost),
                f"x{e.multiplier}",
                f"+{e.bonus}" if e.bonus else "",
                str(e.score),
            )
        )
    if achievements:
        points = goal_points(achievements)
        total += points
        rows.append(("goals", f"{achievements} x {GOAL_POINTS}", "", "", "", "", str(points)))
    rows.append(("total", "", "", "", "", "", str(total)))
    widths = [max(len(r[i]) for r in rows) for i in range(7)]
    lines = []
    for k, r in enumerate(rows):
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])]
        cells += [r[i].rjust(widths[i]) for i in range(2, 7)]
        lines.append("  ".join(cells).rstrip())
        if k == 0 or k == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def round_score_table(r: Round, player: int) -> str:
    """``player``'s score sheet for round ``r`` (:func:`format_score_table` of its breakdown);
    in the achievements variant, with the goals row and the names of the goals won.

    >>> from lostcities.achievements import Goal
    >>> first = Goal.parse("first | race | First Step | cards >= 1 | Play a card.")
    >>> r = Round.deal(seed=1, achievements=[first])
    >>> r.push("+" + str(r.hands[0][0]) + ".")
    >>> table = round_score_table(r, 0).splitlines()
    >>> table[-4].split(), table[-1]
    (['goals', '1', 'x', '10', '10'], 'goals won: First Step (race)')
    """
    board = r.achievements
    won = board.claimed(player) if board is not None else ()
    table = format_score_table(dict(r.score_breakdown(player)), achievements=len(won))
    if won:
        table += "\ngoals won: " + ", ".join(f"{g.name} ({g.kind})" for g in won)
    return table


_MARK_SIGN = {None: "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


ACCURACY_NOTE = (
    "accuracy: 100 x exp(-L/2), L the mean loss per move, each move weighed by the\n"
    "points at stake in it (best minus worst candidate, fully from 1 point up), so\n"
    "moves where nothing was at stake do not count. loss: points below the best move."
)
"""The note under :func:`format_analysis`'s summary: how the accuracy is worked out
(:func:`lostcities.bots.analysis.accuracy`), in lines of at most 80 characters."""


def format_analysis(game: Mapping[str, Any], *, only_marked: bool = False) -> str:
    """The analysis table of one game (an object of ``lostcities analyse --json``): per
    move the round, ply, player, move played, best move, expected points lost, the mover's
    win probability after the move and the mark (``?!`` inaccuracy, ``?`` mistake, ``??``
    blunder); then per player the moves, average loss, accuracy and the marks.

    >>> game = {"players": ["ann", "bob"], "moves": [
    ...     {"round": 1, "ply": 0, "player": 0, "move": "+y5.", "best": "+y5.", "loss": 0.0,
    ...      "win": 0.55, "mark": None},
    ...     {"round": 1, "ply": 1, "player": 1, "move": "-b3.", "best": "+g4.", "loss": 9.1,
    ...      "win": 0.3, "mark": "mistake"}],
    ...     "summary": [{"player": 0, "moves": 1, "average_loss": 0.0, "accuracy": 100.0,
    ...                  "inaccuracies": 0, "mistakes": 0, "blunders": 0},
    ...                 {"player": 1, "moves": 1, "average_loss": 9.1, "accuracy": 40.3,
    ...                  "inaccuracies": 0, "mistakes": 1, "blunders": 0}]}
    >>> print(format_analysis(game))
    round  ply  player  move  best  loss  win  mark
    -----  ---  ------  ----  ----  ----  ---  ---------
        1    0  ann     +y5.  +y5.   0.0  55%
        1    1  bob     -b3.  +g4.   9.1  30%  ? mistake
    <BLANKLINE>
    player  moves  avg loss  accuracy  inaccuracies  mistakes  blunders
    ------  -----  --------  --------  ------------  --------  --------
    ann         1       0.0    100.0%             0         0         0
    bob         1       9.1     40.3%             0         1         0
    accuracy: 100 x exp(-L/2), L the mean loss per move, each move weighed by the
    points at stake in it (best minus worst candidate, fully from 1 point up), so
    moves where nothing was at stake do not count. loss: points below the best move.

    A player without a move of its own has no accuracy: ``-``.
    """
    names = list(game.get("players") or ["player 0", "player 1"])
    rows = [("round", "ply", "player", "move", "best", "loss", "win", "mark")]
    for m in game["moves"]:
        if only_marked and m["mark"] is None:
            continue
        mk = m["mark"]
        rows.append(
            (
                str(m["round"]),
                str(m["ply"]),
                str(names[m["player"]]),
                m["move"],
                m["best"],
                f"{m['loss']:.1f}",
                f"{100 * m['win']:.0f}%",
                f"{_MARK_SIGN[mk]} {mk}" if mk else "",
            )
        )
    out = _table(rows, right={0, 1, 5, 6})
    srows = [("player", "moves", "avg loss", "accuracy", "inaccuracies", "mistakes", "blunders")]
    for s in game.get("summary", []):
        none = not s["moves"]  # no move of its own: nothing to be accurate about
        srows.append(
            (
                str(names[s["player"]]),
                str(s["moves"]),
                "-" if none else f"{s['average_loss']:.1f}",
                "-" if none else f"{s['accuracy']:.1f}%",
                str(s["inaccuracies"]),
                str(s["mistakes"]),
                str(s["blunders"]),
            )
        )
    return out + "\n\n" + _table(srows, right={1, 2, 3, 4, 5, 6}) + "\n" + ACCURACY_NOTE


def progress_bar(
    enabled: bool = True, *, fields: str | None = None, keep: bool = False
) -> Progress:
    """A rich progress bar on stderr (description, bar, done of total, ``fields`` if given,
    elapsed and remaining time). It clears itself when done and stays hidden unless
    ``enabled`` and stderr is a terminal; with ``keep``, it stays on screen when done and
    shows whenever ``enabled`` (a long run's log keeps it). ``fields``: a rich format string
    of the task's fields, e.g. ``"{task.fields[info]}"``. Needs rich (the ``arena`` extra)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    extra: list[ProgressColumn] = [] if fields is None else [TextColumn(fields)]
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *extra,
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=not keep,
        disable=not (enabled and (keep or console.is_terminal)),
    )


def _table(rows: Sequence[Sequence[str]], right: set[int]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for k, r in enumerate(rows):
        cells = [
            c.rjust(w) if i in right and k else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
