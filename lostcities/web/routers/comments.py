"""``/api/comments``: the comments of the rules page (no sign-in; nicknames unverified).

Comments are plain text (the page shows them with ``textContent``, never as HTML), newest
first, 20 a page. A client may post :attr:`~lostcities.web.deps.Settings.comment_burst`
comments at once and then one every few minutes (429 with ``Retry-After``); the same
submission twice is stored once; the client's address is kept only as a salted hash.
Moderation: ``lostcities comments list|hide ID|unhide ID --db URL``.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError

from lostcities.web import schemas
from lostcities.web.deps import Settings, comment_limiter, get_settings, get_store
from lostcities.web.limits import RateLimiter, client_key
from lostcities.web.models.comments import CommentRow, comment_digest
from lostcities.web.repositories import comments as repo
from lostcities.web.store import GameStore

router = APIRouter(prefix="/api/comments", tags=["comments"])

PER_PAGE = 20
"""Comments per page."""


def comment_out(row: CommentRow, duplicate: bool = False) -> schemas.CommentOut:
    """A stored comment as JSON."""
    return schemas.CommentOut(
        id=row.id,
        nickname=row.nickname,
        kind=row.kind,
        text=row.text,
        created_at=row.created_at.isoformat(timespec="seconds") + "Z",
        duplicate=duplicate,
    )


@router.get("", response_model=schemas.CommentsPage)
async def list_comments(
    page: int = Query(1, ge=1, le=1_000_000), store: GameStore = Depends(get_store)
) -> schemas.CommentsPage:
    """Page ``page`` (1-based) of the visible comments, newest first."""
    rows, total = await asyncio.to_thread(repo.comments_page, store.engine, page, PER_PAGE)
    return schemas.CommentsPage(
        comments=[comment_out(r) for r in rows],
        page=page,
        pages=max(1, -(-total // PER_PAGE)),
        per_page=PER_PAGE,
        total=total,
    )


@router.post("", response_model=schemas.CommentOut, status_code=201)
async def post_comment(
    req: schemas.CommentIn,
    request: Request,
    store: GameStore = Depends(get_store),
    settings: Settings = Depends(get_settings),
    limiter: RateLimiter = Depends(comment_limiter),
) -> schemas.CommentOut | JSONResponse:
    """Post a comment: 201 with it; 200 with the stored one if the same was already posted;
    429 (``Retry-After``) when the client posts too often."""
    key = client_key(request, settings.client_salt)
    limiter.check(key, "comments")  # over the limit: 429 with Retry-After (the app's handler)
    try:
        row, new = await store.write(repo.op_add_comment(req.nickname, req.kind, req.text, key))
    except IntegrityError:  # another server process stored the same submission first
        found = await asyncio.to_thread(
            repo.comment_by_digest, store.engine, comment_digest(req.nickname, req.kind, req.text)
        )
        if found is None:
            raise
        row, new = found, False
    if not new:
        return JSONResponse(comment_out(row, duplicate=True).model_dump(), status_code=200)
    return comment_out(row)
