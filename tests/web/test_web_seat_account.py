"""A signed-in player's seat follows the account (issue 27): a lobby game opens with its
seat in any browser where the account is signed in, over HTTP and the WebSocket; another
account, a guest, a page of another site and a logged-out session get no seat. And rated
games against the computer from the home page's API: signed in only, no hints, settled
once for the player and the level."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("argon2")
pytest.importorskip("glicko2")

from fastapi.testclient import TestClient

from lostcities.web import ratings
from lostcities.web.accounts import CSRF_COOKIE, SESSION_COOKIE
from lostcities.web.app import create_app
from tests.web.web_helpers import app_settings


@pytest.fixture(scope="session", autouse=True)
def compiled_search() -> None:
    """No search here: the computer is the random bot."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = app_settings(f"sqlite:///{tmp_path / 'seats.db'}", prepare_search=False)
    with TestClient(create_app(settings)) as c:
        yield c


Browser = dict[str, str]
"""The headers one browser sends: its session and CSRF cookies, and the CSRF header."""


def browser(client: TestClient, name: str, *, new: bool = False) -> Browser:
    """A browser of its own, signed in as ``name`` through the API (``new``: signing up):
    its cookies are kept here, never in the client's shared jar."""
    client.cookies.clear()
    csrf = client.get("/api/accounts/csrf").json()["csrf"]
    path = "/api/accounts/signup" if new else "/api/accounts/login"
    r = client.post(
        path,
        json={"username": name, "password": "correct horse"},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.status_code in (200, 201), r.text
    session = client.cookies.get(SESSION_COOKIE)
    client.cookies.clear()
    assert session
    return {"Cookie": f"{SESSION_COOKIE}={session}; {CSRF_COOKIE}={csrf}", "X-CSRF-Token": csrf}


def state(client: TestClient, game_id: str, headers: Browser | None = None) -> dict[str, Any]:
    r = client.get(f"/api/games/{game_id}/state", headers=headers or {})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def play_first_legal(client: TestClient, game_id: str, who: Browser) -> tuple[int, int]:
    """Play the first legal move as the account of ``who`` (no seat token): the seat it
    played for and the ply it played at."""
    mine = state(client, game_id, who)
    body = {
        "token": "",
        "round": mine["round"],
        "ply": mine["view"]["ply"],
        "move": mine["view"]["legal"][0],
    }
    r = client.post(f"/api/games/{game_id}/moves", json=body, headers=who)
    assert r.status_code == 200, r.text
    return int(r.json()["seat"]), int(mine["view"]["ply"])


def lobby_game(client: TestClient, owner: Browser, joiner: Browser) -> tuple[str, str, str]:
    """A casual lobby game between two accounts; its id and both seat tokens."""
    t = client.post("/api/lobby/tables", json={"rounds": 1}, headers=owner)
    assert t.status_code == 201, t.text
    g = client.post(f"/api/lobby/{t.json()['id']}/join", json={}, headers=joiner)
    assert g.status_code == 200, g.text
    return g.json()["id"], t.json()["token"], g.json()["token"]


def test_a_seat_follows_its_account_into_another_browser(client: TestClient) -> None:
    ann_a = browser(client, "ann", new=True)
    bob = browser(client, "bob", new=True)
    cy = browser(client, "cyd", new=True)
    ann_b = browser(client, "ann")  # a second browser: no token of the game in it
    assert ann_a["Cookie"] != ann_b["Cookie"]
    gid, token0, _ = lobby_game(client, ann_a, bob)

    mine = state(client, gid, ann_b)
    assert mine["seat"] == 0 and len(mine["view"]["hand"]) == 8
    assert state(client, gid, bob)["seat"] == 1
    assert state(client, gid, cy)["seat"] is None  # another account: a spectator
    assert state(client, gid)["seat"] is None  # a guest
    spectator = state(client, gid, cy)["view"]
    assert not spectator.get("hand") and not spectator.get("legal")

    # both of ann's browsers play her seat: the one with the token and the one without
    for _ in range(4):
        st = state(client, gid, ann_b)
        seat = st["view"]["to_move"]
        who = {0: ann_b, 1: bob}[seat]
        assert play_first_legal(client, gid, who)[0] == seat
    with_token = client.get(f"/api/games/{gid}/state", headers={"X-Seat-Token": token0}).json()
    assert with_token["view"] == state(client, gid, ann_b)["view"]

    # another account never gets the seat, nor does a request without the CSRF header
    st = state(client, gid, ann_b)
    turn = {0: ann_b, 1: bob}[st["view"]["to_move"]]
    mine = state(client, gid, turn)
    body = {"token": "", "round": mine["round"], "ply": mine["view"]["ply"]}
    body["move"] = mine["view"]["legal"][0]
    r = client.post(f"/api/games/{gid}/moves", json=body, headers=cy)
    assert r.status_code == 403 and r.json()["error"] == "invalid_token", r.text
    no_csrf = {"Cookie": turn["Cookie"]}
    r = client.post(f"/api/games/{gid}/moves", json=body, headers=no_csrf)
    assert r.status_code == 403 and r.json()["error"] == "csrf", r.text
    r = client.post(f"/api/games/{gid}/resign", json={"token": ""}, headers=cy)
    assert r.status_code == 403
    assert state(client, gid, ann_b)["view"]["ply"] == st["view"]["ply"]  # nothing changed

    # a logged-out session opens nothing: a spectator, and no move
    assert client.post("/api/accounts/logout", headers=ann_b).status_code == 200
    client.cookies.clear()
    assert state(client, gid, ann_b)["seat"] is None
    r = client.post(f"/api/games/{gid}/moves", json=body, headers=ann_b)
    assert r.status_code == 403 and r.json()["error"] == "invalid_token", r.text
    assert state(client, gid, ann_a)["seat"] == 0  # her other browser is still signed in
    # guests keep playing by token exactly as before
    r = client.post(f"/api/games/{gid}/resign", json={"token": token0})
    assert r.status_code == 200 and r.json()["match"]["over"]


def _receive_state(ws: Any) -> dict[str, Any]:
    for _ in range(20):
        m: dict[str, Any] = ws.receive_json()
        if m["type"] in ("state", "error"):
            return m
    raise AssertionError("no state")


def test_the_websocket_seats_the_account_and_drops_it_at_log_out(client: TestClient) -> None:
    ann_a = browser(client, "ann", new=True)
    bob = browser(client, "bob", new=True)
    ann_b = browser(client, "ann")
    gid, _, _ = lobby_game(client, ann_a, bob)
    url = f"/ws/games/{gid}"
    with client.websocket_connect(url, headers={"cookie": ann_b["Cookie"]}) as ws:
        ws.send_json({"type": "hello"})
        st = _receive_state(ws)
        assert st["type"] == "state" and st["seat"] == 0 and len(st["view"]["hand"]) == 8
        ws.send_json({"type": "ping"})
        assert ws.receive_json()["type"] in ("pong", "presence", "chat_log")
    # a page of another site gets no account's seat (the cookie is not used)
    evil = {"cookie": ann_b["Cookie"], "origin": "http://evil.example"}
    with client.websocket_connect(url, headers=evil) as ws:
        ws.send_json({"type": "hello"})
        assert _receive_state(ws)["seat"] is None
    own = {"cookie": ann_b["Cookie"], "origin": "http://testserver"}
    with client.websocket_connect(url, headers=own) as ws:
        ws.send_json({"type": "hello"})
        assert _receive_state(ws)["seat"] == 0
        # the session ends (log-out in another tab): the socket's next message is refused
        assert client.post("/api/accounts/logout", headers=ann_b).status_code == 200
        client.cookies.clear()
        ws.send_json({"type": "ping"})
        for _ in range(10):
            m = ws.receive_json()
            if m["type"] == "error":
                break
        assert m["code"] == "invalid_token", m


def wait_for(client: TestClient, gid: str, who: Browser, seat: int = 0) -> dict[str, Any]:
    for _ in range(500):
        st = state(client, gid, who)
        if st["view"]["to_move"] == seat or st["match"]["over"]:
            return st
        time.sleep(0.01)
    raise AssertionError("the bot did not move")


def settled(client: TestClient, n: int) -> list[tuple[str, str]]:
    hub = client.app.state.lobby  # type: ignore[attr-defined]
    for _ in range(300):
        if len(hub.settler.settled) >= n:
            break
        time.sleep(0.02)
    return list(hub.settler.settled)


def test_a_rated_game_against_the_computer_from_the_home_page(client: TestClient) -> None:
    body = {"opponent": "computer", "level": "easy", "rounds": 1, "rated": True}
    r = client.post("/api/games", json=body)  # a guest
    assert r.status_code == 403 and r.json()["error"] == "needs_account"
    assert 'name="rated" value="rated" disabled' in client.get("/").text
    ann = browser(client, "ann", new=True)
    page = client.get("/", headers=ann).text
    assert 'name="rated" value="rated">' in page
    for bad in ({"opponent": "friend"}, {"tie_break": "youngest", "younger": 0}):
        r = client.post("/api/games", json={**body, **bad}, headers=ann)
        assert r.status_code == 422, r.text
    r = client.post("/api/games", json=body, headers=ann)
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    casual = client.post("/api/games", json={**body, "rated": False}, headers=ann).json()
    assert client.get(f"/api/games/{casual['id']}").json()["rated"] is False

    st = wait_for(client, gid, ann)
    assert st["game"]["rated"] is True and st["seat"] == 0
    r = client.post(f"/api/games/{gid}/hint", json={"token": ""}, headers=ann)
    assert r.status_code == 403 and r.json()["error"] == "hint_rated"
    assert client.get(f"/api/games/{gid}").json()["hints"] == 0
    move = {"token": "", "round": st["round"], "ply": st["view"]["ply"]}
    r = client.post(
        f"/api/games/{gid}/moves", json={**move, "move": st["view"]["legal"][0]}, headers=ann
    )
    assert r.status_code == 200, r.text
    st = wait_for(client, gid, ann)
    assert st["view"]["ply"] >= 2
    r = client.post(f"/api/games/{gid}/resign", json={"token": ""}, headers=ann)
    assert r.status_code == 200, r.text
    assert settled(client, 1) == [(gid, "rated")]
    ann_after, bot_after = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 0.0)
    board = client.get("/api/leaderboard", params={"speed": "untimed"}).json()["players"]
    assert [(p["name"], p["bot"], p["rating"], p["games"]) for p in board] == [
        ("Computer (Easy)", True, round(bot_after.rating), 1),
        ("ann", False, round(ann_after.rating), 1),
    ]
    prof = client.get("/api/players/ann").json()
    game = next(x for x in prof["games"] if x["id"] == gid)
    assert game["rated"] and game["rating_change"] == round(ann_after.rating - 1500.0, 1)
    assert "Computer (Easy)" in client.get("/leaderboard").text

    # the rematch is rated too, and settles on its own (once)
    r = client.post(f"/api/games/{gid}/rematch", json={"token": ""}, headers=ann)
    assert r.status_code == 200, r.text
    again = r.json()["id"]
    assert client.get(f"/api/games/{again}").json()["rated"] is True
    st = wait_for(client, again, ann)
    if st["view"]["to_move"] == 0 and st["view"]["ply"] < 2:
        move = {"token": "", "round": st["round"], "ply": st["view"]["ply"]}
        client.post(
            f"/api/games/{again}/moves",
            json={**move, "move": st["view"]["legal"][0]},
            headers=ann,
        )
        st = wait_for(client, again, ann)
    client.post(f"/api/games/{again}/resign", json={"token": ""}, headers=ann)
    assert settled(client, 2) == [(gid, "rated"), (again, "rated")]
    board = client.get("/api/leaderboard", params={"speed": "untimed"}).json()["players"]
    assert [p["games"] for p in board] == [2, 2]


def test_two_processes_seat_the_account_at_once(pg_url: str) -> None:
    """Two apps on one PostgreSQL database (as two server processes): a lobby game made
    on one gives the account its seat on the other at once, and a move there is seen by
    the first straight after (read-your-writes)."""
    settings = app_settings(pg_url, prepare_search=False)
    with (
        TestClient(create_app(settings)) as one,
        TestClient(create_app(app_settings(pg_url, prepare_search=False))) as two,
    ):
        ann = browser(one, "ann", new=True)
        bob = browser(one, "bob", new=True)
        ann_b = browser(two, "ann")
        for _ in range(3):
            gid, _, _ = lobby_game(one, ann, bob)
            st = state(two, gid, ann_b)  # at once, on the other process
            assert st["seat"] == 0, st
            mover = {0: (two, ann_b), 1: (one, bob)}[st["view"]["to_move"]]
            c, who = mover
            _, ply = play_first_legal(c, gid, who)
            other = one if c is two else two
            seen = state(other, gid, ann if other is one else ann_b)
            assert seen["view"]["ply"] == ply + 1
        cy = browser(two, "cyd", new=True)
        assert state(two, gid, cy)["seat"] is None
