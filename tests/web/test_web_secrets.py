"""Secrets and headers (issue 14): seat tokens and invite codes from the CSPRNG with at least
128 bits, compared in constant time, stored hashed, never in a log; security headers on every
response; no inline script in any page."""

from __future__ import annotations

import base64
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from wsclient import Client

from lostcities.web import game_manager as games
from lostcities.web.app import CSP
from lostcities.web.store import hash_token
from tests.web.web_helpers import play_friend_game

TEMPLATES = Path(games.__file__).resolve().parent / "templates"
STATIC = Path(games.__file__).resolve().parent / "static"


def bits(token: str) -> int:
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    return 8 * len(raw)


def test_tokens_and_invites_have_128_bits_or_more() -> None:
    assert bits(games.new_token()) >= 128
    assert bits(games.new_invite()) >= 128  # issue 14: invites had 96 bits
    assert len({games.new_invite() for _ in range(1000)}) == 1000


def test_invites_are_compared_in_constant_time_and_stored_hashed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[object, object]] = []
    real = games.hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(games.hmac, "compare_digest", spy)
    code = games.new_invite()
    assert games.invite_matches(hash_token(code), code)
    assert not games.invite_matches(hash_token(code), code + "x")
    assert len(calls) == 2
    # rows from before invites were hashed hold the code itself, and still work
    assert games.invite_matches("legacycode123456", "legacycode123456")


def test_a_whole_game_leaves_no_secret_in_the_log_or_the_database(
    server_factory: Any, tmp_path: Path
) -> None:
    db = tmp_path / "secrets.db"
    server = server_factory(f"sqlite:///{db}")
    status, g = server.request("POST", "/api/games", {"opponent": "friend", "rounds": 1})
    assert status == 201
    invite = g["invite_url"].split("#", 1)[1]
    status, j = server.request(
        "POST", f"/api/games/{g['id']}/join", {"invite": invite, "name": "Bea"}
    )
    assert status == 200
    secrets_ = [g["token"], j["token"], invite]
    # bad attempts too (they are logged at most as warnings, never with the secret)
    assert server.request("POST", f"/api/games/{g['id']}/join", {"invite": invite})[0] == 409
    assert server.request(
        "GET", f"/api/games/{g['id']}/state", headers={"X-Seat-Token": "x" + invite}
    )[0] in (200, 403)
    clients = [
        Client(server.ws_url, g["id"], g["token"]),
        Client(server.ws_url, g["id"], j["token"]),
    ]
    watcher = Client(server.ws_url, g["id"], None)
    play_friend_game(clients, [watcher], random.Random(3))
    status, _ = server.request("POST", f"/api/games/{g['id']}/rematch", {"token": g["token"]})
    assert status == 200
    for c in [*clients, watcher]:
        c.close()
    server.stop()
    log = server.log.read_text(errors="replace")
    for s in secrets_:
        assert s not in log
    # the database holds hashes only: neither token nor the invite appears in it
    raw = db.read_bytes()
    for name in db.parent.glob(db.name + "*"):  # the WAL too
        raw += name.read_bytes()
    for s in secrets_:
        assert s.encode() not in raw, s
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT token0, token1 FROM lc_games WHERE id = ?", (g["id"],)
        ).fetchone()
    assert row == (hash_token(g["token"]), hash_token(j["token"]))


def test_security_headers_on_every_response(client: Any) -> None:
    gid = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()["id"]
    for path in [
        "/",
        f"/game/{gid}",
        "/rules",
        "/calculator",
        f"/api/games/{gid}",
        "/static/js/common.js",
        "/api/nothing",
        "/static/nothing.js",
    ]:
        r = client.get(path)
        h = r.headers
        assert h["content-security-policy"] == CSP, path
        assert h["x-content-type-options"] == "nosniff"
        assert h["referrer-policy"] == "no-referrer"
        assert h["x-frame-options"] == "DENY"
    r = client.post(
        "/api/games", content=b"x" * 70_000, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413 and r.headers["x-content-type-options"] == "nosniff"
    script_src = re.search(r"script-src ([^;]*)", CSP)
    assert script_src is not None
    assert "unsafe-inline" not in script_src.group(1) and "unsafe-eval" not in script_src.group(1)
    assert "frame-ancestors 'none'" in CSP


def test_no_page_has_an_inline_script_or_handler() -> None:
    for page in TEMPLATES.glob("*.html"):
        html = page.read_text()
        for tag, body in re.findall(r"(<script\b[^>]*>)(.*?)</script>", html, re.DOTALL):
            assert "src=" in tag and not body.strip(), (
                f"{page.name}: inline script {tag}{body[:40]}"
            )
        assert not re.search(r"\son[a-z]+\s*=", html), f"{page.name}: an inline event handler"
        assert "javascript:" not in html
    for js in STATIC.glob("js/*.js"):
        text = js.read_text()
        assert not re.search(r"\beval\(|new Function\(", text), js.name
        assert not re.search(r"""\son[a-z]+=["']""", text), (
            f"{js.name}: an inline handler in HTML text"
        )
