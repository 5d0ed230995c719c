"""Hot-seat: a blank screen between turns, so the next player does not see the other hand."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Footer, Static

__all__ = ["PrivacyScreen"]


class PrivacyScreen(Screen[None]):
    """Hides the board until the next player presses Enter."""

    BINDINGS = [
        Binding("enter", "ready", "I am ready"),
        Binding("space", "ready", "ready", show=False),
        Binding("q", "app.confirm_quit", "quit"),
    ]

    def __init__(self, name: str, other: str, last: str = "") -> None:
        super().__init__()
        self.player_name = name
        self.other = other
        self.last = last

    def compose(self) -> ComposeResult:
        with Middle(), Center():
            yield Static(
                f"[b]{self.player_name.capitalize()}'s turn[/b]\n\n"
                f"{self.other.capitalize()}, please look away.\n"
                f"{self.player_name.capitalize()}, press Enter when you are ready.\n\n"
                f"[dim]{self.last}[/dim]",
                id="privacy-box",
            )
        yield Footer()

    def action_ready(self) -> None:
        self.dismiss(None)
