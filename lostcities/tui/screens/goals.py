"""The goal cards of the achievements variant, with what each requires (``i`` in a game with
goals; ``g`` is the green pile): its name, kind (a race goal is won by the first to meet it,
an end goal when the round ends), what the card says, its condition as the record and the
protocol write it, and who holds it."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from lostcities.rules import PlayerView

__all__ = ["GoalsScreen", "goals_text"]


def goals_text(view: PlayerView, names: tuple[str, str]) -> str:
    """The goal cards of ``view`` in words (Rich markup): one paragraph per goal.

    >>> from lostcities import Round
    >>> from lostcities.achievements import DEFAULT_GOALS
    >>> r = Round.deal(seed=1, achievements=[DEFAULT_GOALS[0]])
    >>> print(goals_text(r.view(0), ("you", "bot")))
    [b]Goals[/b]  (10 points each, held at the end of the round)
    <BLANKLINE>
    ☆ [b]Trailblazer[/b] (race: the first to meet it wins it) – nobody yet
      Be first to have three expeditions started.
      [dim]condition: expeditions >= 3[/dim]
    """
    board = view.achievements
    if board is None:
        return "No goals: this is the classic game."
    lines = ["[b]Goals[/b]  (10 points each, held at the end of the round)"]
    for g, holder in zip(board.goals, board.claims, strict=True):
        mark = "☆" if holder is None else "★" if holder == view.player else "✦"
        who = "nobody yet" if holder is None else f"held by {names[holder]}"
        if g.kind == "end":
            kind = "end: decided when the round ends"
            if holder is None:
                who = "not decided yet"
        else:
            kind = "race: the first to meet it wins it"
        lines += [
            "",
            f"{mark} [b]{escape(g.name)}[/b] ({kind}) – {escape(who)}",
            f"  {escape(g.text)}",
            f"  [dim]condition: {escape(g.condition)}[/dim]",
        ]
    return "\n".join(lines)


class GoalsScreen(ModalScreen[None]):
    """The goal cards and what each requires (:func:`goals_text`); ``↑`` ``↓`` scroll where
    they do not fit, Esc, ``i`` or ``q`` close it."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("i", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, view: PlayerView, names: tuple[str, str]) -> None:
        super().__init__()
        self.text = goals_text(view, names)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="goals-box"):
            yield Static(self.text + "\n[dim]Esc or i closes this (↑↓ scroll)[/dim]")

    def action_close(self) -> None:
        self.dismiss(None)
