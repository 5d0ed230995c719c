"""Ratings and the lobby: Glicko-2 ratings per variant and speed, their history, the
exactly-once marker of each settled game, the lobby's tables and seeks, who is online;
whether a game is rated (issue 27).

Revision 0003, after 0002 (accounts). New tables ``lc_ratings``, ``lc_rating_results``,
``lc_rating_changes``, ``lc_lobby``, ``lc_presence``; new column ``lc_games.rated``.

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import default_schema

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _games() -> sa.ForeignKey:
    return sa.ForeignKey("lc_games.id", ondelete="CASCADE")


def _tables() -> list[tuple[str, list[sa.Column[object]], list[tuple[str, list[str]]]]]:
    """Each new table: its columns and its indexes."""
    return [
        (
            "lc_ratings",
            [
                sa.Column("player", sa.String(40), primary_key=True),
                sa.Column("variant", sa.String(16), primary_key=True),
                sa.Column("speed", sa.String(16), primary_key=True),
                sa.Column(
                    "account_id",
                    sa.Integer(),
                    sa.ForeignKey("lc_accounts.id", ondelete="CASCADE"),
                    nullable=True,
                ),
                sa.Column("name", sa.String(40), nullable=False),
                sa.Column("rating", sa.Float(), nullable=False),
                sa.Column("rd", sa.Float(), nullable=False),
                sa.Column("vol", sa.Float(), nullable=False),
                sa.Column("games", sa.Integer(), nullable=False),
                sa.Column("wins", sa.Integer(), nullable=False),
                sa.Column("draws", sa.Integer(), nullable=False),
                sa.Column("losses", sa.Integer(), nullable=False),
                sa.Column("updated_at", sa.DateTime(), nullable=False),
            ],
            [("ix_lc_ratings_account_id", ["account_id"])],
        ),
        (
            "lc_rating_results",
            [
                sa.Column("game_id", sa.String(32), _games(), primary_key=True),
                sa.Column("state", sa.String(16), nullable=False),
                sa.Column("created_at", sa.DateTime(), nullable=False),
            ],
            [],
        ),
        (
            "lc_rating_changes",
            [
                sa.Column("game_id", sa.String(32), _games(), primary_key=True),
                sa.Column("seat", sa.Integer(), primary_key=True),
                sa.Column("player", sa.String(40), nullable=False),
                sa.Column(
                    "account_id",
                    sa.Integer(),
                    sa.ForeignKey("lc_accounts.id", ondelete="SET NULL"),
                    nullable=True,
                ),
                sa.Column("opponent", sa.String(40), nullable=False),
                sa.Column("variant", sa.String(16), nullable=False),
                sa.Column("speed", sa.String(16), nullable=False),
                sa.Column("score", sa.Float(), nullable=False),
                sa.Column("rating_before", sa.Float(), nullable=False),
                sa.Column("rd_before", sa.Float(), nullable=False),
                sa.Column("rating_after", sa.Float(), nullable=False),
                sa.Column("rd_after", sa.Float(), nullable=False),
                sa.Column("vol_after", sa.Float(), nullable=False),
                sa.Column("created_at", sa.DateTime(), nullable=False),
            ],
            [
                ("ix_lc_rating_changes_player", ["player"]),
                ("ix_lc_rating_changes_created_at", ["created_at"]),
            ],
        ),
        (
            "lc_lobby",
            [
                sa.Column("id", sa.String(16), primary_key=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("seen_at", sa.DateTime(), nullable=False),
                sa.Column("kind", sa.String(8), nullable=False),
                sa.Column("status", sa.String(12), nullable=False),
                sa.Column("variant", sa.String(16), nullable=False),
                sa.Column("rounds", sa.Integer(), nullable=False),
                sa.Column("clock", sa.String(8), nullable=True),
                sa.Column("rated", sa.Boolean(), nullable=False),
                sa.Column("achievements", sa.Boolean(), nullable=False),
                sa.Column("owner", sa.String(40), nullable=False),
                sa.Column("owner_name", sa.String(40), nullable=False),
                sa.Column("owner_rating", sa.Float(), nullable=True),
                sa.Column("token_hash", sa.String(64), nullable=False),
                sa.Column("game_id", sa.String(32), nullable=True),
            ],
            [("ix_lc_lobby_status", ["status"]), ("ix_lc_lobby_owner", ["owner"])],
        ),
        (
            "lc_presence",
            [
                sa.Column("player", sa.String(40), primary_key=True),
                sa.Column("name", sa.String(40), nullable=False),
                sa.Column("account_id", sa.Integer(), nullable=True),
                sa.Column("seen_at", sa.DateTime(), nullable=False),
            ],
            [("ix_lc_presence_seen_at", ["seen_at"])],
        ),
    ]


def upgrade() -> None:
    schema = default_schema(op.get_bind())
    for name, columns, indexes in _tables():
        op.create_table(name, *columns, schema=schema)
        for ix, cols in indexes:
            op.create_index(ix, name, cols, schema=schema)
    op.add_column("lc_games", sa.Column("rated", sa.Boolean(), nullable=True), schema=schema)


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    with op.batch_alter_table("lc_games", schema=schema) as batch:
        batch.drop_column("rated")
    for name, _columns, _indexes in reversed(_tables()):
        op.drop_table(name, schema=schema)
