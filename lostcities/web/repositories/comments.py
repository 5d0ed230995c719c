"""The comments' queries and writes (:mod:`lostcities.web.models.comments`): the page of
comments, a comment by its digest, and the ``op_`` writes that store, hide and show one."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from lostcities.web.models.base import utcnow
from lostcities.web.models.comments import CommentRow, comment_digest
from lostcities.web.repositories.base import first_row

__all__ = ["comment_by_digest", "comments_page", "op_add_comment", "op_hide_comment"]


def comments_page(
    engine: Engine, page: int, per_page: int, *, hidden: bool = False
) -> tuple[list[CommentRow], int]:
    """Page ``page`` (1-based) of the comments, newest first, and how many there are
    (hidden ones only with ``hidden``)."""
    with Session(engine) as s:
        where = [] if hidden else [CommentRow.hidden.is_(False)]
        total = s.scalar(select(func.count()).select_from(CommentRow).where(*where)) or 0
        rows = list(
            s.scalars(
                select(CommentRow)
                .where(*where)
                .order_by(CommentRow.created_at.desc(), CommentRow.id.desc())
                .offset((page - 1) * per_page)
                .limit(per_page)
            ).all()
        )
        for r in rows:
            s.expunge(r)
    return rows, int(total)


def comment_by_digest(engine: Engine, digest: str) -> CommentRow | None:
    """The stored comment with this :func:`comment_digest`, if any."""
    return first_row(engine, select(CommentRow).where(CommentRow.digest == digest))


def op_add_comment(
    nickname: str, kind: str, text: str, client_hash: str
) -> Callable[[Session], tuple[CommentRow, bool]]:
    """Store a comment once: returns it and whether it is new (``False``: the same
    submission was already stored, and that one is returned)."""
    digest = comment_digest(nickname, kind, text)

    def fn(s: Session) -> tuple[CommentRow, bool]:
        old = s.scalars(select(CommentRow).where(CommentRow.digest == digest)).first()
        if old is not None:
            s.expunge(old)
            return old, False
        row = CommentRow(
            created_at=utcnow(),
            nickname=nickname,
            kind=kind,
            text=text,
            digest=digest,
            client_hash=client_hash,
            hidden=False,
        )
        s.add(row)
        s.flush()
        s.expunge(row)
        return row, True

    return fn


def op_hide_comment(comment_id: int, hidden: bool) -> Callable[[Session], int]:
    """Hide or show a comment again; returns the number of rows changed (0: no such id)."""

    def fn(s: Session) -> int:
        res = s.execute(update(CommentRow).where(CommentRow.id == comment_id).values(hidden=hidden))
        return int(res.rowcount or 0)  # type: ignore[attr-defined]

    return fn
