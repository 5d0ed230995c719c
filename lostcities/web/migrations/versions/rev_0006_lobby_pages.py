"""A lobby entry lives as long as the page that opened it (issue 37): an entry names its
page, whose event stream keeps it; an orphaned seek is never paired.

Revision 0006, after 0005 (secrets). New column ``lc_lobby.page``: the random id of the
lobby page that opened the entry (``NULL`` for an entry an API client opened, and for the
entries of before).

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import default_schema

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    schema = default_schema(op.get_bind())
    op.add_column("lc_lobby", sa.Column("page", sa.String(32), nullable=True), schema=schema)


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    with op.batch_alter_table("lc_lobby", schema=schema) as batch:
        batch.drop_column("page")
