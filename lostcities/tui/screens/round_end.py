"""End of a round: both players' score sheets (the table of ``lostcities score``) and the
match totals."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from lostcities.rules import Termination
from lostcities.tui.session import Session, number_players
from lostcities.tui.widgets.score import Breakdown

__all__ = ["RoundEndScreen", "round_summary"]


def round_summary(session: Session) -> str:
    """``Round 1/3 over (draw pile empty): you 45, random -12 — you win the round``."""
    r = session.round
    out = r.outcome()
    assert out is not None
    names = session.names
    a, b = out.scores
    if out.winner is None:
        verdict = "a draw"
    else:
        w = names[out.winner]
        verdict = f"{w} win{'' if w == 'you' else 's'} the round"
    how = out.termination.value
    if out.termination is Termination.FORFEIT and out.reason:
        how = number_players(f"forfeit: {out.reason}")
    return (
        f"Round {session.round_index + 1}/{session.match.num_rounds} over ({how}): "
        f"{names[0]} {a}, {names[1]} {b} — {verdict}"
    )


SCROLL_KEYS = "↑↓ PgUp PgDn scroll"
"""What the keys line says while the sheets are taller than the screen."""


class RoundEndScreen(Screen[None]):
    """The breakdown of the round just played: the round's result and the keys stay in
    view; both score sheets scroll between them by keys (``↑`` ``↓``, PgUp, PgDn, Home,
    End) where the screen is too small for them (an 80x24 terminal, both players holding
    goals), and the keys line says so."""

    AUTO_FOCUS = "#round-end"  # the sheets: the arrow keys scroll them

    BINDINGS = [
        Binding("enter", "next", "continue"),
        Binding("space", "next", "continue", show=False),
        Binding("q", "app.confirm_quit", "quit"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        s = self.session
        r = s.round
        a, b = s.match.totals()
        last = s.match.is_over()
        yield Static(f"[b]{round_summary(s)}[/b]", id="round-summary")
        with VerticalScroll(id="round-end"):
            yield Breakdown(r, 0, f"[u]{s.names[0]}[/u]", classes="breakdown")
            yield Breakdown(r, 1, f"[u]{s.names[1]}[/u]", classes="breakdown")
        self.keys_line = (
            f"Match after {len(s.match.rounds)} of {s.match.num_rounds}: "
            f"{s.names[0]} {a} – {b} {s.names[1]}   "
            f"[b]Enter[/b] {'the result' if last else 'next round'}  [b]q[/b] quit"
        )
        yield Static(self.keys_line, id="round-totals")

    def on_mount(self) -> None:
        self.call_after_refresh(self.say_scroll)

    def on_resize(self) -> None:
        self.call_after_refresh(self.say_scroll)

    def say_scroll(self) -> None:
        """Name the scroll keys on the keys line while the sheets do not fit."""
        box = self.query_one("#round-end", VerticalScroll)
        line = self.keys_line + (f"  [b]{SCROLL_KEYS}[/b]" if box.max_scroll_y > 0 else "")
        self.query_one("#round-totals", Static).update(line)

    def action_next(self) -> None:
        self.dismiss(None)
