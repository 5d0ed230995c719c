"""The keys, on a modal screen (``?``), and the quit confirmation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.markup import escape
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

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
        "  i            the goal cards and what each requires (achievements variant)\n"
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
    """Quit in the middle of a match (or without saving its record)? With ``save`` (a
    function that saves the record to a file name and says how it went), ``s`` asks for a
    file name and saves before quitting (the unfinished match can then be resumed)."""

    BINDINGS = [
        Binding("y", "answer(True)", "yes, quit"),
        Binding("n", "answer(False)", "no"),
        Binding("s", "save", "save and quit"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    AUTO_FOCUS = ""  # nothing: y and n answer until ``s`` opens the file box

    DEFAULT_FILE = "lostcities-match.txt"
    """The file name the save box offers."""

    def __init__(
        self,
        note: str = "",
        question: str = "Quit the match?",
        save: Callable[[str], str] | None = None,
    ) -> None:
        super().__init__()
        self.note = note
        self.question = question
        self.save = save

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-box"):
            yield Static(
                f"{escape(self.question)}  [b]y[/b] yes   [b]n[/b] no"
                + ("   [b]s[/b] save first" if self.save else "")
                + f"\n[dim]{escape(self.note)}[/dim]",
                id="quit-text",
            )
            yield Input(placeholder="file name for the record", id="quit-save")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.save is not None if action == "save" else True

    def action_save(self) -> None:
        """``s``: the file-name box (Enter saves and quits, Esc goes back)."""
        if self.save is None:
            return
        box = self.query_one("#quit-save", Input)
        box.add_class("-shown")
        if not box.value:
            box.value = self.DEFAULT_FILE
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.save is None:
            return
        said = self.save(event.value.strip())
        if said.startswith("saved"):
            self.dismiss(True)
            return
        self.query_one("#quit-text", Static).update(
            f"{escape(self.question)}  [b]y[/b] yes   [b]n[/b] no\n[b]{escape(said)}[/b]"
        )

    def on_key(self, event: events.Key) -> None:
        box = self.query_one("#quit-save", Input)
        if event.key == "escape" and box.has_focus:
            box.remove_class("-shown")
            self.set_focus(None)
            event.stop()

    def action_answer(self, yes: bool) -> None:
        if self.query_one("#quit-save", Input).has_focus:
            return  # typing a file name: y and n are letters of it
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
