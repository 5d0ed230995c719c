"""The test-only deal seed (issue 25): a test server deals known games in order, and the bots
(seeded by the deal) play the same moves every run; no request can choose a deal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lostcities import Match
from tests.web.web_helpers import app_settings


def _play(tmp: Path, seed: int | None) -> list[dict[str, Any]]:
    """Two games on a fresh app: a friend game, then a game against the random bot ("easy")
    played 6 moves in by its first legal move each turn; the first states of both and the
    bot game's last."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app

    tmp.mkdir()
    out = []
    with TestClient(
        create_app(app_settings(f"sqlite:///{tmp / 'a.db'}", test_deal_seed=seed))
    ) as c:
        g = c.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
        out.append(
            c.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": g["token"]}).json()
        )
        g = c.post("/api/games", json={"opponent": "computer", "level": "easy", "rounds": 1}).json()
        with c.websocket_connect(f"/ws/games/{g['id']}") as ws:
            ws.send_json({"type": "hello", "token": g["token"]})
            st = ws.receive_json()
            out.append(st)
            sent = -1
            while len(st["view"]["history"]) < 6:
                if st["view"]["to_move"] == 0 and st["view"]["ply"] != sent:
                    sent = st["view"]["ply"]
                    ws.send_json(
                        {
                            "type": "move",
                            "move": st["view"]["legal"][0],
                            "round": st["round"],
                            "ply": sent,
                            "id": sent,
                        }
                    )
                st = ws.receive_json()
                while st["type"] != "state":  # presence
                    st = ws.receive_json()
        out.append(st)
    return out


def test_the_nth_game_is_dealt_from_seed_plus_n_and_the_bot_replays(tmp_path: Path) -> None:
    a = _play(tmp_path / "a", 7)
    b = _play(tmp_path / "b", 7)
    for n, state in enumerate(a[:2]):  # game n: the deal of Match(seed=7 + n)
        m = Match(1, seed=7 + n)
        dealt = m.new_round()
        assert state["starter"] == m.first_starter
        assert sorted(state["view"]["hand"]) == sorted(str(c) for c in dealt.hands[0])
    assert a[0]["view"]["hand"] != a[1]["view"]["hand"]  # each game its own deal
    assert [s["view"]["hand"] for s in a] == [s["view"]["hand"] for s in b]
    assert a[2]["view"]["history"] == b[2]["view"]["history"]  # and the bot's moves


def test_without_it_deals_are_drawn_afresh(tmp_path: Path) -> None:
    hands = {str(_play(tmp_path / str(i), None)[0]["view"]["hand"]) for i in range(3)}
    assert len(hands) == 3


def test_the_setting_comes_from_the_environment_only(
    monkeypatch: pytest.MonkeyPatch, client: Any
) -> None:
    from lostcities.web.deps import Settings

    monkeypatch.delenv("LOSTCITIES_TEST_DEAL_SEED", raising=False)
    assert Settings.from_env("sqlite://").test_deal_seed is None
    monkeypatch.setenv("LOSTCITIES_TEST_DEAL_SEED", "12")
    assert Settings.from_env("sqlite://").test_deal_seed == 12
    monkeypatch.setenv("LOSTCITIES_TEST_DEAL_SEED", "twelve")
    with pytest.raises(ValueError, match="invalid LOSTCITIES_TEST_DEAL_SEED: 'twelve'"):
        Settings.from_env("sqlite://")
    # a request cannot choose a deal: the API has no seed
    r = client.post("/api/games", json={"opponent": "friend", "seed": 1})
    assert r.status_code == 422 and "seed" in r.json()["message"]
