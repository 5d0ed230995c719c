"""A lobby entry lives as long as its page (issue 37): a seek whose page closed is never
paired (one process, and two processes on one PostgreSQL database), a reload keeps it, a
player waiting in two pages counts once and both pages go to the one game; casual "play
now" pairs anyone with the same settings at once, rated waits on the rating range.

The pages are plain HTTP clients of real servers: each holds its ``/api/lobby/events``
stream open on a socket and closes the socket as a tab closes."""

from __future__ import annotations

import datetime
import secrets
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("glicko2")

import webharness  # benchmarks/ (on sys.path: web_helpers.py)
from fastapi.testclient import TestClient
from sqlalchemy import select

from lostcities.web.lobby import RANGE_START, RANGE_WIDEN
from lostcities.web.models.accounts import AccountRow
from lostcities.web.models.base import utcnow
from lostcities.web.models.ratings import RatingRow
from tests.web.web_helpers import Server, Stream, ok


def until(what: Callable[[], Any], timeout: float = 20.0) -> Any:
    """``what()`` once it is true (polled; fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        out = what()
        if out:
            return out
        assert time.monotonic() < deadline, f"not so within {timeout} s"
        time.sleep(0.05)


class Page:
    """A guest's lobby page: its id, and its event stream while the page is open."""

    def __init__(self, srv: Server, browser: str, name: str) -> None:
        self.srv, self.browser, self.name = srv, browser, name
        self.id = secrets.token_hex(8)
        self.stream: Stream | None = None

    def open(self) -> Page:
        q = urllib.parse.urlencode({"browser": self.browser, "name": self.name, "page": self.id})
        self.stream = Stream(self.srv.port, f"/api/lobby/events?{q}")
        assert self.stream.next()["type"] == "full"  # (the page is there: marked seen)
        return self

    def close(self) -> None:
        assert self.stream is not None
        self.stream.close()
        self.stream = None

    def play_now(self) -> dict[str, Any]:
        body = {"browser": self.browser, "name": self.name, "page": self.id, "rounds": 1}
        out: dict[str, Any] = ok(self.srv, "POST", "/api/lobby/seeks", body, {})
        return out


def waiting(srv: Server) -> int:
    return int(ok(srv, "GET", "/api/lobby", None, {})["seeks"])


def status(srv: Server, entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = ok(
        srv, "POST", f"/api/lobby/{entry['id']}/status", {"token": entry["token"]}, {}
    )
    return out


def orphaned_seek(one: Server, two: Server) -> None:
    """Bob's pages on ``one``, his requests and Alice's on ``two``."""
    bob = secrets.token_hex(8)
    # Bob presses Play now and closes the tab: his seek is gone from the lobby at once
    first = Page(one, bob, "Bob").open()
    seek1 = ok(
        two,
        "POST",
        "/api/lobby/seeks",
        {"browser": bob, "name": "Bob", "page": first.id, "rounds": 1},
        {},
    )
    assert waiting(two) == 1
    first.close()
    until(lambda: waiting(two) == 0)
    # a reload of that tab (the same page id) brings it back; closing it again, not
    first.open()
    until(lambda: waiting(two) == 1)
    first.close()
    until(lambda: waiting(two) == 0)
    # he opens the lobby again and presses Play now in two tabs: he waits once
    second, third = Page(one, bob, "Bob").open(), Page(one, bob, "Bob").open()
    seek2 = second.play_now()
    seek3 = third.play_now()
    assert waiting(two) == 1
    # Alice is paired with his live seek, and both his open tabs go to that game
    alice = Page(two, secrets.token_hex(8), "Alice").open()
    seek_a = alice.play_now()
    game = status(two, seek_a)
    assert game["status"] == "matched", game
    assert status(two, seek2) == {
        "id": seek2["id"],
        "status": "matched",
        "game_id": game["game_id"],
    }
    assert status(two, seek3) == {
        "id": seek3["id"],
        "status": "playing",
        "game_id": game["game_id"],
    }
    # (the closed tab's seek was not paired: it follows too, should that tab come back)
    assert status(two, seek1)["status"] == "playing"
    st = ok(
        two, "GET", f"/api/games/{game['game_id']}/state", None, {"X-Seat-Token": seek2["token"]}
    )
    assert sorted(p["name"] for p in st["game"]["players"]) == ["Alice", "Bob"]
    assert st["game"]["status"] == "active"
    assert waiting(two) == 0
    for p in (second, third, alice):
        p.close()


def test_an_orphaned_seek_is_never_paired(server: Server) -> None:
    orphaned_seek(server, server)


def test_an_orphaned_seek_is_never_paired_across_processes(
    pg_url: str, server_factory: Any
) -> None:
    one, two = server_factory(pg_url), server_factory(pg_url)
    orphaned_seek(one, two)


# -- casual and rated "play now" (in-process: the client fixture) --------------------------


def rated_player(client: TestClient, name: str, rating: float) -> dict[str, str]:
    """A signed-in player (their browser's headers) rated ``rating`` in classic, untimed."""
    store = client.app.state.store  # type: ignore[attr-defined]
    headers = webharness.signed_in(store, name)

    def fn(s: Any) -> None:
        acc = s.scalar(select(AccountRow.id).where(AccountRow.username == name))
        s.add(
            RatingRow(
                player=f"a:{acc}",
                variant="classic",
                speed="untimed",
                account_id=acc,
                name=name,
                rating=rating,
                rd=60.0,
                vol=0.06,
                games=30,
                updated_at=utcnow(),
            )
        )

    store.write_sync(fn)
    return headers


def entry_status(client: TestClient, entry: dict[str, Any]) -> str:
    r = client.post(f"/api/lobby/{entry['id']}/status", json={"token": entry["token"]})
    return str(r.json()["status"])


def test_casual_play_now_pairs_any_ratings_and_rated_waits_on_the_range(
    client: TestClient,
) -> None:
    gap = RANGE_START + 5 * RANGE_WIDEN  # (rated: paired after some 5 s of widening)
    ann = rated_player(client, "ann", 1500.0)
    bob = rated_player(client, "bob", 1500.0 + gap)
    # casual: the first two with the same settings, whatever their ratings
    a = client.post("/api/lobby/seeks", json={"rounds": 1}, headers=ann).json()
    assert a["search"] == {"rated": False}
    b = client.post("/api/lobby/seeks", json={"rounds": 1}, headers=bob).json()
    assert (entry_status(client, a), entry_status(client, b)) == ("matched", "matched")
    # rated: not at once; the page is told the range, and they meet once it is wide enough
    a = client.post("/api/lobby/seeks", json={"rounds": 1, "rated": True}, headers=ann).json()
    assert a["search"] == {
        "rated": True,
        "rating": 1500,
        "range": {"start": RANGE_START, "widen": RANGE_WIDEN, "max": 600.0},
    }
    b = client.post("/api/lobby/seeks", json={"rounds": 1, "rated": True}, headers=bob).json()
    assert (entry_status(client, a), entry_status(client, b)) == ("open", "open")
    hub = client.app.state.lobby  # type: ignore[attr-defined]
    later = utcnow() + datetime.timedelta(seconds=6)  # (the lobby's clock moves on)
    hub.now = lambda: later
    until(lambda: entry_status(client, a) == entry_status(client, b) == "matched")


def test_a_page_id_is_checked(client: TestClient) -> None:
    r = client.post("/api/lobby/seeks", json={"page": "not a page id!"})
    assert r.status_code == 422, r.text
