"""The turn alerts of "my games", pushed (issue 27): a move in a correspondence game
reaches the other player's ``/api/my-games/events`` stream at once, read here by a plain
HTTP stream client from a real server; on PostgreSQL also when the move is made on one
server process and the stream is open on the other. Nothing polls: the stream's event is
the only thing the test waits for."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.web.web_helpers import Server, account, move, ok, to_move


class Stream:
    """A server-sent event stream read by a thread: each ``data:`` line's JSON in a queue."""

    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items() if k == "Cookie")
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{extra}\r\n".encode()
        )
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.status = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        f = self.sock.makefile("rb")
        try:
            first = f.readline().split()
            self.status = int(first[1]) if len(first) > 1 else 0
            for line in f:
                if line.startswith(b"data: "):
                    self.events.put(json.loads(line[6:]))
        except (OSError, ValueError):
            return

    def next(self, timeout: float = 20.0) -> dict[str, Any]:
        """The next event (fails after ``timeout`` seconds without one)."""
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s") from None

    def until(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20.0
    ) -> dict[str, Any]:
        """The first event for which ``pred`` holds (others are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            ev = self.next(max(0.01, deadline - time.monotonic()))
            if pred(ev):
                return ev

    def drain(self, quiet: float = 0.5) -> list[dict[str, Any]]:
        """Every event until ``quiet`` seconds pass without one."""
        out = []
        while True:
            try:
                out.append(self.events.get(timeout=quiet))
            except queue.Empty:
                return out

    def close(self) -> None:
        self.sock.close()


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
