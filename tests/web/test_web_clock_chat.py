"""Friend games' move clock (chosen at creation, run by the referee's time limit, the player
who runs out loses the match) and quick chat (phrase ids only), at the API (TestClient)."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from tests.web.web_helpers import friend_game, state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _receive_until(ws: Any, pred: Any, n: int = 20) -> dict[str, Any]:
    for _ in range(n):
        msg: dict[str, Any] = json.loads(ws.receive_text())
        if pred(msg):
            return msg
    raise AssertionError("message not received")


def test_the_clock_is_chosen_at_creation_and_shown_to_both(client: Any) -> None:
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1, "clock": 60}).json()
    waiting = state(client, g["id"], g["token"])["game"]
    assert (
        waiting["clock"] == 60 and waiting["clock_left"] is None
    )  # not running before the friend joins
    gid, *tokens = friend_game(client, clock=180)
    for tok in tokens:
        game = state(client, gid, tok)["game"]
        assert game["clock"] == 180 and 170 < game["clock_left"] <= 180
    gid, *tokens = friend_game(client)
    assert state(client, gid, tokens[0])["game"]["clock"] is None
    assert state(client, gid, tokens[0])["game"]["clock_left"] is None


@pytest.mark.parametrize(
    "body",
    [{"opponent": "computer", "level": "easy", "clock": 60}, {"opponent": "friend", "clock": 61}],
)
def test_a_clock_only_for_friends_and_only_the_offered_ones(
    client: Any, body: dict[str, Any]
) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 422, r.text
    msg = r.json()["message"]
    assert "\n" not in msg and "Traceback" not in msg


def test_the_player_who_runs_out_loses_the_match(client: Any) -> None:
    gid, *tokens = friend_game(client, clock=60)
    to_move = state(client, gid, tokens[0])["view"]["to_move"]
    mgr = client.app.state.manager
    mgr.now = lambda: (
        datetime.datetime.now(datetime.UTC).replace(tzinfo=None) + datetime.timedelta(seconds=61)
    )
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello"}))  # a spectator's hello starts the wait
        end = _receive_until(ws, lambda m: m.get("type") == "state" and m["match"]["over"])
    assert end["match"]["winner"] == 1 - to_move
    assert end["game"]["status"] == "finished" and end["game"]["clock_left"] is None
    assert end["match"]["rounds"][0]["reason"] == "timeout: no move within 60 s"
    assert end["match"]["result"] == ("0-1" if to_move == 0 else "1-0")


def test_a_move_after_the_time_out_is_refused(client: Any) -> None:
    gid, *tokens = friend_game(client, clock=60)
    s = state(client, gid, tokens[0])
    tok = tokens[s["view"]["to_move"]]
    legal = state(client, gid, tok)["view"]["legal"][0]
    mgr = client.app.state.manager
    mgr.now = lambda: (
        datetime.datetime.now(datetime.UTC).replace(tzinfo=None) + datetime.timedelta(seconds=61)
    )
    r = client.post(
        f"/api/games/{gid}/moves", json={"token": tok, "move": legal, "round": 0, "ply": 0}
    )
    assert r.status_code == 409 and r.json()["error"] == "time_out"
    mgr.now = lambda: datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    # in time: the move counts and the next player's clock starts afresh
    gid, *tokens = friend_game(client, clock=60)
    tok = tokens[state(client, gid, tokens[0])["view"]["to_move"]]
    legal = state(client, gid, tok)["view"]["legal"][0]
    r = client.post(
        f"/api/games/{gid}/moves", json={"token": tok, "move": legal, "round": 0, "ply": 0}
    )
    assert r.status_code == 200, r.text
    assert state(client, gid, tok)["game"]["clock_left"] > 55


def test_quick_chat_passes_phrase_ids_only(client: Any) -> None:
    gid, *tokens = friend_game(client)
    with (
        client.websocket_connect(f"/ws/games/{gid}") as a,
        client.websocket_connect(f"/ws/games/{gid}") as b,
        client.websocket_connect(f"/ws/games/{gid}") as spectator,
    ):
        for ws, tok in ((a, tokens[0]), (b, tokens[1]), (spectator, None)):
            ws.send_text(json.dumps({"type": "hello", "token": tok}))
            _receive_until(ws, lambda m: m.get("type") == "state")
            # the state comes before the hello's handling ends (it joins the chat after):
            # a connection handles its messages in order, so its pong says it has joined;
            # a phrase said before that reaches it in the chat_log instead
            ws.send_text(json.dumps({"type": "ping"}))
            _receive_until(ws, lambda m: m.get("type") == "pong")
        a.send_text(json.dumps({"type": "chat", "phrase": "good_luck"}))
        for ws in (a, b, spectator):
            msg = _receive_until(ws, lambda m: m.get("type") == "chat")
            assert msg == {"type": "chat", "seat": 0, "phrase": "good_luck"}
        b.send_text(json.dumps({"type": "chat", "phrase": "emote_thumbs_up"}))  # an emote
        for ws in (a, b, spectator):
            msg = _receive_until(ws, lambda m: m.get("type") == "chat")
            assert msg == {"type": "chat", "seat": 1, "phrase": "emote_thumbs_up"}
        b.send_text(json.dumps({"type": "chat", "phrase": "you are bad"}))  # no free text
        err = _receive_until(b, lambda m: m.get("type") == "error")
        assert err["code"] == "bad_message"
        spectator.send_text(json.dumps({"type": "chat", "phrase": "wow"}))
        assert _receive_until(spectator, lambda m: m.get("type") == "error")["code"] == "spectator"


def test_every_phrase_and_emote_is_named_in_every_language() -> None:
    from lostcities.web import i18n
    from lostcities.web.schemas import CHAT_PHRASES

    assert {p for p in CHAT_PHRASES if p.startswith("emote_")}, "no emotes"
    for lang in i18n.LANGUAGES:
        assert all(f"chat.{p}" in i18n.catalogue(lang) for p in CHAT_PHRASES), lang
