"""The errors of ``lostcities train``: each a :class:`ValueError`, with a one-line message."""

from __future__ import annotations

from lostcities.errors import MissingDependencyError  # one home; importable from here too

__all__ = ["InvalidShardError", "MissingDependencyError", "RunDirectoryError", "TrainOptionError"]


class TrainOptionError(ValueError):
    """A training option out of range (``--worlds 0``, ``--hidden 0``, ...)."""


class RunDirectoryError(ValueError):
    """A run directory that cannot be used: not a directory, a finished or foreign run
    without ``--resume``, ``--resume`` of no run, or options that differ from the run's."""


class InvalidShardError(ValueError):
    """A data shard that is missing, unreadable or of another layout."""
