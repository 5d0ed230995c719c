"""Optional accounts: the username rule, password hashing, server-side sessions, CSRF, the
log-in throttle, blocks, reports and the moderation log (issue 27). Guests play exactly as
before, with no account: a guest is ``None`` here and is known by its games' seat tokens.

- **Usernames** (:func:`check_username`): 3 to 20 characters, ASCII letters, digits, ``_``
  and ``-``, or Hangul syllables; starting with a letter, a digit or a syllable; no
  control or bidirectional characters (the project's typed-text rule,
  :func:`lostcities.web.schemas.check_typed`, says so first). Unique ignoring case *and*
  the confusable look-alikes ``0``/``o`` and ``1``/``l``/``i`` (:func:`username_key`);
  names of the site, its roles and its bots are reserved (:data:`RESERVED`).
- **Passwords**: 8 to 200 characters, not a common one, a simple pattern or the username
  (:mod:`lostcities.web.passwords`), hashed with argon2id (:data:`ARGON2_PARAMETERS`:
  RFC 9106's second recommended option, 64 MiB, 3 passes, 4 lanes, 16-byte salt).
- **Sessions**: a random 256-bit token in an ``HttpOnly``, ``SameSite=Lax`` cookie
  (``Secure`` when the request came over TLS), only its SHA-256 stored; a new one at every
  log-in (a cookie planted before is never promoted); gone at log-out, on a password change
  (every other session too), at a ban and with the account; 30 days at most.
- **CSRF** (:class:`CsrfGuard`): every state-changing request that carries the session
  cookie, and every one under ``/api/accounts`` and ``/api/players``, must send the
  ``lc_csrf`` cookie's value in the ``X-CSRF-Token`` header (a cookie another site cannot
  read), and an ``Origin``, when sent, must be this server's.
- **Throttle** (:func:`check_throttle_sync`): failed log-ins are counted per username
  (whether or not it exists) and per client, in the database, so across server processes:
  a client is its address hashed with a salt stored once in the database
  (:func:`throttle_salt_sync`), the same on every process; over
  :data:`ACCOUNT_FAILURES` or :data:`CLIENT_FAILURES` in :data:`FAILURE_WINDOW` seconds a
  log-in is refused (429) before any password is checked.
- **No username enumeration.** A log-in that fails says the same words ("wrong username or
  password") and costs the same argon2 verification whether the name is unknown, has no
  password, or the password is wrong; the throttle counts names, not accounts. Sign-up must
  say that a name is taken, which tells no more than the public ``/players/{username}``
  page; it hashes the password before looking and is rate-limited per client.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import hmac
import re
import secrets
import unicodedata
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import Request, Response
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from lostcities.bots import BUILTIN
from lostcities.web.errors import (
    AccountNotFoundError,
    CsrfError,
    NotSignedInError,
    RateLimitedError,
    UsernameRuleError,
    UsernameTakenError,
)
from lostcities.web.levels import LEVELS
from lostcities.web.limits import client_key
from lostcities.web.models.accounts import AccountRow, ReportRow
from lostcities.web.models.base import utcnow
from lostcities.web.passwords import PASSWORD_MAX, PASSWORD_MIN, check_password
from lostcities.web.repositories import accounts as account_data
from lostcities.web.repositories import games as game_data
from lostcities.web.repositories.games import notify_change
from lostcities.web.schemas import check_typed
from lostcities.web.store import GameStore, hash_token

__all__ = [
    "AccountDetails",
    "PasskeyInfo",
    "account_details_sync",
    "ACCOUNT_FAILURES",
    "ARGON2_PARAMETERS",
    "CLIENT_FAILURES",
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "DELETED_PLAYER",
    "FAILURE_WINDOW",
    "RESERVED",
    "SESSION_COOKIE",
    "SESSION_DAYS",
    "THROTTLE_SALT",
    "Account",
    "CsrfGuard",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "account_of",
    "blocked_between",
    "check_password_rule",
    "check_username",
    "current_account",
    "find_account",
    "require_account",
    "throttle_client",
    "throttle_salt_sync",
    "username_key",
]


SESSION_COOKIE = "lc_session"
"""The session cookie (HttpOnly; its value is the only copy of the token)."""
CSRF_COOKIE = "lc_csrf"
"""The CSRF cookie: readable by this site's scripts, which echo it in :data:`CSRF_HEADER`."""
CSRF_HEADER = "x-csrf-token"
SESSION_DAYS = 30
"""A session ends this many days after its log-in."""
DELETED_PLAYER = "deleted player"
"""The name a deleted account's games show in its seats."""

