"""The achievements variant in the web app: chosen at creation, the goals and claims in the
state JSON, kept by the store and the record, and frame by frame in the replay."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.web.web_helpers import friend_game, state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _play_out(client: Any, gid: str, tokens: list[str]) -> list[dict[str, Any]]:
    """Play the first legal move until the match ends; every state seen."""
    states = [state(client, gid, tokens[0])]
    while not states[-1]["match"]["over"]:
        seat = states[-1]["view"]["to_move"]
        st = state(client, gid, tokens[seat])
        r = client.post(
            f"/api/games/{gid}/moves",
            json={
                "token": tokens[seat],
                "move": st["view"]["legal"][0],
                "round": st["round"],
                "ply": st["view"]["ply"],
            },
        )
        assert r.status_code == 200, r.text
        states.append(r.json())
    return states


def test_a_goal_game_carries_its_goals_and_claims(client: Any) -> None:
    gid, *tokens = friend_game(client, achievements=True)
    st = state(client, gid, tokens[0])
    goals = st["view"]["goals"]
    assert st["match"]["achievements"] is True and len(goals) == 5
    assert {g["kind"] for g in goals} <= {"race", "end"}
    assert all(g["claimed_by"] is None and g["name"] and g["text"] for g in goals)
    states = _play_out(client, gid, tokens)
    last = states[-1]
    summary = last["match"]["rounds"][0]
    assert [g["id"] for g in summary["goals"]] == [g["id"] for g in goals]
    held = [sum(g["claimed_by"] == p for g in summary["goals"]) for p in (0, 1)]
    breakdown = [sum(e["score"] for e in summary["breakdown"][p]) for p in (0, 1)]
    assert summary["scores"] == [breakdown[p] + 10 * held[p] for p in (0, 1)]
    assert last["match"]["totals"] == summary["scores"]
    # the record replays with its goals; the store rebuilds the same game
    record = client.get(f"/api/games/{gid}/record").text
    assert '[Achievements "default"]' in record and "[Goals1 " in record
    client.app.state.manager.games.clear()
    again = state(client, gid, tokens[0])
    assert again["match"]["rounds"][0]["goals"] == summary["goals"]
    assert again["match"]["totals"] == last["match"]["totals"]
    # a rematch plays with goal cards too
    r = client.post(f"/api/games/{gid}/rematch", json={"token": tokens[0]})
    assert r.status_code in (200, 201), r.text
    new = r.json()
    st2 = state(client, new["id"], new["token"])
    assert st2["match"]["achievements"] is True and len(st2["view"]["goals"]) == 5


def test_claims_appear_in_the_view_as_they_happen(client: Any) -> None:
    gid, *tokens = friend_game(client, achievements=True)
    states = _play_out(client, gid, tokens)
    during = [s for s in states if not s["view"]["over"]]
    claims = [[g["claimed_by"] for g in s["view"]["goals"]] for s in during]
    # a race claim, once made, never goes away while the round goes on
    for a, b in itertools.pairwise(claims):
        for x, y in zip(a, b, strict=True):
            assert x is None or x == y
    for s in during:
        v = s["view"]
        assert v["goal_points"] == [
            10 * sum(g["claimed_by"] == p for g in v["goals"]) for p in (0, 1)
        ]
        assert v["scores"] == [sum(v["expedition_scores"][p]) + v["goal_points"][p] for p in (0, 1)]


def test_a_classic_game_has_no_goals(client: Any) -> None:
    gid, *tokens = friend_game(client)
    st = state(client, gid, tokens[0])
    assert st["view"]["goals"] == [] and st["match"]["achievements"] is False
    assert "Goals" not in client.get(f"/api/games/{gid}/record").text


def test_a_computer_goal_game_and_bad_input(client: Any) -> None:
    r = client.post(
        "/api/games",
        json={"opponent": "computer", "level": "easy", "rounds": 1, "achievements": True},
    )
    assert r.status_code == 201, r.text
    g = r.json()
    st = state(client, g["id"], g["token"])
    assert len(st["view"]["goals"]) == 5
    bad = client.post("/api/games", json={"opponent": "friend", "achievements": "lots"})
    assert bad.status_code == 422


def test_the_replay_shows_the_goals_and_their_claims(client: Any) -> None:
    # each frame as the tables saw it: the goal cards, who holds each, scores with goal points
    gid, *tokens = friend_game(client, achievements=True)
    states = _play_out(client, gid, tokens)
    summary = states[-1]["match"]["rounds"][0]
    replay = client.get(f"/api/games/{gid}/replay").json()
    frames = replay["rounds"][0]["frames"]
    assert len(frames) == len(states)  # the deal and one frame per move
    ids = [g["id"] for g in summary["goals"]]
    for f, s in zip(frames[:-1], states[:-1], strict=True):  # as each table saw it
        assert [g["id"] for g in f["goals"]] == ids
        assert [g["claimed_by"] for g in f["goals"]] == [
            g["claimed_by"] for g in s["view"]["goals"]
        ]
        assert f["scores"] == s["view"]["scores"]
    assert [g["claimed_by"] for g in frames[-1]["goals"]] == [
        g["claimed_by"] for g in summary["goals"]
    ]
    assert frames[-1]["scores"] == summary["scores"]
    assert any(g["claimed_by"] is not None for g in frames[-1]["goals"])
    # a classic game's frames have none
    gid, *tokens = friend_game(client)
    _play_out(client, gid, tokens)
    frames = client.get(f"/api/games/{gid}/replay").json()["rounds"][0]["frames"]
    assert all(f["goals"] == [] for f in frames)
