"""lostcities: the exact rules of Reiner Knizia's Lost Cities, as a library.

>>> import lostcities
>>> r = lostcities.Round.deal(seed=1)
>>> r.push(r.legal_moves()[0])
>>> len(r.history)
1
>>> lostcities.expedition_score(["y2", "y4", "y6", "y9", "y10"])
11

The core (this package's top-level modules) uses only the standard library; bots, the
protocol, the arena, the web app, the terminal UI and the RL environments are subpackages
that import it, never the reverse.
"""

from __future__ import annotations

from lostcities.achievements import DEFAULT_GOALS, Goal, GoalBoard, GoalSet, load_goals
from lostcities.cards import (
    ALL_CARDS,
    CLASSIC,
    COLORS,
    LONG,
    RANKS,
    VARIANTS,
    WAGER,
    Card,
    Color,
    Variant,
    get_variant,
    parse_cards,
)
from lostcities.errors import (
    IllegalMoveError,
    InvalidCardError,
    InvalidDeckError,
    InvalidExpeditionError,
    InvalidGoalError,
    InvalidMoveError,
    UnknownVariantError,
)
from lostcities.match import Match, round_seed
from lostcities.rules import (
    NUM_MOVES,
    PLAYABLE,
    Action,
    ColorMap,
    LegalMoves,
    MatchContext,
    Move,
    PlayerView,
    Round,
    RoundOutcome,
    RoundTables,
    Termination,
    WorldSampler,
    playable,
)
from lostcities.scoring import (
    ExpeditionScore,
    check_expedition,
    expedition_score,
    parse_score_sheet,
    raw_score,
    score_expedition,
    sheet_total,
)

__version__ = "0.3.0"

__all__ = [
    "ALL_CARDS",
    "CLASSIC",
    "COLORS",
    "DEFAULT_GOALS",
    "LONG",
    "NUM_MOVES",
    "PLAYABLE",
    "RANKS",
    "VARIANTS",
    "WAGER",
    "Action",
    "Card",
    "Color",
    "ColorMap",
    "ExpeditionScore",
    "Goal",
    "GoalBoard",
    "GoalSet",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidDeckError",
    "InvalidExpeditionError",
    "InvalidGoalError",
    "InvalidMoveError",
    "LegalMoves",
    "Match",
    "MatchContext",
    "Move",
    "PlayerView",
    "Round",
    "RoundOutcome",
    "RoundTables",
    "Termination",
    "UnknownVariantError",
    "Variant",
    "WorldSampler",
    "__version__",
    "check_expedition",
    "expedition_score",
    "get_variant",
    "load_goals",
    "parse_cards",
    "parse_score_sheet",
    "playable",
    "raw_score",
    "round_seed",
    "score_expedition",
    "sheet_total",
]
