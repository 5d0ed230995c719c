"""The web store's schema migrations, with Alembic.

The revisions live in ``versions/`` beside this file (shipped in the package). The first,
the *baseline*, is the schema of the last release before Alembic; it also adopts a
database made before then (no ``alembic_version`` table): the tables it lacks are made,
the columns its tables lack are added, and it is stamped. :func:`upgrade` brings a
database to the newest revision, under a lock so that several server processes starting
together upgrade it once: PostgreSQL's ``pg_advisory_xact_lock``, SQLite's write lock
(``BEGIN IMMEDIATE``); the whole upgrade is one transaction on both.

``lostcities serve`` upgrades its database at start (``GameStore.create_tables``); by hand:
``python -m lostcities.web.migrations upgrade --db URL`` (docs/deploy.md).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

__all__ = [
    "LOCK_KEY",
    "NewerSchemaError",
    "SCRIPT_LOCATION",
    "UnknownLayoutError",
    "Upgrade",
    "config",
    "current",
    "default_schema",
    "downgrade",
    "head",
    "upgrade",
]

log = logging.getLogger("lostcities.web")

SCRIPT_LOCATION = str(Path(__file__).resolve().parent)
"""The Alembic script directory: ``env.py``, ``script.py.mako`` and ``versions/``."""

LOCK_KEY = 0x4C43_4D47  # "LCMG"
"""The first key of the PostgreSQL advisory lock held while a schema is upgraded (the
second is a hash of the schema's name, so that schemas of one database do not wait on
each other)."""


_IN_PROCESS = threading.Lock()
"""Alembic's ``op`` and ``context`` are module globals: one migration at a time in a process."""


class UnknownLayoutError(ValueError):
    """A database whose tables are not a layout any version of lostcities made (a table
    lacks a column that every version had): the migrations leave it alone."""


class NewerSchemaError(ValueError):
    """A database at a revision this version does not know: a newer lostcities upgraded
    it (upgrade this one too)."""


@dataclass(frozen=True)
class Upgrade:
    """What :func:`upgrade` (or :func:`downgrade`) did."""

    before: str | None
    """The revision the database was at (``None``: empty, or made before Alembic)."""
    after: str | None
    """The revision it is at now."""
    adopted: bool
    """Whether it was a database from before Alembic (tables but no revision)."""

    def __str__(self) -> str:
        """What happened, in words.

        >>> print(Upgrade("0001", "0002", adopted=False))
        moved from revision 0001 to 0002
        """
        if not self.changed:
            return f"at revision {self.after}"
        if self.adopted:
            return f"a database from before the migrations, upgraded to revision {self.after}"
        if self.before is None:
            return f"made at revision {self.after}"
        if self.after is None:
            return f"emptied (revision {self.before} undone)"
        return f"moved from revision {self.before} to {self.after}"

    @property
    def changed(self) -> bool:
        """Whether the schema changed.

        >>> Upgrade(None, "0001", adopted=True).changed
        True
        """
        return self.before != self.after


def config(connection: Connection | None = None) -> Config:
    """The Alembic configuration of the web store (no ``alembic.ini``): the script
    directory inside the package, and ``connection`` for ``env.py`` to migrate."""
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    # revision files: valid module names (a hex revision may start with a digit)
    cfg.set_main_option("file_template", "rev_%%(rev)s_%%(slug)s")
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision this version knows."""
    rev = ScriptDirectory.from_config(config()).get_current_head()
    assert rev is not None  # one line of revisions, never empty
    return rev


def default_schema(conn: Connection) -> str | None:
    """The schema the store's tables go to on ``conn``: the one a ``schema_translate_map``
    maps the default to (``GameStore(schema=...)``), else ``None`` (the connection's)."""
    mapping = conn.get_execution_options().get("schema_translate_map") or {}
    schema = mapping.get(None)
    return None if schema is None else str(schema)


def current(conn: Connection) -> tuple[str, ...]:
    """The revisions ``conn``'s database is at (``()``: none, empty or from before Alembic)."""
    ctx = MigrationContext.configure(conn, opts={"version_table_schema": default_schema(conn)})
    return tuple(ctx.get_current_heads())


def _lock(conn: Connection) -> None:
    """Hold the upgrade lock until ``conn``'s transaction ends."""
    if conn.dialect.name == "postgresql":
        conn.execute(
            text(
                "SELECT pg_advisory_xact_lock(:key, hashtext(coalesce(CAST(:schema AS text), current_schema())))"
            ),
            {"key": LOCK_KEY, "schema": default_schema(conn)},
        )
    elif conn.dialect.name == "sqlite":
        # pysqlite begins no transaction before DDL: begin one that holds the write lock
        # (waits up to the busy timeout for another process's)
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def upgrade(engine: Engine, revision: str = "head") -> Upgrade:
    """Upgrade the database of ``engine`` to ``revision``, in one transaction, holding
    the upgrade lock (a process that waited on it finds the work done).

    :raises NewerSchemaError: for a database at a revision this version does not know.
    :raises UnknownLayoutError: for tables that no version of lostcities made.
    :raises sqlalchemy.exc.SQLAlchemyError: if the database cannot be reached.
    """
    return _migrate(engine, revision, command.upgrade)


def downgrade(engine: Engine, revision: str) -> Upgrade:
    """Take the database of ``engine`` back to ``revision`` (``"base"``: no tables; the
    data of what is undone is lost), like :func:`upgrade`."""
    return _migrate(engine, revision, command.downgrade)


def _migrate(engine: Engine, revision: str, step: Callable[[Config, str], None]) -> Upgrade:
    known = {s.revision for s in ScriptDirectory.from_config(config()).walk_revisions()}
    with _IN_PROCESS, engine.connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        if sqlite:
            # a migration that rebuilds a table (batch mode) drops the old one: with
            # foreign keys on, that would delete the rows referring to it. Only outside a
            # transaction does the pragma take effect.
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
            conn.commit()
        try:
            with conn.begin():
                _lock(conn)
                before = current(conn)
                newer = sorted(set(before) - known)
                if newer:
                    raise NewerSchemaError(
                        f"the database is at schema revision {', '.join(newer)}, which this "
                        f"lostcities does not know (it knows up to {head()}): a newer version "
                        "upgraded it; upgrade lostcities"
                    )
                insp = inspect(conn)
                adopted = not before and insp.has_table("lc_games", schema=default_schema(conn))
                step(config(conn), revision)
                after = current(conn)
                if sqlite and conn.exec_driver_sql("PRAGMA foreign_key_check").first() is not None:
                    raise UnknownLayoutError(  # pragma: no cover - no revision rebuilds a table yet
                        "the upgrade would leave rows whose game is missing; nothing was changed"
                    )
        finally:
            if sqlite:
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                conn.commit()
    done = Upgrade(before[0] if before else None, after[0] if after else None, adopted)
    if done.changed:
        log.info("database schema: %s", done)
    return done
