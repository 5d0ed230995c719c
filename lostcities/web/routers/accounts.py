"""``/api/accounts``: sign up (password or passkey), log in and out, the account (its
password, passkeys, recovery code, claimed games, blocks; delete it); ``/api/players/{username}``:
block and report a player. Every state-changing request needs the CSRF header
(:class:`lostcities.web.accounts.CsrfGuard`); docs/web.md lists the requests."""

from __future__ import annotations

import asyncio
import datetime
import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from lostcities.web import accounts as acc
from lostcities.web import auth_passkeys as pk
from lostcities.web import i18n
from lostcities.web.accounts import Account, current_account, require_account
from lostcities.web.deps import get_settings, get_store
from lostcities.web.errors import (
    AccountBannedError,
    AccountNotFoundError,
    ConfirmationError,
    LoginFailedError,
    NotSignedInError,
    PasskeyError,
    RecoveryFailedError,
    SelfError,
    UsernameRuleError,
    UsernameTakenError,
    WrongPasswordError,
)
from lostcities.web.limits import RateLimiter, client_key
from lostcities.web.lobby import LobbyHub
from lostcities.web.models.accounts import AccountRow
from lostcities.web.routers.pages import render_page
from lostcities.web.schemas import check_typed
from lostcities.web.store import GameStore

router = APIRouter(tags=["accounts"])

SIGNUP_BURST, SIGNUP_PER = 10, 3600.0
"""Sign-ups one client may make at once, then one per ``SIGNUP_PER / SIGNUP_BURST`` s."""
REPORT_BURST, REPORT_PER = 5, 3600.0
"""Reports one client may send at once (then one per ``REPORT_PER / REPORT_BURST`` s)."""


# -- requests and answers -----------------------------------------------------------------


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


Secret = Annotated[str, Field(max_length=acc.PASSWORD_MAX + 56)]
Username = Annotated[str, Field(max_length=200)]
"""A username as sent: the rule (:func:`~lostcities.web.accounts.check_username`: 3 to 20
characters) says what is wrong with one; this bound only keeps an absurd one out."""


class RememberedSeat(_In):
    """A game this browser played as a guest: its id and seat token."""

    id: Annotated[str, Field(max_length=32)]
    token: Annotated[str, Field(max_length=200)]


Seats = Annotated[list[RememberedSeat], Field(max_length=200)]


class SignupIn(_In):
    """``POST /api/accounts/signup``: a new account with a password; ``games``: the guest
    games this browser remembers, to claim."""

    username: Username
    password: Secret
    games: Seats = []


class LoginIn(_In):
    """``POST /api/accounts/login``."""

    username: Username
    password: Secret


class PasswordIn(_In):
    """``POST /api/accounts/password``: set a new password (the current one, if any)."""

    current_password: Secret | None = None
    new_password: Secret


class RecoverIn(_In):
    """``POST /api/accounts/recover``: a new password with the recovery code."""

    username: Username
    recovery_code: Annotated[str, Field(max_length=60)]
    new_password: Secret


class ClaimIn(_In):
    """``POST /api/accounts/claim``: bind this browser's guest games to the account."""

    games: Seats


class DeleteIn(_In):
    """``POST /api/accounts/delete``: the username typed again (and the password, if any)."""

    username: Username
    password: Secret | None = None


class PasskeyOptionsIn(_In):
    """``POST /api/accounts/passkeys/options``: a new account's username (signed out), or
    nothing (signed in: another passkey of the account)."""

    username: Username | None = None


class PasskeyRegisterIn(_In):
    """``POST /api/accounts/passkeys/register``: the browser's new credential (its
    ``toJSON()``), for the ceremony ``challenge_id``."""

    challenge_id: Annotated[str, Field(max_length=100)]
    credential: dict[str, Any]
    name: Annotated[str, Field(max_length=40)] = ""
    games: Seats = []

    @field_validator("name")
    @classmethod
    def _typed(cls, value: str) -> str:
        return check_typed(value.strip())


