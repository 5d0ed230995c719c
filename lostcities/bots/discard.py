"""``discard``: never plays onto an expedition, so it always scores 0.

The sanity floor every real bot must beat: it discards a random card and draws from the
draw pile (or, if that is impossible, a random legal source).
"""

from __future__ import annotations

from lostcities.bots.base import Bot, BotError
from lostcities.rules import Action, Move, PlayerView

__all__ = ["DiscardBot"]


class DiscardBot(Bot):
    """Discards a random card and draws from the draw pile.

    >>> from lostcities import Round
    >>> r = Round.deal(seed=3)
    >>> DiscardBot(seed=1).choose(r.view(0)).action
    <Action.DISCARD: '-'>
    """

    name = "discard"

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        moves = view.legal_moves()
        cards = moves.cards(Action.DISCARD)
        if not cards:
            raise BotError("discard: no legal move (not this bot's turn?)")
        card = cards[self.rng.randrange(len(cards))]
        return Move.discard(card)
