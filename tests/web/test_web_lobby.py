"""The lobby (lostcities/web/lobby.py) through the API: guests meet at an open table, a seat
is taken once, "play now" pairs by rating range, a rated match changes both ratings by the
glicko2 figures; a correspondence game times out by its clock after a restart."""

from __future__ import annotations

import datetime
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("glicko2")

import webharness  # benchmarks/ (on sys.path: web_helpers.py)
from fastapi.testclient import TestClient

from lostcities.web import correspondence_timeouts as correspondence
from lostcities.web import ratings
from lostcities.web.app import create_app
from lostcities.web.lobby import RANGE_START, rating_range


def app_settings(db_url: str) -> Any:
    """The tests' settings (as web_helpers'): bots in threads, no limits, the test deal seed."""
    from lostcities.web.deps import Settings
    from lostcities.web.levels import LEVELS, Level
    from lostcities.web.limits import Limits

    return Settings(
        db_url=db_url,
        levels={**LEVELS, "easy": Level("random", "Easy")},  # a bot that moves at once
        bot_executor="thread",
        bot_min_delay=0.0,
        limits=Limits.off(),
        test_deal_seed=25,
        prepare_search=False,
    )


@pytest.fixture(scope="session", autouse=True)
def compiled_search() -> None:
    """No search here: the games are between people."""


@pytest.fixture
def app_db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'lobby.db'}"


@pytest.fixture
def client(app_db: str) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings(app_db))) as c:
        yield c


def guest(client: TestClient, name: str) -> dict[str, str]:
    return {"name": name, "browser": secrets.token_hex(8)}


