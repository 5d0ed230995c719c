"""What a live game's helpers read of it: the facts every one of them needs
(:class:`LiveFacts`), which each helper's own protocol extends with the rest it reads
(:class:`~lostcities.web.presenter.PresentedGame`,
:class:`~lostcities.web.scheduler.ScheduledGame`). A
:class:`~lostcities.web.live_game.LiveGame` is all of them."""

from __future__ import annotations

from typing import Protocol

from lostcities.match import Match
from lostcities.rules import Round
from lostcities.web.models.games import GameRow

__all__ = ["LiveFacts"]


class LiveFacts(Protocol):
    """A live game's stored row, its match, the round in play, who plays each seat and the
    move clock."""

    @property
    def row(self) -> GameRow: ...
    @property
    def match(self) -> Match: ...
    @property
    def round(self) -> Round: ...
    @property
    def round_index(self) -> int: ...
    def bot_spec(self, seat: int) -> str | None: ...
    def clock_left(self) -> float | None: ...
