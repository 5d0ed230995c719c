"""The table's game log keeps the whole match (issue 26, web 13): each state carries the
moves of every finished round with its summary, and a reload or a server restart gives
them again."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import app_settings

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
