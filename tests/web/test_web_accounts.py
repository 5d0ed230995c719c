"""Accounts over the HTTP API (issue 27 part 1): sign-up, log-in, log-out, the account,
claiming guest games, deleting; and the security tests: session fixation, CSRF, a stolen
cookie after log-out, no hash in any answer or log line, no username enumeration, the
brute-force throttle, and every account endpoint fuzzed with bad input."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lostcities.web import accounts as acc
from tests.web.web_helpers import csrf, game_row

pytest.importorskip("argon2")


def put_session(c: Any, value: str) -> None:
    """Replace the client's session cookie (as a stolen or planted one would be)."""
    for cookie in list(c.cookies.jar):
        if cookie.name == acc.SESSION_COOKIE:
            c.cookies.jar.clear(cookie.domain, cookie.path, cookie.name)
    c.cookies.set(acc.SESSION_COOKIE, value, domain="testserver.local")


def signup(c: Any, name: str = "ann", password: str = "correct horse", **extra: Any) -> Any:
    return c.post(
        "/api/accounts/signup",
        json={"username": name, "password": password, **extra},
        headers=csrf(c),
    )


def login(c: Any, name: str = "ann", password: str = "correct horse") -> Any:
    return c.post(
        "/api/accounts/login", json={"username": name, "password": password}, headers=csrf(c)
    )


def me(c: Any) -> Any:
    return c.get("/api/accounts/me").json()["account"]


def test_sign_up_log_out_log_in(web: Any) -> None:
    assert me(web) is None  # a guest
    r = signup(web, "Ann_Lee")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["username"] == "Ann_Lee" and len(body["recovery_code"]) == 24
    cookie = web.cookies.get(acc.SESSION_COOKIE)
    assert cookie and me(web)["username"] == "Ann_Lee" and me(web)["has_password"]
    assert web.post("/api/accounts/logout", headers=csrf(web)).status_code == 200
    assert me(web) is None
    assert login(web, "ANN_LEE").json() == {"username": "Ann_Lee"}  # any case
    assert me(web)["username"] == "Ann_Lee"


def test_session_cookie_flags(web: Any) -> None:
    r = signup(web)
    header = next(v for k, v in r.headers.multi_items() if k == "set-cookie" and "lc_session" in v)
    low = header.lower()
    assert "httponly" in low and "samesite=lax" in low and "path=/" in low
    assert "secure" not in low  # plain HTTP here; over TLS it is Secure
    from starlette.requests import Request

    from lostcities.web.accounts import set_session_cookie

    tls = Request(
        {
            "type": "http",
            "scheme": "https",
            "headers": [(b"host", b"example.org")],
            "path": "/",
            "query_string": b"",
        }
    )
    from fastapi import Response

    resp = Response()
    set_session_cookie(tls, resp, "t")
    assert "secure" in resp.headers["set-cookie"].lower()


def test_session_fixation_the_token_changes_at_log_in(web: Any) -> None:
    signup(web)
    first = web.cookies.get(acc.SESSION_COOKIE)
    # an attacker plants a cookie of their own: the log-in never promotes it
    put_session(web, "planted-by-an-attacker-0123456789")
    login(web)
    second = web.cookies.get(acc.SESSION_COOKIE)
    assert second not in (first, "planted-by-an-attacker-0123456789")
    login(web)
    third = web.cookies.get(acc.SESSION_COOKIE)
    assert third != second
    # the replaced session is gone
    put_session(web, second)
    assert me(web) is None
    put_session(web, third)
    assert me(web)["username"] == "ann"


def test_a_stolen_cookie_is_refused_after_log_out(web: Any) -> None:
    signup(web)
    stolen = web.cookies.get(acc.SESSION_COOKIE)
    web.post("/api/accounts/logout", headers=csrf(web))
    put_session(web, stolen)
    assert me(web) is None
    r = web.post("/api/accounts/password", json={"new_password": "x" * 12}, headers=csrf(web))
    assert r.status_code == 401 and r.json()["error"] == "not_signed_in"


