"""The youngest-player tie-break in the web app: asked at set-up, kept by the store, the
state and the record say why a tied match was won."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.web_helpers import friend_game, game_count, state

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TIE_BROKEN = "tie broken: the younger player wins"


def _discard_to_a_tie(client: Any, gid: str, tokens: list[str]) -> dict[str, Any]:
    """Both players only discard and draw from the pile: 0 - 0."""
    st = state(client, gid, tokens[0])
    while not st["match"]["over"]:
        seat = st["view"]["to_move"]
        st = state(client, gid, tokens[seat])
        move = next(m for m in st["view"]["legal"] if m.startswith("-") and m.endswith("."))
        r = client.post(
            f"/api/games/{gid}/moves",
            json={
                "token": tokens[seat],
                "move": move,
                "round": st["round"],
                "ply": st["view"]["ply"],
            },
        )
        assert r.status_code == 200, r.text
        st = r.json()
    return st


@pytest.mark.parametrize("younger", [0, 1])
def test_a_tied_friend_game_goes_to_the_younger_player(client: Any, younger: int) -> None:
    gid, *tokens = friend_game(client, tie_break="youngest", younger=younger)
    st = _discard_to_a_tie(client, gid, tokens)
    m = st["match"]
    assert m["totals"] == [0, 0] and m["winner"] == younger
    assert m["result"] == ("1-0" if younger == 0 else "0-1") and m["reason"] == TIE_BROKEN
    assert (m["tie_break"], m["younger"]) == ("youngest", younger)
    record = client.get(f"/api/games/{gid}/record").text
    assert '[TieBreak "youngest"]' in record and f'[Younger "{younger}"]' in record
    # reloaded from the database (a restarted server) it is still the same result
    mgr = client.app.state.manager
    mgr.games.clear()
    again = state(client, gid, tokens[0])["match"]
    assert (again["result"], again["reason"], again["younger"]) == (
        m["result"],
        TIE_BROKEN,
        younger,
    )


def test_the_default_is_a_draw(client: Any) -> None:
    gid, *tokens = friend_game(client)
    m = _discard_to_a_tie(client, gid, tokens)["match"]
    assert (
        m["result"] == "1/2-1/2" and m["winner"] is None and m["reason"] == "equal totals: a draw"
    )
    assert (m["tie_break"], m["younger"]) == ("draw", None)
    assert "TieBreak" not in client.get(f"/api/games/{gid}/record").text


@pytest.mark.parametrize("younger", [0, 1])
def test_a_computer_game_asks_too_and_the_rematch_keeps_who_is_younger(
    client: Any, younger: int
) -> None:
    r = client.post(
        "/api/games",
        json={
            "opponent": "computer",
            "level": "easy",
            "rounds": 1,
            "tie_break": "youngest",
            "younger": younger,
        },
    )
    assert r.status_code == 201, r.text
    g = r.json()
    m = state(client, g["id"], g["token"])["match"]
    assert (m["tie_break"], m["younger"]) == ("youngest", younger)
    client.app.state.manager.games.clear()
    m = state(client, g["id"], g["token"])["match"]
    assert (m["tie_break"], m["younger"]) == ("youngest", younger)


def test_a_friend_rematch_asked_by_seat_1_keeps_the_same_younger_player(client: Any) -> None:
    gid, *tokens = friend_game(client, tie_break="youngest", younger=1)
    _discard_to_a_tie(client, gid, tokens)
    r = client.post(f"/api/games/{gid}/rematch", json={"token": tokens[1]})
    assert r.status_code in (200, 201), r.text
    new = r.json()
    assert new["seat"] == 0  # the asker (seat 1, the younger) sits in seat 0 now
    m = state(client, new["id"], new["token"])["match"]
    assert (m["tie_break"], m["younger"]) == ("youngest", 0)


@pytest.mark.parametrize(
    ("body", "status", "why"),
    [
        ({"tie_break": "youngest"}, 400, "'youngest' needs the younger seat"),
        ({"tie_break": "draw", "younger": 1}, 400, "'draw' takes no younger seat"),
        ({"tie_break": "oldest"}, 422, "tie_break"),
        ({"tie_break": "youngest", "younger": 2}, 422, "younger"),
    ],
)
def test_bad_tie_break_settings_are_refused(
    client: Any, body: dict[str, Any], status: int, why: str
) -> None:
    before = game_count(client.app.state.store)
    r = client.post("/api/games", json={"opponent": "friend", **body})
    assert r.status_code == status and why in r.json()["message"], r.text
    assert game_count(client.app.state.store) == before


def test_an_old_database_gets_the_new_columns(tmp_path: Any) -> None:
    import sqlalchemy

    from lostcities.web.store import GameStore

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as conn:  # lc_games as an older version made it
        conn.exec_driver_sql(
            "CREATE TABLE lc_games (id VARCHAR(32) PRIMARY KEY, created_at DATETIME, updated_at DATETIME,"
            " variant VARCHAR(16), num_rounds INTEGER, seed BIGINT, first_starter INTEGER, status VARCHAR(16),"
            " result VARCHAR(8), level VARCHAR(16), name0 VARCHAR(40), name1 VARCHAR(40), bot0 VARCHAR(80),"
            " bot1 VARCHAR(80), mistakes FLOAT, token0 VARCHAR(64), token1 VARCHAR(64), invite VARCHAR(64),"
            " rematch_of VARCHAR(32), rematch_id VARCHAR(32), rematch_by INTEGER)"
        )
    engine.dispose()
    store = GameStore(url)
    store.create_tables()
    cols = {c["name"] for c in sqlalchemy.inspect(store.engine).get_columns("lc_games")}
    assert {"tie_break", "younger"} <= cols
    store.create_tables()  # twice is fine
    assert store.load_sync("none") is None
    store.close()
