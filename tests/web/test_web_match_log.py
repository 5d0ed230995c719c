"""The table's game log keeps the whole match (issue 26, web 13): each state carries the
moves of every finished round with its summary, and a reload or a server restart gives
them again."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.web_helpers import app_settings

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def state(client: Any, gid: str, token: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}/state", headers={"X-Seat-Token": token})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def my_turn(client: Any, gid: str, token: str) -> dict[str, Any]:
    """The state once it is seat 0's turn or the match is over (the bot moves meanwhile)."""
    deadline = time.monotonic() + 60
    while True:
        s = state(client, gid, token)
        if s["match"]["over"] or s["view"]["to_move"] == 0:
            return s
        assert time.monotonic() < deadline, "the bot never moved"
        time.sleep(0.02)


def play_round(client: Any, gid: str, token: str) -> tuple[dict[str, Any], list[str]]:
    """Seat 0 draws from the draw pile every move (the round ends soon); the state after the
    round and every move of the round as the live states showed them."""
    s = my_turn(client, gid, token)
    start = s["round"]
    seen: list[str] = []
    while s["round"] == start and not s["match"]["over"]:
        seen = s["view"]["history"]
        v = s["view"]
        move = next(m for m in v["legal"] if m.endswith("."))
        r = client.post(
            f"/api/games/{gid}/moves",
            json={"token": token, "move": move, "round": s["round"], "ply": v["ply"]},
        )
        assert r.status_code == 200, r.text
        s = my_turn(client, gid, token)
    return s, seen


def test_the_log_keeps_every_round_through_a_restart(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app

    url = f"sqlite:///{tmp_path / 'log.db'}"
    with TestClient(create_app(app_settings(url))) as client:
        g = client.post(
            "/api/games", json={"opponent": "computer", "level": "easy", "rounds": 3}
        ).json()
        gid, tok = g["id"], g["token"]
        s, seen = play_round(client, gid, tok)
        assert s["round"] == 1 and not s["match"]["over"]
        (first,) = s["match"]["rounds"]
        log = first["history"]
        # the finished round's log: every move of it, in order, as played
        assert len(log) > len(seen) > 0 and log[: len(seen)] == seen
        assert first["starter"] in (0, 1) and first["index"] == 0
        spectator = client.get(f"/api/games/{gid}/state").json()
        assert spectator["match"]["rounds"][0]["history"] == log  # public: the same for all
    # a server restart (a new app on the same database) gives the same log
    with TestClient(create_app(app_settings(url))) as client:
        again = state(client, gid, tok)
        assert again["match"]["rounds"][0]["history"] == log
        s, _ = play_round(client, gid, tok)
        assert [r["index"] for r in s["match"]["rounds"]] == [0, 1]
        assert s["match"]["rounds"][0]["history"] == log
        assert len(s["match"]["rounds"][1]["history"]) > 0


def _receive_until(ws: Any, pred: Any, n: int = 30) -> dict[str, Any]:
    for _ in range(n):
        msg: dict[str, Any] = json.loads(ws.receive_text())
        if pred(msg):
            return msg
    raise AssertionError("message not received")


def _hello(ws: Any, token: str | None) -> list[dict[str, Any]]:
    """Say hello; the messages up to the presence line (the state, the chat so far)."""
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    got: list[dict[str, Any]] = []
    while not got or got[-1]["type"] != "presence":
        got.append(json.loads(ws.receive_text()))
    return got


def test_the_chat_is_kept_and_said_again_after_a_reload_and_a_restart(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from tests.web.web_helpers import friend_game

    url = f"sqlite:///{tmp_path / 'chat.db'}"
    said = [(0, "hello"), (1, "good_luck"), (0, "emote_thumbs_up"), (1, "thanks")]
    with TestClient(create_app(app_settings(url))) as client:
        gid, *tokens = friend_game(client)
        with (
            client.websocket_connect(f"/ws/games/{gid}") as a,
            client.websocket_connect(f"/ws/games/{gid}") as b,
        ):
            first = _hello(a, tokens[0])
            assert [m["type"] for m in first] == ["state", "presence"]  # no chat yet
            _hello(b, tokens[1])
            for seat, phrase in said:
                (a, b)[seat].send_text(json.dumps({"type": "chat", "phrase": phrase}))
                for ws in (a, b):
                    msg = _receive_until(ws, lambda m: m.get("type") == "chat")
                    assert msg == {"type": "chat", "seat": seat, "phrase": phrase}
            # refused as before: no free text, and a spectator cannot chat (nothing stored)
            b.send_text(json.dumps({"type": "chat", "phrase": "you are bad\u202e"}))
            assert _receive_until(b, lambda m: m.get("type") == "error")["code"] == "bad_message"
        # a reload: a new connection gets the state, then the chat so far, in order
        with client.websocket_connect(f"/ws/games/{gid}") as again:
            got = _hello(again, tokens[1])
            assert [m["type"] for m in got] == ["state", "chat_log", "presence"]
            assert got[1]["messages"] == [{"seat": s, "phrase": p} for s, p in said]
        with client.websocket_connect(f"/ws/games/{gid}") as watcher:  # spectators read it
            assert _hello(watcher, None)[1]["type"] == "chat_log"
            watcher.send_text(json.dumps({"type": "chat", "phrase": "wow"}))
            assert _receive_until(watcher, lambda m: m.get("type") == "error")["code"] == (
                "spectator"
            )
    # a server restart: the chat is in the database
    with (
        TestClient(create_app(app_settings(url))) as client,
        client.websocket_connect(f"/ws/games/{gid}") as a,
    ):
        got = _hello(a, tokens[0])
        assert got[1] == {
            "type": "chat_log",
            "messages": [{"seat": s, "phrase": p} for s, p in said],
        }


def test_a_games_chat_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game keeps at most CHAT_KEPT phrases (the messages limit paces each client; this
    bounds what a game stores); a reload shows the last CHAT_SHOWN."""
    from fastapi.testclient import TestClient

    from lostcities.web import chatroom
    from lostcities.web.app import create_app
    from tests.web.web_helpers import friend_game

    monkeypatch.setattr(chatroom, "CHAT_KEPT", 5)
    monkeypatch.setattr(chatroom, "CHAT_SHOWN", 3)
    url = f"sqlite:///{tmp_path / 'chat.db'}"
    with TestClient(create_app(app_settings(url))) as client:
        gid, *tokens = friend_game(client)
        with client.websocket_connect(f"/ws/games/{gid}") as a:
            _hello(a, tokens[0])
            phrases = ["hello", "wow", "oops", "sorry", "thanks"]
            for p in phrases:
                a.send_text(json.dumps({"type": "chat", "phrase": p}))
                _receive_until(a, lambda m: m.get("type") == "chat")
            a.send_text(json.dumps({"type": "chat", "phrase": "good_game"}))
            err = _receive_until(a, lambda m: m.get("type") == "error")
            assert err["code"] == "chat_full" and "full" in err["message"]
        with client.websocket_connect(f"/ws/games/{gid}") as b:
            got = _hello(b, tokens[1])
            assert [m["phrase"] for m in got[1]["messages"]] == phrases[-3:]
