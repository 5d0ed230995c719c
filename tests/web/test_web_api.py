"""In-process API tests (TestClient): creating, joining, moving, bad input, calculator."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from lostcities import parse_score_sheet
from lostcities.presentation import format_score_table
from tests.web.web_helpers import friend_game, state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_pages_render(client: Any) -> None:
    gid = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()["id"]
    for path in ("/", "/calculator", "/rules", f"/game/{gid}", f"/replay/{gid}", f"/join/{gid}"):
        r = client.get(path)
        assert r.status_code == 200, path
        assert "<main>" in r.text
    assert client.get("/static/js/game.js").status_code == 200
    assert client.get("/static/css/app.css").status_code == 200


def test_levels(client: Any) -> None:
    levels = {x["level"]: x for x in client.get("/api/levels").json()}
    assert set(levels) == {"easy", "medium", "hard", "expert"}
    assert levels["easy"]["available"] and levels["easy"]["bot"] == "random"


def test_invite_claims_the_seat_once(client: Any) -> None:
    r = client.post("/api/games", json={"opponent": "friend", "rounds": 3, "variant": "long"})
    g = r.json()
    assert g["invite_url"].startswith("http") and "#" in g["invite_url"]
    invite = g["invite_url"].split("#", 1)[1]
    summary = client.get(f"/api/games/{g['id']}").json()
    assert summary["status"] == "waiting" and not summary["players"][1]["joined"]
    assert summary["colors"] == ["y", "b", "w", "g", "r", "p"]
    bad = client.post(f"/api/games/{g['id']}/join", json={"invite": "nope"})
    assert bad.status_code == 403 and bad.json()["error"] == "invalid_token"
    ok = client.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": "Bea"})
    assert ok.status_code == 200 and ok.json()["seat"] == 1
    again = client.post(f"/api/games/{g['id']}/join", json={"invite": invite})
    assert again.status_code == 409 and "taken" in again.json()["message"]
    summary = client.get(f"/api/games/{g['id']}").json()
    assert summary["status"] == "active" and summary["players"][1]["name"] == "Bea"


def test_seats_are_bound_to_tokens(client: Any) -> None:
    gid, t0, t1 = friend_game(client)
    s0, s1 = state(client, gid, t0), state(client, gid, t1)
    assert s0["seat"] == 0 and s1["seat"] == 1
    assert s0["view"]["hand"] != s1["view"]["hand"]
    spectator = state(client, gid, None)
    assert spectator["seat"] is None and spectator["view"]["hand"] is None
    assert spectator["view"]["legal"] == []
    r = client.get(f"/api/games/{gid}/state", headers={"X-Seat-Token": "forged"})
    assert r.status_code == 403 and r.json() == {
        "error": "invalid_token",
        "message": "invalid token for this game",
    }
    # the seat not to move cannot move, whatever it sends
    mover = s0["view"]["to_move"]
    tokens = (t0, t1)
    other = tokens[1 - mover]
    theirs = state(client, gid, other)
    move = "+" + theirs["view"]["hand"][0] + "."
    r = client.post(
        f"/api/games/{gid}/moves", json={"token": other, "move": move, "round": 0, "ply": 0}
    )
    assert r.status_code == 409 and r.json()["error"] == "not_your_turn"
    assert state(client, gid, t0)["view"]["ply"] == 0


def test_moves_illegal_stale_and_duplicate(client: Any) -> None:
    gid, t0, t1 = friend_game(client)
    s = state(client, gid, t0)
    mover = s["view"]["to_move"]
    tok = (t0, t1)[mover]
    v = state(client, gid, tok)["view"]
    # an illegal move: the core's message, nothing changes
    discard_then_take_back = next(f"-{c}{c[0]}" for c in v["hand"])
    r = client.post(
        f"/api/games/{gid}/moves",
        json={"token": tok, "move": discard_then_take_back, "round": 0, "ply": 0},
    )
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "illegal_move" and body["message"].startswith("illegal move: ")
    r = client.post(
        f"/api/games/{gid}/moves", json={"token": tok, "move": "*garbage", "round": 0, "ply": 0}
    )
    assert r.status_code == 422 and "invalid move" in r.json()["message"]
    assert state(client, gid, tok)["view"]["ply"] == 0
    # a legal move, sent twice (double click): applied once
    move = v["legal"][0]
    r1 = client.post(
        f"/api/games/{gid}/moves", json={"token": tok, "move": move, "round": 0, "ply": 0}
    )
    assert r1.status_code == 200 and r1.json()["view"]["ply"] == 1
    r2 = client.post(
        f"/api/games/{gid}/moves", json={"token": tok, "move": move, "round": 0, "ply": 0}
    )
    assert r2.status_code == 409 and r2.json()["error"] in ("stale", "not_your_turn")
    s = state(client, gid, None)
    assert s["view"]["history"] == [move]


def test_malformed_requests(client: Any) -> None:
    r = client.post(
        "/api/games", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["error"] == "invalid_request"
    r = client.post("/api/games", json={"opponent": "computer", "level": "godlike"})
    assert r.status_code == 422 and "level" in r.json()["message"]
    r = client.post("/api/games", json={"opponent": "friend", "extra": 1})
    assert r.status_code == 422
    r = client.post(
        "/api/games", content=b"x" * 70000, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    r = client.get("/api/games/doesnotexist")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    r = client.get("/api/games/" + "x" * 200)
    assert r.status_code == 404
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_replay_and_record_only_when_finished(client: Any) -> None:
    gid, _t0, t1 = friend_game(client)
    assert client.get(f"/api/games/{gid}/replay").status_code == 409
    assert client.get(f"/api/games/{gid}/record").status_code == 409
    # resign ends the match; then the replay reveals hands and the record replays
    assert client.post(f"/api/games/{gid}/resign", json={"token": "bad"}).status_code == 403
    r = client.post(f"/api/games/{gid}/resign", json={"token": t1})
    assert r.status_code == 200
    s = r.json()
    assert s["match"]["over"] and s["match"]["result"] == "1-0"
    assert s["match"]["rounds"][0]["termination"] == "forfeit"
    rep = client.get(f"/api/games/{gid}/replay").json()
    assert len(rep["rounds"][0]["frames"][0]["hands"][0]) == 8
    text = client.get(f"/api/games/{gid}/record").text
    assert '[Result "1-0"]' in text and "forfeit by player 1" in text
    import io

    from lostcities.record import read_records

    rec = next(read_records(io.StringIO(text)))
    assert rec.replay().result() == "1-0"


def test_computer_game_plays_to_the_end(client: Any) -> None:
    r = client.post("/api/games", json={"opponent": "computer", "level": "easy", "rounds": 1})
    g = r.json()
    assert r.status_code == 201 and g["invite_url"] is None
    with client.websocket_connect(f"/ws/games/{g['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
        n = 0
        while True:
            m = json.loads(ws.receive_text())
            if m["type"] != "state":
                continue
            if m["match"]["over"]:
                break
            v = m["view"]
            if v["to_move"] == 0 and v["legal"]:
                ws.send_text(
                    json.dumps(
                        {
                            "type": "move",
                            "move": v["legal"][-1],
                            "round": m["round"],
                            "ply": v["ply"],
                            "id": n,
                        }
                    )
                )
                n += 1
    assert n > 10
    summary = client.get(f"/api/games/{g['id']}").json()
    assert summary["status"] == "finished"
    rm = client.post(f"/api/games/{g['id']}/rematch", json={"token": g["token"]})
    assert rm.status_code == 200 and rm.json()["id"] != g["id"]
    again = client.post(f"/api/games/{g['id']}/rematch", json={"token": g["token"]})
    assert again.status_code == 409


def test_websocket_bad_input(client: Any) -> None:
    gid, t0, _t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text("{broken")
        m = json.loads(ws.receive_text())
        assert m["type"] == "error" and m["message"] == "malformed JSON"
        ws.send_text(json.dumps({"type": "move", "move": "+y2.", "round": 0, "ply": 0}))
        assert json.loads(ws.receive_text())["code"] == "hello_first"
        ws.send_text(json.dumps({"type": "dance"}))
        assert "unknown message type" in json.loads(ws.receive_text())["message"]
        ws.send_text(json.dumps({"type": "hello", "token": "x" * 5000}))
        m = json.loads(ws.receive_text())
        assert m["code"] == "too_large" and "at most 4096" in m["message"]
        ws.send_text(json.dumps({"type": "hello", "token": t0}))
        s = json.loads(ws.receive_text())
        assert s["type"] == "state" and s["seat"] == 0
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": "forged"}))
        m = json.loads(ws.receive_text())
        assert m == {
            "type": "error",
            "code": "invalid_token",
            "message": "invalid token for this game",
            "id": None,
        }
    with client.websocket_connect("/ws/games/nosuchgame") as ws:
        assert json.loads(ws.receive_text())["code"] == "not_found"
    assert state(client, gid, None)["view"]["ply"] == 0


def test_calculator_agrees_with_the_cli(client: Any) -> None:
    exps = {"y": "2,4,6,9,10", "r": "x,3,5,7,8,9", "b": "4,6", "g": "x,x,2,3,4,5,6,7"}
    r = client.post("/api/score", json={"expeditions": exps})
    assert r.status_code == 200
    body = r.json()
    assert body["total"] == 66
    sheet = parse_score_sheet([f"{c}:{v}" for c, v in exps.items()], "classic")
    assert body["table"] == format_score_table(dict(sheet))
    assert body["expeditions"]["g"] == sheet[next(c for c in sheet if c.letter == "g")].to_dict()
    cli = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "score", *[f"{c}:{v}" for c, v in exps.items()]],
        capture_output=True,
        text=True,
        check=True,
    )
    assert cli.stdout.rstrip("\n") == body["table"]
    # the CLI's validation messages, word for word
    bad = client.post("/api/score", json={"expeditions": {"y": "5,3"}})
    cli_bad = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "score", "y:5,3"], capture_output=True, text=True
    )
    assert bad.status_code == 400 and bad.json()["message"] in cli_bad.stderr
    purple = client.post("/api/score", json={"expeditions": {"p": "x,10"}})
    assert purple.status_code == 400 and "not in the classic variant" in purple.json()["message"]
    long = client.post("/api/score", json={"variant": "long", "expeditions": {"p": "x,10"}})
    assert long.status_code == 200 and long.json()["total"] == -20


def test_lookup_lists_remembered_games(client: Any) -> None:
    gid, t0, _ = friend_game(client)
    r = client.post(
        "/api/games/lookup",
        json={
            "games": [
                {"id": gid, "token": t0},
                {"id": "gone", "token": "x"},
                {"id": gid, "token": "forged"},
            ]
        },
    )
    out = r.json()
    assert [g["id"] for g in out] == [gid]
    assert out[0]["seat"] == 0


def test_easy_level_blunders_on_purpose() -> None:
    from lostcities import Round
    from lostcities.web.workers import bot_choose

    r = Round.deal(seed=11)
    view = r.view(r.to_move)
    moves = {bot_choose("discard", seed, view, None, mistakes=1.0) for seed in range(30)}
    assert len(moves) > 3 and all(r.is_legal(m) for m in moves)
    assert bot_choose("random", 5, view, None, 0.4) == bot_choose("random", 5, view, None, 0.4)
    assert all(bot_choose("discard", s, view, None).startswith("-") for s in range(10))


def test_level_overrides_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from lostcities.web.deps import Settings

    monkeypatch.setenv("LOSTCITIES_LEVEL_HARD", "ismcts:time=0.2")
    s = Settings.from_env("sqlite://")
    assert s.levels["hard"].spec == "ismcts:time=0.2" and s.levels["easy"].mistakes > 0
    monkeypatch.setenv("LOSTCITIES_LEVEL_HARD", "   ")
    monkeypatch.setenv("LOSTCITIES_BOT_EXECUTOR", "fork")
    with pytest.raises(ValueError, match="LOSTCITIES_BOT_EXECUTOR"):
        Settings.from_env("sqlite://")


@pytest.mark.parametrize(
    ("name", "most", "field"),
    [
        ("LOSTCITIES_ABANDON_SECONDS", 86400, "abandon_after"),
        ("LOSTCITIES_BOT_KEEPALIVE", 3600, "bot_keepalive"),
    ],
)
def test_seconds_from_the_environment_are_checked(
    monkeypatch: pytest.MonkeyPatch, name: str, most: int, field: str
) -> None:
    from lostcities.web.deps import Settings

    monkeypatch.setenv(name, str(most))
    assert getattr(Settings.from_env("sqlite://"), field) == most
    for bad in ("0", str(most + 1), "-5"):
        monkeypatch.setenv(name, bad)
        expected = f"invalid {name}: {float(bad):g} (expected 0 < seconds <= {most})"
        with pytest.raises(ValueError) as e:
            Settings.from_env("sqlite://")
        assert str(e.value) == expected
    monkeypatch.setenv(name, "soon")
    with pytest.raises(ValueError, match=f"invalid {name}: 'soon' \\(expected a number\\)"):
        Settings.from_env("sqlite://")


def test_bot_pool_recovers_from_a_dead_worker(caplog: pytest.LogCaptureFixture) -> None:
    import asyncio
    import multiprocessing
    import os
    import signal

    from lostcities import Round
    from lostcities.web.workers import BotRunner

    runner = BotRunner("process", 1)
    r = Round.deal(seed=4)
    view = r.view(r.to_move)
    before = {p.pid for p in multiprocessing.active_children()}

    async def go() -> None:
        first = await runner.choose("random", 1, view, None)
        assert r.is_legal(first)
        workers = [p.pid for p in multiprocessing.active_children() if p.pid not in before]
        assert workers  # the pool's worker processes
        for pid in workers:
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.5)
        again = await runner.choose("random", 1, view, None)
        assert again == first

    try:
        asyncio.run(go())
    finally:
        runner.close()
    assert "pool broke" in caplog.text


def test_friend_rematch_seats_both_players_once(client: Any) -> None:
    gid, t0, t1 = friend_game(client)
    assert (
        client.post(f"/api/games/{gid}/rematch", json={"token": t0}).status_code == 409
    )  # not over
    assert client.post(f"/api/games/{gid}/resign", json={"token": t0}).status_code == 200
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": t0}))
        assert json.loads(ws.receive_text())["type"] == "state"
        first = client.post(f"/api/games/{gid}/rematch", json={"token": t1})
        assert first.status_code == 200 and first.json()["seat"] == 0
        offers = [json.loads(ws.receive_text()) for _ in range(2)]
        assert {"type": "rematch", "id": first.json()["id"]} in offers
    assert client.post(f"/api/games/{gid}/rematch", json={"token": t1}).status_code == 409
    second = client.post(f"/api/games/{gid}/rematch", json={"token": t0})
    assert second.status_code == 200 and second.json() | {"token": ""} == {
        "id": first.json()["id"],
        "seat": 1,
        "token": "",
        "url": f"/game/{first.json()['id']}",
        "invite_url": None,
    }
    assert client.post(f"/api/games/{gid}/rematch", json={"token": t0}).status_code == 409
    new = client.get(f"/api/games/{first.json()['id']}").json()
    assert new["status"] == "active" and new["players"][1]["joined"]


def test_a_missing_bot_is_a_clear_error(tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.deps import Settings
    from lostcities.web.levels import LEVELS, Level

    levels = {
        **LEVELS,
        "expert": Level("nosuchbot", "Expert"),
        "easy": Level("nosuchbot", "Easy", 0.4, "random"),
    }
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'x.db'}", bot_executor="thread", levels=levels
    )
    with TestClient(create_app(settings)) as c:
        info = {x["level"]: x for x in c.get("/api/levels").json()}
        assert not info["expert"]["available"] and "unknown bot" in info["expert"]["reason"]
        assert info["easy"]["available"] and info["easy"]["bot"] == "random"
        r = c.post("/api/games", json={"opponent": "computer", "level": "expert"})
        assert r.status_code == 400
        assert r.json()["error"] == "bot_unavailable"
        assert r.json()["message"].startswith("the expert level is not available on this server")
        assert (
            c.post("/api/games", json={"opponent": "computer", "level": "easy"}).status_code == 201
        )


@pytest.mark.parametrize(
    ("db", "message"),
    [
        ("mysql://u@localhost/x", "unsupported database"),
        ("postgresql://nobody:hunter2@127.0.0.1:9/none", "cannot open database"),
    ],
)
def test_serve_with_a_bad_database_says_why(db: str, message: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "serve", "--port", "9", "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert r.stderr.startswith("lostcities serve: error: ") and message in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "hunter2" not in r.stderr


def test_a_chunked_body_over_the_limit_is_refused_early(client: Any) -> None:
    # issue 14, defect 2: only Content-Length was checked, so a chunked body of any size
    # was read whole and parsed. Now at most MAX_BODY bytes are read, whatever the framing.
    from lostcities.web.app import MAX_BODY

    def chunks() -> Iterator[bytes]:
        yield b'{"opponent": "friend", "name": "'
        for _ in range(100):
            yield b"x" * 10_000
        yield b'"}'

    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert str(MAX_BODY) in r.json()["message"]
    ok = client.post(
        "/api/games",
        content=iter([b'{"opponent": ', b'"friend"}']),
        headers={"Content-Type": "application/json"},
    )
    assert ok.status_code == 201  # a small chunked body is read as before


def test_serve_freezes_start_up_and_collects_rarely_before_it_serves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """``lostcities serve`` tunes the collector (web.app.tune_gc) before uvicorn runs: the
    soak's full collections of 350 ms every 25-40 s came from CPython's default thresholds."""
    import argparse
    import gc

    import uvicorn

    from lostcities.web import app as web_app

    seen: dict[str, Any] = {}

    def fake_run(target: Any, **kw: Any) -> None:
        seen.update(threshold=gc.get_threshold(), frozen=gc.get_freeze_count())

    monkeypatch.setattr(uvicorn, "run", fake_run)
    monkeypatch.setattr(web_app, "prepare_search", lambda say: None)
    before = gc.get_threshold()
    try:
        args = argparse.Namespace(
            db=f"sqlite:///{tmp_path / 'g.db'}", port=8765, host="127.0.0.1", workers=1
        )
        assert web_app.cli_main(args) == 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
    assert seen["threshold"] == web_app.GC_THRESHOLDS != before
    assert seen["frozen"] > 10_000  # the imports and the app, never walked again
