"""The viewer's hand: sorted cards, the playable ones marked ``✓``, one selected."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from lostcities.cards import Card
from lostcities.tui.widgets.board import set_text
from lostcities.tui.widgets.cards import card_label, color_class

__all__ = ["Hand", "HandCard"]


class HandCard(Static):
    """One card of the hand (a click selects it)."""

    def __init__(self, index: int) -> None:
        super().__init__("", classes="card")
        self.index = index
        self.card: Card | None = None

    def set_card(self, card: Card | None, playable: bool, selected: bool) -> None:
        """Show ``card`` (or nothing)."""
        want = color_class(card.color) if card is not None else ""
        for cls in list(self.classes):
            if cls.startswith("c-") and cls != want:
                self.remove_class(cls)
        self.card = card
        if self.display != (card is not None):
            self.display = card is not None
        if card is None:
            return
        self.add_class(want)
        self.set_class(playable, "-playable")
        self.set_class(selected, "-selected")
        mark = "✓" if playable else " "
        set_text(self, f"{card_label(card):<4} {mark}")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(Hand.Picked(self.index))


class Hand(Horizontal, can_focus=True):
    """The hand; focusable so that the board's keys reach the game screen."""

    class Picked(Message):
        """A card was clicked."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index
            """Its position in the sorted hand."""

    def __init__(self, size: int = 8, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.size_ = size

    def compose(self) -> ComposeResult:
        for i in range(self.size_):
            yield HandCard(i)

    def show(
        self, cards: tuple[Card, ...], playable: frozenset[Card], selected: int | None
    ) -> None:
        """Show the sorted ``cards``, marking ``playable`` ones and the ``selected`` index."""
        for w in self.query(HandCard):
            i = w.index
            card = cards[i] if i < len(cards) else None
            w.set_card(card, card in playable if card else False, i == selected)