class PasskeyRenameIn(_In):
    """``PATCH /api/accounts/passkeys/{id}``: a passkey's new name (1 to 40 characters)."""

    name: Annotated[str, Field(max_length=40)]

    @field_validator("name")
    @classmethod
    def _typed(cls, value: str) -> str:
        value = check_typed(value.strip())
        if not value:
            raise ValueError("a passkey's name has 1 to 40 characters")
        return value


class PasskeyLoginIn(_In):
    """``POST /api/accounts/passkeys/login``: the browser's assertion (its ``toJSON()``)."""

    challenge_id: Annotated[str, Field(max_length=100)]
    credential: dict[str, Any]


class ReportIn(_In):
    """``POST /api/players/{username}/report``."""

    reason: Literal["cheating", "abuse", "name", "other"]
    text: Annotated[str, Field(max_length=500)] = ""
    game_id: Annotated[str, Field(max_length=32)] | None = None

    @field_validator("text")
    @classmethod
    def _typed(cls, value: str) -> str:
        return check_typed(value.replace("\r\n", "\n").strip(), "\n")


class PasskeyOut(BaseModel):
    """One passkey of the account (its id is what ``DELETE`` names)."""

    id: str
    name: str
    created_at: str
    last_used: str | None


class AccountOut(BaseModel):
    """The signed-in account (never a hash: ``has_password`` says whether there is one)."""

    username: str
    created_at: str
    has_password: bool
    passkeys: list[PasskeyOut]
    blocked: list[str]


class MeOut(BaseModel):
    """``GET /api/accounts/me``: the account, or ``null`` for a guest."""

    account: AccountOut | None


class SignedUpOut(BaseModel):
    """A new account: the recovery code, shown this once, and the games claimed."""

    username: str
    recovery_code: str
    claimed: list[str]


class SignedInOut(BaseModel):
    """A log-in."""

    username: str


class RecoveredOut(BaseModel):
    """A recovery: the new recovery code (the old one is used up)."""

    username: str
    recovery_code: str


class ClaimedOut(BaseModel):
    """The games bound to the account."""

    claimed: list[str]


class OptionsOut(BaseModel):
    """The options of a passkey ceremony (``PublicKeyCredential*Options`` as JSON)."""

    challenge_id: str
    options: dict[str, Any]


class OkOut(BaseModel):
    """Done."""

    ok: bool = True


# -- helpers ------------------------------------------------------------------------------


def _iso(t: datetime.datetime | None) -> str | None:
    return None if t is None else t.isoformat() + "Z"


def _limiter(request: Request, name: str, burst: int, per: float) -> RateLimiter:
    lim: RateLimiter | None = getattr(request.app.state, name, None)
    if lim is None:
        lim = RateLimiter(burst, per)
        setattr(request.app.state, name, lim)
    return lim


def _client(request: Request) -> str:
    return client_key(request, get_settings(request).client_salt)


def _seats(games: list[RememberedSeat]) -> list[tuple[str, str]]:
    return [(g.id, g.token) for g in games]


async def _start_session(request: Request, response: Response, account_id: int) -> None:
    """Log the browser in with a new token (its old session, if any, ends: rotation)."""
    store = get_store(request)
    token = secrets.token_urlsafe(32)
    old = request.cookies.get(acc.SESSION_COOKIE)
    await store.write(acc.op_new_session(account_id, token, replace=old))
    acc.set_session_cookie(request, response, token)


async def _claim(request: Request, account_id: int, games: list[RememberedSeat]) -> list[str]:
    if not games:
        return []
    claimed: list[str] = await get_store(request).write(
        acc.op_claim_games(account_id, _seats(games))
    )
    mgr = getattr(request.app.state, "manager", None)
    for gid in claimed:  # copies in memory here take the accounts (other processes: NOTIFY)
        if mgr is not None:
            mgr.on_change(gid)
    return claimed


