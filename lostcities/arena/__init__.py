"""The arena: bots play each other on duplicate deals, and the results are rated honestly.

Each deal ``i`` of a match is dealt from a seed derived from the match seed and ``i`` (the
starter too) and played twice, the bots swapping seats, so the luck of the deal cancels.
Deals run in worker processes, on this machine or on a Ray cluster
(:mod:`~lostcities.arena.cluster`); bots are made inside the workers from their specs, with
seeds derived from the match seed, the deal and the seat, so the same seed and bots give
the same results whatever the number of workers (bots limited by time excepted).

The referee is :class:`lostcities.referee.Referee` (:func:`play_round` calls it): it gives
each bot only its :class:`~lostcities.PlayerView` and checks every move with the rules. A
bot that crashes, times out, or answers with garbage or an illegal move forfeits the round,
with the reason recorded, and the match goes on.

The package is the engine (:mod:`~lostcities.arena.engine`, :mod:`~lostcities.arena.results`:
no printing, no rich, no matplotlib); :mod:`lostcities.arena.report` holds the tables, the
progress bar, the ladder plot and the ``lostcities match``/``tournament`` commands. Its
public names are importable from here too, loaded on first use.

>>> result = play_match("random", "discard", deals=3, seed=1, jobs=1)
>>> result.rounds, result.a_wins + result.b_wins + result.draws
(6, 6)
>>> sorted(result.to_dict())[:4]
['a', 'a_forfeits', 'a_win_rate', 'a_win_rate_ci95']

Whole matches of several rounds (:mod:`~lostcities.arena.matches`), each played twice on
the same deals with the seats swapped, give the match win rate beside the round figures:

>>> result = play_matches("heuristic", "random", matches=1, rounds=2, seed=1, jobs=1)
>>> result.whole.matches, result.whole.a_win_rate, result.rounds
(2, 1.0, 4)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from lostcities.arena.cluster import LOCAL, Backend, ClusterError
from lostcities.arena.engine import (
    MatchConfig,
    check_spec,
    configure_logging,
    deal_pair,
    deal_seed,
    derive_seed,
    goal_pool,
    play_match,
    play_round,
    play_tournament,
    unique_labels,
)
from lostcities.arena.matches import MatchesConfig, play_matches
from lostcities.arena.results import (
    SPRT_MIN_DEALS,
    MatchGame,
    MatchResult,
    RoundResult,
    TournamentResult,
    WholeMatches,
)
from lostcities.errors import MissingDependencyError

if TYPE_CHECKING:
    from lostcities.arena.report import (
        cli_match,
        cli_tournament,
        plot_ladder,
    )

__all__ = [
    "LOCAL",
    "SPRT_MIN_DEALS",
    "Backend",
    "ClusterError",
    "MatchConfig",
    "MatchGame",
    "MatchResult",
    "MatchesConfig",
    "MissingDependencyError",
    "RoundResult",
    "TournamentResult",
    "WholeMatches",
    "check_spec",
    "cli_match",
    "cli_tournament",
    "configure_logging",
    "deal_pair",
    "deal_seed",
    "derive_seed",
    "goal_pool",
    "play_match",
    "play_matches",
    "play_round",
    "play_tournament",
    "plot_ladder",
    "unique_labels",
]

_REPORT = frozenset({"cli_match", "cli_tournament", "plot_ladder"})


def __getattr__(name: str) -> Any:
    """The report's names, imported on first use (the engine loads no presentation code)."""
    if name in _REPORT:
        return getattr(importlib.import_module("lostcities.arena.report"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
