"""Bot accounts and the bot API (issue 39): API tokens, challenges and the event stream.

Revision 0008, after 0007 (abandon). New columns ``lc_accounts.is_bot`` (false for every
account stored before) and ``lc_accounts.bot_about`` (null); new tables ``lc_api_tokens``
(hashed personal API tokens, their scopes, last use and revocation),
``lc_bot_challenges`` (challenges and what became of them) and ``lc_bot_events`` (the
event stream's recent events).

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import default_schema

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _account_fk() -> sa.ForeignKey:
    return sa.ForeignKey("lc_accounts.id", ondelete="CASCADE")


def upgrade() -> None:
    schema = default_schema(op.get_bind())
    op.add_column(
        "lc_accounts",
        sa.Column("is_bot", sa.Boolean(), nullable=False, server_default=sa.false()),
        schema=schema,
    )
    op.add_column(
        "lc_accounts", sa.Column("bot_about", sa.String(300), nullable=True), schema=schema
    )
    op.create_table(
        "lc_api_tokens",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(), _account_fk(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("description", sa.String(100), nullable=False),
        sa.Column("scopes", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_used", sa.DateTime(), nullable=True),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        schema=schema,
    )
    op.create_index("ix_lc_api_tokens_account_id", "lc_api_tokens", ["account_id"], schema=schema)
    op.create_table(
        "lc_bot_challenges",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("challenger_id", sa.Integer(), _account_fk(), nullable=True),
        sa.Column("challenger_name", sa.String(40), nullable=False),
        sa.Column("dest_id", sa.Integer(), _account_fk(), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("clock", sa.String(8), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("decline_reason", sa.String(16), nullable=True),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        schema=schema,
    )
    for col in ("expires_at", "dest_id", "status"):
        op.create_index(f"ix_lc_bot_challenges_{col}", "lc_bot_challenges", [col], schema=schema)
    op.create_table(
        "lc_bot_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(), _account_fk(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        schema=schema,
    )
    for col in ("account_id", "created_at"):
        op.create_index(f"ix_lc_bot_events_{col}", "lc_bot_events", [col], schema=schema)


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    op.drop_table("lc_bot_events", schema=schema)
    op.drop_table("lc_bot_challenges", schema=schema)
    op.drop_table("lc_api_tokens", schema=schema)
    with op.batch_alter_table("lc_accounts", schema=schema) as batch:
        batch.drop_column("bot_about")
        batch.drop_column("is_bot")