ARGON2_PARAMETERS = {"time_cost": 3, "memory_cost": 65536, "parallelism": 4, "salt_len": 16}
"""argon2id's parameters (RFC 9106, section 4, the second recommended option: 3 passes over
64 MiB with 4 lanes; a 32-byte hash). A hash or a verification took 0.27 s (one, light load) and
0.61 s (median of 10, load average 11) on the shared 2-core development machine."""

_hasher = PasswordHasher(
    time_cost=ARGON2_PARAMETERS["time_cost"],
    memory_cost=ARGON2_PARAMETERS["memory_cost"],
    parallelism=ARGON2_PARAMETERS["parallelism"],
    hash_len=32,
    salt_len=ARGON2_PARAMETERS["salt_len"],
)
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))
"""Verified against when there is no hash to check, so a failure always costs the same."""

ACCOUNT_FAILURES = 10
"""Failed log-ins of one username in :data:`FAILURE_WINDOW` before its log-ins are refused."""
CLIENT_FAILURES = 30
"""Failed log-ins from one client in :data:`FAILURE_WINDOW` before its log-ins are refused."""
FAILURE_WINDOW = 900.0
"""Seconds a failed log-in counts."""

USERNAME_MIN, USERNAME_MAX = 3, 20

RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "system",
        "operator",
        "moderator",
        "mod",
        "staff",
        "support",
        "help",
        "lostcities",
        "lost-cities",
        "knizia",
        "guest",
        "anonymous",
        "deleted",
        "deleted-player",
        "player",
        "computer",
        "bot",
        "server",
        "api",
        "signup",
        "login",
        "logout",
        "account",
        "lobby",
        "leaderboard",
        "players",
        "null",
        "none",
        *LEVELS,
        *BUILTIN,
    }
)
"""Names nobody may sign up with (compared as :func:`username_key` makes them): the
site's, its roles', the computer levels' and the built-in bots'."""


# -- the account ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    """A signed-in player (what :func:`current_account` gives; ``None`` is a guest)."""

    id: int
    username: str
    created_at: datetime.datetime
    has_password: bool
    status: str = "active"
    is_bot: bool = False
    """A bot account (:mod:`lostcities.web.bot_api`): no lobby pairing; marked BOT."""

    @classmethod
    def of(cls, row: AccountRow) -> Account:
        """The account of a stored row."""
        return cls(
            row.id,
            row.username,
            row.created_at,
            row.password_hash is not None,
            row.status,
            bool(row.is_bot),
        )


# -- usernames and passwords --------------------------------------------------------------------

_ALLOWED = re.compile(r"[A-Za-z0-9_\-\uac00-\ud7a3]+")
_FIRST = re.compile(r"[A-Za-z0-9\uac00-\ud7a3]")
_LOOKALIKE = str.maketrans({"0": "o", "1": "l", "i": "l"})


def username_key(name: str) -> str:
    """What makes two usernames the same: NFC, case folded, and the look-alikes ``0``/``o``
    and ``1``/``l``/``i`` taken as one letter.

    >>> username_key("Bob1") == username_key("bobl") == username_key("BOBI")
    True
    >>> username_key("Zoe")
    'zoe'
    """
    return unicodedata.normalize("NFC", name).casefold().translate(_LOOKALIKE)


def check_username(name: str) -> str:
    """The username (NFC, spaces around it stripped) if it keeps the rule (module docs).

    >>> check_username(" ann_lee ")
    'ann_lee'
    >>> check_username("Ad")
    Traceback (most recent call last):
    ...
    lostcities.web.errors.UsernameRuleError: a username has 3 to 20 characters
    >>> check_username("adm1n")
    Traceback (most recent call last):
    ...
    lostcities.web.errors.UsernameRuleError: that username is reserved

    :raises UsernameRuleError: saying what is wrong.
    """
    try:
        check_typed(name)
    except ValueError as e:
        raise UsernameRuleError(str(e), reason="characters") from None
    text = unicodedata.normalize("NFC", name.strip())
    if not USERNAME_MIN <= len(text) <= USERNAME_MAX:
        raise UsernameRuleError(
            f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters", reason="length"
        )
    if not _ALLOWED.fullmatch(text):
        raise UsernameRuleError(
            "a username has only letters a-z, digits, _ and - (or Hangul syllables)",
            reason="characters",
        )
    if not _FIRST.match(text):
        raise UsernameRuleError("a username starts with a letter or a digit", reason="first")
    if username_key(text) in _RESERVED_KEYS:
        raise UsernameRuleError("that username is reserved", reason="reserved")
    return text


