"""The declarative base of the web app's tables, and the time as they store it."""

from __future__ import annotations

import datetime

from sqlalchemy.orm import DeclarativeBase

__all__ = ["Base", "utcnow"]


def utcnow() -> datetime.datetime:
    """The current time (UTC, naive, as stored)."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    """Declarative base of the web app's tables."""
