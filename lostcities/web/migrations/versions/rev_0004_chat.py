"""The table's quick chat, kept with the game so that a reload shows it again (issue 26,
web 13).

Revision 0004, after 0003 (ratings, lobby). New table ``lc_chat``: one row per phrase said
(its game, seat, phrase id and time), indexed by game.

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import default_schema

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    schema = default_schema(op.get_bind())
    op.create_table(
        "lc_chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("lc_games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("phrase", sa.String(32), nullable=False),
        schema=schema,
    )
    op.create_index("ix_lc_chat_game_id", "lc_chat", ["game_id"], schema=schema)


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    op.drop_table("lc_chat", schema=schema)
