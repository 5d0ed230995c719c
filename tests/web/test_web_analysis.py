"""Hints and the analysis of finished games over the HTTP API (a real app, SQLite)."""

from __future__ import annotations

import io
import time
from typing import Any

import pytest

from lostcities.record import read_records

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def state(client: Any, gid: str, token: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}/state", headers={"X-Seat-Token": token})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def my_turn(client: Any, gid: str, token: str) -> dict[str, Any]:
    """The state once it is seat 0's turn or the match is over (the bot moves meanwhile)."""
    deadline = time.monotonic() + 30
    while True:
        s = state(client, gid, token)
        if s["match"]["over"] or s["view"]["to_move"] == 0:
            return s
        assert time.monotonic() < deadline, "the bot never moved"
        time.sleep(0.02)


def test_hints_mark_the_game_assisted_and_the_analysis_is_computed_once(client: Any) -> None:
    g = client.post(
        "/api/games", json={"opponent": "computer", "level": "easy", "rounds": 1}
    ).json()
    gid, tok = g["id"], g["token"]
    s = my_turn(client, gid, tok)
    assert client.post(f"/api/games/{gid}/hint", json={"token": "nope"}).status_code == 403
    h = client.post(f"/api/games/{gid}/hint", json={"token": tok})
    assert h.status_code == 200, h.text
    hint = h.json()
    assert hint["best"] in s["view"]["legal"] and hint["best"] == hint["moves"][0]["move"]
    assert (
        hint["player"] == 0
        and hint["ply"] == s["view"]["ply"]
        and 0 <= hint["moves"][0]["win"] <= 1
    )
    summary = client.get(f"/api/games/{gid}").json()
    assert summary["assisted"] is True and summary["hints"] == 1
    assert client.get(f"/api/games/{gid}/analysis").status_code == 409  # not over yet
    while not s["match"]["over"]:
        v = s["view"]
        move = next(m for m in v["legal"] if m.endswith("."))  # draw pile: the round ends
        r = client.post(
            f"/api/games/{gid}/moves",
            json={"token": tok, "move": move, "round": s["round"], "ply": v["ply"]},
        )
        assert r.status_code == 200, r.text
        s = my_turn(client, gid, tok)
    # not your turn any more: the match is over
    assert client.post(f"/api/games/{gid}/hint", json={"token": tok}).status_code == 409
    rec = next(read_records(io.StringIO(client.get(f"/api/games/{gid}/record").text)))
    assert rec.tags["Assisted"] == "1 hint"  # as the terminal writes it
    plies = len(rec.rounds[0].moves)
    first = client.get(f"/api/games/{gid}/analysis").json()
    assert first["status"] in ("running", "done")
    deadline = time.monotonic() + 120
    a = first
    while a["status"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.2)
        a = client.get(f"/api/games/{gid}/analysis").json()
    assert len(a["moves"]) == plies and a["players"][0] == rec.players[0]
    assert [m["move"] for m in a["moves"]] == [str(m) for m in rec.rounds[0].moves]
    assert {s["player"] for s in a["summary"]} == {0, 1}
    rand = [m for m in a["moves"] if m["player"] == 1]
    assert sum(1 for m in rand if m["mark"]) > 0  # the random bot blunders
    # stored: the same answer at once, and no computation is running
    again = client.get(f"/api/games/{gid}/analysis").json()
    assert again == a and not client.app.state.manager.analyst.analyses
    page = client.get(f"/analysis/{gid}")
    assert page.status_code == 200 and "analysis.js" in page.text


def test_a_hint_searches_the_match_view(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint's search gets the player's view with the match's context (the round, the
    totals), as the computer's moves do, not the round alone."""
    from lostcities.web import hints as analysis

    seen: list[Any] = []
    real = analysis.bot_hint

    def spy(spec: str, seed: int, view: Any, worlds: int) -> Any:
        seen.append(view)
        return real(spec, seed, view, worlds)

    monkeypatch.setattr(analysis, "bot_hint", spy)
    g = client.post(
        "/api/games", json={"opponent": "computer", "level": "easy", "rounds": 3}
    ).json()
    my_turn(client, g["id"], g["token"])
    h = client.post(f"/api/games/{g['id']}/hint", json={"token": g["token"]})
    assert h.status_code == 200, h.text
    (view,) = seen
    assert view.match is not None and view.match.rounds == 3 and view.match.round == 1
    assert view.player == 0 and view.match.totals == (0, 0)


def test_no_hints_between_people(client: Any) -> None:
    r = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    invite = r["invite_url"].split("#", 1)[1]
    client.post(f"/api/games/{r['id']}/join", json={"invite": invite, "name": "Bea"})
    h = client.post(f"/api/games/{r['id']}/hint", json={"token": r["token"]})
    assert h.status_code == 403 and h.json()["error"] == "hint_not_allowed"
    assert client.get(f"/api/games/{r['id']}").json()["assisted"] is False
