"""The turn alerts of "my games", pushed (issue 27): a move in a correspondence game
reaches the other player's ``/api/my-games/events`` stream at once, read here by a plain
HTTP stream client from a real server; on PostgreSQL also when the move is made on one
server process and the stream is open on the other. Nothing polls: the stream's event is
the only thing the test waits for."""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

from tests.web.web_helpers import Server, Stream, account, move, ok, to_move


def play_and_alert(ann_srv: Server, bob_srv: Server, db_url: str) -> None:
    """Ann (on ``ann_srv``) and Bob meet at a correspondence table; Bob's stream (on
    ``bob_srv``) is told of the new game, then of Ann's move, and his list then says it is
    his turn; a guest watching the game by its id is told too."""
    ann, bob = account(db_url, "ann"), account(db_url, "bob")
    stream = Stream(bob_srv.port, "/api/my-games/events", bob)
    try:
        assert stream.next() == {"type": "hello"}
        assert stream.status == 200
        table = ok(ann_srv, "POST", "/api/lobby/tables", {"rounds": 1, "clock": "1d"}, ann)
        seated = ok(bob_srv, "POST", f"/api/lobby/{table['id']}/join", {}, bob)
        gid = seated["id"]
        tokens = {0: table["token"], 1: seated["token"]}
        # a game of the account that did not exist when the stream opened
        stream.until(lambda ev: gid in ev.get("games", []))
        guest = Stream(bob_srv.port, f"/api/my-games/events?games={gid}")
        assert guest.next() == {"type": "hello"}
        if to_move(ann_srv, gid, tokens[0]) == 1:  # Bob starts: his move, then Ann's turn
            move(bob_srv, gid, tokens[1], bob)
        stream.drain()
        guest.drain()
        assert to_move(ann_srv, gid, tokens[0]) == 0
        move(ann_srv, gid, tokens[0], ann)
        assert stream.until(lambda ev: gid in ev.get("games", [])) == {
            "type": "changed",
            "games": [gid],
        }
        guest.until(lambda ev: gid in ev.get("games", []))
        mine = ok(bob_srv, "POST", "/api/my-games", {"games": []}, bob)
        assert [(g["id"], g["your_turn"]) for g in mine] == [(gid, True)]
        guest.close()
    finally:
        stream.close()


def test_a_move_reaches_the_other_players_stream(server_factory: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'turns.db'}"
    srv = server_factory(db)
    play_and_alert(srv, srv, db)


def test_a_move_on_one_process_reaches_a_stream_on_the_other(
    server_factory: Any, pg_url: str
) -> None:
    one, two = server_factory(pg_url), server_factory(pg_url)
    play_and_alert(one, two, pg_url)


def test_bad_game_ids_are_refused_with_one_line(server_factory: Any, tmp_path: Path) -> None:
    srv = server_factory(f"sqlite:///{tmp_path / 'bad.db'}")
    for games in ("a b", "x" * 33, ",".join(f"g{i}" for i in range(201)), "é"):
        q = urllib.parse.urlencode({"games": games})
        status, out = srv.request("GET", f"/api/my-games/events?{q}")
        assert status == 422, (games, status, out)
        assert out["error"] == "invalid_request" and "\n" not in out["message"], out
