"""A player who leaves (lostcities/web/abandon.py, issue 37 item 4), at the API (TestClient):
either player aborts before both have moved; once the opponent has been away from the table
long enough (measured by the server from the stored ``seen`` times; the tests move the
manager's clock instead of waiting), the other claims the win or a draw, the ratings settle
so, and the record says why the game ended. The stored time decides, so a restart or another
process's view counts."""

from __future__ import annotations

import datetime
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("glicko2")

import webharness  # benchmarks/ (on sys.path: web_helpers.py)
from fastapi.testclient import TestClient

from lostcities.record import read_record
from lostcities.web import abandon, ratings
from lostcities.web.app import create_app
from lostcities.web.repositories.games import op_seen
from tests.web.web_helpers import app_settings, friend_game, state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

AFTER = abandon.ABANDON_AFTER


@pytest.fixture(scope="session", autouse=True)
def compiled_search() -> None:
    """No search here: the games are between people."""


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'abandon.db'}"


def make(db: str) -> TestClient:
    return TestClient(create_app(app_settings(db, prepare_search=False)))


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with make(db) as c:
        yield c


def shift(c: TestClient, seconds: float) -> None:
    """Move the server's clock ``seconds`` ahead of the wall clock."""
    c.app.state.manager.now = lambda: (  # type: ignore[attr-defined]
        datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        + datetime.timedelta(seconds=seconds)
    )


def move(c: TestClient, gid: str, tokens: list[str]) -> dict[str, Any]:
    seat = state(c, gid, tokens[0])["game"]["to_move"]
    s = state(c, gid, tokens[seat])
    body = {"token": tokens[seat], "move": s["view"]["legal"][0], "round": s["round"]}
    r = c.post(f"/api/games/{gid}/moves", json={**body, "ply": s["view"]["ply"]})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def post(c: TestClient, gid: str, what: str, body: dict[str, Any], **kw: Any) -> Any:
    return c.post(f"/api/games/{gid}/{what}", json=body, **kw)


def visit_and_leave(c: TestClient, gid: str, token: str, seat: int) -> None:
    """The seat's page opens the table and closes it again: wait until the server saw it go."""
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.receive_text())["type"] == "state"
    for _ in range(500):
        if state(c, gid, None)["game"]["players"][seat]["away"] is not None:
            return
        time.sleep(0.01)
    raise AssertionError("the server never saw the seat leave")


def test_either_player_aborts_until_both_have_moved(client: TestClient) -> None:
    gid, *tokens = friend_game(client)
    assert state(client, gid, tokens[0])["game"]["abortable"]
    move(client, gid, tokens)
    st = state(client, gid, tokens[1])["game"]
    assert st["abortable"] and st["claim_after"] is None  # (an abort, not a claim, yet)
    r = post(client, gid, "abort", {"token": tokens[1]})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["game"]["ending"] == "aborted" and out["game"]["result"] == "*"
    assert out["match"]["over"] and out["match"]["reason"] == "aborted"
    assert out["match"]["winner"] is None and not out["game"]["abortable"]
    # nothing more happens in it; the record says why it ended
    r = post(client, gid, "abort", {"token": tokens[0]})
    assert r.status_code == 409 and r.json()["error"] == "game_over"
    s = state(client, gid, tokens[0])
    body = {"token": tokens[0], "move": "+y2.", "round": 0, "ply": s["view"]["ply"]}
    assert post(client, gid, "moves", body).json()["error"] == "game_over"
    rec = client.get(f"/api/games/{gid}/record").text
    assert '[Termination "aborted"]' in rec and rec.rstrip().endswith("*")
    read_record(io.StringIO(rec)).replay()  # type: ignore[union-attr]
    # once both have moved, no abort (spectators and strangers never)
    gid, *tokens = friend_game(client)
    assert post(client, gid, "abort", {"token": "nope"}).status_code == 403
    move(client, gid, tokens)
    move(client, gid, tokens)
    r = post(client, gid, "abort", {"token": tokens[0]})
    assert r.status_code == 409 and r.json()["error"] == "cannot_abort"
    assert state(client, gid, tokens[0])["game"]["ending"] is None


