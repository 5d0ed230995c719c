"""``lostcities comments list|hide ID|unhide ID --db URL``: moderate the rules page's comments.

``list`` prints every comment, newest first, hidden ones marked; ``hide`` takes a comment
off the page (it stays stored) and ``unhide`` puts it back. Errors are one line.
"""

from __future__ import annotations

import argparse

from lostcities.web.operator import operator_store
from lostcities.web.repositories.comments import comments_page, op_hide_comment

__all__ = ["CommentNotFoundError", "cli_main", "format_comment"]


class CommentNotFoundError(ValueError):
    """No comment with that id."""


def format_comment(
    comment_id: int, created: str, kind: str, nickname: str, text: str, hidden: bool
) -> str:
    """One line of ``lostcities comments list`` (line breaks in the text shown as ``⏎``).

    >>> format_comment(3, "2026-12-01 10:00", "mistake", "ann", "two\\nlines", True)
    '    3  2026-12-01 10:00  mistake       ann: two⏎lines  [hidden]'
    """
    one_line = " ⏎".join(text.splitlines()).replace(" ⏎", "⏎")
    mark = "  [hidden]" if hidden else ""
    return f"{comment_id:>5}  {created}  {kind:<12}  {nickname}: {one_line}{mark}"


def cli_main(args: argparse.Namespace) -> int:
    """Run ``lostcities comments``.

    :raises CommentNotFoundError: for an unknown id (the CLI prints one line, exit 2).
    :raises StorageError: for a database that cannot be used, or none
        (:func:`~lostcities.web.operator.operator_store`).
    """
    with operator_store(args.db) as store:
        if args.action == "list":
            rows, total = comments_page(store.engine, 1, 1_000_000, hidden=True)
            for r in rows:
                created = r.created_at.strftime("%Y-%m-%d %H:%M")
                print(format_comment(r.id, created, r.kind, r.nickname, r.text, r.hidden))
            shown = sum(1 for r in rows if not r.hidden)
            print(
                f"{total} comment{'s' if total != 1 else ''} ({shown} shown, {total - shown} hidden)"
            )
            return 0
        if args.id is None:
            raise CommentNotFoundError(
                f"{args.action} needs a comment id (see lostcities comments list)"
            )
        changed = store.write_sync(op_hide_comment(args.id, args.action == "hide"))
        if not changed:
            raise CommentNotFoundError(f"no comment {args.id}")
        print(f"comment {args.id} {'hidden' if args.action == 'hide' else 'shown again'}")
        return 0
