"""Fuzzing the web app's inputs (issue 14): HTTP JSON bodies (and bodies that are not JSON),
path parameters and WebSocket messages. Property: never a 500, every error is the documented
``{"error", "message"}`` object (on the socket ``{"type": "error", "code", "message"}``) with
a one-line message, and nothing changes unless the input was a legal move of the seat to move.

``FUZZ_EXAMPLES`` per target (500, each a request or message with its checks; ``LOSTCITIES_FUZZ_EXAMPLES`` overrides it;
``LOSTCITIES_FUZZ_SECONDS`` runs each target for a wall time instead: tests/fuzzbudget.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lostcities import Move
from tests import fuzzbudget

FUZZ_EXAMPLES = int(os.environ.get("LOSTCITIES_FUZZ_EXAMPLES", "500"))
fuzz = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)

KEYS = [
    "opponent",
    "level",
    "variant",
    "rounds",
    "name",
    "tie_break",
    "younger",
    "invite",
    "token",
    "move",
    "round",
    "ply",
    "games",
    "id",
    "expeditions",
    "totals",
    "achievements",
    "type",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.sampled_from(
        [
            "computer",
            "friend",
            "easy",
            "expert",
            "classic",
            "long",
            "+y3.",
            "-r10b",
            "y:2,3",
            "x" * 300,
        ]
    ),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=5),
    ),
    max_leaves=12,
)
bodies = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6).map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=60),
    st.sampled_from(["", "{", "[]", "null", '{"opponent": "friend"', "\x00", "{}" * 10]),
)


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.deps import Settings
    from lostcities.web.levels import LEVELS, Level
    from lostcities.web.limits import Limits

    settings_ = Settings(
        db_url=f"sqlite:///{tmp_path / 'fuzz.db'}",
        bot_executor="thread",
        bot_min_delay=0.0,
        levels={**LEVELS, "easy": Level("random", "Easy")},
        prepare_search=False,
        limits=Limits.off(),  # one client sends thousands of requests (limits: test_web_limits)
    )
    with TestClient(create_app(settings_)) as c:
        yield c


def error_object(r: Any) -> None:
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code >= 400:
        body = r.json()
        assert set(body) >= {"error", "message"}, body
        assert isinstance(body["message"], str) and "\n" not in body["message"]
        assert "Traceback" not in r.text


def friend_game(c: Any) -> tuple[str, str, str]:
    g = c.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    invite = g["invite_url"].split("#", 1)[1]
    j = c.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": "Bea"}).json()
    return g["id"], g["token"], j["token"]


def state(c: Any, gid: str, token: str) -> dict[str, Any]:
    s: dict[str, Any] = c.get(f"/api/games/{gid}/state", headers={"X-Seat-Token": token}).json()
    return s


def test_http_bodies_and_paths(app_client: Any) -> None:
    c = app_client
    gid, t0, _t1 = friend_game(c)
    games_before = c.post("/api/games/lookup", json={"games": [{"id": gid}]}).json()

    @fuzz
    @given(
        st.sampled_from(
            ["/api/games", "/api/games/lookup", "/api/score", "join", "moves", "resign", "rematch"]
        ),
        bodies,
        st.sampled_from(["application/json", "text/plain", ""]),
        st.one_of(st.just(gid), st.text(max_size=20)),
    )
    def prop(where: str, body: str, ctype: str, game: str) -> None:
        before = state(c, gid, t0)
        path = where if where.startswith("/") else f"/api/games/{quote(game, safe='')}/{where}"
        headers = {"Content-Type": ctype} if ctype else {}
        r = c.post(path, content=body.encode(), headers=headers)
        error_object(r)
        after = state(c, gid, t0)
        if r.status_code >= 400 or where in ("/api/games", "/api/games/lookup", "/api/score"):
            assert after == before  # refused (or another game): this game is unchanged
        r = c.get(f"/api/games/{quote(game, safe='')}")
        error_object(r)

    fuzzbudget.run(prop, "test_http_bodies_and_paths")
    assert c.post("/api/games/lookup", json={"games": [{"id": gid}]}).json() == games_before


def test_http_moves_with_a_real_token(app_client: Any) -> None:
    c = app_client
    gid, t0, t1 = friend_game(c)
    tokens = [t0, t1]

    @fuzz
    @given(
        st.integers(0, 1),
        st.one_of(st.text(alphabet="ybwgrx0123456789+-.", max_size=6), st.text(max_size=12)),
        st.one_of(st.just(None), st.integers(-3, 200)),
        st.one_of(st.just(None), st.integers(-3, 3)),
    )
    def prop(seat: int, move: str, ply: int | None, rnd: int | None) -> None:
        before = state(c, gid, tokens[seat])
        if before["match"]["over"]:
            return
        v = before["view"]
        body = {
            "token": tokens[seat],
            "move": move,
            "round": before["round"] if rnd is None else rnd,
            "ply": v["ply"] if ply is None else ply,
        }
        r = c.post(f"/api/games/{gid}/moves", json=body)
        error_object(r)
        after = state(c, gid, tokens[seat])
        if r.status_code == 200:  # only the seat to move, at the current ply, a legal move
            assert v["to_move"] == seat and body["ply"] == v["ply"]
            assert body["round"] == before["round"]
            assert Move.parse(move) in [Move.parse(x) for x in v["legal"]]
            assert after["view"]["ply"] == v["ply"] + 1
        else:
            assert after == before

    fuzzbudget.run(prop, "test_http_moves_with_a_real_token")


ws_types = st.sampled_from(["hello", "move", "sync", "resign", "nope", "", None, 3, "PING"])


@st.composite
def ws_messages(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(bodies)
    msg: dict[str, Any] = {"type": draw(ws_types)}
    for key in draw(
        st.lists(st.sampled_from(["move", "round", "ply", "id", "token", "extra"]), max_size=4)
    ):
        msg[key] = draw(json_values)
    if kind == 1 and msg["type"] == "resign":
        msg["type"] = "sync"  # (a resignation would end the fuzzed game: tested elsewhere)
    if kind >= 2:
        msg.update(
            {
                "type": "move",
                "move": draw(st.text(alphabet="ybwgrx0123456789+-.", max_size=6)),
                "round": draw(st.integers(-1, 1)),
                "ply": draw(st.integers(-1, 3)),
            }
        )
    return json.dumps(msg)


def test_websocket_messages(app_client: Any) -> None:
    c = app_client
    gid, t0, _t1 = friend_game(c)
    with c.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": t0}))
        first = ws.receive_json()
        assert first["type"] == "state"
        current = [first]

        @fuzz
        @given(ws_messages())
        def prop(text: str) -> None:
            try:
                is_ping = json.loads(text).get("type") == "ping"
            except (ValueError, AttributeError):
                is_ping = False
            assume(not is_ping)  # a ping's pong is the end marker below
            before = current[0]
            ws.send_text(text)
            ws.send_text('{"type": "ping"}')
            seen = []
            while True:
                m = ws.receive_json()
                if m["type"] == "pong":
                    break
                seen.append(m)
            for m in seen:
                assert m["type"] in ("error", "state", "presence"), m
                if m["type"] == "error":
                    assert isinstance(m["code"], str) and isinstance(m["message"], str)
                    assert "\n" not in m["message"]
                if m["type"] == "state":
                    current[0] = m
            after = current[0]
            if after["view"]["ply"] != before["view"]["ply"] or after["round"] != before["round"]:
                msg = json.loads(text)  # only a legal move of this seat changes the game
                assert msg["type"] == "move" and before["view"]["to_move"] == 0
                assert Move.parse(msg["move"]) in [Move.parse(x) for x in before["view"]["legal"]]

        fuzzbudget.run(prop, "test_websocket_messages")
        ws.send_text('{"type": "ping"}')
        last = ws.receive_json()
        assert last["type"] == "pong", last  # still open
