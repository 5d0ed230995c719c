"""Which challenges ``lostcities connect`` accepts, and the reason it declines the others
with (the reasons of docs/bot-api.md, ``POST /api/bot/challenge/{id}/decline``).

A policy is pure data: :meth:`ChallengePolicy.decline_reason` reads a challenge as the
event stream sends it and returns ``None`` (accept) or the reason.

>>> policy = ChallengePolicy(variants=frozenset({"classic"}), clocks=parse_clocks("60..600"))
>>> challenge = {"variant": "classic", "rounds": 3, "clock": "300+5", "rated": True,
...              "challenger": {"name": "ana", "bot": False}}
>>> policy.decline_reason(challenge, running=0) is None
True
>>> policy.decline_reason({**challenge, "variant": "long"}, running=0)
'variant'
>>> policy.decline_reason({**challenge, "clock": "3d"}, running=0)
'tooSlow'
>>> policy.decline_reason(challenge, running=1)
'later'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DECLINE_REASONS",
    "VARIANTS",
    "ChallengePolicy",
    "ClockRange",
    "ClockSpecError",
    "clock_name",
    "clock_seconds",
    "parse_clocks",
]

VARIANTS = ("classic", "long")
"""The variants a server offers."""

DECLINE_REASONS = (
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "variant",
    "noBot",
    "onlyBot",
)
"""The reasons a challenge may be declined with (docs/bot-api.md)."""

DAY = 86_400
"""Seconds in a day: a correspondence clock's unit (``"3d"``)."""

OPEN = 1e18
"""The high end of a range left open: every clock, but not "no clock" (``inf``)."""

_CLOCK = re.compile(r"^(?:(\d+)|(\d+)\+(\d+)|(\d+)d)$")


class ClockSpecError(ValueError):
    """A ``--clocks`` item that is no clock and no range (``fast``, ``60..30``)."""


def clock_name(clock: object) -> str:
    """A challenge's clock as one word: ``"60"`` (seconds per move), ``"300+5"`` (a match
    clock), ``"3d"`` (correspondence), ``"none"`` (no clock).

    >>> clock_name(60), clock_name("300+5"), clock_name(None), clock_name("3d")
    ('60', '300+5', 'none', '3d')
    """
    if clock is None:
        return "none"
    return str(clock).strip().lower()


def clock_seconds(clock: object) -> float:
    """The seconds a clock gives: a per-move clock's seconds, a match clock's base time, a
    correspondence clock's days in seconds; no clock is endless (``inf``); a clock this
    client cannot read is ``nan`` (no range holds it).

    >>> clock_seconds(60), clock_seconds("300+5"), clock_seconds("1d"), clock_seconds(None)
    (60.0, 300.0, 86400.0, inf)
    """
    name = clock_name(clock)
    if name == "none":
        return math.inf
    m = _CLOCK.match(name)
    if m is None:
        return math.nan
    per_move, base, _, days = m.groups()
    if per_move is not None:
        return float(per_move)
    if base is not None:
        return float(base)
    return float(int(days) * DAY)


@dataclass(frozen=True)
class ClockRange:
    """Clocks whose :func:`clock_seconds` lie in ``[low, high]`` (an exact clock is the
    range of its own seconds, kept with its name so that ``300+5`` does not admit
    ``300+10``)."""

    low: float
    high: float
    name: str | None = None
    """An exact clock's name (``None``: every clock in the range)."""

    def holds(self, clock: object) -> bool:
        """Whether ``clock`` is in this range (or is this exact clock)."""
        if self.name is not None:
            return clock_name(clock) == self.name
        return self.low <= clock_seconds(clock) <= self.high


def _seconds(text: str, item: str) -> float:
    m = _CLOCK.match(text)
    if m is None or "+" in text:
        raise ClockSpecError(f"invalid clock range: {item!r} (the ends are seconds, or days as 3d)")
    return clock_seconds(text)


