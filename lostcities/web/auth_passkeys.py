"""Passkeys (WebAuthn, with the ``webauthn`` package): the options a browser needs to make
or use one, and the checks of its answers.

A ceremony has two requests: the options (with a random challenge, stored with a random id
in ``lc_auth_challenges`` since the answer may reach another server process) and the
answer, checked against the challenge, which is used once and lives
:data:`CHALLENGE_SECONDS`. The relying party is the host the browser asked for (the
``Host`` header; behind a proxy, the public one) and the origin its scheme and host.
Passkeys are discoverable (resident) credentials: a log-in needs no username typed; user
verification is preferred, not required. The WebAuthn user handle is a random value of
the account's, never its username.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.orm import Session
from starlette.requests import HTTPConnection
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from lostcities.web.accounts import mod_log, op_create_account
from lostcities.web.errors import LastCredentialError, PasskeyError
from lostcities.web.models.accounts import AccountRow, ChallengeRow, PasskeyRow
from lostcities.web.models.base import utcnow
from lostcities.web.repositories import accounts as account_data
from lostcities.web.store import GameStore, hash_token

VerifiedT = TypeVar("VerifiedT")

__all__ = [
    "op_remove_passkey",
    "op_rename_passkey",
    "op_signup_with_passkey",
    "CHALLENGE_SECONDS",
    "Ceremony",
    "authentication_options",
    "check_authentication",
    "check_registration",
    "op_take_challenge",
    "registration_options",
    "signup_handle",
]

CHALLENGE_SECONDS = 300
"""How long a ceremony's challenge may be answered."""
RP_NAME = "Lost Cities"


@dataclass(frozen=True)
class Ceremony:
    """A stored challenge, as taken for its answer."""

    purpose: str
    challenge: bytes
    username: str | None
    account_id: int | None


def relying_party(conn: HTTPConnection) -> tuple[str, str]:
    """The relying party id (host) and the expected origin of a request."""
    host = conn.url.hostname or "localhost"
    scheme = "https" if conn.url.scheme in ("https", "wss") else "http"
    port = conn.url.port
    default = 443 if scheme == "https" else 80
    origin = f"{scheme}://{host}" + (f":{port}" if port and port != default else "")
    return host, origin


def signup_handle(challenge_id: str) -> str:
    """The user handle of an account signed up by the ceremony ``challenge_id`` (random,
    as the id is; the account keeps it)."""
    return bytes_to_base64url(hashlib.sha256(f"handle:{challenge_id}".encode()).digest())


def _op_store_challenge(
    id_hash: str, purpose: str, challenge: bytes, username: str | None, account_id: int | None
) -> Callable[[Session], None]:
    def fn(s: Session) -> None:
        now = utcnow()
        account_data.forget_challenges_before(s, now)
        account_data.add_challenge(
            s,
            ChallengeRow(
                id_hash=id_hash,
                purpose=purpose,
                challenge=bytes_to_base64url(challenge),
                username=username,
                account_id=account_id,
                expires_at=now + datetime.timedelta(seconds=CHALLENGE_SECONDS),
            ),
        )

    return fn


def op_take_challenge(challenge_id: str, purpose: str) -> Callable[[Session], Ceremony]:
    """Take (and delete: one answer only) the challenge ``challenge_id`` of ``purpose``.

    :raises PasskeyError: unknown, expired or for another ceremony.
    """

    def fn(s: Session) -> Ceremony:
        row = account_data.take_challenge(s, hash_token(challenge_id))
        if row is None:
            raise PasskeyError("this passkey request expired: try again")
        if row.purpose != purpose or row.expires_at < utcnow():
            raise PasskeyError("this passkey request expired: try again")
        return Ceremony(
            row.purpose, base64url_to_bytes(row.challenge), row.username, row.account_id
        )

    return fn


async def registration_options(
    conn: HTTPConnection,
    store: GameStore,
    *,
    username: str,
    account: AccountRow | None,
) -> tuple[str, dict[str, Any]]:
    """The options to make a passkey: for a new account ``username`` (``account`` None),
    or another passkey of ``account``. Returns the ceremony id and the options (JSON)."""
    rp_id, _ = relying_party(conn)
    challenge_id = secrets.token_urlsafe(32)
    exclude: list[PublicKeyCredentialDescriptor] = []
    if account is None:
        handle = signup_handle(challenge_id)
    else:
        handle = account.user_handle
        ids = account_data.passkey_ids(store.engine, account.id)
        exclude = [PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in ids]
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=RP_NAME,
        user_id=base64url_to_bytes(handle),
        user_name=username,
        user_display_name=username,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=exclude,
        timeout=CHALLENGE_SECONDS * 1000,
    )
    purpose = "signup" if account is None else "add"
    await store.write(
        _op_store_challenge(
            hash_token(challenge_id),
            purpose,
            options.challenge,
            username,
            None if account is None else account.id,
        )
    )
    return challenge_id, json.loads(options_to_json(options))


def check_registration(
    conn: HTTPConnection, ceremony: Ceremony, credential: dict[str, Any]
) -> tuple[str, str, int]:
    """Check a browser's new passkey against its ceremony; returns its id and public key
    (base64url) and its signature count.

    :raises PasskeyError: if it does not check out.
    """
    rp_id, origin = relying_party(conn)
    v = _accepted(
        verify_registration_response,
        credential=credential,
        expected_challenge=ceremony.challenge,
        expected_rp_id=rp_id,
        expected_origin=origin,
    )
    return (
        bytes_to_base64url(v.credential_id),
        bytes_to_base64url(v.credential_public_key),
        int(v.sign_count),
    )


