"""The replay of an achievements game carries its goal cards frame by frame (who holds each
as the round goes on) and scores each frame with the goal points, as the table did."""

from __future__ import annotations

from typing import Any

import pytest
from test_web_achievements import _play_out
from test_web_api import friend_game

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_the_replay_shows_the_goals_and_their_claims(client: Any) -> None:
    gid, *tokens = friend_game(client, achievements=True)
    states = _play_out(client, gid, tokens)
    summary = states[-1]["match"]["rounds"][0]
    replay = client.get(f"/api/games/{gid}/replay").json()
    frames = replay["rounds"][0]["frames"]
    assert len(frames) == len(states)  # the deal and one frame per move
    ids = [g["id"] for g in summary["goals"]]
    for f, s in zip(frames[:-1], states[:-1], strict=True):  # as each table saw it
        assert [g["id"] for g in f["goals"]] == ids
        assert [g["claimed_by"] for g in f["goals"]] == [g["claimed_by"] for g in s["view"]["goals"]]
        assert f["scores"] == s["view"]["scores"]
    assert [g["claimed_by"] for g in frames[-1]["goals"]] == [g["claimed_by"] for g in summary["goals"]]
    assert frames[-1]["scores"] == summary["scores"]
    assert any(g["claimed_by"] is not None for g in frames[-1]["goals"])
    # a classic game's frames have none
    gid, *tokens = friend_game(client)
    _play_out(client, gid, tokens)
    frames = client.get(f"/api/games/{gid}/replay").json()["rounds"][0]["frames"]
    assert all(f["goals"] == [] for f in frames)