def parse_clocks(text: str) -> tuple[ClockRange, ...]:
    """``--clocks``: a comma list of clocks (``60``, ``300+5``, ``3d``, ``none``), ranges
    of seconds ``LOW..HIGH`` (either end may be left out; an end may be days, ``1d``),
    ``correspondence`` (every clock of whole days) or ``any``. A match clock's seconds are
    its base time.

    >>> [r.holds(180) for r in parse_clocks("..120,300+5")]
    [False, False]
    >>> parse_clocks("any")[0].holds(None), parse_clocks("300+5")[0].holds("300+10")
    (True, False)
    >>> parse_clocks("5..1")
    Traceback (most recent call last):
    ...
    lostcities.connect.policy.ClockSpecError: invalid clock range: '5..1' (its low end is above its high end)

    :raises ClockSpecError: for an item that is neither.
    """
    ranges: list[ClockRange] = []
    for raw in text.split(","):
        item = raw.strip().lower()
        if not item:
            continue
        if item == "any":
            ranges.append(ClockRange(0.0, math.inf))
        elif item == "correspondence":
            ranges.append(ClockRange(float(DAY), OPEN))
        elif item == "none":
            ranges.append(ClockRange(math.inf, math.inf, "none"))
        elif ".." in item:
            lo, _, hi = item.partition("..")
            low = _seconds(lo, item) if lo else 0.0
            high = _seconds(hi, item) if hi else OPEN
            if low > high:
                raise ClockSpecError(
                    f"invalid clock range: {item!r} (its low end is above its high end)"
                )
            ranges.append(ClockRange(low, high))
        elif _CLOCK.match(item):
            seconds = clock_seconds(item)
            ranges.append(ClockRange(seconds, seconds, item))
        else:
            raise ClockSpecError(
                f"invalid clock: {item!r} (expected 60, 300+5, 3d, none, LOW..HIGH,"
                " correspondence or any)"
            )
    if not ranges:
        raise ClockSpecError(f"invalid clocks: {text!r} (no clock given)")
    return tuple(ranges)


@dataclass(frozen=True)
class ChallengePolicy:
    """What ``lostcities connect`` accepts (each field's default accepts everything but
    more than one game at once)."""

    variants: frozenset[str] = frozenset(VARIANTS)
    """The variants accepted (else ``variant``)."""
    clocks: tuple[ClockRange, ...] = (ClockRange(0.0, math.inf),)
    """The clocks accepted (else ``tooFast``, ``tooSlow`` or ``timeControl``)."""
    rounds: frozenset[int] | None = None
    """The match lengths accepted (``None``: any; else ``generic``)."""
    rated: bool = True
    """Whether rated challenges are accepted (else ``casual``: send a casual one)."""
    casual: bool = True
    """Whether casual challenges are accepted (else ``rated``: send a rated one)."""
    bots: bool = True
    """Whether challenges from bots are accepted (else ``noBot``)."""
    people: bool = True
    """Whether challenges from people are accepted (else ``onlyBot``)."""
    max_games: int = 1
    """The most games played at once (a challenge beyond it: ``later``)."""
    exclude: frozenset[str] = field(default_factory=frozenset)
    """Names (lower case) never accepted (``generic``)."""

    def decline_reason(self, challenge: Mapping[str, Any], running: int) -> str | None:
        """``None`` to accept ``challenge`` (a challenge object of the event stream) while
        ``running`` games are being played, else the decline reason."""
        challenger = challenge.get("challenger") or {}
        is_bot = bool(challenger.get("bot")) if isinstance(challenger, Mapping) else False
        name = str(challenger.get("name", "")) if isinstance(challenger, Mapping) else ""
        if name.lower() in self.exclude:
            return "generic"
        if is_bot and not self.bots:
            return "noBot"
        if not is_bot and not self.people:
            return "onlyBot"
        if challenge.get("variant") not in self.variants:
            return "variant"
        rated = bool(challenge.get("rated"))
        if rated and not self.rated:
            return "casual"
        if not rated and not self.casual:
            return "rated"
        clock_reason = self.clock_reason(challenge.get("clock"))
        if clock_reason is not None:
            return clock_reason
        if self.rounds is not None and challenge.get("rounds") not in self.rounds:
            return "generic"
        if running >= self.max_games:
            return "later"
        return None

    def clock_reason(self, clock: object) -> str | None:
        """``None`` if ``clock`` is accepted; else ``tooFast`` when it gives less time than
        every accepted clock, ``tooSlow`` when more, ``timeControl`` otherwise."""
        if any(r.holds(clock) for r in self.clocks):
            return None
        seconds = clock_seconds(clock)
        if math.isnan(seconds):
            return "timeControl"
        if all(seconds < r.low for r in self.clocks):
            return "tooFast"
        if all(seconds > r.high for r in self.clocks):
            return "tooSlow"
        return "timeControl"
