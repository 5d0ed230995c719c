"""In-process tests (TestClient) of the rough edges a new player met (issue 26): a friend
game takes no move before the friend joins, and the server's answers say what they know."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_no_move_before_the_friend_joins_and_the_status_agrees(client: Any) -> None:
    r = client.post("/api/games", json={"opponent": "friend", "rounds": 1, "name": "Ana"})
    assert r.status_code == 201, r.text
    g = r.json()
    s = client.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": g["token"]}).json()
    assert s["game"]["status"] == "waiting" and not s["game"]["your_turn"]
    v = s["view"]
    move = v["legal"][0] if v["legal"] else f"-{v['hand'][0]}."
    r = client.post(
        f"/api/games/{g['id']}/moves",
        json={"token": g["token"], "move": move, "round": 0, "ply": 0},
    )
    assert r.status_code == 409, r.text
    assert r.json()["error"] == "waiting_for_friend"
    assert "waiting for your friend" in r.json()["message"]
    invite = g["invite_url"].split("#", 1)[1]
    j = client.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": "Bea"})
    assert j.status_code == 200, j.text
    tokens = (g["token"], j.json()["token"])
    s = client.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": g["token"]}).json()
    assert s["game"]["status"] == "active"
    tok = tokens[s["view"]["to_move"]]
    legal = client.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tok}).json()["view"][
        "legal"
    ]
    r = client.post(
        f"/api/games/{g['id']}/moves", json={"token": tok, "move": legal[0], "round": 0, "ply": 0}
    )
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("lang", "label"),
    [
        ("en", "score this round:"),
        ("de", "Punkte dieser Runde:"),
        ("es", "puntos de esta ronda:"),
        ("fr", "points de la manche :"),
        ("ko", "이번 라운드 점수:"),
    ],
)
def test_the_score_beside_a_name_is_named_the_round_score(
    client: Any, lang: str, label: str
) -> None:
    """ "round -38" beside a name read as a round number: the label names it as the round's score."""
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    html = client.get(f"/game/{g['id']}", headers={"Accept-Language": lang}).text
    for total in ("opp-total", "my-total"):
        assert f'{label} <span class="total" id="{total}">' in html


def test_every_page_and_static_file_answers_head_as_it_answers_get(client: Any) -> None:
    """HEAD answered 405 on ``/``: uptime checks, link previews and caches use it."""
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    paths = [
        "/",
        "/rules",
        "/calculator",
        f"/game/{g['id']}",
        f"/join/{g['id']}",
        "/static/css/app.css",
        "/static/js/game.js",
        "/i18n/fr.js",
    ]
    for path in paths:
        get, head = client.get(path), client.head(path)
        assert get.status_code == 200, path
        assert head.status_code == 200, (path, head.status_code)
        assert head.content == b"", path
        assert head.headers["content-type"] == get.headers["content-type"], path
        assert head.headers.get("content-length") == get.headers.get("content-length"), path
        assert "content-security-policy" in {k.lower() for k in head.headers}, path
    assert client.head("/no/such/page").status_code == 404


def test_the_computer_plays_for_the_match(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bots were handed ``round.view(seat)``, blind to the match (totals, rounds left);
    they get the match's view (``PlayerView.match`` set)."""
    from lostcities.web.workers import BotRunner

    seen: list[Any] = []
    choose = BotRunner.choose

    async def spy(self: Any, spec: str, seed: int, view: Any, *args: Any, **kw: Any) -> Any:
        seen.append(view)
        return await choose(self, spec, seed, view, *args, **kw)

    monkeypatch.setattr(BotRunner, "choose", spy)
    g = client.post(
        "/api/games", json={"opponent": "computer", "level": "easy", "rounds": 3}
    ).json()
    with client.websocket_connect(f"/ws/games/{g['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
        while not seen:
            m = json.loads(ws.receive_text())
            if m["type"] == "state" and m["view"]["to_move"] == 0 and m["view"]["legal"]:
                v = m["view"]
                ws.send_text(
                    json.dumps(
                        {
                            "type": "move",
                            "move": v["legal"][0],
                            "round": m["round"],
                            "ply": v["ply"],
                        }
                    )
                )
    ctx = seen[0].match
    assert ctx is not None and ctx.rounds == 3 and ctx.round == 1 and ctx.totals == (0, 0)


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("Ana\x00", "control character '\\x00'"),
        ("Ana\u202eexe.txt", "bidirectional control U+202E"),
        ("\u2066Bea", "bidirectional control U+2066"),
    ],
)
def test_one_rule_for_every_typed_name_and_text(client: Any, typed: str, why: str) -> None:
    """Player names took NUL and U+202E, which comments refused: the same rule everywhere."""
    r = client.post("/api/games", json={"opponent": "friend", "rounds": 1, "name": typed})
    assert (
        r.status_code == 422 and why in r.json()["message"] and "\n" not in r.json()["message"]
    ), r.text
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1, "name": "Ana"}).json()
    invite = g["invite_url"].split("#", 1)[1]
    r = client.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": typed})
    assert r.status_code == 422 and why in r.json()["message"], r.text
    for body in (
        {"nickname": typed, "kind": "comment", "text": "hello"},
        {"nickname": "Zoë", "kind": "comment", "text": typed},
    ):
        r = client.post("/api/comments", json=body)
        assert r.status_code == 422 and why in r.json()["message"], r.text
    # letters of every script stay welcome
    assert (
        client.post(
            "/api/games", json={"opponent": "friend", "rounds": 1, "name": "Zoë 김 عمر"}
        ).status_code
        == 201
    )


def test_websocket_errors_name_every_type_and_one_reason(client: Any) -> None:
    """The unknown-type error left out ``chat``; a 41-character move id was told
    "move.id.int: Input should be a valid integer" (pydantic's first union member)."""
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    with client.websocket_connect(f"/ws/games/{g['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
        assert json.loads(ws.receive_text())["type"] == "state"
        ws.send_text(json.dumps({"type": "dance"}))
        m = json.loads(ws.receive_text())
        while m["type"] != "error":
            m = json.loads(ws.receive_text())
        assert (
            m["message"]
            == "unknown message type (expected abort, chat, claim, hello, move, ping, resign or sync)"
        )
        ws.send_text(
            json.dumps({"type": "move", "move": "+y2.", "round": 0, "ply": 0, "id": "x" * 41})
        )
        m = json.loads(ws.receive_text())
        while m["type"] != "error":
            m = json.loads(ws.receive_text())
        assert (
            m["message"]
            == "move.id: a move id is a number or a text of at most 40 characters (got 41)"
        ), m
