"""Players who leave a game (issue 37): when each seat was last known at its table, and
how a game ended off the board (aborted, or abandoned and claimed).

Revision 0007, after 0006 (lobby pages). New columns ``lc_games.seen0``, ``seen1`` (when seat 0
or 1 was last known at the table) and ``lc_games.ending`` (``aborted``, ``abandoned`` or
null), all nullable: the games stored before keep null (nobody seen yet; the match's own
end).

The definitions below are this revision's own copy: a later change of the models is a
later revision, never an edit here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from lostcities.web.migrations import default_schema

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _columns() -> list[sa.Column[object]]:
    return [
        sa.Column("seen0", sa.DateTime(), nullable=True),
        sa.Column("seen1", sa.DateTime(), nullable=True),
        sa.Column("ending", sa.String(16), nullable=True),
    ]


def upgrade() -> None:
    schema = default_schema(op.get_bind())
    for col in _columns():
        op.add_column("lc_games", col, schema=schema)


def downgrade() -> None:
    schema = default_schema(op.get_bind())
    with op.batch_alter_table("lc_games", schema=schema) as batch:
        for col in reversed(_columns()):
            batch.drop_column(col.name)