def _account_out(store: GameStore, account: Account) -> AccountOut:
    details = acc.account_details_sync(store, account.id)
    return AccountOut(
        username=account.username,
        created_at=_iso(account.created_at) or "",
        has_password=details.has_password,
        passkeys=[
            PasskeyOut(
                id=k.credential_id,
                name=k.name,
                created_at=_iso(k.created_at) or "",
                last_used=_iso(k.last_used),
            )
            for k in details.passkeys
        ],
        blocked=details.blocked,
    )


async def _new_account(
    request: Request, username: str, password_hash: str | None
) -> tuple[AccountRow, str]:
    code = acc.new_recovery_code()
    recovery_hash = await asyncio.to_thread(acc.hash_secret, acc.normalize_recovery_code(code))
    row: AccountRow = await get_store(request).write(
        acc.op_create_account(username, password_hash, recovery_hash)
    )
    return row, code


# -- the CSRF token and the account ------------------------------------------------------------


@router.get("/api/accounts/csrf")
async def csrf(request: Request, response: Response) -> dict[str, str]:
    """The browser's CSRF token (sets the ``lc_csrf`` cookie if it has none): send it in
    the ``X-CSRF-Token`` header of every state-changing request."""
    return {"csrf": acc.csrf_token(request, response)}


@router.get("/api/accounts/me", response_model=MeOut)
async def me(
    request: Request, response: Response, account: Account | None = Depends(current_account)
) -> MeOut:
    """The signed-in account (``null``: a guest); sets the CSRF cookie if missing."""
    acc.csrf_token(request, response)
    if account is None:
        return MeOut(account=None)
    out = await asyncio.to_thread(_account_out, get_store(request), account)
    return MeOut(account=out)


# -- sign up, log in, log out -------------------------------------------------------------------


@router.post("/api/accounts/signup", response_model=SignedUpOut, status_code=201)
async def signup(req: SignupIn, request: Request, response: Response) -> SignedUpOut:
    """A new account with a password; logs the browser in and claims its guest games. The
    recovery code in the answer is shown this once."""
    username = acc.check_username(req.username)
    password = acc.check_password_rule(req.password, username)
    _limiter(request, "signup_limiter", SIGNUP_BURST, SIGNUP_PER).check(
        _client(request), "sign-ups"
    )
    # hashed before the name is looked up: a taken name answers no faster
    password_hash = await asyncio.to_thread(acc.hash_secret, password)
    row, code = await _new_account(request, username, password_hash)
    await _start_session(request, response, row.id)
    claimed = await _claim(request, row.id, req.games)
    return SignedUpOut(username=row.username, recovery_code=code, claimed=claimed)


@router.post("/api/accounts/login", response_model=SignedInOut)
async def login(req: LoginIn, request: Request, response: Response) -> SignedInOut:
    """Log in with a password: a new session (any earlier one of this browser ends).
    Whatever is wrong, the answer is the same: ``login_failed``, "wrong username or
    password", after the same work."""
    store = get_store(request)
    keys = acc.failure_keys(req.username, await acc.throttle_client(request, store))
    await asyncio.to_thread(acc.check_throttle_sync, store, keys)
    row = await asyncio.to_thread(acc.find_account_sync, store, req.username)
    stored = None if row is None else row.password_hash
    ok = await asyncio.to_thread(acc.verify_secret, stored, req.password[: acc.PASSWORD_MAX])
    if not ok or row is None:
        await store.write(acc.op_failed_login(keys))
        raise LoginFailedError("wrong username or password")
    if row.status != "active":
        raise AccountBannedError("this account is banned")
    await store.write(acc.op_clear_failures(keys[0]))
    await _start_session(request, response, row.id)
    return SignedInOut(username=row.username)


@router.post("/api/accounts/logout", response_model=OkOut)
async def logout(request: Request, response: Response) -> OkOut:
    """Log out: the session is deleted (its cookie opens nothing any more)."""
    token = request.cookies.get(acc.SESSION_COOKIE)
    if token:
        await get_store(request).write(acc.op_end_session(token))
    acc.clear_session_cookie(request, response)
    return OkOut()


