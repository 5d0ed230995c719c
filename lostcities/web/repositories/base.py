"""Reads that every repository makes: one row, detached from its session so that a caller
outside it may read its columns."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

__all__ = ["first_row", "row_by_key"]

RowT = TypeVar("RowT")


def first_row(engine: Engine, stmt: Select[RowT]) -> RowT | None:
    """The first row that ``stmt`` selects, detached, or ``None``."""
    with Session(engine) as s:
        row = s.scalars(stmt).first()
        if row is not None:
            s.expunge(row)
        return row


def row_by_key(engine: Engine, model: type[RowT], key: Any) -> RowT | None:
    """The row of ``model`` with primary key ``key``, detached, or ``None``."""
    with Session(engine) as s:
        row = s.get(model, key)
        if row is not None:
            s.expunge(row)
        return row
