"""Baseline: the schema of the last version before Alembic (December 2026).

Revision 0001, the first. On an empty database it makes the tables. On a database made
before Alembic (no ``alembic_version``) it makes the tables that database lacks and adds
the columns its tables lack, so every earlier layout ends here. They came, in order
(``git log -p -- lostcities/web/store.py``):

- 24ae348: ``lc_games``, ``lc_rounds``, ``lc_moves``
- 94ea810: ``lc_games.mistakes`` (not null: added here with the default 0, the rate
  those games played at; the home-made migrations could not add it)
- 591e463: ``lc_games.rematch_by``
- 6bd1154: the table ``lc_comments``
- 3831004: ``lc_games.tie_break``, ``younger``
- 5a1c341: ``lc_games.hints``; the table ``lc_analyses``
- 9a4d97d: ``lc_games.achievements``
- a2dacbe: ``lc_games.clock``
- 14eb189: ``lc_games.clock_increment``, ``clock_left0``, ``clock_left1``

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import UnknownLayoutError, default_schema

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _fk() -> sa.ForeignKey:
    return sa.ForeignKey("lc_games.id", ondelete="CASCADE")


def _tables() -> list[tuple[str, list[sa.Column[object]], list[tuple[str, list[str]]]]]:
    """Each table (in the order they can be made): its columns and its indexes."""
    return [
        (
            "lc_games",
            [
                sa.Column("id", sa.String(32), primary_key=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("updated_at", sa.DateTime(), nullable=False),
                sa.Column("variant", sa.String(16), nullable=False),
                sa.Column("num_rounds", sa.Integer(), nullable=False),
                sa.Column("seed", sa.BigInteger(), nullable=False),
                sa.Column("first_starter", sa.Integer(), nullable=False),
                sa.Column("status", sa.String(16), nullable=False),
                sa.Column("result", sa.String(8), nullable=False),
                sa.Column("level", sa.String(16), nullable=True),
                sa.Column("name0", sa.String(40), nullable=False),
                sa.Column("name1", sa.String(40), nullable=False),
                sa.Column("bot0", sa.String(80), nullable=True),
                sa.Column("bot1", sa.String(80), nullable=True),
                sa.Column("mistakes", sa.Float(), nullable=False),
                sa.Column("token0", sa.String(64), nullable=True),
                sa.Column("token1", sa.String(64), nullable=True),
                sa.Column("invite", sa.String(64), nullable=True),
                sa.Column("rematch_of", sa.String(32), nullable=True),
                sa.Column("rematch_id", sa.String(32), nullable=True),
                sa.Column("rematch_by", sa.Integer(), nullable=True),
                sa.Column("tie_break", sa.String(16), nullable=True),
                sa.Column("younger", sa.Integer(), nullable=True),
                sa.Column("hints", sa.Integer(), nullable=True),
                sa.Column("achievements", sa.String(16), nullable=True),
                sa.Column("clock", sa.Integer(), nullable=True),
                sa.Column("clock_increment", sa.Integer(), nullable=True),
                sa.Column("clock_left0", sa.Float(), nullable=True),
                sa.Column("clock_left1", sa.Float(), nullable=True),
            ],
            [("ix_lc_games_status", ["status"]), ("ix_lc_games_updated_at", ["updated_at"])],
        ),
        (
            "lc_analyses",
            [
                sa.Column("game_id", sa.String(32), _fk(), primary_key=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("bot", sa.String(80), nullable=False),
                sa.Column("data", sa.Text(), nullable=False),
            ],
            [],
        ),
        (
            "lc_comments",
            [
                sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("nickname", sa.String(40), nullable=False),
                sa.Column("kind", sa.String(16), nullable=False),
                sa.Column("text", sa.Text(), nullable=False),
                sa.Column("digest", sa.String(64), nullable=False, unique=True),
                sa.Column("client_hash", sa.String(64), nullable=False),
                sa.Column("hidden", sa.Boolean(), nullable=False),
            ],
            [("ix_lc_comments_created_at", ["created_at"]), ("ix_lc_comments_hidden", ["hidden"])],
        ),
        (
            "lc_moves",
            [
                sa.Column("game_id", sa.String(32), _fk(), primary_key=True),
                sa.Column("round_index", sa.Integer(), primary_key=True),
                sa.Column("ply", sa.Integer(), primary_key=True),
                sa.Column("move", sa.String(8), nullable=False),
                sa.Column("created_at", sa.DateTime(), nullable=False),
            ],
            [],
        ),
        (
            "lc_rounds",
            [
                sa.Column("game_id", sa.String(32), _fk(), primary_key=True),
                sa.Column("index", sa.Integer(), primary_key=True),
                sa.Column("starter", sa.Integer(), nullable=False),
                sa.Column("deck", sa.Text(), nullable=False),
                sa.Column("forfeit", sa.Integer(), nullable=True),
                sa.Column("forfeit_reason", sa.String(200), nullable=True),
            ],
            [],
        ),
    ]


ADDED_LATER = {
    "lc_games": (
        "mistakes",
        "rematch_by",
        "tie_break",
        "younger",
        "hints",
        "achievements",
        "clock",
        "clock_increment",
        "clock_left0",
        "clock_left1",
    ),
}
"""The columns an older version's table may lack (the list above); a table that lacks any
other is no layout of lostcities'."""

SERVER_DEFAULTS = {("lc_games", "mistakes"): "0"}
"""What a not-null column added to an older table holds in its existing rows."""


def upgrade() -> None:
    bind = op.get_bind()
    schema = default_schema(bind)
    insp = sa.inspect(bind)
    for name, columns, indexes in _tables():
        if not insp.has_table(name, schema=schema):
            op.create_table(name, *columns, schema=schema)
            for ix, cols in indexes:
                op.create_index(ix, name, cols, schema=schema)
            continue
        have = {c["name"] for c in insp.get_columns(name, schema=schema)}
        for col in columns:
            if col.name in have:
                continue
            if col.name not in ADDED_LATER.get(name, ()):
                raise UnknownLayoutError(
                    f"table {name} has no column {col.name}: not a table of lostcities'"
                    " (nothing was changed)"
                )
            default = SERVER_DEFAULTS.get((name, col.name))
            if default is None:
                op.add_column(name, col, schema=schema)
                continue
            # the rows there get the default; the models set the value of new rows
            op.add_column(
                name,
                sa.Column(col.name, col.type, nullable=col.nullable, server_default=default),
                schema=schema,
            )
            if bind.dialect.name != "sqlite":  # SQLite drops a default only by a rebuild
                op.alter_column(name, col.name, server_default=None, schema=schema)


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    for name, _columns, _indexes in reversed(_tables()):
        op.drop_table(name, schema=schema)