@router.post("/api/accounts/recover", response_model=RecoveredOut)
async def recover(req: RecoverIn, request: Request, response: Response) -> RecoveredOut:
    """Set a new password with the recovery code (throttled as log-ins are); every session
    ends, this browser gets a new one, and a new recovery code replaces the used one."""
    store = get_store(request)
    password = acc.check_password_rule(req.new_password, req.username)
    keys = acc.failure_keys(req.username, await acc.throttle_client(request, store))
    await asyncio.to_thread(acc.check_throttle_sync, store, keys)
    row = await asyncio.to_thread(acc.find_account_sync, store, req.username)
    stored = None if row is None else row.recovery_hash
    code = acc.normalize_recovery_code(req.recovery_code)
    ok = await asyncio.to_thread(acc.verify_secret, stored, code)
    if not ok or row is None or row.status != "active":
        await store.write(acc.op_failed_login(keys))
        raise RecoveryFailedError("wrong username or recovery code")
    new_code = acc.new_recovery_code()
    password_hash = await asyncio.to_thread(acc.hash_secret, password)
    recovery_hash = await asyncio.to_thread(acc.hash_secret, acc.normalize_recovery_code(new_code))
    await store.write(acc.op_set_password(row.id, password_hash, None, recovery_hash))
    await _start_session(request, response, row.id)
    return RecoveredOut(username=row.username, recovery_code=new_code)


# -- the signed-in account ----------------------------------------------------------------------


@router.post("/api/accounts/password", response_model=OkOut)
async def change_password(
    req: PasswordIn, request: Request, account: Account = Depends(require_account)
) -> OkOut:
    """Set a new password (with the current one, if the account has one); every other
    session of the account ends."""
    store = get_store(request)
    password = acc.check_password_rule(req.new_password, account.username)
    row = await asyncio.to_thread(acc.find_account_sync, store, account.username)
    if row is None:
        raise NotSignedInError("sign in first")
    if row.password_hash is not None:
        keys = acc.failure_keys(account.username, await acc.throttle_client(request, store))
        await asyncio.to_thread(acc.check_throttle_sync, store, keys)
        ok = await asyncio.to_thread(
            acc.verify_secret, row.password_hash, (req.current_password or "")[: acc.PASSWORD_MAX]
        )
        if not ok:
            await store.write(acc.op_failed_login(keys))
            raise WrongPasswordError("the current password is wrong")
    password_hash = await asyncio.to_thread(acc.hash_secret, password)
    await store.write(
        acc.op_set_password(account.id, password_hash, request.cookies.get(acc.SESSION_COOKIE))
    )
    return OkOut()


@router.post("/api/accounts/claim", response_model=ClaimedOut)
async def claim(
    req: ClaimIn, request: Request, account: Account = Depends(require_account)
) -> ClaimedOut:
    """Bind the guest games this browser remembers (ids and seat tokens) to the account."""
    return ClaimedOut(claimed=await _claim(request, account.id, req.games))


@router.post("/api/accounts/delete", response_model=OkOut)
async def delete_account(
    req: DeleteIn, request: Request, response: Response, account: Account = Depends(require_account)
) -> OkOut:
    """Delete the account and its personal data; its finished games stay, under "deleted
    player". The username must be typed again (and the password, if there is one)."""
    store = get_store(request)
    if acc.username_key(req.username.strip()) != acc.username_key(account.username):
        raise ConfirmationError("type your username to confirm")
    row = await asyncio.to_thread(acc.find_account_sync, store, account.username)
    if row is not None and row.password_hash is not None:
        ok = await asyncio.to_thread(
            acc.verify_secret, row.password_hash, (req.password or "")[: acc.PASSWORD_MAX]
        )
        if not ok:
            raise WrongPasswordError("the password is wrong")
    games: list[str] = await store.write(acc.op_delete_account(account.id, account.username))
    mgr = getattr(request.app.state, "manager", None)
    for gid in games:
        if mgr is not None:
            mgr.on_change(gid)
    acc.clear_session_cookie(request, response)
    return OkOut()


# -- passkeys -------------------------------------------------------------------------------------


