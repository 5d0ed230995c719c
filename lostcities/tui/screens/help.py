"""The keys, on a modal screen (``?``), and the quit confirmation."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from lostcities.tui.widgets.cards import SYMBOLS

__all__ = ["MIN_SIZE", "ConfirmQuit", "HelpScreen", "TooSmallScreen", "guard_size", "help_text"]

MIN_SIZE = (80, 24)
"""The smallest terminal (columns, lines) the board is drawn in."""


def help_text() -> str:
    """The key reference (Rich markup)."""
    items = [f"{s} {c.name.lower()} ({c.letter})" for c, s in SYMBOLS.items()]
    symbols = "  ".join(items[:3]) + "\n" + "  ".join(items[3:])
    return (
        "[b]Keys[/b]\n"
        "  ←/→          pick a card of your hand (or type it: y7, bx, r10)\n"
        "  Enter or ↑   play the card onto your expedition (p too, classic only)\n"
        "  d or ↓       discard it onto its colour's pile\n"
        "  . or space   then draw from the draw pile (Enter too)\n"
        "  y b w g r p  ...or take the top card of that discard pile\n"
        "  Esc          go back\n"
        "  : + -        type a whole move: +y7. (play y7, draw pile), -r10b\n"
        "  h            a hint: the engine's move (the game is then marked assisted)\n"
        "  u            undo your move while the bot thinks; on your turn, your move\n"
        "               and the bot's reply (marked assisted); never a draw-pile draw\n"
        "  q quit   ? this help   (long variant: p is purple: p7, or the p pile)\n"
        "[b]Mouse[/b]  click a card, then your expedition (play) or its pile\n"
        "(discard), then the draw pile or a discard pile.\n"
        "[b]Board[/b]  opponent's expeditions on top, yours below, the discard\n"
        "piles between (top card and count), the draw pile at the right.\n"
        "✓ playable cards; Σ the round score; goals: ☆ open ★ yours ✦ theirs.\n"
        f"{symbols}\n"
        "[dim]Esc or ? closes this help[/dim]"
    )


class HelpScreen(ModalScreen[None]):
    """The keys."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("question_mark", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(help_text())

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmQuit(ModalScreen[bool]):
    """Quit in the middle of a match (or without saving its record)?"""

    BINDINGS = [
        Binding("y", "answer(True)", "yes, quit"),
        Binding("n", "answer(False)", "no"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    def __init__(self, note: str = "", question: str = "Quit the match?") -> None:
        super().__init__()
        self.note = note
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-box"):
            yield Static(
                f"{escape(self.question)}  [b]y[/b] yes   [b]n[/b] no\n[dim]{escape(self.note)}[/dim]"
            )

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TooSmallScreen(ModalScreen[None]):
    """Shown while the terminal is smaller than :data:`MIN_SIZE`; it goes away by itself
    once the terminal is large enough."""

    def __init__(self, size: tuple[int, int]) -> None:
        super().__init__()
        self.size_now = size

    def compose(self) -> ComposeResult:
        yield Static(self.message(self.size_now), id="too-small")

    @staticmethod
    def message(size: tuple[int, int]) -> str:
        """``terminal too small: 70x20, at least 80x24 needed``."""
        w, h = MIN_SIZE
        return f"terminal too small: {size[0]}x{size[1]}, at least {w}x{h} needed"

    def show_size(self, size: tuple[int, int]) -> None:
        """Say the new size."""
        self.size_now = size
        if self.is_mounted:
            self.query_one("#too-small", Static).update(self.message(size))


def guard_size(
    app: App[Any], size: tuple[int, int], shown: TooSmallScreen | None
) -> TooSmallScreen | None:
    """Cover ``app`` with a :class:`TooSmallScreen` while ``size`` is below :data:`MIN_SIZE`
    (``shown``: the one shown now, if any); returns the one shown after the check."""
    small = size[0] < MIN_SIZE[0] or size[1] < MIN_SIZE[1]
    if small and shown is None:
        shown = TooSmallScreen(size)
        app.push_screen(shown)
    elif small and shown is not None:
        shown.show_size(size)
    elif not small and shown is not None:
        if app.screen is shown:
            app.pop_screen()
        shown = None
    return shown