_RESERVED_KEYS = frozenset(username_key(n) for n in RESERVED)


def check_password_rule(password: str, username: str = "") -> str:
    """The password if the rule allows it for ``username``
    (:func:`lostcities.web.passwords.check_password`: its length, not common, not a simple
    pattern, not the username).

    :raises PasswordRuleError: saying what is wrong (its ``reason`` names it).
    """
    return check_password(password, username)


def hash_secret(secret: str) -> str:
    """The argon2id hash of a password or a recovery code (blocking: :data:`ARGON2_PARAMETERS`)."""
    return _hasher.hash(secret)


def verify_secret(stored: str | None, secret: str) -> bool:
    """Whether ``secret`` matches ``stored`` (``None``: checks a dummy, fails, same time)."""
    try:
        return _hasher.verify(stored or _DUMMY_HASH, secret) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def new_recovery_code() -> str:
    """A recovery code: 20 hex digits (80 random bits) in groups of 4.

    >>> len(new_recovery_code()), new_recovery_code().count("-")
    (24, 4)
    """
    raw = secrets.token_hex(10)
    return "-".join(raw[i : i + 4] for i in range(0, 20, 4))


def normalize_recovery_code(code: str) -> str:
    """A typed recovery code as stored: lower case, without spaces and dashes."""
    return "".join(ch for ch in code.lower() if ch in "0123456789abcdef")[:40]


# -- reads (in worker threads) ----------------------------------------------------------------


def _now() -> datetime.datetime:
    return utcnow()


def session_account_sync(store: GameStore, token: str) -> Account | None:
    """The active account of a session token, or ``None`` (unknown, expired, banned)."""
    since = _now() - datetime.timedelta(days=SESSION_DAYS)
    row = account_data.account_by_session(store.engine, hash_token(token), since)
    return None if row is None else Account.of(row)


def find_account_sync(store: GameStore, username: str) -> AccountRow | None:
    """The stored account of ``username`` (compared by :func:`username_key`), or ``None``."""
    key = username_key(username.strip())[: USERNAME_MAX + 4]
    return account_data.account_by_key(store.engine, key)


async def find_account(store: GameStore, username: str) -> Account | None:
    """The account of ``username`` (any case, look-alikes taken as one), or ``None``;
    banned accounts too (``status``)."""
    row = await asyncio.to_thread(find_account_sync, store, username)
    return None if row is None else Account.of(row)


@dataclass(frozen=True)
class PasskeyInfo:
    """What the account page shows of one passkey."""

    credential_id: str
    name: str
    created_at: datetime.datetime | None
    last_used: datetime.datetime | None


@dataclass(frozen=True)
class AccountDetails:
    """What the account page shows of an account beyond its name: whether it has a
    password, its passkeys (oldest first) and the players it blocked (by name)."""

    has_password: bool
    passkeys: list[PasskeyInfo]
    blocked: list[str]


def account_details_sync(store: GameStore, account_id: int) -> AccountDetails:
    """The account page's details of the account ``account_id``."""
    row, keys, blocked = account_data.account_details(store.engine, account_id)
    return AccountDetails(
        has_password=row is not None and row.password_hash is not None,
        passkeys=[PasskeyInfo(k.credential_id, k.name, k.created_at, k.last_used) for k in keys],
        blocked=blocked,
    )


