"""End of the match: the result, every round's scores, the game record (saved where
``--save`` says, or offered) and, on ``a``, the engine's analysis of every move (the table of
``lostcities analyse``)."""

from __future__ import annotations

from collections.abc import Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from lostcities.bots import make
from lostcities.bots.analysis import DEFAULT_BOT, DEFAULT_WORLDS, positions, report, review
from lostcities.match import TIE_BROKEN
from lostcities.presentation import format_analysis
from lostcities.tui.session import Session

__all__ = ["MatchEndScreen", "match_summary"]


def match_summary(session: Session) -> str:
    """The result, the per-round scores and, for a game with hints or take-backs, that it
    was assisted (Rich markup)."""
    m = session.match
    names = session.names
    a, b = m.totals()
    w = m.winner()
    if w is None:
        verdict = "The match is a draw"
    else:
        verdict = f"{names[w].capitalize()} win{'' if names[w] == 'you' else 's'} the match"
    width = max(len(names[0]), len(names[1]), 5)
    hi, lo = (b, a) if w == 1 else (a, b)  # the winner's score first
    lines = [f"[b]{verdict}  {hi} – {lo}  ({m.result()})[/b]", ""]
    if m.reason() == TIE_BROKEN:
        lines.insert(1, f"{TIE_BROKEN[0].upper()}{TIE_BROKEN[1:]} ({names[w or 0]}).")
    lines.append(f"{'round':<7}{names[0]:>{width}}  {names[1]:>{width}}")
    for i, r in enumerate(m.rounds, 1):
        s = r.scores()
        lines.append(f"{i:<7}{s[0]:>{width}}  {s[1]:>{width}}")
    lines.append(f"{'total':<7}{a:>{width}}  {b:>{width}}")
    if session.assisted:  # hints or take-backs: not a game the rules alone decided
        lines += ["", f"Assisted ({session.assistance()}): a casual game."]
    return "\n".join(lines)


class MatchEndScreen(Screen[None]):
    """The match result; ``s`` saves the record (when no ``--save`` file was given, or it
    could not be written); Enter or ``q`` quits, asking first while the record is unsaved."""

    AUTO_FOCUS = ""  # nothing: Enter quits until ``s`` opens the file-name box

    BINDINGS = [
        Binding("enter", "done", "quit"),
        Binding("q", "done", "quit", show=False),
        Binding("s", "offer_save", "save record"),
        Binding("a", "analyse", "analysis"),
        Binding("down", "scroll(1)", "scroll", key_display="↑↓"),
        Binding("up", "scroll(-1)", "scroll", show=False),
        Binding("pagedown", "scroll(10)", "scroll", show=False),
        Binding("pageup", "scroll(-10)", "scroll", show=False),
        Binding("home", "scroll(-100000)", "scroll", show=False),
        Binding("end", "scroll(100000)", "scroll", show=False),
    ]

    class Analysed(Message):
        """Progress of the analysis worker (``table`` once it is done)."""

        def __init__(self, done: int, total: int, table: str | None) -> None:
            super().__init__()
            self.done = done
            self.total = total
            self.table = table

    def __init__(self, session: Session, saved: str, save: Callable[[str], str]) -> None:
        super().__init__()
        self.session = session
        self.saved = saved
        self.save = save
        self.analysing = False

    def compose(self) -> ComposeResult:
        with Vertical(id="match-end"):
            yield Static(match_summary(self.session), id="match-summary")
            yield Static(self.saved, id="save-status")
            yield Input(placeholder="file name for the record", id="save-input")
            with VerticalScroll(id="analysis-box"):
                yield Static("a: the engine's analysis of every move", id="analysis")
        yield Footer()

    def action_analyse(self) -> None:
        if isinstance(self.focused, Input) or self.analysing:
            return
        self.analysing = True
        self.query_one("#analysis", Static).update("analysing…")
        self.analyse_match()

    @work(thread=True, exclusive=True, group="analysis", exit_on_error=False)
    def analyse_match(self) -> None:
        """Every move, from its mover's view, on a thread (a 3-round match: seconds)."""
        bot = make(DEFAULT_BOT)
        items = positions(self.session.match.rounds)
        reviews = []
        for k, p in enumerate(items):
            reviews.append(review(bot, p, worlds=DEFAULT_WORLDS))
            if k % 10 == 0:
                self.post_message(self.Analysed(k, len(items), None))
        table = format_analysis(report(reviews, self.session.names), only_marked=True)
        self.post_message(self.Analysed(len(items), len(items), table))

    def on_match_end_screen_analysed(self, msg: MatchEndScreen.Analysed) -> None:
        box = self.query_one("#analysis", Static)
        if msg.table is None:
            box.update(f"analysing… {msg.done} of {msg.total} moves")
        else:
            box.update(
                "The marked moves (?! inaccuracy, ? mistake, ?? blunder;"
                " ↑↓ PgUp PgDn scroll):\n\n" + msg.table
            )

    def action_scroll(self, lines: int) -> None:
        """``↑`` ``↓`` PgUp PgDn Home End: scroll the analysis (a page is the box's height)."""
        box = self.query_one("#analysis-box", VerticalScroll)
        if abs(lines) == 10:
            lines = max(box.size.height - 1, 1) * (1 if lines > 0 else -1)
        box.scroll_to(y=box.scroll_y + lines, animate=False)

    def action_offer_save(self) -> None:
        box = self.query_one("#save-input", Input)
        box.add_class("-shown")
        if not box.value:
            box.value = "lostcities-match.txt"
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        msg = self.save(event.value.strip())
        self.query_one("#save-status", Static).update(msg)
        if msg.startswith("saved"):
            event.input.remove_class("-shown")
            self.set_focus(None)

    def action_done(self) -> None:
        """Enter or ``q``: quit, as the app quits (asking first while the record is unsaved)."""
        if isinstance(self.focused, Input):
            return
        self.app.action_confirm_quit()  # type: ignore[attr-defined]
