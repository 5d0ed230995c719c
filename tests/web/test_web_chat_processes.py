"""Quick chat across ``lostcities serve`` processes on one PostgreSQL database
(LOSTCITIES_TEST_POSTGRES_URL; scripts/test.sh starts a cluster): a phrase said on one
process reaches every connection of the game on every process, once, and every connection
sees the phrases in the same order, the order a reload shows (issue 26, web 13)."""

from __future__ import annotations

import threading
from typing import Any

from wsclient import Client

from tests.web.web_helpers import create_friend_game

PHRASES = ("hello", "good_luck", "have_fun", "thanks", "sorry", "oops", "wow", "thinking")


def chat_until(client: Client, last: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat messages ``client`` receives up to and including ``last``."""
    got: list[dict[str, Any]] = []
    while True:
        m = client.recv()
        if m["type"] == "chat":
            got.append({"seat": m["seat"], "phrase": m["phrase"]})
            if got[-1] == last:
                return got


def test_a_phrase_reaches_every_process_once_and_in_order(server_factory: Any, pg_url: str) -> None:
    a, b = (server_factory(pg_url, LOSTCITIES_LIMITS="off") for _ in "ab")
    gid, t0, t1 = create_friend_game(a)
    seats = [Client(a.ws_url, gid, t0), Client(b.ws_url, gid, t1)]
    watchers = [Client(a.ws_url, gid, None), Client(b.ws_url, gid, None)]
    everyone = [*seats, *watchers]
    for c in everyone:
        c.settle()  # each has joined the chat: the phrases below come as chat messages
    # one phrase from the seat on process a: the seat and the spectator on b get it
    seats[0].send({"type": "chat", "phrase": "hello"})
    first = {"seat": 0, "phrase": "hello"}
    for c in everyone:
        assert chat_until(c, first) == [first]
    # both seats chat at once, each on its own process
    go = threading.Barrier(2)

    def say(seat: int) -> None:
        go.wait()
        for p in PHRASES[seat::2]:
            seats[seat].send({"type": "chat", "phrase": p})

    threads = [threading.Thread(target=say, args=(s,)) for s in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # each seat's last phrase is in; then a last one, after all of them
    tails = {"seat": 0, "phrase": PHRASES[-2]}, {"seat": 1, "phrase": PHRASES[-1]}
    seen: list[list[dict[str, Any]]] = []
    for c in everyone:
        got = []
        while not all(t in got for t in tails):
            got += chat_until(c, next(t for t in tails if t not in got))
        seen.append(got)
    seats[1].send({"type": "chat", "phrase": "good_game"})
    last = {"seat": 1, "phrase": "good_game"}
    for c, got in zip(everyone, seen, strict=True):
        got += chat_until(c, last)
        c.send({"type": "sync"})  # nothing said twice comes after it either
        while (m := c.recv())["type"] != "state":
            assert m["type"] != "chat", m
    # the order each connection saw is the stored order (what a reload shows)
    reload = Client(b.ws_url, gid, None)
    logs = [m for m in reload.messages if m["type"] == "chat_log"]
    while not logs:
        m = reload.recv()
        if m["type"] == "chat_log":
            logs.append(m)
    stored = logs[0]["messages"]
    assert len(stored) == 2 + len(PHRASES), stored
    assert [m["phrase"] for m in stored if m["seat"] == 0] == ["hello", *PHRASES[0::2]]
    assert [m["phrase"] for m in stored if m["seat"] == 1] == [*PHRASES[1::2], "good_game"]
    for got in seen:
        assert [first, *got] == stored
    for c in (*everyone, reload):
        c.close()
