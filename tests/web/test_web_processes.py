"""Several ``lostcities serve`` processes behind one real PostgreSQL database
(LOSTCITIES_TEST_POSTGRES_URL; scripts/test.sh starts a cluster): a friend game with one
seat on each process, the same move raced to two processes, kill -9 of a process with a
game against the computer on it. And ``--workers`` above 1 refused on SQLite."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from wsclient import Client

from lostcities.cli import main
from tests.web.web_helpers import create_friend_game, play_friend_game


def test_a_friend_game_with_one_seat_on_each_process(server_factory: Any, pg_url: str) -> None:
    a, b = (
        server_factory(pg_url, LOSTCITIES_LIMITS="off") for _ in "ab"
    )  # no rate limits: one test client plays all
    gid, t0, t1 = create_friend_game(a)
    seats = [Client(a.ws_url, gid, t0), Client(b.ws_url, gid, t1)]
    watcher = Client(b.ws_url, gid, None)  # a spectator on the other process
    # every move reaches the other seat's process at once (play_friend_game waits for it)
    n = play_friend_game(seats, [watcher], random.Random(5))
    assert n > 0 and seats[0].state["match"]["over"] and seats[1].state["match"]["over"]
    _, sa = a.request("GET", f"/api/games/{gid}/state")
    _, sb = b.request("GET", f"/api/games/{gid}/state")
    assert sa["view"] == sb["view"] and sa["match"] == sb["match"]
    assert sa["game"]["status"] == sb["game"]["status"] == "finished"
    for c in (*seats, watcher):
        c.close()


def test_the_same_move_raced_to_two_processes_is_applied_once(
    server_factory: Any, pg_url: str
) -> None:
    a, b = (
        server_factory(pg_url, LOSTCITIES_LIMITS="off") for _ in "ab"
    )  # no rate limits: one test client plays all
    for attempt in range(5):
        gid, t0, t1 = create_friend_game(a)
        first = Client(a.ws_url, gid, t0).state["view"]["to_move"]
        token = (t0, t1)[first]
        tabs = [Client(a.ws_url, gid, token), Client(b.ws_url, gid, token)]
        move = tabs[0].state["view"]["legal"][attempt]
        ids: list[int] = [0, 0]
        go = threading.Barrier(2)

        def send(i: int, ids: list[int] = ids, move: str = move, go: threading.Barrier = go,
                 tabs: list[Client] = tabs) -> None:  # fmt: skip
            go.wait()
            ids[i] = tabs[i].send_move(move)

        threads = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        outcomes = []
        for tab, mid in zip(tabs, ids, strict=True):
            while True:
                m = tab.recv()
                if m["type"] == "state" and m.get("ack") == mid:
                    outcomes.append("ok")
                    break
                if m["type"] == "error" and m.get("id") == mid:
                    assert m["code"] in ("stale", "not_your_turn"), m
                    outcomes.append(m["code"])
                    break
        assert outcomes.count("ok") == 1, outcomes
        for server in (a, b):  # the loser's process has the winner's move (its NOTIFY)
            deadline = time.monotonic() + 5
            while True:
                _, s = server.request("GET", f"/api/games/{gid}/state")
                if s["view"]["ply"] or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert s["view"]["history"] == [move] and s["view"]["ply"] == 1
        for tab in tabs:
            tab.close()


def test_kill_9_of_a_process_loses_no_move_and_its_players_go_on_elsewhere(
    server_factory: Any, pg_url: str
) -> None:
    a, b = (
        server_factory(pg_url, LOSTCITIES_LIMITS="off") for _ in "ab"
    )  # no rate limits: one test client plays all
    gid, t0, t1 = create_friend_game(a)
    seats = [Client(a.ws_url, gid, t0), Client(b.ws_url, gid, t1)]
    play_friend_game(seats, [], random.Random(6), max_moves=10)
    _, bot_game = a.request(
        "POST", "/api/games", {"opponent": "computer", "level": "easy", "rounds": 1}
    )
    human = Client(a.ws_url, bot_game["id"], bot_game["token"])
    for _ in range(3):  # the bot runs on a (its game's only process so far)
        while human.state["view"]["to_move"] != 0:
            human.wait_state()
        human.move(human.state["view"]["legal"][0])
    acked = human.state["view"]["history"]
    before = seats[0].state
    a.kill()  # mid-game, maybe mid bot move: no shutdown code runs
    seats[0] = Client(b.ws_url, gid, t0)  # the player reconnects to the other process
    assert seats[0].state["view"] == before["view"]
    n = play_friend_game(seats, [], random.Random(7))
    assert n > 0 and seats[0].state["match"]["over"]
    human = Client(b.ws_url, bot_game["id"], bot_game["token"])
    assert human.state["view"]["history"][: len(acked)] == acked  # nothing acknowledged lost
    while not human.state["match"]["over"]:  # b takes the bot over
        if human.state["view"]["to_move"] == 0:
            human.move(human.state["view"]["legal"][0])
        else:
            human.wait_state(timeout=20)
    assert human.state["game"]["status"] == "finished"


def test_workers_on_sqlite_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    assert main(["serve", "--workers", "2", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--workers 2 needs a PostgreSQL database" in err
    assert not (tmp_path / "x.db").exists()
