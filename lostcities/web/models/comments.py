"""The table of the comments players leave (and the moderators hide)."""

from __future__ import annotations

import datetime
import hashlib

from sqlalchemy import (
    Boolean,
    DateTime,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from lostcities.web.models.base import Base, utcnow

__all__ = ["COMMENT_KINDS", "CommentRow", "comment_digest"]


COMMENT_KINDS = ("comment", "mistake", "tool request")
"""What a comment on the rules page is: a comment, a reported mistake, or a tool request."""


class CommentRow(Base):
    """A comment on the rules page. Only the nickname (unverified) and the text are personal;
    the client's address is kept only as a salted hash (for the rate limit)."""

    __tablename__ = "lc_comments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    nickname: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    """Hash of the nickname, kind and text: the same submission is stored once."""
    client_hash: Mapped[str] = mapped_column(String(64))
    """Salted hash of the client's address (never the address)."""
    hidden: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    """Hidden by a moderator (``lostcities comments hide ID``)."""


def comment_digest(nickname: str, kind: str, text: str) -> str:
    """What makes two submissions the same: the nickname (case and spacing aside), the
    kind and the text (spacing aside).

    >>> comment_digest("Ann ", "comment", "Nice  page") == comment_digest("ann", "comment", "Nice page")
    True
    """
    norm = "\x1f".join((" ".join(nickname.split()).casefold(), kind, " ".join(text.split())))
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()