def test_a_claim_waits_for_the_opponent_to_be_away_long_enough(client: TestClient) -> None:
    gid, *tokens = friend_game(client)
    r = post(client, gid, "claim", {"token": tokens[0], "claim": "win"})
    assert r.status_code == 409 and r.json()["error"] == "cannot_claim"  # abort instead
    move(client, gid, tokens)
    move(client, gid, tokens)
    assert state(client, gid, tokens[0])["game"]["claim_after"] == AFTER
    # Bea is at the table: no claim
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": tokens[1]}))
        assert json.loads(ws.receive_text())["type"] == "state"
        assert state(client, gid, None)["game"]["players"][1]["away"] is None
        shift(client, 10 * AFTER)
        r = post(client, gid, "claim", {"token": tokens[0], "claim": "win"})
        assert r.status_code == 409 and r.json()["error"] == "opponent_present"
        shift(client, 0)
    visit_and_leave(client, gid, tokens[1], 1)
    r = post(client, gid, "claim", {"token": tokens[0], "claim": "win"})
    assert r.status_code == 409 and r.json()["error"] == "claim_too_early"
    shift(client, AFTER - 5)
    away = state(client, gid, tokens[0])["game"]["players"][1]["away"]
    assert AFTER - 6 < away < AFTER  # the server's count, for the page's countdown
    assert post(client, gid, "claim", {"token": tokens[0], "claim": "win"}).status_code == 409
    shift(client, AFTER + 1)
    r = post(client, gid, "claim", {"token": tokens[0], "claim": "win"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["game"]["ending"] == "abandoned" and out["game"]["result"] == "1-0"
    assert out["match"]["winner"] == 0 and out["match"]["reason"] == "abandoned"
    assert out["match"]["rounds"][0]["reason"] == abandon.ABANDONED
    rec = client.get(f"/api/games/{gid}/record").text
    assert '[Termination "abandoned"]' in rec and "forfeit by player 1: abandoned" in rec
    assert read_record(io.StringIO(rec)).replay().result() == "1-0"  # type: ignore[union-attr]
    r = post(client, gid, "claim", {"token": tokens[0], "claim": "draw"})
    assert r.status_code == 409 and r.json()["error"] == "game_over"


def test_a_draw_claimed_is_recorded_and_the_record_replays(client: TestClient) -> None:
    gid, *tokens = friend_game(client)
    for _ in range(3):
        move(client, gid, tokens)
    visit_and_leave(client, gid, tokens[0], 0)
    shift(client, AFTER + 1)
    r = post(client, gid, "claim", {"token": tokens[1], "claim": "draw"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["game"]["result"] == "1/2-1/2" and out["match"]["winner"] is None
    assert out["match"]["over"] and out["match"]["rounds"] == []  # the round was not played out
    rec = client.get(f"/api/games/{gid}/record").text
    assert '[Result "1/2-1/2"]' in rec and '[Termination "abandoned"]' in rec
    match = read_record(io.StringIO(rec)).replay()  # type: ignore[union-attr]
    assert match.result() == "*" and len(match.rounds[0].history) == 3
    # without the tag, such a record is refused: the rounds give no result
    bad = rec.replace('[Termination "abandoned"]\n', "")
    with pytest.raises(ValueError, match="Result is '1/2-1/2', but the rounds give"):
        read_record(io.StringIO(bad)).replay()  # type: ignore[union-attr]


def test_no_claims_against_the_computer_or_in_correspondence(client: TestClient) -> None:
    gid, *tokens = friend_game(client, clock="1d")
    move(client, gid, tokens)
    move(client, gid, tokens)
    assert state(client, gid, tokens[0])["game"]["claim_after"] is None
    shift(client, 3 * AFTER)
    r = post(client, gid, "claim", {"token": tokens[0], "claim": "win"})
    assert r.status_code == 409 and r.json()["error"] == "cannot_claim"
    g = client.post("/api/games", json={"opponent": "computer", "level": "easy", "rounds": 1})
    r = post(client, g.json()["id"], "claim", {"token": g.json()["token"], "claim": "win"})
    assert r.status_code == 409 and r.json()["error"] == "cannot_claim"


def test_the_stored_time_decides_across_a_restart_and_other_processes(db: str) -> None:
    with make(db) as one:
        gid, *tokens = friend_game(one)
        move(one, gid, tokens)
        move(one, gid, tokens)
        visit_and_leave(one, gid, tokens[1], 1)
    # a restart (or another process): nobody here saw Bea leave, the database did
    with make(db) as two:
        shift(two, AFTER + 1)
        assert state(two, gid, tokens[0])["game"]["players"][1]["away"] > AFTER
        # another process saw her a moment ago (its beat wrote it): the claim is refused in
        # its write, whatever this process's copy says
        two.app.state.store.write_sync(  # type: ignore[attr-defined]
            op_seen([(gid, 1)], two.app.state.manager.now())  # type: ignore[attr-defined]
        )
        r = post(two, gid, "claim", {"token": tokens[0], "claim": "win"})
        assert r.status_code == 409 and r.json()["error"] == "claim_too_early"
        shift(two, 2 * AFTER + 2)
        r = post(two, gid, "claim", {"token": tokens[0], "claim": "win"})
        assert r.status_code == 200 and r.json()["game"]["result"] == "1-0", r.text
    with make(db) as three:  # the ending is stored: the game stays over
        st = state(three, gid, tokens[1])
        assert st["game"]["ending"] == "abandoned" and st["match"]["winner"] == 0


def rated_game(c: TestClient) -> tuple[str, list[str], list[dict[str, str]]]:
    ann, bob = (
        webharness.signed_in(c.app.state.store, "ann"),
        webharness.signed_in(  # type: ignore[attr-defined]
            c.app.state.store,  # type: ignore[attr-defined]
            "bob",
        ),
    )
    t = c.post("/api/lobby/tables", json={"rounds": 1, "rated": True}, headers=ann).json()
    g = c.post(f"/api/lobby/{t['id']}/join", json={}, headers=bob).json()
    return g["id"], [t["token"], g["token"]], [ann, bob]


def settled(c: TestClient, gid: str) -> str:
    hub = c.app.state.lobby  # type: ignore[attr-defined]
    for _ in range(500):
        done = dict(hub.settler.settled)
        if gid in done:
            return str(done[gid])
        time.sleep(0.01)
    raise AssertionError("never settled")


@pytest.mark.parametrize("claim", ["win", "draw"])
def test_a_rated_claim_settles_the_ratings(client: TestClient, claim: str) -> None:
    gid, tokens, _ = rated_game(client)
    move(client, gid, tokens)
    move(client, gid, tokens)
    visit_and_leave(client, gid, tokens[1], 1)  # bob leaves
    shift(client, AFTER + 1)
    r = post(client, gid, "claim", {"token": tokens[0], "claim": claim})
    assert r.status_code == 200, r.text
    assert settled(client, gid) == "rated"
    score = 1.0 if claim == "win" else 0.5
    a, b = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, score)
    board = client.get("/api/leaderboard", params={"speed": "untimed"}).json()["players"]
    assert {p["name"]: p["rating"] for p in board} == {
        "ann": round(a.rating),
        "bob": round(b.rating),
    }


def test_a_rated_abort_changes_no_rating(client: TestClient) -> None:
    gid, tokens, (ann, _) = rated_game(client)
    move(client, gid, tokens)
    # the signed-in player's seat follows the account: no token needed
    r = post(client, gid, "abort", {"token": ""}, headers=ann)
    assert r.status_code == 200, r.text
    assert settled(client, gid) == "aborted"
    assert client.get("/api/leaderboard", params={"speed": "untimed"}).json()["players"] == []


def until(ws: Any, kind: str) -> dict[str, Any]:
    """The socket's next message of type ``kind`` (presence and chat go by)."""
    for _ in range(20):
        msg: dict[str, Any] = json.loads(ws.receive_text())
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message")


def test_abort_and_claim_over_the_websocket(client: TestClient) -> None:
    gid, *tokens = friend_game(client)
    move(client, gid, tokens)
    move(client, gid, tokens)
    visit_and_leave(client, gid, tokens[1], 1)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": tokens[0]}))
        first = json.loads(ws.receive_text())
        assert first["game"]["players"][1]["away"] is not None
        ws.send_text(json.dumps({"type": "abort"}))
        assert until(ws, "error")["code"] == "cannot_abort"
        ws.send_text(json.dumps({"type": "claim", "claim": "maybe"}))
        assert until(ws, "error")["code"] == "bad_message"
        shift(client, AFTER + 1)
        ws.send_text(json.dumps({"type": "claim", "claim": "draw"}))
        msg = until(ws, "state")
        assert msg["game"]["ending"] == "abandoned" and msg["game"]["result"] == "1/2-1/2"
