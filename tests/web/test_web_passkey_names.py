"""Passkeys have names (issue 27): a default "Passkey N" in the request's language, listed
with when each was added and last used, renamed (``PATCH``) and removed; never the last
way to log in. (Registering a real passkey: tests/web/test_web_e2e_accounts.py, on
Chromium's virtual authenticator; here the credentials are put in the database.)"""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest

from tests.web.web_helpers import csrf

pytest.importorskip("argon2")


def signup(c: Any, name: str) -> None:
    r = c.post(
        "/api/accounts/signup",
        json={"username": name, "password": "correct horse"},
        headers=csrf(c),
    )
    assert r.status_code == 201, r.text


def add_key(c: Any, username: str, cred: str, name: str, used: bool = False) -> None:
    """A passkey of ``username`` stored as a registration would store it."""
    from sqlalchemy.orm import Session

    from lostcities.web.models.accounts import AccountRow, PasskeyRow

    store = c.app.state.store
    with Session(store.engine) as s, s.begin():
        account = s.query(AccountRow).filter_by(username=username).one()
        s.add(
            PasskeyRow(
                credential_id=cred,
                account_id=account.id,
                public_key="AAAA",
                sign_count=0,
                name=name,
                created_at=datetime.datetime(2026, 11, 30, 9, 0),
                last_used=datetime.datetime(2026, 12, 1, 18, 30) if used else None,
            )
        )


def keys(c: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = c.get("/api/accounts/me").json()["account"]["passkeys"]
    return out


def rename(c: Any, cred: str, body: Any, **headers: str) -> Any:
    return c.patch(f"/api/accounts/passkeys/{cred}", json=body, headers={**csrf(c), **headers})


def test_passkeys_are_listed_with_their_dates_and_renamed(web: Any) -> None:
    signup(web, "petra")
    add_key(web, "petra", "cred-a", "Passkey 1 (Android)", used=True)
    add_key(web, "petra", "cred-b", "Passkey 2")
    listed = keys(web)
    assert [(k["id"], k["name"]) for k in listed] == [
        ("cred-a", "Passkey 1 (Android)"),
        ("cred-b", "Passkey 2"),
    ]
    assert listed[0]["created_at"] == "2026-11-30T09:00:00Z"
    assert listed[0]["last_used"] == "2026-12-01T18:30:00Z" and listed[1]["last_used"] is None
    r = rename(web, "cred-b", {"name": "  Travel key  "})
    assert r.status_code == 200, r.text
    assert [k["name"] for k in keys(web)] == ["Passkey 1 (Android)", "Travel key"]
    r = rename(web, "cred-a", {"name": "열쇠 Zoë"})  # any language's letters
    assert r.status_code == 200 and keys(web)[0]["name"] == "열쇠 Zoë"


@pytest.mark.parametrize(
    "body",
    [
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 41},
        {"name": "evil\u202ename"},
        {"name": "line\nbreak"},
        {"name": 7},
        {"name": None},
        {},
        {"name": "ok", "extra": 1},
        [],
    ],
)
def test_a_bad_name_is_refused_and_changes_nothing(web: Any, body: Any) -> None:
    signup(web, "quill")
    add_key(web, "quill", "cred-q", "Passkey 1")
    r = rename(web, "cred-q", body)
    assert r.status_code == 422, r.text
    data = r.json()
    assert set(data) >= {"error", "message"} and "\n" not in data["message"]
    assert [k["name"] for k in keys(web)] == ["Passkey 1"]


def test_only_the_owner_renames_and_only_when_signed_in(web: Any) -> None:
    from fastapi.testclient import TestClient

    signup(web, "rhea")
    add_key(web, "rhea", "cred-r", "Passkey 1")
    other = TestClient(web.app)
    signup(other, "sven")
    r = rename(other, "cred-r", {"name": "mine now"})  # another account's passkey
    assert r.status_code == 400 and r.json()["error"] == "passkey_failed"
    assert rename(other, "no-such", {"name": "x"}).status_code == 400
    guest = TestClient(web.app)
    r = rename(guest, "cred-r", {"name": "mine now"})
    assert r.status_code == 401 and r.json()["error"] == "not_signed_in"
    r = web.patch("/api/accounts/passkeys/cred-r", json={"name": "no token"})  # no CSRF header
    assert r.status_code == 403 and r.json()["error"] == "csrf"
    assert [k["name"] for k in keys(web)] == ["Passkey 1"]


def test_the_last_way_to_log_in_is_never_removed(web: Any) -> None:
    signup(web, "tove")
    add_key(web, "tove", "cred-t1", "Passkey 1")
    add_key(web, "tove", "cred-t2", "Passkey 2")
    # with a password, a passkey may go
    assert web.delete("/api/accounts/passkeys/cred-t1", headers=csrf(web)).status_code == 200
    _drop_password(web, "tove")
    # passkey-only now: the one passkey left stays
    r = web.delete("/api/accounts/passkeys/cred-t2", headers=csrf(web))
    assert r.status_code == 409 and r.json()["error"] == "last_credential"
    assert [k["id"] for k in keys(web)] == ["cred-t2"]


def _drop_password(c: Any, username: str) -> None:
    """Make ``username`` a passkey-only account."""
    from sqlalchemy import update
    from sqlalchemy.orm import Session

    from lostcities.web.models.accounts import AccountRow

    with Session(c.app.state.store.engine) as s, s.begin():
        s.execute(
            update(AccountRow).where(AccountRow.username == username).values(password_hash=None)
        )


@pytest.mark.parametrize(
    ("lang", "name"),
    [
        ("en", "Passkey 1"),
        ("fr", "Clé d'accès 1"),
        ("de", "Passkey 1"),
        ("es", "Llave de acceso 1"),
        ("ko", "패스키 1"),
    ],
)
def test_the_default_name_is_in_the_requests_language(lang: str, name: str) -> None:
    from starlette.requests import Request

    from lostcities.web.routers.accounts import default_passkey_name

    req = Request({"type": "http", "headers": [(b"accept-language", lang.encode())]})
    assert asyncio.run(default_passkey_name(req, None)) == name