def state(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{game_id}/state", headers={"X-Seat-Token": token})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_two_guests_meet_at_an_open_table(client: TestClient) -> None:
    ann, bob = guest(client, "Ann"), guest(client, "Bob")
    r = client.post("/api/lobby/tables", json={**ann, "rounds": 1, "clock": "300+5"})
    assert r.status_code == 201, r.text
    table = r.json()
    snap = client.get("/api/lobby").json()
    assert [(t["id"], t["owner"], t["clock"], t["rated"]) for t in snap["tables"]] == [
        (table["id"], "Ann", "300+5", False)
    ]
    joined = client.post(f"/api/lobby/{table['id']}/join", json=bob)
    assert joined.status_code == 200, joined.text
    game = joined.json()
    # a second player is too late; the owner learns the game and plays with its token
    late = client.post(f"/api/lobby/{table['id']}/join", json=guest(client, "Cy"))
    assert late.status_code == 409 and late.json()["error"] == "gone"
    st = client.post(f"/api/lobby/{table['id']}/status", json={"token": table["token"]}).json()
    assert st == {"id": table["id"], "status": "matched", "game_id": game["id"]}
    a, b = state(client, game["id"], table["token"]), state(client, game["id"], game["token"])
    assert (a["seat"], b["seat"]) == (0, 1)
    assert a["game"]["status"] == "active" and a["game"]["clock"] == "300+5"
    assert [p["name"] for p in a["game"]["players"]] == ["Ann", "Bob"]
    assert client.get("/api/lobby").json()["tables"] == []


def test_a_guest_cannot_open_a_rated_table_and_owners_cancel(client: TestClient) -> None:
    ann = guest(client, "Ann")
    r = client.post("/api/lobby/tables", json={**ann, "rated": True})
    assert r.status_code == 403 and r.json()["error"] == "needs_account"
    t = client.post("/api/lobby/tables", json=ann).json()
    assert client.post(f"/api/lobby/{t['id']}/cancel", json={"token": "wrong"}).json() == {
        "cancelled": False
    }
    assert client.post(f"/api/lobby/{t['id']}/cancel", json={"token": t["token"]}).json() == {
        "cancelled": True
    }
    assert client.get("/api/lobby").json()["tables"] == []
    mine = client.post(f"/api/lobby/{t['id']}/join", json=guest(client, "Bob"))
    assert mine.status_code == 409


def test_play_now_pairs_two_waiting_players(client: TestClient) -> None:
    a = client.post("/api/lobby/seeks", json={**guest(client, "Ann"), "rounds": 1}).json()
    assert (
        client.post(f"/api/lobby/{a['id']}/status", json={"token": a["token"]}).json()["status"]
        == "open"
    )
    assert client.get("/api/lobby").json()["seeks"] == 1
    b = client.post("/api/lobby/seeks", json={**guest(client, "Bob"), "rounds": 1}).json()
    sa = client.post(f"/api/lobby/{a['id']}/status", json={"token": a["token"]}).json()
    sb = client.post(f"/api/lobby/{b['id']}/status", json={"token": b["token"]}).json()
    assert sa["status"] == sb["status"] == "matched" and sa["game_id"] == sb["game_id"]
    seats = {
        state(client, sa["game_id"], a["token"])["seat"],
        state(client, sb["game_id"], b["token"])["seat"],
    }
    assert seats == {0, 1}


def test_the_rating_range_widens_with_time() -> None:
    assert rating_range(0) == RANGE_START
    assert rating_range(5) < rating_range(20) < rating_range(10**6) == 600.0


def sign_in(client: TestClient, name: str) -> dict[str, str]:
    """An account and a session for it (the cookie headers of its browser)."""
    return webharness.signed_in(client.app.state.store, name)  # type: ignore[attr-defined]


def test_a_rated_match_changes_both_ratings_by_the_library_figures(client: TestClient) -> None:
    ann, bob = sign_in(client, "ann"), sign_in(client, "bob")
    t = client.post("/api/lobby/tables", json={"rounds": 1, "rated": True}, headers=ann)
    assert t.status_code == 201, t.text
    table = t.json()
    g = client.post(f"/api/lobby/{table['id']}/join", json={}, headers=bob).json()
    tokens = {0: table["token"], 1: g["token"]}
    # two moves, then the player to move resigns: a rated loss
    for _ in range(2):
        st = state(client, g["id"], tokens[0])
        seat = st["view"]["to_move"]
        mine = state(client, g["id"], tokens[seat])
        move = mine["view"]["legal"][0]
        body = {
            "token": tokens[seat],
            "round": mine["round"],
            "ply": mine["view"]["ply"],
            "move": move,
        }
        assert client.post(f"/api/games/{g['id']}/moves", json=body).status_code == 200
    loser = state(client, g["id"], tokens[0])["view"]["to_move"]
    assert (
        client.post(f"/api/games/{g['id']}/resign", json={"token": tokens[loser]}).status_code
        == 200
    )
    hub = client.app.state.lobby  # type: ignore[attr-defined]
    for _ in range(200):
        if hub.settler.settled:
            break
        time.sleep(0.02)
    assert list(hub.settler.settled) == [(g["id"], "rated")]
    won, lost = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 1.0)
    lb = client.get("/api/leaderboard", params={"speed": "untimed"})
    assert lb.status_code == 200, lb.text
    board = lb.json()["players"]
    want = {"ann": won, "bob": lost} if loser == 1 else {"ann": lost, "bob": won}
    assert {p["name"]: p["rating"] for p in board} == {k: round(v.rating) for k, v in want.items()}
    assert all(p["provisional"] for p in board)
    prof = client.get("/api/players/ANN").json()
    assert prof["games"][0]["rated"] and prof["games"][0]["rating_change"] == round(
        want["ann"].rating - 1500.0, 1
    )
    assert prof["opponents"][0]["opponent"] == "bob"
    svg = client.get("/api/players/ann/rating.svg")
    assert svg.status_code == 200 and svg.text.startswith("<svg")
    for page in ("/lobby", "/leaderboard", "/players/ann", "/my-games"):
        assert client.get(page).status_code == 200, page
    assert client.get("/players/nobody").status_code == 404
    mine = client.post("/api/my-games", json={"games": []}, headers=ann).json()
    assert [x["id"] for x in mine] == [g["id"]]


def test_a_correspondence_game_times_out_by_its_clock_after_a_restart(app_db: str) -> None:
    with TestClient(create_app(app_settings(app_db))) as c:
        t = c.post("/api/lobby/tables", json={**guest(c, "Ann"), "clock": "1d", "rounds": 1}).json()
        g = c.post(f"/api/lobby/{t['id']}/join", json=guest(c, "Bob")).json()
        st = state(c, g["id"], g["token"])
        assert st["game"]["clock"] == "1d" and 86000 < st["game"]["clock_left"] <= 86400
        to_move = st["view"]["to_move"]
    # the server is down; two days pass; a fresh server finds the game past its time
    with TestClient(create_app(app_settings(app_db))) as c:
        mgr = c.app.state.manager  # type: ignore[attr-defined]
        later = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) + datetime.timedelta(
            days=2
        )
        mgr.now = lambda: later
        assert c.portal.call(correspondence.time_out_due, mgr) == 1  # type: ignore[union-attr]
        for _ in range(300):
            summary = c.get(f"/api/games/{g['id']}").json()
            if summary["status"] == "finished":
                break
            time.sleep(0.02)
        assert summary["status"] == "finished"
        assert summary["result"] == ("0-1" if to_move == 0 else "1-0")
        reason = state(c, g["id"], g["token"])["match"]["reason"]
        assert "forfeited" in reason