def test_csrf_is_refused(web: Any) -> None:
    signup(web)
    tok = csrf(web)["X-CSRF-Token"]
    cases = [
        {},  # no header
        {"X-CSRF-Token": "wrong" + tok[5:]},
        {"X-CSRF-Token": tok, "Origin": "https://evil.example"},
        {"X-CSRF-Token": tok, "Sec-Fetch-Site": "cross-site"},
    ]
    for headers in cases:
        r = web.post("/api/accounts/logout", headers=headers)
        assert r.status_code == 403 and r.json()["error"] == "csrf", (headers, r.text)
        # a game request carrying the session cookie is guarded too
        r = web.post("/api/games", json={"opponent": "computer"}, headers=headers)
        assert r.status_code == 403, headers
    assert me(web)["username"] == "ann"  # nothing happened
    # the same origin, with the token: accepted
    ok = {"X-CSRF-Token": tok, "Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert web.post("/api/games", json={"opponent": "computer"}, headers=ok).status_code == 201
    # the log-in form is guarded as well (login CSRF)
    put_session(web, "")
    r = web.post("/api/accounts/login", json={"username": "ann", "password": "correct horse"})
    assert r.status_code == 403


def test_guests_play_exactly_as_before(web: Any) -> None:
    """No cookie, no CSRF token: a guest creates, joins and plays as today."""
    r = web.post("/api/games", json={"opponent": "friend", "rounds": 1})
    assert r.status_code == 201
    g = r.json()
    invite = g["invite_url"].split("#", 1)[1]
    assert web.post(f"/api/games/{g['id']}/join", json={"invite": invite}).status_code == 200
    state = web.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": g["token"]}).json()
    assert state["seat"] == 0


def test_no_hash_in_any_answer_or_log(web: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    password = "a-secret-password"
    answers = [signup(web, "bob", password).text]
    answers.append(web.get("/api/accounts/me").text)
    answers.append(login(web, "bob", password).text)
    answers.append(login(web, "bob", "wrong password").text)
    answers.append(
        web.post(
            "/api/accounts/password",
            json={"current_password": password, "new_password": "another-secret"},
            headers=csrf(web),
        ).text
    )
    store = web.app.state.store
    row = acc.find_account_sync(store, "bob")
    assert row is not None and row.password_hash and row.password_hash.startswith("$argon2id$")
    assert "m=65536,t=3,p=4" in row.password_hash
    text = "\n".join(answers) + "\n".join(r.getMessage() for r in caplog.records)
    for secret in (password, "another-secret", "$argon2", row.password_hash, row.recovery_hash):
        assert secret and secret not in text


def test_no_username_enumeration_by_the_log_in(web: Any) -> None:
    """The rule: a failed log-in says the same words with the same status, after the same
    argon2 verification, whether the name is unknown, passkey-only, or the password wrong."""
    signup(web, "carol")
    web.post("/api/accounts/logout", headers=csrf(web))
    timings: dict[str, list[float]] = {"unknown": [], "wrong": []}
    bodies = set()
    for _ in range(4):
        for kind, name in (("unknown", "nobody-here"), ("wrong", "carol")):
            t0 = time.perf_counter()
            r = login(web, name, "not the password")
            timings[kind].append(time.perf_counter() - t0)
            assert r.status_code == 401
            bodies.add(r.text)
    assert len(bodies) == 1 and "wrong username or password" in bodies.pop()
    # both paths run one argon2 verification: neither is several times faster (a rough
    # bound, the machine is shared; the equal work is checked below exactly)
    fast, slow = sorted((min(timings["unknown"]), min(timings["wrong"])))
    assert slow < 4 * fast
    calls: list[str | None] = []
    real = acc.verify_secret

    def spy(stored: str | None, secret: str) -> bool:
        calls.append(stored)
        return real(stored, secret)

    acc.verify_secret = spy  # type: ignore[assignment]
    try:
        login(web, "nobody-else", "pw-pw-pw-pw")
        login(web, "carol", "pw-pw-pw-pw")
    finally:
        acc.verify_secret = real  # type: ignore[assignment]
    assert len(calls) == 2  # one verification each (a dummy hash for the unknown name)


def test_brute_force_is_throttled_per_name_and_per_client(web: Any) -> None:
    signup(web, "dave")
    web.post("/api/accounts/logout", headers=csrf(web))
    for _ in range(acc.ACCOUNT_FAILURES):
        assert login(web, "dave", "guess").status_code == 401
    r = login(web, "dave", "correct horse")  # even the right password waits now
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert r.json()["error"] == "rate_limited"
    # an unknown name is throttled the same way (the throttle tells nothing either)
    for _ in range(acc.ACCOUNT_FAILURES):
        assert login(web, "ghost", "guess").status_code == 401
    assert login(web, "ghost", "guess").status_code == 429
    # per client: many names from one client
    for i in range(acc.CLIENT_FAILURES - 2 * acc.ACCOUNT_FAILURES):
        assert login(web, f"name{i}", "guess").status_code == 401
    assert login(web, "someone-new", "guess").status_code == 429


def test_recovery_code_and_password_change_end_other_sessions(web: Any) -> None:
    from fastapi.testclient import TestClient

    code = signup(web, "erin").json()["recovery_code"]
    other = TestClient(web.app)
    assert login(other, "erin").status_code == 200
    r = web.post(
        "/api/accounts/password",
        json={"current_password": "wrong", "new_password": "new password 1"},
        headers=csrf(web),
    )
    assert r.status_code == 401
    r = web.post(
        "/api/accounts/password",
        json={"current_password": "correct horse", "new_password": "new password 1"},
        headers=csrf(web),
    )
    assert r.status_code == 200
    assert me(web)["username"] == "erin" and me(other) is None  # the other session ended
    web.post("/api/accounts/logout", headers=csrf(web))
    r = web.post(
        "/api/accounts/recover",
        json={"username": "erin", "recovery_code": code.upper(), "new_password": "third pw 3"},
        headers=csrf(web),
    )
    assert r.status_code == 200, r.text
    new_code = r.json()["recovery_code"]
    assert new_code != code and me(web)["username"] == "erin"
    again = {"username": "erin", "recovery_code": code, "new_password": "fourth pw 4"}
    r = web.post("/api/accounts/recover", json=again, headers=csrf(web))
    assert r.status_code == 401  # a used code is gone
    assert login(web, "erin", "third pw 3").status_code == 200


def test_usernames(web: Any) -> None:
    assert signup(web, "frank").status_code == 201
    web.post("/api/accounts/logout", headers=csrf(web))
    for name, code in [
        ("FRANK", "username_taken"),
        ("fr4nk", None),
        ("frank", "username_taken"),
        ("admin", "invalid_username"),
        ("Adm1n", "invalid_username"),
        ("heuristic", "invalid_username"),
        ("ab", "invalid_username"),
        ("x" * 21, "invalid_username"),
        ("ann\u202e", "invalid_username"),
        ("аnn", "invalid_username"),  # a Cyrillic a
        ("an n", "invalid_username"),
        ("_ann", "invalid_username"),
        ("김철수", None),
    ]:
        r = signup(web, name)
        if code is None:
            assert r.status_code == 201, (name, r.text)
            web.post("/api/accounts/logout", headers=csrf(web))
        else:
            assert r.json()["error"] == code, (name, r.text)


def test_a_guest_claims_their_games_at_sign_up(web: Any) -> None:
    r = web.post("/api/games", json={"opponent": "friend", "rounds": 1})
    g = r.json()
    bad = {"id": g["id"], "token": "not-the-token"}
    r = signup(web, "gina", games=[{"id": g["id"], "token": g["token"]}, bad])
    assert r.json()["claimed"] == [g["id"]]
    row = game_row(web.app.state.store, g["id"])
    account = acc.find_account_sync(web.app.state.store, "gina")
    assert account is not None and row.account0 == account.id and row.account1 is None


def test_delete_the_account(web: Any) -> None:
    g = web.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    signup(web, "hank", games=[{"id": g["id"], "token": g["token"]}])
    r = web.post("/api/accounts/delete", json={"username": "nope"}, headers=csrf(web))
    assert r.status_code == 422
    r = web.post(
        "/api/accounts/delete", json={"username": "hank", "password": "bad"}, headers=csrf(web)
    )
    assert r.status_code == 401 and me(web) is not None
    r = web.post(
        "/api/accounts/delete",
        json={"username": "HANK", "password": "correct horse"},
        headers=csrf(web),
    )
    assert r.status_code == 200 and me(web) is None
    store = web.app.state.store
    assert acc.find_account_sync(store, "hank") is None
    row = game_row(store, g["id"])
    assert row.name0 == acc.DELETED_PLAYER and row.account0 is None
    summary = web.get(f"/api/games/{g['id']}").json()
    assert summary["players"][0]["name"] == acc.DELETED_PLAYER
    assert login(web, "hank").status_code == 401
    assert signup(web, "hank").status_code == 201  # the name is free again


def test_block_and_report(web: Any) -> None:
    from fastapi.testclient import TestClient

    signup(web, "ivan")
    other = TestClient(web.app)
    signup(other, "judy")
    r = web.post("/api/players/judy/block", headers=csrf(web))
    assert r.status_code == 200
    assert me(web)["blocked"] == ["judy"]
    store = web.app.state.store
    i, j = (acc.find_account_sync(store, n) for n in ("ivan", "judy"))
    assert i and j and acc.blocked_between_sync(store, j.id, i.id)
    assert web.post("/api/players/ivan/block", headers=csrf(web)).json()["error"] == "self"
    assert web.post("/api/players/nobody/block", headers=csrf(web)).status_code == 404
    r = web.post(
        "/api/players/judy/report", json={"reason": "abuse", "text": "rude"}, headers=csrf(web)
    )
    assert r.status_code == 201
    r = web.post("/api/players/judy/report", json={"reason": "spam"}, headers=csrf(web))
    assert r.status_code == 422
    assert web.delete("/api/players/judy/block", headers=csrf(web)).status_code == 200
    assert not acc.blocked_between_sync(store, i.id, j.id)
    guest = TestClient(web.app)
    r = guest.post("/api/players/judy/block", headers=csrf(guest))
    assert r.status_code == 401


ENDPOINTS = [
    ("post", "/api/accounts/signup"),
    ("post", "/api/accounts/login"),
    ("post", "/api/accounts/recover"),
    ("post", "/api/accounts/password"),
    ("post", "/api/accounts/claim"),
    ("post", "/api/accounts/delete"),
    ("post", "/api/accounts/passkeys/options"),
    ("post", "/api/accounts/passkeys/register"),
    ("post", "/api/accounts/passkeys/login"),
    ("post", "/api/players/ivan/report"),
]


def _breaks_rule(name: str) -> bool:
    try:
        acc.check_username(name)
    except ValueError:
        return True
    return False


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4)
    ),
    max_leaves=12,
)
_bodies = st.one_of(
    _json,
    st.fixed_dictionaries(
        {},
        optional={
            "username": st.one_of(st.text(max_size=50).filter(_breaks_rule), st.integers()),
            "password": st.one_of(st.text(max_size=250), st.none()),
            "new_password": st.text(max_size=250),
            "games": st.lists(st.dictionaries(st.text(max_size=5), st.text(max_size=40))),
            "challenge_id": st.text(max_size=120),
            "credential": _json,
            "reason": st.text(max_size=10).filter(lambda r: r not in ("name", "other")),
            "recovery_code": st.text(max_size=70),
        },
    ),
)


