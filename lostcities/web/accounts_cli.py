"""``lostcities users list|ban NAME|unban NAME|delete NAME|reports|log --db URL``: the
operator's moderation of accounts, as ``lostcities comments`` moderates comments.

``list`` prints every account (banned ones marked, with how often each was reported);
``ban`` ends its sessions, revokes its API tokens (a bot's streams close) and refuses its
log-ins (``--reason`` is kept); ``unban`` lets it
in again; ``delete`` deletes it as the player could (games kept under "deleted player");
``reports`` prints the players' reports, newest first; ``log`` the moderation log, newest
first. Every action is written to the moderation log (actor ``operator``). Errors are one
line.
"""

from __future__ import annotations

import argparse

from lostcities.web.accounts import find_account_sync, op_delete_account, op_set_status
from lostcities.web.errors import AccountNotFoundError
from lostcities.web.models.base import utcnow
from lostcities.web.operator import operator_store
from lostcities.web.repositories import accounts as account_data
from lostcities.web.repositories.bots import op_revoke_account_tokens
from lostcities.web.store import GameStore

__all__ = ["cli_main", "format_account"]

OPERATOR = "operator"
"""The moderation log's actor for the command's actions."""


def format_account(
    account_id: int,
    created: str,
    username: str,
    status: str,
    how: str,
    reports: int,
) -> str:
    """One line of ``lostcities users list``.

    >>> format_account(3, "2026-12-01 10:00", "ann", "banned", "password", 2)
    '    3  2026-12-01 10:00  ann                   password      2 reports  [banned]'
    """
    mark = "  [banned]" if status == "banned" else ""
    rep = f"{reports} report{'s' if reports != 1 else ''}"
    return f"{account_id:>5}  {created}  {username:<20}  {how:<12}  {rep:>9}{mark}"


def _list(store: GameStore) -> None:
    rows = account_data.accounts_listing(store.engine)
    for row, reports, keys in rows:
        how = " + ".join(
            x for x, on in (("password", row.password_hash), (f"{keys} passkeys", keys)) if on
        )
        created = row.created_at.strftime("%Y-%m-%d %H:%M")
        print(format_account(row.id, created, row.username, row.status, how, reports))
    banned = sum(1 for r, *_ in rows if r.status == "banned")
    print(f"{len(rows)} account{'s' if len(rows) != 1 else ''} ({banned} banned)")


def _reports(store: GameStore) -> None:
    rows = account_data.reports_listing(store.engine)
    for r, by, whom in rows:
        when = r.created_at.strftime("%Y-%m-%d %H:%M")
        game = f" (game {r.game_id})" if r.game_id else ""
        text = " ⏎".join(r.text.splitlines()).replace(" ⏎", "⏎")
        print(f"{r.id:>5}  {when}  {whom} reported by {by or 'deleted player'}: {r.reason}{game}"
              + (f": {text}" if text else ""))  # fmt: skip
    print(f"{len(rows)} report{'s' if len(rows) != 1 else ''}")


def _log(store: GameStore) -> None:
    for r in account_data.mod_log_listing(store.engine, 500):
        when = r.created_at.strftime("%Y-%m-%d %H:%M:%S")
        extra = f" ({r.detail})" if r.detail else ""
        print(f"{when}  {r.actor}: {r.action} {r.target}{extra}".rstrip())


def cli_main(args: argparse.Namespace) -> int:
    """Run ``lostcities users``.

    :raises AccountNotFoundError: for an unknown username (the CLI prints one line, exit 2).
    :raises StorageError: for a database that cannot be used, or none
        (:func:`~lostcities.web.operator.operator_store`).
    """
    with operator_store(args.db) as store:
        if args.action == "list":
            _list(store)
            return 0
        if args.action == "reports":
            _reports(store)
            return 0
        if args.action == "log":
            _log(store)
            return 0
        if not args.name:
            raise AccountNotFoundError(
                f"{args.action} needs a username (see lostcities users list)"
            )
        row = find_account_sync(store, args.name)
        if row is None:
            raise AccountNotFoundError(f"no account {args.name!r}")
        if args.action == "delete":
            games = store.write_sync(op_delete_account(row.id, OPERATOR))
            print(f"account {row.username} deleted ({len(games)} games kept as 'deleted player')")
            return 0
        status = "banned" if args.action == "ban" else "active"
        store.write_sync(op_set_status(row.id, status, args.reason, OPERATOR))
        revoked: list[int] = []
        if status == "banned":  # its API tokens too: a running server closes their streams
            revoked = store.write_sync(op_revoke_account_tokens(row.id, OPERATOR, utcnow()))
        tokens = f" and {len(revoked)} API token{'s' if len(revoked) != 1 else ''} revoked"
        print(
            f"account {row.username} {'banned' if status == 'banned' else 'unbanned'}"
            + (tokens if revoked else "")
        )
        return 0
