"""Hot-seat set-up: who is younger? (Seed 001's table rule: on a tie, the youngest player
wins; the default is a draw.)"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Footer, Static

__all__ = ["TieBreakScreen"]


class TieBreakScreen(Screen[tuple[str, int | None]]):
    """Asks how equal match totals end; dismisses with ``(tie_break, younger)``."""

    BINDINGS = [
        Binding("d", "choose('draw')", "a draw"),
        Binding("enter", "choose('draw')", "a draw", show=False),
        Binding("1", "choose('0')", "player 1 is younger"),
        Binding("2", "choose('1')", "player 2 is younger"),
        Binding("q", "app.confirm_quit", "quit"),
    ]

    def __init__(self, names: tuple[str, str]) -> None:
        super().__init__()
        self.names = names

    def compose(self) -> ComposeResult:
        a, b = (n.capitalize() for n in self.names)
        with Middle(), Center():
            yield Static(
                "[b]Equal totals at the end of the match?[/b]\n\n"
                "A table rule says the youngest player wins a tie.\n\n"
                f"  [b]1[/b]  {a} is younger\n"
                f"  [b]2[/b]  {b} is younger\n"
                "  [b]d[/b]  no tie-break: a draw (Enter)",
                id="ties-box",
            )
        yield Footer()

    def action_choose(self, choice: str) -> None:
        if choice == "draw":
            self.dismiss(("draw", None))
        else:
            self.dismiss(("youngest", int(choice)))