def _snapshot(store: Any) -> tuple[Any, ...]:
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from lostcities.web.models import accounts as st_mod

    with Session(store.engine) as s:
        rows = s.execute(select(st_mod.AccountRow.username, st_mod.AccountRow.password_hash)).all()
        counts = tuple(
            s.scalar(select(func.count()).select_from(t))
            for t in (st_mod.SessionRow, st_mod.PasskeyRow, st_mod.BlockRow, st_mod.ReportRow)
        )
    return tuple(sorted(rows)), counts


def test_every_account_endpoint_fuzzed(web: Any) -> None:
    signup(web, "ivan")
    web.post("/api/accounts/logout", headers=csrf(web))
    from fastapi.testclient import TestClient

    user = TestClient(web.app)
    login(user, "ivan")
    store = web.app.state.store
    before = _snapshot(store)
    web.app.state.signup_limiter = None  # (a fresh one; hypothesis makes many requests)

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(ENDPOINTS), _bodies, st.booleans())
    @example(("post", "/api/accounts/passkeys/options"), {"\n": None}, False)  # a line break
    def run(endpoint: tuple[str, str], body: Any, signed_in: bool) -> None:
        c = user if signed_in else web
        method, path = endpoint
        r = getattr(c, method)(path, json=body, headers=csrf(c))
        if r.status_code in (200, 201) and path.endswith(("/claim", "/options")):
            return  # (nothing to claim; a ceremony's options: both change nothing)
        assert r.status_code in (400, 401, 403, 404, 409, 422, 429), (path, body, r.text)
        data = r.json()
        assert set(data) >= {"error", "message"} and "\n" not in data["message"]
        assert "Traceback" not in r.text

    run()
    assert _snapshot(store) == before
    # malformed JSON and the wrong content too
    for _, path in ENDPOINTS:
        r = web.post(
            path, content=b"{not json", headers={**csrf(web), "Content-Type": "application/json"}
        )
        assert r.status_code == 422 and r.json()["error"] == "invalid_request"


