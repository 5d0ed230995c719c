"""Error types of the rules core: one :class:`ValueError` subclass per kind of bad input.

Messages are lowercase, name the offending input with ``repr`` and say what is wrong,
e.g. ``illegal move: '+y5.' (y5 is lower than the last yellow card y7)``.
"""

from __future__ import annotations

__all__ = [
    "BotError",
    "BotTerminatedError",
    "BotTimeoutError",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidDeckError",
    "InvalidExpeditionError",
    "InvalidGoalError",
    "InvalidMoveError",
    "MissingDependencyError",
    "NoSuchPlyError",
    "NotYourTurnError",
    "TieBreakError",
    "UndoError",
    "UnknownVariantError",
]


class InvalidCardError(ValueError):
    """Text that is not a card (``'y11'``, ``'q3'``, ``''``)."""


class InvalidMoveError(ValueError):
    """Text that is not a move in notation (``'+y7'``, ``'*y7.'``)."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules forbid in the current position."""


class InvalidDeckError(ValueError):
    """A deck that is not exactly the cards of its variant."""


class InvalidExpeditionError(ValueError):
    """Cards that cannot form one expedition (descending, mixed colours, wager after a number)."""


class InvalidGoalError(ValueError):
    """A goal of the achievements variant, or a goal-set file, that cannot be read (the
    message names the line)."""


class UnknownVariantError(ValueError):
    """A variant name other than ``classic`` or ``long``."""


class TieBreakError(ValueError):
    """A tie-break setting that cannot be used (an unknown rule, ``youngest`` without the
    younger seat)."""


class NotYourTurnError(ValueError):
    """A move submitted for a seat that is not to move, or after the round ended."""


class UndoError(ValueError):
    """An undo that is not allowed now (nothing to undo, the other side already replied)."""


class NoSuchPlyError(ValueError):
    """A ply (a count of moves) that a round's history does not have."""


class MissingDependencyError(ValueError):
    """An optional package a command needs is not installed; the message names the package
    and the extra that brings it, e.g. ``this needs 'matplotlib': pip install
    'lostcities[arena]'`` (the arena's plots, ``lostcities train``)."""


class BotError(RuntimeError):
    """A player (bot) failed to give a legal move: it crashed, answered garbage or an
    illegal move. The referee turns it into a forfeit."""


class BotTerminatedError(BotError):
    """An external bot's process died."""


class BotTimeoutError(BotError):
    """A bot did not answer within its time limit."""
