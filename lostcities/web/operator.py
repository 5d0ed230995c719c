"""What the operator's commands (``lostcities users``, ``lostcities comments``) share: the
web app's existing database, opened for the command and closed after it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lostcities.web.store import GameStore, require_existing_database

__all__ = ["operator_store"]


@contextmanager
def operator_store(url: str) -> Iterator[GameStore]:
    """The store of the database at ``url``, its tables made sure of, closed when the
    block ends. A SQLite URL whose file does not exist is refused before anything opens
    it (:func:`~lostcities.web.store.require_existing_database`): nothing is created.

    :raises StorageError: for a database that cannot be used, or no database at all.
    """
    require_existing_database(url)
    store = GameStore(url)
    try:
        store.create_tables()
        yield store
    finally:
        store.close()