@router.post("/api/accounts/passkeys/options", response_model=OptionsOut)
async def passkey_options(
    req: PasskeyOptionsIn, request: Request, account: Account | None = Depends(current_account)
) -> OptionsOut:
    """The options to make a passkey: signed out, for a new account ``username``; signed
    in, another passkey of the account."""
    store = get_store(request)
    if account is None:
        if req.username is None:
            raise UsernameRuleError("a username is needed to sign up")
        username = acc.check_username(req.username)
        _limiter(request, "signup_limiter", SIGNUP_BURST, SIGNUP_PER).check(
            _client(request), "sign-ups"
        )
        if await acc.find_account(store, username) is not None:
            raise UsernameTakenError("that username is taken")
        cid, options = await pk.registration_options(
            request, store, username=username, account=None
        )
    else:
        row = await asyncio.to_thread(acc.find_account_sync, store, account.username)
        if row is None:
            raise NotSignedInError("sign in first")
        cid, options = await pk.registration_options(
            request, store, username=account.username, account=row
        )
    return OptionsOut(challenge_id=cid, options=options)


@router.post("/api/accounts/passkeys/register")
async def passkey_register(
    req: PasskeyRegisterIn,
    request: Request,
    response: Response,
    account: Account | None = Depends(current_account),
) -> Any:
    """The browser's new passkey: a new account (answered like ``signup``, 201, with the
    recovery code), or another passkey of the signed-in account (answered with it)."""
    store = get_store(request)
    ceremony: pk.Ceremony = await store.write(
        pk.op_take_challenge(req.challenge_id, "signup" if account is None else "add")
    )
    cred_id, public_key, count = pk.check_registration(request, ceremony, req.credential)
    name = req.name or await default_passkey_name(request, account)
    if account is None:
        username = acc.check_username(ceremony.username or "")
        code = acc.new_recovery_code()
        recovery_hash = await asyncio.to_thread(acc.hash_secret, acc.normalize_recovery_code(code))
        row: AccountRow = await store.write(
            pk.op_signup_with_passkey(
                username, recovery_hash, pk.signup_handle(req.challenge_id),
                cred_id, public_key, count, name,
            )
        )  # fmt: skip
        await _start_session(request, response, row.id)
        claimed = await _claim(request, row.id, req.games)
        response.status_code = 201
        return SignedUpOut(username=row.username, recovery_code=code, claimed=claimed)
    if ceremony.account_id != account.id:
        raise PasskeyError("this passkey request was for another account")
    await store.write(
        pk.op_add_passkey(account.id, cred_id, public_key, count, name, account.username)
    )
    return await asyncio.to_thread(_account_out, store, account)


async def default_passkey_name(request: Request, account: Account | None) -> str:
    """The name of a passkey registered without one: "Passkey N" (the account's Nth) in
    the request's language."""
    n = 1
    if account is not None:
        n += len(await pk.passkeys_of(get_store(request), account.id))
    lang = i18n.negotiate(request.headers.get("accept-language"), request.cookies.get(i18n.COOKIE))
    return i18n.translate(lang, "account.passkey_n", n=n)[:40]


@router.post("/api/accounts/passkeys/login/options", response_model=OptionsOut)
async def passkey_login_options(request: Request) -> OptionsOut:
    """The options to log in with a passkey (the browser offers this site's)."""
    cid, options = await pk.authentication_options(request, get_store(request))
    return OptionsOut(challenge_id=cid, options=options)


@router.post("/api/accounts/passkeys/login", response_model=SignedInOut)
async def passkey_login(req: PasskeyLoginIn, request: Request, response: Response) -> SignedInOut:
    """Log in with a passkey: a new session (any earlier one of this browser ends)."""
    store = get_store(request)
    ceremony: pk.Ceremony = await store.write(pk.op_take_challenge(req.challenge_id, "login"))
    account_id, cred_id, count = await asyncio.to_thread(
        pk.check_authentication, request, store, ceremony, req.credential
    )
    found = await asyncio.to_thread(acc.accounts_by_id_sync, store, [account_id])
    account = found.get(account_id)
    if account is None:
        raise PasskeyError("this passkey is not known here (was its account deleted?)")
    if account.status != "active":
        raise AccountBannedError("this account is banned")
    await store.write(pk.op_passkey_used(cred_id, count))
    await _start_session(request, response, account_id)
    return SignedInOut(username=account.username)


