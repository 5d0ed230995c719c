"""Playing for the match: the value of a round's result is the chance it gives of winning
the match, not its margin.

Inside a match a view carries its :class:`~lostcities.MatchContext` (the round, the rounds
left, both totals so far). :func:`match_utility` turns a round's final margin into the
viewer's match value on the search bots' reward scale, -1 .. 1: twice the chance of winning
the match, counting a draw half, minus one. The rounds still to come are modelled as a
sum of independent margins of mean 0 and standard deviation ``sd`` each
(:data:`ROUND_MARGIN_SD`, measured from self-play), so the match is won with probability
``Phi((lead + margin) / spread)``, the spread being ``sqrt(rounds_left * sd**2 +
floor**2)``; the floor (:data:`LAST_ROUND_FLOOR`) keeps the last round's step from a
lost to a won match smooth, so the search still tells a likelier win from a less likely
one, and a small share (:data:`MARGIN_WEIGHT`) of the usual ``tanh(margin / scale)``
breaks the ties where the match is decided either way.

A leader in the last round so protects the lead (a world won by 5 is worth nearly as much
as one won by 50), a trailer takes the risks that may make up the gap, and in the first
rounds, with the outcome far off, the value is nearly linear in the margin.

>>> from lostcities import MatchContext
>>> last = MatchContext(round=3, rounds=3, totals=(30, 0), player=0)
>>> round(match_utility(-10, last), 2), round(match_utility(-40, last), 2)
(0.88, -0.7)
>>> first = MatchContext(round=1, rounds=3, totals=(0, 0), player=0)
>>> round(match_utility(10, first), 2), round(match_utility(-10, first), 2)
(0.18, -0.18)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from lostcities.bots.flat import PythonFlatSearch
from lostcities.rules import MatchContext, Move, PlayerView, Round
from lostcities.scoring import MARGIN_SCALE

__all__ = [
    "LAST_ROUND_FLOOR",
    "MARGIN_WEIGHT",
    "ROUND_MARGIN_SD",
    "flat_match_totals",
    "match_reward",
    "match_utility",
    "points_per_utility",
]

ROUND_MARGIN_SD = 35.0
"""The standard deviation of one round's margin between two bots of about equal
strength, in points: 34.4 over 120 rounds of ``expert:iters=1000`` self-play, 39.1 over
2,000 rounds of ``heuristic`` self-play (duplicate deals; docs/performance.md)."""

LAST_ROUND_FLOOR = 10.0
"""The spread (points) left in the last round, where no round is to come: the step from a
lost to a won match, smoothed over about this many points."""

MARGIN_WEIGHT = 0.05
"""The share of ``tanh(margin / scale)`` in the match value (ties where the match is
decided either way go to the larger margin)."""

_SQRT2 = math.sqrt(2.0)


def match_utility(
    margin: int,
    context: MatchContext,
    *,
    sd: float = ROUND_MARGIN_SD,
    floor: float = LAST_ROUND_FLOOR,
    scale: float = MARGIN_SCALE,
    weight: float = MARGIN_WEIGHT,
) -> float:
    """The viewer's match value, -1 .. 1, of ending this round ``margin`` points ahead
    (own score minus the opponent's; see the module docs).

    A tie-break that gives equal totals to one seat counts half a point for or against
    the viewer. The value is antisymmetric: the opponent's is its negation.

    >>> from lostcities import MatchContext
    >>> c = MatchContext(round=2, rounds=3, totals=(10, 25), player=1)
    >>> match_utility(5, c) == -match_utility(-5, MatchContext(2, 3, (10, 25), 0))
    True
    """
    spread = math.sqrt(context.rounds_left * sd * sd + floor * floor)
    x = (context.lead + margin + 0.5 * context.tie_value) / (spread * _SQRT2)
    return (1.0 - weight) * math.erf(x) + weight * math.tanh(margin / scale)


def points_per_utility(
    context: MatchContext, *, sd: float = ROUND_MARGIN_SD, floor: float = LAST_ROUND_FLOOR
) -> float:
    """Points of margin worth one unit of :func:`match_utility` where the match is even
    (the inverse of its slope there): a search that scores its moves in points (``expert``
    with network rollouts) reads the match value back as points with it.

    >>> round(points_per_utility(MatchContext(round=1, rounds=3, totals=(0, 0), player=0)), 1)
    63.3
    """
    spread = math.sqrt(context.rounds_left * sd * sd + floor * floor)
    return spread * math.sqrt(math.pi / 2)


def match_reward(
    context: MatchContext | None,
    *,
    sd: float = ROUND_MARGIN_SD,
    scale: float = MARGIN_SCALE,
) -> Callable[[int], float] | None:
    """The reward of a round's margin for a search in ``context`` (:func:`match_utility`),
    or ``None`` without a context (a lone round: the search keeps its own reward)."""
    if context is None:
        return None
    ctx = context

    def reward(margin: int) -> float:
        return match_utility(margin, ctx, sd=sd, scale=scale)

    return reward


def flat_match_totals(
    view: PlayerView,
    candidates: Sequence[Move],
    worlds: int,
    rng: random.Random,
    reward: Callable[[int], float],
    play: Callable[[Round], tuple[int, int]],
) -> list[float]:
    """The flat search of the Python engine with the reward a function of the margin:
    each of ``worlds`` worlds (drawn from ``rng`` as
    :func:`lostcities.bots.ismcts.flat_totals` draws them) is played out with ``play``
    after every candidate, and ``reward(margin)`` of each is summed per candidate
    (:class:`lostcities.bots.flat.PythonFlatSearch` with ``reward`` and ``play``)."""
    if not candidates:
        return []
    search = PythonFlatSearch(view, candidates, rng=rng, reward=reward, play=play)
    search.run(worlds)
    return search.value_sums
