"""The keys, on a modal screen (``?``), and the quit confirmation."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from lostcities.tui.widgets.cards import SYMBOLS

__all__ = ["ConfirmQuit", "HelpScreen", "help_text"]


def help_text() -> str:
    """The key reference (Rich markup)."""
    items = [f"{s} {c.name.lower()} ({c.letter})" for c, s in SYMBOLS.items()]
    symbols = "  ".join(items[:3]) + "\n" + "  ".join(items[3:])
    return (
        "[b]Keys[/b]\n"
        "  ←/→          pick a card of your hand (or type it: y7, bx, r10)\n"
        "  p or Enter   play the card onto your expedition\n"
        "  d            discard it onto its colour's pile\n"
        "  . or space   then draw from the draw pile (Enter too)\n"
        "  y b w g r p  ...or take the top card of that discard pile\n"
        "  Esc          go back\n"
        "  : + -        type a whole move: +y7. (play y7, draw pile), -r10b\n"
        "  h            a hint: the engine's move (the game is then marked assisted)\n"
        "  u            undo your move while the bot thinks (not in hot-seat,\n"
        "               not after a draw from the draw pile: you saw the card)\n"
        "  q quit   ? this help   (long variant: p then a rank picks a purple card)\n"
        "[b]Mouse[/b]  click a card, then your expedition (play) or its pile\n"
        "(discard), then the draw pile or a discard pile.\n"
        "[b]Board[/b]  opponent's expeditions on top, yours below, the discard\n"
        "piles between (top card and count), the draw pile at the right.\n"
        "✓ marks the cards you can play; Σ is the round score so far.\n"
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
    """Quit in the middle of a match?"""

    BINDINGS = [
        Binding("y", "answer(True)", "yes, quit"),
        Binding("n", "answer(False)", "no"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    def __init__(self, note: str = "") -> None:
        super().__init__()
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-box"):
            yield Static(f"Quit the match?  [b]y[/b] yes   [b]n[/b] no\n[dim]{self.note}[/dim]")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
