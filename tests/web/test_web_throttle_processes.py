"""The per-client log-in throttle holds across server processes (issue 27): two app
instances on one database, each with its own random client salt (as two ``lostcities
serve`` processes without ``LOSTCITIES_CLIENT_SALT`` have), count one client's failed
log-ins together, since the throttle keys clients with a salt stored in the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lostcities.web import accounts as acc
from tests.web.web_helpers import app_settings

pytest.importorskip("argon2")


def _login(c: Any, name: str) -> int:
    tok = c.cookies.get(acc.CSRF_COOKIE) or c.get("/api/accounts/csrf").json()["csrf"]
    r = c.post(
        "/api/accounts/login",
        json={"username": name, "password": "wrong password"},
        headers={"X-CSRF-Token": tok},
    )
    return int(r.status_code)


def test_the_client_throttle_counts_across_two_apps_on_one_database(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.limits import new_salt

    monkeypatch.setattr(acc, "CLIENT_FAILURES", 4)  # (each failure costs an argon2 check)
    apps = [create_app(app_settings(db_url, client_salt=new_salt())) for _ in range(2)]
    assert apps[0].state.settings.client_salt != apps[1].state.settings.client_salt
    with TestClient(apps[0]) as a, TestClient(apps[1]) as b:
        # four different names, two failures on each process: the client's fourth failure
        assert [_login(a, "n0"), _login(b, "n1"), _login(a, "n2"), _login(b, "n3")] == [401] * 4
        # ... so a fifth log-in is refused on either process, before any password check
        assert _login(a, "n4") == 429
        assert _login(b, "n5") == 429
        assert apps[0].state.store is not apps[1].state.store
        salts = {acc.throttle_salt_sync(app.state.store) for app in apps}
    assert len(salts) == 1  # one salt, made once, read by both


def test_the_salt_is_made_once_and_kept(tmp_path: Path) -> None:
    from lostcities.web.store import GameStore

    url = f"sqlite:///{tmp_path / 'salt.db'}"
    stores = [GameStore(url), GameStore(url)]
    stores[0].create_tables()
    first = acc.throttle_salt_sync(stores[0])
    assert len(first) == 64 and acc.throttle_salt_sync(stores[1]) == first
    restarted = GameStore(url)  # a new process: the same salt, from the database
    assert acc.throttle_salt_sync(restarted) == first
    for s in (*stores, restarted):
        s.engine.dispose()
