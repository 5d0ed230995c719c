"""The layout of the policy network's input: named offsets of its 608 numbers.

Two writers fill this layout and must agree cell for cell: :func:`lostcities.nn.features.features`
(NumPy, from a :class:`~lostcities.PlayerView`) and
:func:`lostcities.fast.vector.net_features` (compiled, from the fast path's array state;
``tests/envs/test_vector.py`` checks the two are equal). ``nn`` and ``fast`` may import
only the core, so the one layout lives here, standard library only, beside the rules.

Cards are counted by *kind* (:attr:`lostcities.Card.index`: 10 per colour, the wager, then
2 .. 10), 60 kinds in all; a block of :data:`KINDS` cells has one per kind. The per-colour
block has :data:`PER_COLOUR` cells per colour, the viewer's figure first and the
opponent's at the next cell where there are two.

>>> COLOUR + 2 * PER_COLOUR + COLOUR_TOP + 1  # the opponent's top of colour 2
563
>>> GLOBAL + GLOBAL_SIZE == NUM_FEATURES == 608
True
"""

from __future__ import annotations

__all__ = [
    "COLOUR",
    "COLOURS",
    "COLOUR_HAND_SUM",
    "COLOUR_SCORE",
    "COLOUR_STARTED",
    "COLOUR_TOP",
    "COLOUR_UNSEEN_SUM",
    "COLOUR_WAGERS",
    "DISCARDS",
    "DISCARD_TOPS",
    "GLOBAL",
    "GLOBAL_DECK",
    "GLOBAL_LONG",
    "GLOBAL_MARGIN",
    "GLOBAL_OPP_TOTAL",
    "GLOBAL_OWN_KNOWN",
    "GLOBAL_OWN_TOTAL",
    "GLOBAL_PLY",
    "GLOBAL_SIZE",
    "GLOBAL_TURNS_LEFT",
    "HAND",
    "KINDS",
    "NUM_FEATURES",
    "OPP_EXPEDITIONS",
    "OPP_KNOWN",
    "OPP_PLAYABLE",
    "OWN_EXPEDITIONS",
    "PER_COLOUR",
    "PLAYABLE",
    "UNSEEN",
]

KINDS = 60
"""Card kinds: the cells of a per-kind block."""
COLOURS = 6
"""Colours with cells (the classic game leaves the sixth at zero)."""

# -- per-kind blocks (60 cells each) ---------------------------------------------------------
HAND = 0
"""Own hand: cards per kind."""
OWN_EXPEDITIONS = 60
"""Own expeditions: cards per kind."""
OPP_EXPEDITIONS = 120
"""The opponent's expeditions: cards per kind."""
DISCARDS = 180
"""Every card in the discard piles, per kind."""
DISCARD_TOPS = 240
"""The top card of each discard pile (one-hot by kind)."""
OPP_KNOWN = 300
"""Cards the opponent is known to hold, per kind."""
UNSEEN = 360
"""Cards not seen (the opponent's hidden hand or the draw pile), per kind."""
PLAYABLE = 420
"""Own hand cards playable now, per kind."""
OPP_PLAYABLE = 480
"""Unseen cards and pile tops the opponent could play now, per kind."""

# -- per colour (10 cells each) ----------------------------------------------------------------
COLOUR = 540
"""The per-colour block: colour ``c``'s cells start at ``COLOUR + c * PER_COLOUR``."""
PER_COLOUR = 10
"""Cells per colour."""
COLOUR_SCORE = 0
"""An expedition's score / 50 (own; the opponent's at + 1)."""
COLOUR_TOP = 2
"""Its highest number / 10 (own; the opponent's at + 1)."""
COLOUR_WAGERS = 4
"""Its wagers / 3 (own; the opponent's at + 1)."""
COLOUR_STARTED = 6
"""1 when it is started (own; the opponent's at + 1)."""
COLOUR_HAND_SUM = 8
"""The ranks of own playable hand cards of the colour, summed, / 50."""
COLOUR_UNSEEN_SUM = 9
"""The ranks of unseen cards the viewer could play, summed, / 50."""

# -- the whole position (8 cells) --------------------------------------------------------------
GLOBAL = COLOUR + COLOURS * PER_COLOUR
"""The global block (600)."""
GLOBAL_DECK = 0
"""Cards in the draw pile / 50."""
GLOBAL_TURNS_LEFT = 1
"""The viewer's turns left at most, ``(deck + 1) // 2``, / 25."""
GLOBAL_OWN_TOTAL = 2
"""Own points as the expeditions stand / 100."""
GLOBAL_OPP_TOTAL = 3
"""The opponent's / 100."""
GLOBAL_MARGIN = 4
"""Own minus the opponent's / 100."""
GLOBAL_OWN_KNOWN = 5
"""Own hand cards the opponent knows of / 8."""
GLOBAL_LONG = 6
"""1 in the long (six-colour) game."""
GLOBAL_PLY = 7
"""Moves made in the round / 100."""
GLOBAL_SIZE = 8
"""Cells of the global block."""

NUM_FEATURES = GLOBAL + GLOBAL_SIZE
"""Length of the input (608)."""