def test_signed_in_games_are_the_accounts_and_blocks_stop_chat(web: Any) -> None:
    from fastapi.testclient import TestClient

    signup(web, "kim")
    other = TestClient(web.app)
    signup(other, "lou")
    g = web.post(
        "/api/games", json={"opponent": "friend", "rounds": 1, "name": "Magnus"}, headers=csrf(web)
    ).json()
    invite = g["invite_url"].split("#", 1)[1]
    j = other.post(
        f"/api/games/{g['id']}/join", json={"invite": invite, "name": "x"}, headers=csrf(other)
    ).json()
    store = web.app.state.store
    k, lou = (acc.find_account_sync(store, n) for n in ("kim", "lou"))
    row = game_row(store, g["id"])
    assert k and lou and (row.account0, row.account1) == (k.id, lou.id)
    assert (row.name0, row.name1) == ("kim", "lou")  # the usernames, never a typed name

    def chat(token: str) -> dict[str, Any]:
        with web.websocket_connect(f"/ws/games/{g['id']}") as sock:
            sock.send_json({"type": "hello", "token": token})
            assert sock.receive_json()["type"] == "state"
            sock.send_json({"type": "chat", "phrase": "hello"})
            while True:
                m = sock.receive_json()
                if m["type"] in ("chat", "error"):
                    return dict(m)

    assert chat(g["token"])["type"] == "chat"
    other.post("/api/players/kim/block", headers=csrf(other))
    for token in (g["token"], j["token"]):  # neither way
        m = chat(token)
        assert m["type"] == "error" and m["code"] == "blocked"


@pytest.mark.parametrize("lang", ["en", "fr", "de", "es", "ko"])
def test_the_account_pages_in_every_language(web: Any, lang: str) -> None:
    from lostcities.web import i18n

    for path, key in (
        ("/signup", "account.signup_password"),
        ("/login", "account.login_passkey"),
        ("/account", "account.delete"),
    ):
        r = web.get(path, cookies={i18n.COOKIE: lang})
        assert r.status_code == 200 and r.headers["content-language"] == lang
        assert i18n.translate(lang, key) in r.text.replace("&#39;", "'")
        assert 'src="/static/js/account.js"' in r.text
        assert acc.CSRF_COOKIE in r.headers.get("set-cookie", "") or web.cookies.get(
            acc.CSRF_COOKIE
        )