def test_two_processes_share_one_lobby(pg_url: str) -> None:
    """Two apps on one PostgreSQL database (as two server processes): a table opened on
    one is listed by the other at once, taken there, and its owner learns the game."""
    with (
        TestClient(create_app(app_settings(pg_url))) as one,
        TestClient(create_app(app_settings(pg_url))) as two,
    ):
        t = one.post("/api/lobby/tables", json={**guest(one, "Ann"), "rounds": 1}).json()
        assert [x["id"] for x in two.get("/api/lobby").json()["tables"]] == [t["id"]]
        g = two.post(f"/api/lobby/{t['id']}/join", json=guest(two, "Bob")).json()
        st = one.post(f"/api/lobby/{t['id']}/status", json={"token": t["token"]}).json()
        assert st["status"] == "matched" and st["game_id"] == g["id"]
        assert one.get("/api/lobby").json()["tables"] == []
        assert state(one, g["id"], t["token"])["seat"] == 0
        assert state(two, g["id"], g["token"])["seat"] == 1
        # the other process's pushed view converges too (its listener's refresh)
        hub = one.app.state.lobby  # type: ignore[attr-defined]
        for _ in range(250):
            if hub.snapshot["tables"] == []:
                break
            time.sleep(0.02)
        assert hub.snapshot["tables"] == []


def block(client: TestClient, who: dict[str, str], whom: str) -> None:
    r = client.post(f"/api/players/{whom}/block", json={}, headers=who)
    assert r.status_code == 200, r.text


def test_blocked_players_are_never_seated_together(client: TestClient) -> None:
    ann, bob, cy = sign_in(client, "ann"), sign_in(client, "bob"), sign_in(client, "cy")
    block(client, bob, "ann")
    t = client.post("/api/lobby/tables", json={"rounds": 1}, headers=ann).json()
    r = client.post(f"/api/lobby/{t['id']}/join", json={}, headers=bob)
    assert r.status_code == 403 and r.json()["error"] == "blocked"
    # play now: ann and bob wait together, cy comes and is paired with the first of them
    client.post(f"/api/lobby/{t['id']}/cancel", json={"token": t["token"]})
    sa = client.post("/api/lobby/seeks", json={"rounds": 1}, headers=ann).json()
    sb = client.post("/api/lobby/seeks", json={"rounds": 1}, headers=bob).json()

    def status(e: dict[str, str]) -> str:
        out = client.post(f"/api/lobby/{e['id']}/status", json={"token": e["token"]}).json()
        return str(out["status"])

    assert (status(sa), status(sb)) == ("open", "open")
    client.post("/api/lobby/seeks", json={"rounds": 1}, headers=cy)
    assert (status(sa), status(sb)) == ("matched", "open")


def test_a_rated_game_against_the_computer_rates_the_bot(client: TestClient) -> None:
    ann = sign_in(client, "ann")
    guest_try = client.post("/api/lobby/computer", json={"level": "easy", "rated": True})
    assert guest_try.status_code == 403 and guest_try.json()["error"] == "needs_account"
    g = client.post(
        "/api/lobby/computer", json={"level": "easy", "rounds": 1, "rated": True}, headers=ann
    ).json()

    def now() -> dict[str, Any]:
        return state(client, g["id"], g["token"])

    def wait_turn() -> dict[str, Any]:
        for _ in range(500):
            st = now()
            if st["view"]["to_move"] == 0:
                return st
            time.sleep(0.01)
        raise AssertionError("the bot did not move")

    st = wait_turn()
    body = {"token": g["token"], "round": st["round"], "ply": st["view"]["ply"]}
    client.post(f"/api/games/{g['id']}/moves", json={**body, "move": st["view"]["legal"][0]})
    st = wait_turn()  # the bot has moved: two moves at least
    assert st["view"]["ply"] >= 2
    client.post(f"/api/games/{g['id']}/resign", json={"token": g["token"]})
    hub = client.app.state.lobby  # type: ignore[attr-defined]
    for _ in range(200):
        if hub.settler.settled:
            break
        time.sleep(0.02)
    assert list(hub.settler.settled) == [(g["id"], "rated")]
    board = client.get("/api/leaderboard", params={"speed": "untimed"}).json()["players"]
    ann_after, bot_after = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 0.0)  # she resigned
    assert [(p["name"], p["bot"], p["rating"]) for p in board] == [
        ("Computer (Easy)", True, round(bot_after.rating)),
        ("ann", False, round(ann_after.rating)),
    ]