def accounts_by_id_sync(store: GameStore, ids: Iterable[int]) -> dict[int, Account]:
    """The accounts of ``ids`` (unknown ids left out)."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    return {r.id: Account.of(r) for r in account_data.accounts_by_id(store.engine, wanted)}


def blocked_between_sync(store: GameStore, a: int, b: int) -> bool:
    """Whether either of the accounts ``a``, ``b`` blocked the other."""
    return account_data.blocked_between(store.engine, a, b)


async def blocked_between(store: GameStore, a: int | None, b: int | None) -> bool:
    """Whether two players must not meet (chat, pairing): either blocked the other. A
    guest (``None``) blocks nobody and cannot be blocked."""
    if a is None or b is None or a == b:
        return False
    return await asyncio.to_thread(blocked_between_sync, store, a, b)


# -- the request dependencies ---------------------------------------------------------------------


async def account_of(conn: HTTPConnection) -> Account | None:
    """The signed-in account of a request or a WebSocket (its session cookie), or ``None``
    for a guest. Read from the database (any server process may have made the session)."""
    cached = getattr(conn.state, "account", False)
    if cached is None or isinstance(cached, Account):
        return cached
    token = conn.cookies.get(SESSION_COOKIE)
    account = None
    if token and len(token) <= 100:
        store: GameStore = conn.app.state.store
        account = await asyncio.to_thread(session_account_sync, store, token)
    conn.state.account = account
    return account


async def current_account(request: Request) -> Account | None:
    """FastAPI dependency: the signed-in account, or ``None`` for a guest."""
    return await account_of(request)


async def require_account(request: Request) -> Account:
    """FastAPI dependency: the signed-in account.

    :raises NotSignedInError: for a guest (401).
    """
    account = await account_of(request)
    if account is None:
        raise NotSignedInError("sign in first")
    return account


# -- cookies and CSRF -------------------------------------------------------------------------------


def _secure(conn: HTTPConnection) -> bool:
    return conn.url.scheme in ("https", "wss")


def set_session_cookie(request: Request, response: Response, token: str) -> None:
    """Hand the browser its session token (HttpOnly, SameSite=Lax, Secure over TLS)."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_DAYS * 86400,
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(request),
    )


def clear_session_cookie(request: Request, response: Response) -> None:
    """Take the session cookie away."""
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=_secure(request)
    )


def csrf_token(request: Request, response: Response) -> str:
    """The browser's CSRF token: its ``lc_csrf`` cookie, made (and set) if it has none."""
    token = request.cookies.get(CSRF_COOKIE)
    if not token or not 20 <= len(token) <= 100:
        token = secrets.token_urlsafe(32)
        response.set_cookie(
            CSRF_COOKIE,
            token,
            max_age=365 * 86400,
            path="/",
            httponly=False,  # the page's script echoes it in the X-CSRF-Token header
            samesite="strict",
            secure=_secure(request),
        )
    return token


_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_GUARDED = ("/api/accounts", "/api/players")


