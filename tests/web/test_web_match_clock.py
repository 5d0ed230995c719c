"""Friend games' Fischer-style match clock (``"clock": "300+5"``: 5 minutes each plus 5
seconds after every move), at the API (TestClient): each player's time is stored with the
game and survives a restart, the increment is added after each move, and the player who runs
out loses the match as with the per-move clock."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.web_helpers import friend_game, state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _now_plus(seconds: float) -> Any:
    return lambda: (
        datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        + datetime.timedelta(seconds=seconds)
    )


def _receive_until(ws: Any, pred: Any, n: int = 20) -> dict[str, Any]:
    for _ in range(n):
        msg: dict[str, Any] = json.loads(ws.receive_text())
        if pred(msg):
            return msg
    raise AssertionError("message not received")


def _move(client: Any, gid: str, tok: str) -> dict[str, Any]:
    s = state(client, gid, tok)
    legal = s["view"]["legal"][0]
    body = {"token": tok, "move": legal, "round": s["round"], "ply": s["view"]["ply"]}
    r = client.post(f"/api/games/{gid}/moves", json=body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


@pytest.fixture
def app_factory(tmp_path: Path) -> Iterator[Any]:
    """TestClients on one SQLite file, one after the other: a server restart."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.deps import Settings
    from lostcities.web.limits import Limits

    def make() -> Any:
        settings = Settings(
            db_url=f"sqlite:///{tmp_path / 'restart.db'}",
            bot_executor="thread",
            bot_min_delay=0.0,
            limits=Limits.off(),
        )
        return TestClient(create_app(settings))

    yield make


def test_the_match_clock_is_chosen_at_creation_and_shown_to_both(client: Any) -> None:
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1, "clock": "300+5"}).json()
    waiting = state(client, g["id"], g["token"])["game"]
    assert waiting["clock"] == "300+5" and waiting["clock_left"] is None
    assert waiting["clock_times"] == [300, 300]  # nobody's time runs before the friend joins
    gid, *tokens = friend_game(client, clock="300+5")
    for tok in tokens:
        game = state(client, gid, tok)["game"]
        to_move = game["to_move"]
        assert game["clock"] == "300+5" and 290 < game["clock_left"] <= 300
        assert game["clock_times"][1 - to_move] == 300
        assert abs(game["clock_times"][to_move] - game["clock_left"]) < 2
    # the per-move clock and no clock have no match times
    gid, *tokens = friend_game(client, clock=60)
    assert state(client, gid, tokens[0])["game"]["clock_times"] is None


@pytest.mark.parametrize(
    "body",
    [
        {"opponent": "computer", "level": "easy", "clock": "300+5"},
        {"opponent": "friend", "clock": "300+6"},
        {"opponent": "friend", "clock": "5+5"},
    ],
)
def test_a_match_clock_only_for_friends_and_only_the_offered_ones(
    client: Any, body: dict[str, Any]
) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 422, r.text
    msg = r.json()["message"]
    assert "\n" not in msg and "Traceback" not in msg


def test_the_increment_is_added_after_each_move(client: Any) -> None:
    gid, *tokens = friend_game(client, clock="300+5")
    first = state(client, gid, tokens[0])["view"]["to_move"]
    mgr = client.app.state.manager
    mgr.now = _now_plus(20)  # the first player thinks 20 s
    _move(client, gid, tokens[first])
    mgr.now = _now_plus(0)
    game = state(client, gid, tokens[0])["game"]
    assert 284 < game["clock_times"][first] < 286  # 300 - 20 + 5
    assert game["to_move"] == 1 - first and 298 < game["clock_left"] <= 300
    mgr.now = _now_plus(2)  # a quick reply: 2 s spent, 5 s gained
    _move(client, gid, tokens[1 - first])
    mgr.now = _now_plus(0)
    game = state(client, gid, tokens[0])["game"]
    assert 302 < game["clock_times"][1 - first] < 304
    assert 284 < game["clock_left"] < 286  # the first player's time runs again from 285


def test_each_players_time_survives_a_restart(app_factory: Any) -> None:
    with app_factory() as c:
        gid, *tokens = friend_game(c, clock="300+5")
        first = state(c, gid, tokens[0])["view"]["to_move"]
        c.app.state.manager.now = _now_plus(40)
        _move(c, gid, tokens[first])
    with app_factory() as c:  # a new server process on the same database
        game = state(c, gid, tokens[0])["game"]
        assert game["clock"] == "300+5"
        assert 264 < game["clock_times"][first] < 266  # 300 - 40 + 5, as stored
        assert 298 < game["clock_left"] <= 300
        # and the rematch keeps the clock
        c.post(f"/api/games/{gid}/resign", json={"token": tokens[0]})
        r = c.post(f"/api/games/{gid}/rematch", json={"token": tokens[0]})
        assert r.status_code in (200, 201), r.text
        assert state(c, r.json()["id"], r.json()["token"])["game"]["clock"] == "300+5"


def test_the_player_who_runs_out_of_match_time_loses_the_match(client: Any) -> None:
    gid, *tokens = friend_game(client, clock="300+5")
    first = state(client, gid, tokens[0])["view"]["to_move"]
    mgr = client.app.state.manager
    mgr.now = _now_plus(100)
    _move(client, gid, tokens[first])  # 205 s left for the first player
    mgr.now = _now_plus(0)
    _move(client, gid, tokens[1 - first])
    # 206 s later the first player is out (less than the per-move or full time)
    mgr.now = _now_plus(206)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello"}))
        end = _receive_until(ws, lambda m: m.get("type") == "state" and m["match"]["over"])
    assert end["match"]["winner"] == 1 - first
    assert end["game"]["status"] == "finished" and end["game"]["clock_left"] is None
    assert end["match"]["rounds"][0]["reason"] == "timeout: no time left on the 300+5 match clock"
    # a move after the time-out is refused
    gid, *tokens = friend_game(client, clock="300+5")
    tok = tokens[state(client, gid, tokens[0])["view"]["to_move"]]
    legal = state(client, gid, tok)["view"]["legal"][0]
    mgr.now = _now_plus(301)
    r = client.post(
        f"/api/games/{gid}/moves", json={"token": tok, "move": legal, "round": 0, "ply": 0}
    )
    assert r.status_code == 409 and r.json()["error"] == "time_out"
