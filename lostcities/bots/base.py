"""The bot interface: a bot sees only a :class:`~lostcities.PlayerView` and returns a move.

The shape follows OpenSpiel's ``pyspiel.Bot``: :meth:`Bot.restart` before each round,
:meth:`Bot.choose` when it is to move, :meth:`Bot.inform` after every move of either player.
"""

from __future__ import annotations

import abc
import random

from lostcities.cards import Variant
from lostcities.errors import BotError, BotTerminatedError, BotTimeoutError
from lostcities.rules import Move, PlayerView

__all__ = ["Bot", "BotError", "BotSpecError", "BotTerminatedError", "BotTimeoutError"]


class BotSpecError(ValueError):
    """A bot spec string that names no bot or has bad options (``'ismcts:iters=-1'``)."""


class Bot(abc.ABC):
    """A player. Subclasses implement :meth:`choose`; the rest is optional."""

    name: str = "bot"
    """The spec name (``random``, ``heuristic``, ...)."""
    spec: str = ""
    """The full spec string this bot was made from."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int | None = None) -> Bot:
        """Build the bot from spec options (``{'time': '0.5'}``). Subclasses that take options
        override this; the default accepts none.

        :raises BotSpecError: for an unknown or bad option.
        """
        if options:
            bad = ", ".join(sorted(options))
            raise BotSpecError(f"invalid bot spec: {cls.name!r} takes no option {bad}")
        return cls(seed=seed)

    def restart(self, variant: Variant, seat: int) -> None:  # noqa: B027 - optional hook
        """A new round starts; this bot plays ``seat``."""

    @abc.abstractmethod
    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        """Return a legal move for ``view`` (it is this bot's turn), within ``time_limit``
        seconds when given.

        :raises BotError: if the bot cannot give a legal move.
        """

    def inform(self, move: Move, player: int) -> None:  # noqa: B027 - optional hook
        """``player`` made ``move`` (called for both players' moves)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (processes, threads)."""

    def __enter__(self) -> Bot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec or self.name!r}>"
