"""Alembic's environment for the web store: it migrates the connection that
:func:`lostcities.web.migrations.upgrade` hands it (inside that function's transaction
and lock), with the models as the target of ``--autogenerate``."""

from __future__ import annotations

from alembic import context
from alembic.util import CommandError

from lostcities.web.migrations import default_schema
from lostcities.web.models.base import Base


def run() -> None:
    """Run the migrations Alembic was asked for on the given connection."""
    connection = context.config.attributes.get("connection")
    if connection is None or context.is_offline_mode():
        raise CommandError(
            "the web store's migrations run on a database connection: "
            "python -m lostcities.web.migrations upgrade --db URL (docs/deploy.md)"
        )
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        version_table_schema=default_schema(connection),
        render_as_batch=True,  # SQLite alters most things only by rebuilding the table
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # run by Alembic; an import alone (doctest collection) does nothing
    run()
