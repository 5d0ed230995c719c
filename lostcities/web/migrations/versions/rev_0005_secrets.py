"""A random value every server process shares (issue 27): the salt of the log-in
throttle's client keys, so that the per-client throttle counts across processes.

Revision 0005, after 0004 (chat). New table ``lc_secrets``: a name, its random value and
when it was made.

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import default_schema

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    schema = default_schema(op.get_bind())
    op.create_table(
        "lc_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        schema=schema,
    )


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    op.drop_table("lc_secrets", schema=schema)
