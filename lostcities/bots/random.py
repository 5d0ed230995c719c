"""``random``: uniform over the distinct legal moves; reproducible with a seed."""

from __future__ import annotations

from lostcities.bots.base import Bot, BotError
from lostcities.rules import Move, PlayerView

__all__ = ["RandomBot"]


class RandomBot(Bot):
    """Picks uniformly among the legal moves with its own seeded rng.

    >>> from lostcities import Round
    >>> r = Round.deal(seed=3)
    >>> RandomBot(seed=1).choose(r.view(0)) in r.legal_moves()
    True
    """

    name = "random"

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        moves = view.legal_moves()
        if not moves:
            raise BotError("random: no legal move (not this bot's turn?)")
        return moves[self.rng.randrange(len(moves))]