async def authentication_options(
    conn: HTTPConnection, store: GameStore
) -> tuple[str, dict[str, Any]]:
    """The options to log in with a passkey (any of this site's: no username asked)."""
    rp_id, _ = relying_party(conn)
    challenge_id = secrets.token_urlsafe(32)
    options = generate_authentication_options(
        rp_id=rp_id,
        user_verification=UserVerificationRequirement.PREFERRED,
        timeout=CHALLENGE_SECONDS * 1000,
    )
    await store.write(
        _op_store_challenge(hash_token(challenge_id), "login", options.challenge, None, None)
    )
    return challenge_id, json.loads(options_to_json(options))


def check_authentication(
    conn: HTTPConnection, store: GameStore, ceremony: Ceremony, credential: dict[str, Any]
) -> tuple[int, str, int]:
    """Check a passkey log-in (blocking: in a worker thread); returns the account id, the
    credential id and its new signature count.

    :raises PasskeyError: unknown passkey, or an answer that does not check out.
    """
    rp_id, origin = relying_party(conn)
    cred_id = str(credential.get("id", ""))[:400]
    found = account_data.passkey(store.engine, cred_id)
    if found is None:
        raise PasskeyError("this passkey is not known here (was its account deleted?)")
    public_key, count, account_id = found
    v = _accepted(
        verify_authentication_response,
        credential=credential,
        expected_challenge=ceremony.challenge,
        expected_rp_id=rp_id,
        expected_origin=origin,
        credential_public_key=base64url_to_bytes(public_key),
        credential_current_sign_count=count,
    )
    return account_id, cred_id, int(v.new_sign_count)


def op_add_passkey(
    account_id: int, cred_id: str, public_key: str, count: int, name: str, actor: str
) -> Callable[[Session], None]:
    """Store a passkey of an account.

    :raises PasskeyError: if this passkey is already stored.
    """

    def fn(s: Session) -> None:
        added = account_data.add_passkey(
            s,
            PasskeyRow(
                credential_id=cred_id,
                account_id=account_id,
                public_key=public_key,
                sign_count=count,
                name=name[:40] or "passkey",
                created_at=utcnow(),
            ),
        )
        if not added:
            raise PasskeyError("this passkey is already registered")
        mod_log(s, actor, "passkey added")

    return fn


def op_passkey_used(cred_id: str, count: int) -> Callable[[Session], None]:
    """Remember a passkey's new signature count and when it was used."""

    def fn(s: Session) -> None:
        row = account_data.passkey_row(s, cred_id)
        if row is not None:
            row.sign_count = count
            row.last_used = utcnow()

    return fn


def passkeys_of_sync(store: GameStore, account_id: int) -> list[PasskeyRow]:
    """An account's passkeys, oldest first."""
    return account_data.passkeys_of(store.engine, account_id)


async def passkeys_of(store: GameStore, account_id: int) -> list[PasskeyRow]:
    """:func:`passkeys_of_sync` in a worker thread."""
    return await asyncio.to_thread(passkeys_of_sync, store, account_id)


def _accepted(verify: Callable[..., VerifiedT], **kwargs: Any) -> VerifiedT:
    """``verify(**kwargs)``: the library's check of a passkey's answer.

    :raises PasskeyError: for any of the library's many kinds of refusal (one line to the
        user).
    """
    try:
        return verify(**kwargs)
    except Exception as e:
        raise PasskeyError(f"the passkey was not accepted: {_reason(e)}") from None


def _reason(e: Exception) -> str:
    text = " ".join(str(e).split()) or e.__class__.__name__
    return text[:200]


def op_signup_with_passkey(
    username: str,
    recovery_hash: str,
    handle: str,
    cred_id: str,
    public_key: str,
    count: int,
    name: str,
) -> Callable[[Session], AccountRow]:
    """A new account whose way to log in is a passkey (its WebAuthn user handle set), in
    one transaction."""
    make = op_create_account(username, None, recovery_hash)

    def fn(s: Session) -> AccountRow:
        row: AccountRow = make(s)
        account_data.set_account(s, row.id, user_handle=handle)
        op_add_passkey(row.id, cred_id, public_key, count, name, username)(s)
        return row

    return fn


def op_remove_passkey(
    account_id: int, username: str, credential_id: str
) -> Callable[[Session], None]:
    """Remove a passkey of the account, never its last way to log in.

    :raises PasskeyError: for a passkey that is not the account's.
    :raises LastCredentialError: for the last passkey of an account without a password.
    """

    def fn(s: Session) -> None:
        row = account_data.passkey_row(s, credential_id)
        if row is None or row.account_id != account_id:
            raise PasskeyError("no such passkey")
        others = account_data.other_passkey(s, account_id, row.credential_id)
        owner = account_data.get(s, account_id)
        if not others and (owner is None or owner.password_hash is None):
            raise LastCredentialError(
                "this is your only way to log in: set a password or add a passkey first"
            )
        account_data.delete_passkey(s, row.credential_id)
        mod_log(s, username, "passkey removed")

    return fn


def op_rename_passkey(
    account_id: int, username: str, credential_id: str, name: str
) -> Callable[[Session], None]:
    """Rename a passkey of the account.

    :raises PasskeyError: for a passkey that is not the account's.
    """

    def fn(s: Session) -> None:
        row = account_data.passkey_row(s, credential_id)
        if row is None or row.account_id != account_id:
            raise PasskeyError("no such passkey")
        row.name = name
        mod_log(s, username, "passkey renamed")

    return fn
