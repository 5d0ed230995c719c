"""The table's defects seen by a new player, checked at the API (TestClient): messages count
rounds as the API does, a wrong code for a computer game, a game waiting for a friend is not
"your turn", and a finished round's summary carries its final board."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_stale_move_counts_rounds_from_zero_as_the_api_does(client: Any) -> None:
    r = client.post("/api/games", json={"opponent": "friend", "rounds": 1})
    g = r.json()
    invite = g["invite_url"].split("#", 1)[1]
    t1 = client.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": "Bea"}).json()[
        "token"
    ]
    s = client.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": g["token"]}).json()
    tok = (g["token"], t1)[s["view"]["to_move"]]
    v = client.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tok}).json()["view"]
    r = client.post(
        f"/api/games/{g['id']}/moves",
        json={"token": tok, "move": v["legal"][0], "round": 0, "ply": 3},
    )
    body = r.json()
    assert r.status_code == 409 and body["error"] == "stale"
    # the API's round 0 is "round 0" in the message, not "round 1"
    assert (
        "made at round 0 ply 3" in body["message"] and "game is at round 0 ply 0" in body["message"]
    )


def test_wrong_code_for_a_computer_game_is_an_invalid_code(client: Any) -> None:
    g = client.post(
        "/api/games", json={"opponent": "computer", "level": "easy", "rounds": 1}
    ).json()
    r = client.post(f"/api/games/{g['id']}/join", json={"invite": "x" * 22, "name": "Eve"})
    assert r.status_code in (403, 404, 422), r.text
    msg = r.json()["message"]
    assert "already used" not in msg and "invalid invite code" in msg


def test_a_game_waiting_for_a_friend_is_nobodys_turn(client: Any) -> None:
    g = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()
    (summary,) = client.post(
        "/api/games/lookup", json={"games": [{"id": g["id"], "token": g["token"]}]}
    ).json()
    assert summary["status"] == "waiting" and summary["your_turn"] is False


def test_round_summary_has_the_final_discard_piles() -> None:
    from lostcities import Match
    from lostcities.web.schemas import round_summary

    m = Match(1, seed=5)
    r = m.new_round()
    while not r.is_over():
        moves = list(r.legal_moves())
        r.push(next((x for x in moves if str(x).startswith("-")), moves[0]))
    out = round_summary(0, r)
    assert len(out.discard_piles) == 5
    assert out.discard_piles == [[str(c) for c in r.discard_piles[col]] for col in r.variant.colors]
    assert sum(map(len, out.discard_piles)) > 0