@router.delete("/api/accounts/passkeys/{credential_id}", response_model=OkOut)
async def passkey_delete(
    credential_id: str, request: Request, account: Account = Depends(require_account)
) -> OkOut:
    """Remove a passkey of the account (never the last way to log in)."""
    await get_store(request).write(
        pk.op_remove_passkey(account.id, account.username, credential_id[:400])
    )
    return OkOut()


@router.patch("/api/accounts/passkeys/{credential_id}", response_model=OkOut)
async def passkey_rename(
    credential_id: str,
    req: PasskeyRenameIn,
    request: Request,
    account: Account = Depends(require_account),
) -> OkOut:
    """Rename a passkey of the account."""
    await get_store(request).write(
        pk.op_rename_passkey(account.id, account.username, credential_id[:400], req.name)
    )
    return OkOut()


# -- other players: block, report ---------------------------------------------------------------


async def _player(request: Request, username: str) -> Account:
    if len(username) > 40:
        raise AccountNotFoundError("no such player")
    target = await acc.find_account(get_store(request), username)
    if target is None:
        raise AccountNotFoundError(f"no player {username[:24]!r}")
    return target


async def _lobby_changed(request: Request) -> None:
    """A block changed which lobby tables each player sees: the lobby is read again."""
    hub: LobbyHub | None = getattr(request.app.state, "lobby", None)
    if hub is not None:
        await hub.blocks_changed()


@router.post("/api/players/{username}/block", response_model=OkOut)
async def block(
    username: str, request: Request, account: Account = Depends(require_account)
) -> OkOut:
    """Block a player: no chat between you, never paired together."""
    target = await _player(request, username)
    if target.id == account.id:
        raise SelfError("you cannot block yourself")
    if await get_store(request).write(acc.op_block(account, target, True)):
        await _lobby_changed(request)
    return OkOut()


@router.delete("/api/players/{username}/block", response_model=OkOut)
async def unblock(
    username: str, request: Request, account: Account = Depends(require_account)
) -> OkOut:
    """Unblock a player."""
    target = await _player(request, username)
    if await get_store(request).write(acc.op_block(account, target, False)):
        await _lobby_changed(request)
    return OkOut()


@router.post("/api/players/{username}/report", response_model=OkOut, status_code=201)
async def report(
    username: str, req: ReportIn, request: Request, account: Account = Depends(require_account)
) -> OkOut:
    """Report a player to the operator (``lostcities users reports``)."""
    target = await _player(request, username)
    if target.id == account.id:
        raise SelfError("you cannot report yourself")
    _limiter(request, "report_limiter", REPORT_BURST, REPORT_PER).check(_client(request), "reports")
    await get_store(request).write(
        acc.op_report(account, target, req.reason, req.text, req.game_id)
    )
    return OkOut()


# -- pages ------------------------------------------------------------------------------------


def _render(request: Request, name: str) -> HTMLResponse:
    # an account page: never cached, and it sets the CSRF cookie its forms' scripts echo
    response = render_page(request, name)
    response.headers["Cache-Control"] = "no-store"
    acc.csrf_token(request, response)
    return response


@router.get("/signup", response_class=HTMLResponse, include_in_schema=False)
async def signup_page(request: Request) -> HTMLResponse:
    """Sign up: a username and a password or a passkey."""
    return _render(request, "signup.html")


@router.get("/login", response_class=HTMLResponse, include_in_schema=False)
async def login_page(request: Request) -> HTMLResponse:
    """Log in: a password or a passkey (or the recovery code)."""
    return _render(request, "login.html")


@router.get("/account", response_class=HTMLResponse, include_in_schema=False)
async def account_page(request: Request) -> HTMLResponse:
    """The account: password, passkeys, blocked players, guest games, log out, delete."""
    return _render(request, "account.html")
