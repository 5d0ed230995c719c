"""Per-client abuse limits (issue 14): creating games, joining, moves (HTTP and WebSocket),
WebSocket messages and open sockets. Over a limit: 429 with ``Retry-After`` and the
``rate_limited`` error object, or on a socket the ``rate_limited`` error (moves) or that error
and close code 4429 (sockets, message floods). Another client is not affected."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from lostcities.web.limits import CLOSE_RATE_LIMITED, Limits

TIGHT = Limits(create=(3, 600.0), join=(2, 600.0), moves=(3, 600.0), messages=(8, 600.0), sockets=2)


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.deps import Settings

    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'limits.db'}",
        bot_executor="thread",
        bot_min_delay=0.0,
        prepare_search=False,
        limits=TIGHT,
    )
    app = create_app(settings)
    clients: list[Any] = []

    def make(host: str) -> Any:
        c = TestClient(app, client=(host, 5000))
        c.__enter__()
        clients.append(c)
        return c

    yield make
    for c in reversed(clients):
        c.__exit__(None, None, None)


def limited(r: Any) -> None:
    assert r.status_code == 429, r.text
    assert r.json()["error"] == "rate_limited" and "too many" in r.json()["message"]
    assert int(r.headers["Retry-After"]) >= 1


def test_creating_games_and_joining(make_client: Any) -> None:
    a = make_client("198.51.100.1")
    b = make_client("198.51.100.2")
    made = [a.post("/api/games", json={"opponent": "friend", "rounds": 1}) for _ in range(3)]
    assert all(r.status_code == 201 for r in made)
    limited(a.post("/api/games", json={"opponent": "friend", "rounds": 1}))
    assert b.post("/api/games", json={"opponent": "friend", "rounds": 1}).status_code == 201
    gid = made[0].json()["id"]
    assert b.post(f"/api/games/{gid}/join", json={"invite": "wrong"}).status_code == 403
    assert b.post(f"/api/games/{gid}/join", json={"invite": "wrong"}).status_code == 403
    # guessing invites is limited too: the right code is refused now, and nothing changed
    invite = made[0].json()["invite_url"].split("#", 1)[1]
    limited(b.post(f"/api/games/{gid}/join", json={"invite": invite}))
    assert a.get(f"/api/games/{gid}").json()["status"] == "waiting"
    c = make_client("198.51.100.3")
    assert c.post(f"/api/games/{gid}/join", json={"invite": invite}).status_code == 200


def test_moves_over_http_and_websocket(make_client: Any) -> None:
    a = make_client("198.51.100.10")
    g = a.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    invite = g["invite_url"].split("#", 1)[1]
    b = make_client("198.51.100.11")
    t1 = b.post(f"/api/games/{g['id']}/join", json={"invite": invite}).json()["token"]
    tokens = {0: g["token"], 1: t1}
    clients = {0: a, 1: b}

    def move(seat: int) -> Any:
        s = (
            clients[seat]
            .get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tokens[seat]})
            .json()
        )
        v = s["view"]
        return clients[seat].post(
            f"/api/games/{g['id']}/moves",
            json={
                "token": tokens[seat],
                "move": (v["legal"] or ["+y2."])[0],
                "round": s["round"],
                "ply": v["ply"],
            },
        )

    for _ in range(6):  # 3 moves each
        to_move = a.get(f"/api/games/{g['id']}/state").json()["view"]["to_move"]
        assert move(to_move).status_code == 200
    before = a.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tokens[0]}).json()
    limited(move(0))  # seat 0's client has used its 3 moves
    after = a.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tokens[0]}).json()
    assert after == before  # nothing changed
    # over the socket: the rate_limited error, the socket stays open
    with a.websocket_connect(f"/ws/games/{g['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": tokens[0]}))
        st = ws.receive_json()
        while st["type"] != "state":
            st = ws.receive_json()
        v = st["view"]
        ws.send_text(
            json.dumps(
                {
                    "type": "move",
                    "move": (v["legal"] or ["+y2."])[0],
                    "round": st["round"],
                    "ply": v["ply"],
                    "id": 7,
                }
            )
        )
        m = ws.receive_json()
        while m["type"] == "presence":
            m = ws.receive_json()
        assert m["type"] == "error" and m["code"] == "rate_limited" and m["id"] == 7
        ws.send_text('{"type": "ping"}')
        assert ws.receive_json()["type"] == "pong"


def test_open_sockets_and_message_floods(make_client: Any) -> None:
    a = make_client("198.51.100.20")
    b = make_client("198.51.100.21")
    gid = a.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()["id"]
    with (
        a.websocket_connect(f"/ws/games/{gid}") as s1,
        a.websocket_connect(f"/ws/games/{gid}") as s2,
    ):
        assert s1 and s2
        with a.websocket_connect(f"/ws/games/{gid}") as s3:
            m = s3.receive_json()
            assert m["code"] == "rate_limited" and "at most 2" in m["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                s3.receive_json()
            assert closed.value.code == CLOSE_RATE_LIMITED
        # another client still connects
        with b.websocket_connect(f"/ws/games/{gid}") as other:
            other.send_text('{"type": "hello", "token": null}')
            assert other.receive_json()["type"] == "state"
    # the sockets closed: a may connect again; then a flood of messages closes it
    with a.websocket_connect(f"/ws/games/{gid}") as ws:
        got: list[dict[str, Any]] = []
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.send_text('{"type": "hello", "token": null}')
            for _ in range(19):
                ws.send_text('{"type": "ping"}')
            while True:
                got.append(ws.receive_json())
        assert closed.value.code == CLOSE_RATE_LIMITED
        assert [m["type"] for m in got].count("pong") == TIGHT.messages[0] - 1  # type: ignore[index]
        assert got[-1]["code"] == "rate_limited"


def test_limits_from_the_environment() -> None:
    assert Limits.parse("create=5/60,join=off,sockets=4") == Limits(
        create=(5, 60.0), join=None, moves=Limits().moves, messages=Limits().messages, sockets=4
    )
    assert Limits.parse("off") == Limits.off()
    for bad in ["create=0/60", "sockets=0", "nope=1/1", "moves=3"]:
        with pytest.raises(ValueError, match="invalid LOSTCITIES_LIMITS"):
            Limits.parse(bad)
