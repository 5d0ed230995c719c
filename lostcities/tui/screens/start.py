"""The start screen of ``lostcities play`` run without flags: the opponent (the computer or a
friend at this keyboard), the computer's level, the variant, the number of rounds and the
achievements variant, all chosen by keyboard; Enter starts the match.

Each choice is one of ``lostcities play``'s flags, and the screen shows the command line that
plays the same match (any flag skips the screen).

>>> Setup().command_line()
'lostcities play --opponent expert:time=1 --variant classic --rounds 3'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from rich.markup import escape
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from lostcities.tui.records import ResumeError, find_unfinished

__all__ = ["LEVELS", "ROWS", "Setup", "StartScreen", "start_text"]

LEVELS: dict[str, tuple[str, str]] = {
    "easy": ("random", "random legal moves (the random bot): to learn the keys"),
    "medium": ("heuristic", "sound rules of thumb, instant (the heuristic bot)"),
    "hard": ("ismcts:time=1", "Monte Carlo search over the hidden cards, 1 s a move (ismcts)"),
    "expert": ("expert:time=1", "a trained network guiding a search, 1 s a move: the strongest"),
}
"""The computer's levels, weakest first, named as the README and the web app name them: the
bot spec of ``--opponent`` each plays, and what it plays (``expert`` is ``lostcities
play``'s default opponent; the web app's easy level plays the heuristic bot with random
mistakes, the terminal's the random bot)."""

VARIANTS = {"classic": "5 colours, 60 cards", "long": "6 colours, 72 cards (p is purple)"}
OPPONENTS = ("the computer", "a friend at this keyboard (hot-seat)")
MAX_ROUNDS = 9
"""The most rounds the screen offers (``--rounds`` takes up to 99)."""

RESUME_FILE = "lostcities-match.txt"
"""The file the resume box offers: the one a save offers."""

ROWS = ("opponent", "level", "variant", "rounds", "achievements")
"""The screen's lines, top to bottom."""


@dataclasses.dataclass(frozen=True, slots=True)
class Setup:
    """What the start screen chose."""

    hotseat: bool = False
    """Two people at one keyboard (``--hotseat``) instead of the computer."""
    level: str = "expert"
    """The computer's level: a key of :data:`LEVELS`."""
    variant: str = "classic"
    """``classic`` or ``long`` (``--variant``)."""
    rounds: int = 3
    """Rounds in the match (``--rounds``)."""
    achievements: bool = False
    """The achievements variant with the default goal pool (``--achievements``)."""
    resume: str | None = None
    """A records file whose last unfinished match goes on instead (``--resume FILE``);
    the other choices are then the saved match's."""

    @property
    def opponent(self) -> str:
        """The bot spec of :attr:`level` (``--opponent``)."""
        return LEVELS[self.level][0]

    def command_line(self) -> str:
        """The ``lostcities play`` command that plays the same match."""
        who = "--hotseat" if self.hotseat else f"--opponent {self.opponent}"
        line = f"lostcities play {who} --variant {self.variant} --rounds {self.rounds}"
        return line + (" --achievements" if self.achievements else "")

    def changed(self, row: str, step: int, unavailable: Mapping[str, str] | None = None) -> Setup:
        """The setup with ``row``'s value moved ``step`` places (round the choices), passing
        over the levels in ``unavailable`` (those that cannot run here).

        >>> Setup().changed("level", 1).level, Setup().changed("rounds", -1).rounds
        ('easy', 2)
        >>> Setup(level="hard").changed("level", 1, {"expert": "no weights"}).level
        'easy'
        """
        if row == "opponent":
            return dataclasses.replace(self, hotseat=not self.hotseat)
        if row == "level":
            names = [n for n in LEVELS if n == self.level or n not in (unavailable or {})]
            return dataclasses.replace(
                self, level=names[(names.index(self.level) + step) % len(names)]
            )
        if row == "variant":
            names = list(VARIANTS)
            return dataclasses.replace(
                self, variant=names[(names.index(self.variant) + step) % len(names)]
            )
        if row == "rounds":
            return dataclasses.replace(self, rounds=(self.rounds - 1 + step) % MAX_ROUNDS + 1)
        if row == "achievements":
            return dataclasses.replace(self, achievements=not self.achievements)
        raise ValueError(f"no such line: {row!r}")


def _value(setup: Setup, row: str) -> tuple[str, str]:
    """A line's value and what it means."""
    if row == "opponent":
        return OPPONENTS[setup.hotseat], ""
    if row == "level":
        return setup.level, LEVELS[setup.level][1]
    if row == "variant":
        return setup.variant, VARIANTS[setup.variant]
    if row == "rounds":
        return str(setup.rounds), "the highest total wins the match"
    return ("on" if setup.achievements else "off"), "5 goal cards a round, 10 points each held"


def start_text(
    setup: Setup,
    row: str,
    unavailable: Mapping[str, str] | None = None,
    notes: Mapping[str, str] | None = None,
) -> str:
    """The screen's text (Rich markup) with ``row`` the current line; the levels in
    ``unavailable`` (level: why) are named as not playable here, and a level's line shows its
    entry of ``notes`` (how it plays on this machine) while it is chosen.

    >>> print(start_text(Setup(hotseat=True), "opponent").splitlines()[3])
     ▸ [b]Opponent       ‹ a friend at this keyboard (hot-seat) ›[/b]
    >>> print(start_text(Setup(level="hard"), "level", {"expert": "no weights"}).splitlines()[-2])
    [dim]not on this machine: expert (no weights)[/dim]
    """
    lines = ["[b]Lost Cities: a new match[/b]", "", ""]
    for r in ROWS:
        value, _ = _value(setup, r)
        label = f"{r.capitalize():<14}"
        if r == "level" and setup.hotseat:
            lines.append(f"[dim]   {label} (no computer in a hot-seat game)[/dim]")
        elif r == row:
            lines.append(f" ▸ [b]{label} ‹ {value} ›[/b]")
        else:
            lines.append(f"   {label}   {value}")
    about = _value(setup, row)[1]
    lines += ["", f"[i]{about}[/i]" if about else ""]
    note = ""
    if unavailable and not setup.hotseat:
        note = "not on this machine: " + ", ".join(
            f"{name} ({why})" for name, why in unavailable.items()
        )
    elif notes and row == "level" and setup.level in notes and not setup.hotseat:
        note = f"here: {notes[setup.level]}"
    # one line of the 80-column screen
    lines.append(
        f"[dim]{escape(note if len(note) <= 78 else note[:77] + '…')}[/dim]" if note else ""
    )
    lines.append(f"[dim]same as: {setup.command_line()}[/dim]")
    return "\n".join(lines)


class StartScreen(Screen[Setup | None]):
    """Chooses the match; dismisses with the :class:`Setup` (Enter) or ``None`` (quit)."""

    AUTO_FOCUS = ""  # nothing: the keys choose until ``r`` opens the file box

    BINDINGS = [
        Binding("up", "row(-1)", "line", key_display="↑↓"),
        Binding("down", "row(1)", "line", show=False),
        Binding("tab", "row(1)", "line", show=False),
        Binding("left", "change(-1)", "change", key_display="←→"),
        Binding("right", "change(1)", "change", show=False),
        Binding("space", "change(1)", "change", show=False),
        Binding("enter", "start", "start"),
        Binding("r", "resume", "resume a saved match"),
        Binding("q", "quit_start", "quit"),
        Binding("escape", "quit_start", "quit", show=False),
    ]

    def __init__(
        self,
        setup: Setup | None = None,
        unavailable: Mapping[str, str] | None = None,
        notes: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.notes = dict(notes or {})
        """How a level plays on this machine, where it is worse than it can (shown while chosen)."""
        self.unavailable = {k: v for k, v in (unavailable or {}).items() if k in LEVELS}
        """The levels that cannot run here, with why: passed over, named on the level line."""
        setup = setup or Setup()
        if setup.level in self.unavailable:
            # the strongest level that can run here (ismcts where expert cannot)
            playable = [n for n in LEVELS if n not in self.unavailable]
            setup = dataclasses.replace(setup, level=playable[-1] if playable else setup.level)
        self.setup = setup
        self.row = ROWS[0]

    def compose(self) -> ComposeResult:
        with Middle(), Center(), Vertical(id="start-col"):
            yield Static(
                start_text(self.setup, self.row, self.unavailable, self.notes),
                id="start-box",
            )
            yield Static("", id="resume-status")
            yield Input(placeholder="the records file of the saved match", id="resume-input")
        yield Footer()

    def action_resume(self) -> None:
        """``r``: a box for the records file whose unfinished match goes on (Enter; Esc
        goes back)."""
        box = self.query_one("#resume-input", Input)
        box.add_class("-shown")
        if not box.value:
            box.value = RESUME_FILE
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        try:
            find_unfinished(path)
        except (ResumeError, OSError) as e:
            why = e.strerror if isinstance(e, OSError) and e.strerror else e
            self.query_one("#resume-status", Static).update(escape(f"cannot resume: {why}"))
            return
        self.dismiss(dataclasses.replace(self.setup, resume=path))

    def _typing(self) -> bool:
        return self.query_one("#resume-input", Input).has_focus

    def _show(self) -> None:
        self.query_one("#start-box", Static).update(
            start_text(self.setup, self.row, self.unavailable, self.notes)
        )

    def action_row(self, step: int) -> None:
        if self._typing():
            return
        rows = [r for r in ROWS if not (r == "level" and self.setup.hotseat)]
        self.row = rows[(rows.index(self.row) + step) % len(rows)]
        self._show()

    def action_change(self, step: int) -> None:
        if self._typing():
            return
        self.setup = self.setup.changed(self.row, step, self.unavailable)
        self._show()

    def on_key(self, event: events.Key) -> None:
        """A digit on the rounds line sets the number of rounds; Esc in the file box
        closes it."""
        if self._typing():
            if event.key == "escape":
                self.query_one("#resume-input", Input).remove_class("-shown")
                self.query_one("#resume-status", Static).update("")
                self.set_focus(None)
                event.stop()
            return
        ch = event.character
        if self.row == "rounds" and ch and ch in "123456789":
            self.setup = dataclasses.replace(self.setup, rounds=int(ch))
            self._show()

    def action_start(self) -> None:
        if not self._typing():
            self.dismiss(self.setup)

    def action_quit_start(self) -> None:
        if not self._typing():
            self.dismiss(None)
