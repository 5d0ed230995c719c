"""Accounts: optional sign-up (password or passkeys), sessions, blocks, reports, the
moderation log; the account playing each seat of a game (issue 27).

Revision 0002, after the baseline. New tables ``lc_accounts``, ``lc_sessions``,
``lc_passkeys``, ``lc_auth_challenges``, ``lc_auth_failures``, ``lc_blocks``,
``lc_reports``, ``lc_mod_log``; new columns ``lc_games.account0``, ``account1`` (no
foreign key: SQLite adds one only by rebuilding the table; deleting an account clears
them in the same transaction, :mod:`lostcities.web.accounts`).

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import default_schema

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _fk(ondelete: str = "CASCADE") -> sa.ForeignKey:
    return sa.ForeignKey("lc_accounts.id", ondelete=ondelete)


def _tables() -> list[tuple[str, list[sa.Column[object]], list[tuple[str, list[str]]]]]:
    """Each new table (in the order they can be made): its columns and its indexes."""
    return [
        (
            "lc_accounts",
            [
                sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("username", sa.String(24), nullable=False),
                sa.Column("username_key", sa.String(24), nullable=False, unique=True),
                sa.Column("password_hash", sa.String(200), nullable=True),
                sa.Column("recovery_hash", sa.String(200), nullable=True),
                sa.Column("user_handle", sa.String(64), nullable=False, unique=True),
                sa.Column("status", sa.String(16), nullable=False),
                sa.Column("status_reason", sa.String(200), nullable=True),
            ],
            [("ix_lc_accounts_status", ["status"])],
        ),
        (
            "lc_sessions",
            [
                sa.Column("token_hash", sa.String(64), primary_key=True),
                sa.Column("account_id", sa.Integer(), _fk(), nullable=False),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("last_seen", sa.DateTime(), nullable=False),
            ],
            [("ix_lc_sessions_account_id", ["account_id"])],
        ),
        (
            "lc_passkeys",
            [
                sa.Column("credential_id", sa.String(400), primary_key=True),
                sa.Column("account_id", sa.Integer(), _fk(), nullable=False),
                sa.Column("public_key", sa.Text(), nullable=False),
                sa.Column("sign_count", sa.BigInteger(), nullable=False),
                sa.Column("name", sa.String(40), nullable=False),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("last_used", sa.DateTime(), nullable=True),
            ],
            [("ix_lc_passkeys_account_id", ["account_id"])],
        ),
        (
            "lc_auth_challenges",
            [
                sa.Column("id_hash", sa.String(64), primary_key=True),
                sa.Column("purpose", sa.String(16), nullable=False),
                sa.Column("challenge", sa.String(200), nullable=False),
                sa.Column("username", sa.String(24), nullable=True),
                sa.Column("account_id", sa.Integer(), _fk(), nullable=True),
                sa.Column("expires_at", sa.DateTime(), nullable=False),
            ],
            [("ix_lc_auth_challenges_expires_at", ["expires_at"])],
        ),
        (
            "lc_auth_failures",
            [
                sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                sa.Column("key", sa.String(64), nullable=False),
                sa.Column("created_at", sa.DateTime(), nullable=False),
            ],
            [
                ("ix_lc_auth_failures_key", ["key"]),
                ("ix_lc_auth_failures_created_at", ["created_at"]),
            ],
        ),
        (
            "lc_blocks",
            [
                sa.Column("blocker_id", sa.Integer(), _fk(), primary_key=True),
                sa.Column("blocked_id", sa.Integer(), _fk(), primary_key=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
            ],
            [],
        ),
        (
            "lc_reports",
            [
                sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("reporter_id", sa.Integer(), _fk("SET NULL"), nullable=True),
                sa.Column("target_id", sa.Integer(), _fk(), nullable=False),
                sa.Column("reason", sa.String(32), nullable=False),
                sa.Column("text", sa.String(500), nullable=False),
                sa.Column("game_id", sa.String(32), nullable=True),
            ],
            [
                ("ix_lc_reports_created_at", ["created_at"]),
                ("ix_lc_reports_target_id", ["target_id"]),
            ],
        ),
        (
            "lc_mod_log",
            [
                sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
                sa.Column("created_at", sa.DateTime(), nullable=False),
                sa.Column("actor", sa.String(40), nullable=False),
                sa.Column("action", sa.String(32), nullable=False),
                sa.Column("target", sa.String(40), nullable=False),
                sa.Column("detail", sa.String(500), nullable=False),
            ],
            [("ix_lc_mod_log_created_at", ["created_at"])],
        ),
    ]


GAME_COLUMNS = ("account0", "account1")
"""The columns added to ``lc_games`` (each with its index ``ix_lc_games_<column>``)."""


def upgrade() -> None:
    schema = default_schema(op.get_bind())
    for name, columns, indexes in _tables():
        op.create_table(name, *columns, schema=schema)
        for ix, cols in indexes:
            op.create_index(ix, name, cols, schema=schema)
    for col in GAME_COLUMNS:
        op.add_column("lc_games", sa.Column(col, sa.Integer(), nullable=True), schema=schema)
        op.create_index(f"ix_lc_games_{col}", "lc_games", [col], schema=schema)


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    with op.batch_alter_table("lc_games", schema=schema) as batch:
        for col in GAME_COLUMNS:
            batch.drop_index(f"ix_lc_games_{col}")
            batch.drop_column(col)
    for name, _columns, _indexes in reversed(_tables()):
        op.drop_table(name, schema=schema)
