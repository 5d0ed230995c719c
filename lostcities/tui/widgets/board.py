"""The table: one column per colour with the opponent's expedition above, the shared discard
pile in the middle and the viewer's expedition below (as the cards lie on a real table), a
gutter with both round totals, and the draw pile.

Widgets here only show a :class:`~lostcities.PlayerView` handed down to them
(:meth:`Board.show`) and post :class:`Board.Clicked` when a zone is clicked.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from lostcities.cards import Card, Color, Variant
from lostcities.rules import PlayerView
from lostcities.scoring import score_expedition
from lostcities.tui.widgets.cards import SYMBOLS, card_label, color_class, rank_text

__all__ = ["Board", "ExpeditionColumn", "Zone", "set_text"]


def _ranks(cards: tuple[Card, ...]) -> str:
    return " ".join(rank_text(c) for c in cards)


WIDE = 98
"""From this board width (a 100-column terminal) the name gutter is wide."""


def _short(name: str, width: int = 6) -> str:
    if width <= 6:
        name = name.replace("player ", "pl. ")
    return name if len(name) <= width else name[: width - 1] + "…"


def _signed(n: int) -> str:
    return f"{n:+d}" if n else "0"


def total_text(total: int) -> str:
    """A round total in the gutter: ``Σ`` and the number apart, in 6 columns.

    >>> [total_text(n) for n in (0, 45, -100)]
    ['Σ    0', 'Σ  +45', 'Σ -100']
    """
    return f"Σ {_signed(total):>4}"


def set_text(widget: Static, text: str) -> None:
    """Update a fixed-size widget's text only if it changed (no layout pass: the size stays)."""
    if str(widget.content) != text:
        widget.update(text, layout=False)


class Zone(Static):
    """A clickable part of the table; ``where`` is ``opp``, ``pile``, ``mine`` or ``deck``."""

    def __init__(self, where: str, color: Color | None, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.where = where
        self.color = color

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(Board.Clicked(self.where, self.color))


class ExpeditionColumn(Vertical):
    """One colour: opponent's cards and score, the discard pile, the viewer's score and cards."""

    def __init__(self, color: Color) -> None:
        super().__init__(classes=f"column {color_class(color)}", id=f"col-{color.letter}")
        self.color = color

    def compose(self) -> ComposeResult:
        c = self.color
        yield Zone("opp", c, classes="exp opp-cards")
        yield Zone("opp", c, classes="exp-score opp-score")
        pile = Zone("pile", c, classes="pile")
        pile.border_title = f"{SYMBOLS[c]} {c.letter.upper()}"
        yield pile
        yield Zone("mine", c, classes="exp-score my-score")
        yield Zone("mine", c, classes="exp my-cards")

    def show(self, view: PlayerView) -> None:
        """Draw this colour's part of ``view``."""
        c = int(self.color)
        me = view.player
        mine = view.expeditions[me][c]
        theirs = view.expeditions[me ^ 1][c]
        set_text(self.query_one(".opp-cards", Zone), _ranks(theirs))
        set_text(self.query_one(".my-cards", Zone), _ranks(mine))
        for cls, cards in ((".opp-score", theirs), (".my-score", mine)):
            zone = self.query_one(cls, Zone)
            set_text(zone, f"{score_expedition(cards, check=False).score:>3}" if cards else "  ·")
        pile = view.discard_piles[c]
        pz = self.query_one(".pile", Zone)
        set_text(pz, f"{card_label(pile[-1])} ({len(pile)})" if pile else "empty")
        pz.set_class(not pile, "-empty")


class Board(Horizontal):
    """The whole table for one viewer."""

    class Clicked(Message):
        """A zone of the table was clicked."""

        def __init__(self, where: str, color: Color | None) -> None:
            super().__init__()
            self.where = where
            """``opp``, ``pile``, ``mine`` or ``deck``."""
            self.color = color
            """The column's colour (``None`` for the draw pile)."""

    def __init__(self, variant: Variant, names: tuple[str, str], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.variant = variant
        self.names = names
        self.name_width = 6
        """Characters of a name shown in the gutter: 6 at 80 columns; from 100 columns the
        gutter widens and names of up to three lines of 14 are shown whole."""
        self.add_class(f"colors-{variant.num_colors}")
        self._view: PlayerView | None = None

    def on_resize(self, event: events.Resize) -> None:
        wide = event.size.width >= WIDE
        self.set_class(wide, "-wide")
        self.name_width = 42 if wide else 6
        if self._view is not None:
            self.show(self._view)

    def compose(self) -> ComposeResult:
        with Vertical(id="gutter"):
            yield Static("", id="opp-name", classes="g-name")
            yield Static("", id="opp-total", classes="g-total")
            yield Static("piles", id="g-piles")
            yield Static("", id="my-total", classes="g-total")
            yield Static("", id="my-name", classes="g-name")
        for color in self.variant.colors:
            yield ExpeditionColumn(color)
        with Vertical(id="deck-col"):
            yield Static("", classes="deck-spacer")
            deck = Zone("deck", None, id="deck")
            deck.border_title = "deck"
            yield deck
            yield Static("", classes="deck-spacer")

    def show(self, view: PlayerView) -> None:
        """Draw ``view``: only what its player may see."""
        self._view = view
        me = view.player
        totals = view.scores()
        set_text(self.query_one("#opp-name", Static), _short(self.names[me ^ 1], self.name_width))
        set_text(self.query_one("#my-name", Static), _short(self.names[me], self.name_width))
        set_text(self.query_one("#opp-total", Static), total_text(totals[me ^ 1]))
        set_text(self.query_one("#my-total", Static), total_text(totals[me]))
        for col in self.query(ExpeditionColumn):
            col.show(view)
        set_text(self.query_one("#deck", Zone), f"{view.deck_size:>3}")

    def mark(
        self,
        target: Color | None = None,
        sources: tuple[Color | None, ...] = (),
        blocked: Color | None = None,
    ) -> None:
        """Highlight the selected card's column, the legal draw sources and the blocked pile."""
        for col in self.query(ExpeditionColumn):
            col.set_class(col.color == target, "-target")
            pile = col.query_one(".pile", Zone)
            pile.set_class(col.color in sources, "-source")
            pile.set_class(col.color == blocked, "-blocked")
        self.query_one("#deck", Zone).set_class(None in sources, "-source")