def _cookies(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            for part in value.decode("latin-1").split(";"):
                k, _, v = part.strip().partition("=")
                if k and k not in out:
                    out[k] = v
    return out


def csrf_problem(scope: Scope) -> str | None:
    """Why an HTTP request must be refused as a possible cross-site forgery (``None``: it
    may go on): see :class:`CsrfGuard`."""
    if scope["method"] in _SAFE_METHODS:
        return None
    path: str = scope["path"]
    cookies = _cookies(scope)
    if SESSION_COOKIE not in cookies and not path.startswith(_GUARDED):
        return None  # a guest's request: its seat tokens, never a cookie, are its authority
    headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
    origin = headers.get("origin")
    if origin is not None and origin != "null":
        host = headers.get("host", "")
        scheme = scope.get("scheme", "http")
        if origin.rstrip("/") != f"{scheme}://{host}":
            return "a request from another site is refused"
    if headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
        return "a request from another site is refused"
    sent = headers.get(CSRF_HEADER, "")
    kept = cookies.get(CSRF_COOKIE, "")
    if not sent or not kept or not hmac.compare_digest(sent.encode(), kept.encode()):
        return "missing or wrong CSRF token (reload the page)"
    return None


class CsrfGuard:
    """ASGI middleware refusing (403, ``csrf``) a state-changing request (not GET, HEAD,
    OPTIONS) that carries the session cookie, or that goes to ``/api/accounts`` or
    ``/api/players``, unless its ``X-CSRF-Token`` header equals its ``lc_csrf`` cookie and
    its ``Origin`` (and ``Sec-Fetch-Site``), when sent, say this site. A guest's requests,
    with no session cookie, are not touched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            why = csrf_problem(scope)
            if why is not None:
                from fastapi.responses import JSONResponse

                await JSONResponse(CsrfError(why).body(), status_code=CsrfError.status)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


# -- the throttle ---------------------------------------------------------------------------------


THROTTLE_SALT = "throttle_salt"
"""The name of the shared salt (``lc_secrets``) of the throttle's client keys."""
_salts: weakref.WeakKeyDictionary[GameStore, str] = weakref.WeakKeyDictionary()


def throttle_salt_sync(store: GameStore) -> str:
    """The salt of the throttle's client keys: one random value in the database, made by
    whichever process needs it first, so that every process keys a client alike (a salt
    per process would give each its own count). Kept in memory once read."""
    salt = _salts.get(store)
    if salt is not None:
        return salt
    salt = account_data.secret(store.engine, THROTTLE_SALT)
    if salt is None:
        with contextlib.suppress(IntegrityError):  # another process made it first: theirs
            account_data.add_secret(store.engine, THROTTLE_SALT, secrets.token_hex(32), _now())
        salt = account_data.secret(store.engine, THROTTLE_SALT)
        assert salt is not None
    _salts[store] = salt
    return salt


async def throttle_client(conn: HTTPConnection, store: GameStore) -> str:
    """The throttle's key of the client of ``conn``: its address hashed with
    :func:`throttle_salt_sync` (the same on every process)."""
    salt = _salts.get(store)
    if salt is None:
        salt = await asyncio.to_thread(throttle_salt_sync, store)
    return client_key(conn, salt)


def failure_keys(username: str, client: str) -> tuple[str, str]:
    """The throttle's keys of a log-in: one for the username (known or not), one for the
    client (already a salted hash)."""
    name = hashlib.sha256(f"name:{username_key(username.strip())[:40]}".encode()).hexdigest()
    who = hashlib.sha256(f"client:{client}".encode()).hexdigest()
    return name, who


def check_throttle_sync(store: GameStore, keys: tuple[str, str]) -> None:
    """Refuse a log-in over the throttle (module docs).

    :raises RateLimitedError: with the seconds until one failure leaves the window.
    """
    since = _now() - datetime.timedelta(seconds=FAILURE_WINDOW)
    for key, limit in zip(keys, (ACCOUNT_FAILURES, CLIENT_FAILURES), strict=True):
        n, oldest = account_data.failures(store.engine, key, since)
        if n >= limit:
            wait = FAILURE_WINDOW - (_now() - oldest).total_seconds()
            raise RateLimitedError(
                "too many failed log-ins: wait a little, then try again", max(1.0, wait)
            )


def op_failed_login(keys: tuple[str, str]) -> Callable[[Session], None]:
    """Count a failed log-in under both keys (and forget failures older than the window)."""

    def fn(s: Session) -> None:
        now = _now()
        account_data.forget_failures_before(s, now - datetime.timedelta(seconds=FAILURE_WINDOW))
        for key in keys:
            account_data.add_failure(s, key, now)

    return fn


def op_clear_failures(key: str) -> Callable[[Session], None]:
    """Forget a username's failures (it logged in)."""

    def fn(s: Session) -> None:
        account_data.clear_failures(s, key)

    return fn


# -- writes (run by the store's writer) ----------------------------------------------------------


def mod_log(s: Session, actor: str, action: str, target: str = "", detail: str = "") -> None:
    """Record an action in the moderation log (``lc_mod_log``; also logged at INFO to the
    ``lostcities.web`` logger: :func:`lostcities.web.repositories.accounts.add_mod_log`)."""
    account_data.add_mod_log(s, _now(), actor, action, target, detail)


def op_create_account(
    username: str, password_hash: str | None, recovery_hash: str
) -> Callable[[Session], AccountRow]:
    """Store a new account; returns it.

    :raises UsernameTakenError: if the name (or one that looks the same) is taken.
    """

    def fn(s: Session) -> AccountRow:
        key = username_key(username)
        if account_data.username_taken(s, key):
            raise UsernameTakenError("that username is taken")
        row = AccountRow(
            created_at=_now(),
            username=username,
            username_key=key,
            password_hash=password_hash,
            recovery_hash=recovery_hash,
            user_handle=secrets.token_urlsafe(32),
            status="active",
        )
        try:
            account_data.add_account(s, row)
        except IntegrityError:  # (another process, the same instant)
            raise UsernameTakenError("that username is taken") from None
        mod_log(s, username, "sign up", username, "password" if password_hash else "passkey")
        account_data.detach(s, row)
        return row

    return fn


def op_new_session(
    account_id: int, token: str, *, replace: str | None = None
) -> Callable[[Session], None]:
    """Store a session (and drop ``replace``, the browser's session before this log-in)."""

    def fn(s: Session) -> None:
        if replace:
            account_data.end_session(s, hash_token(replace))
        now = _now()
        account_data.add_session(s, hash_token(token), account_id, now)
        account_data.end_sessions(s, before=now - datetime.timedelta(days=SESSION_DAYS))

    return fn


def op_end_session(token: str) -> Callable[[Session], None]:
    """Log out: the session is gone (its cookie, if kept or stolen, opens nothing)."""

    def fn(s: Session) -> None:
        account_data.end_session(s, hash_token(token))

    return fn


def op_set_password(
    account_id: int, password_hash: str | None, keep: str | None, recovery_hash: str | None = None
) -> Callable[[Session], None]:
    """Set (or with ``None`` remove) the password; every session but ``keep`` ends."""

    def fn(s: Session) -> None:
        values: dict[str, Any] = {"password_hash": password_hash}
        if recovery_hash is not None:
            values["recovery_hash"] = recovery_hash
        account_data.set_account(s, account_id, **values)
        account_data.end_sessions(
            s, account_id=account_id, keep=None if keep is None else hash_token(keep)
        )
        name = account_data.get(s, account_id)
        mod_log(
            s,
            name.username if name else "?",
            "password",
            detail="set" if password_hash else "removed",
        )

    return fn


def op_claim_games(
    account_id: int, seats: Sequence[tuple[str, str]]
) -> Callable[[Session], list[str]]:
    """Bind to the account the seats of ``seats`` (game id, seat token) whose token is
    right and whose seat has no account yet (a guest's games, claimed at sign-up in the
    same browser); a claimed seat takes the account's username as its name, as a game
    played signed in shows it. Returns the games claimed."""

    def fn(s: Session) -> list[str]:
        claimed: list[str] = []
        account = account_data.get(s, account_id)
        if account is None:
            return claimed
        for game_id, token in seats[:200]:
            row = game_data.get(s, game_id[:32])
            if row is None or not token:
                continue
            h = hash_token(token)
            for seat, stored in ((0, row.token0), (1, row.token1)):
                col = "account0" if seat == 0 else "account1"
                if (
                    stored is not None
                    and hmac.compare_digest(stored, h)
                    and getattr(row, col) is None
                ):
                    setattr(row, col, account_id)
                    setattr(row, f"name{seat}", account.username)
                    claimed.append(row.id)
        s.flush()
        notify_change(s, claimed)
        return claimed

    return fn


def op_delete_account(account_id: int, actor: str) -> Callable[[Session], list[str]]:
    """Delete an account and its personal data (sessions, passkeys, blocks, reports about
    it); its games stay, their seats named :data:`DELETED_PLAYER`. Returns the games changed."""

    def fn(s: Session) -> list[str]:
        row = account_data.get(s, account_id)
        if row is None:
            raise AccountNotFoundError("no such account")
        games = game_data.release_seats(s, account_id, DELETED_PLAYER)
        account_data.delete_account(s, account_id)
        mod_log(s, actor, "delete", f"#{account_id}", f"{len(set(games))} games kept")
        notify_change(s, games)
        return sorted(set(games))

    return fn


def op_set_status(
    account_id: int, status: str, reason: str, actor: str
) -> Callable[[Session], None]:
    """Ban (every session ends) or unban an account."""

    def fn(s: Session) -> None:
        row = account_data.get(s, account_id)
        if row is None:
            raise AccountNotFoundError("no such account")
        row.status = status
        row.status_reason = reason[:200] or None
        if status != "active":
            account_data.end_sessions(s, account_id=account_id)
        mod_log(s, actor, "ban" if status == "banned" else "unban", row.username, reason)

    return fn


def op_block(blocker: Account, blocked: Account, on: bool) -> Callable[[Session], bool]:
    """Block (``on``) or unblock a player; returns whether anything changed."""

    def fn(s: Session) -> bool:
        have = account_data.block(s, blocker.id, blocked.id)
        if on == (have is not None):
            return False
        if have is None:
            account_data.add_block(s, blocker.id, blocked.id, _now())
        else:
            account_data.delete_block(s, have)
        mod_log(s, blocker.username, "block" if on else "unblock", blocked.username)
        return True

    return fn


def op_report(
    reporter: Account, target: Account, reason: str, text: str, game_id: str | None
) -> Callable[[Session], int]:
    """Store a report of ``target`` for the operator; returns its id."""

    def fn(s: Session) -> int:
        row = ReportRow(
            created_at=_now(),
            reporter_id=reporter.id,
            target_id=target.id,
            reason=reason,
            text=text,
            game_id=game_id,
        )
        report_id = account_data.add_report(s, row)
        mod_log(s, reporter.username, "report", target.username, reason)
        return report_id

    return fn
