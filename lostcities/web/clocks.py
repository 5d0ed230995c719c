"""The clock rules of a stored game: a per-move clock (seconds for each move) or a
Fischer-style match clock (each player's time, plus an increment after each move), read
from its :class:`~lostcities.web.models.games.GameRow`. The live game runs them
(:meth:`LiveGame.schedule_clock <lostcities.web.live_game.LiveGame.schedule_clock>`)."""

from __future__ import annotations

from lostcities.web.models.games import GameRow

DAY = 86400
"""Seconds in a day: a correspondence clock's unit."""

__all__ = [
    "DAY",
    "clock_choice",
    "is_correspondence",
    "has_match_clock",
    "move_limit",
    "parse_clock",
    "stored_times",
    "timeout_reason",
    "times_after_move",
]


def parse_clock(choice: int | str | None) -> tuple[int | None, int | None]:
    """The stored form of a clock choice (:data:`schemas.ClockChoice
    <lostcities.web.schemas.ClockChoice>`): its seconds (per move, or each player's starting
    time) and the match clock's increment (``None``: a per-move clock, or none). A
    correspondence clock (``"3d"``) is a per-move clock of whole days.

    >>> parse_clock("300+5"), parse_clock(60), parse_clock(None), parse_clock("3d")
    ((300, 5), (60, None), (None, None), (259200, None))
    """
    if isinstance(choice, str) and choice.endswith("d"):
        return int(choice[:-1]) * DAY, None
    if isinstance(choice, str):
        base, _, inc = choice.partition("+")
        return int(base), int(inc)
    return choice, None


def clock_choice(row: GameRow) -> int | str | None:
    """The clock of a stored game as it was chosen (:func:`parse_clock` undone).

    >>> clock_choice(GameRow(clock=300, clock_increment=5)), clock_choice(GameRow(clock=60))
    ('300+5', 60)
    >>> clock_choice(GameRow(clock=7 * DAY))
    '7d'
    """
    if row.clock is not None and row.clock_increment is not None:
        return f"{row.clock}+{row.clock_increment}"
    if is_correspondence(row):
        return f"{(row.clock or 0) // DAY}d"
    return row.clock


def is_correspondence(row: GameRow) -> bool:
    """Whether the game has a correspondence clock (whole days per move).

    >>> is_correspondence(GameRow(clock=DAY)), is_correspondence(GameRow(clock=180))
    (True, False)
    """
    return (
        row.clock is not None
        and row.clock_increment is None
        and row.clock >= DAY
        and row.clock % DAY == 0
    )


def move_limit(row: GameRow) -> int | None:
    """The referee's per-move time limit: the clock unless it is a match clock.

    >>> move_limit(GameRow(clock=60)), move_limit(GameRow(clock=300, clock_increment=5))
    (60, None)
    """
    return row.clock if row.clock_increment is None else None


def has_match_clock(row: GameRow) -> bool:
    """Whether the game has a match clock rather than a per-move clock or none."""
    return row.clock is not None and row.clock_increment is not None


def stored_times(row: GameRow) -> list[float]:
    """Both players' match-clock times as of the last stored change (a time not stored
    yet is the starting time).

    >>> stored_times(GameRow(clock=300, clock_increment=5, clock_left0=12.5))
    [12.5, 300.0]
    """
    base = float(row.clock or 0)
    stored = (row.clock_left0, row.clock_left1)
    return [base if t is None else t for t in stored]


def times_after_move(row: GameRow, seat: int, spent: float) -> tuple[float, float] | None:
    """Both match-clock times once ``seat`` moves after thinking ``spent`` seconds: the
    thinking time taken off (never below 0), the increment added; ``None`` without a match
    clock.

    >>> times_after_move(GameRow(clock=300, clock_increment=5), 0, 10.25)
    (294.75, 300.0)
    >>> times_after_move(GameRow(clock=60), 0, 10.0) is None
    True
    """
    if not has_match_clock(row):
        return None
    times = stored_times(row)
    times[seat] = max(0.0, times[seat] - spent) + float(row.clock_increment or 0)
    return round(times[0], 3), round(times[1], 3)


def timeout_reason(row: GameRow, time_limit: float | None) -> str:
    """Why the player to move lost on time (the round's forfeit reason); ``time_limit`` is
    the per-move limit.

    >>> timeout_reason(GameRow(clock=300, clock_increment=5), None)
    'timeout: no time left on the 300+5 match clock'
    >>> timeout_reason(GameRow(clock=60), 60)
    'timeout: no move within 60 s'
    """
    if has_match_clock(row):
        return f"timeout: no time left on the {clock_choice(row)} match clock"
    if is_correspondence(row):
        days = (row.clock or 0) // DAY
        return f"timeout: no move within {days} day{'s' if days > 1 else ''}"
    return f"timeout: no move within {time_limit or 0:g} s"
