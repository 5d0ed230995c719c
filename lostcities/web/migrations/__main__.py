"""``python -m lostcities.web.migrations``: the web store's schema by hand.

- ``upgrade [--db URL] [REV]``: to the newest revision (what ``lostcities serve`` does at
  start), or to ``REV``;
- ``downgrade [--db URL] REV``: back to ``REV`` (``base``: no tables, all data lost);
- ``current [--db URL]``: the revision the database is at;
- ``history``: the revisions this version knows;
- ``revision -m MESSAGE [--db URL] [--autogenerate]``: a new revision file in
  ``versions/`` (for developers: with ``--autogenerate``, what the models changed against
  the database, which must be at the newest revision).
"""

from __future__ import annotations

import argparse
import sys

from alembic import command
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy.exc import SQLAlchemyError

from lostcities.web import migrations
from lostcities.web.store import GameStore, StorageError

DEFAULT_DB = "sqlite:///lostcities.db"


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="python -m lostcities.web.migrations",
        description="The web store's schema migrations (Alembic).",
    )
    sub = p.add_subparsers(dest="action", required=True)

    def with_db(name: str, text: str) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=text, description=text)
        q.add_argument(
            "--db", default=DEFAULT_DB, metavar="URL", help=f"database URL (default {DEFAULT_DB})"
        )
        return q

    with_db("upgrade", "upgrade the database (to the newest revision)").add_argument(
        "revision", nargs="?", default="head", help="the revision to reach (head)"
    )
    with_db("downgrade", "take the database back to a revision").add_argument(
        "revision", help="the revision to go back to (base: no tables, all data lost)"
    )
    with_db("current", "the revision the database is at")
    sub.add_parser("history", help="the revisions this version knows")
    q = with_db("revision", "a new revision file (for developers)")
    q.add_argument("-m", "--message", required=True, help="what the revision changes")
    q.add_argument(
        "--autogenerate",
        action="store_true",
        help="fill it in from the models' difference to the database",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command; errors are one line on stderr (exit 2)."""
    args = parser().parse_args(argv)
    if args.action == "history":
        for script in ScriptDirectory.from_config(migrations.config()).walk_revisions():
            print(f"{script.revision}  {script.doc}")
        return 0
    try:
        store = GameStore(args.db)
    except StorageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        if args.action == "upgrade":
            if args.revision == "head":
                done = store.create_tables()
            else:
                done = migrations.upgrade(store.engine, args.revision)
            print(f"{store.safe_url}: {done}")
        elif args.action == "downgrade":
            print(f"{store.safe_url}: {migrations.downgrade(store.engine, args.revision)}")
        elif args.action == "current":
            print(
                store.schema_revision()
                or "none (an empty database, or one from before the migrations)"
            )
        else:
            with store.engine.connect() as conn:
                command.revision(
                    migrations.config(conn), message=args.message, autogenerate=args.autogenerate
                )
    except (
        StorageError,
        CommandError,
        migrations.NewerSchemaError,
        migrations.UnknownLayoutError,
    ) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except SQLAlchemyError as e:
        reason = " ".join(str(getattr(e, "orig", None) or e).split("\n")[0].split())
        print(f"error: database {store.safe_url!r}: {reason}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
