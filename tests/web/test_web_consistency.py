"""Read-your-writes across server processes (issue 27, "a defect to fix first"): a process
that does not know a seat token, or is behind the ply a request names, or behind the
database when it answers a read, consults the database before it answers.

Two kinds of test: two game managers on one database whose notifications never arrive
(the worst case of a late notification, deterministic, on SQLite), and two real
``lostcities serve`` processes on PostgreSQL with every request of a game spread over both.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from wsclient import Client

from lostcities.web import schemas
from lostcities.web.errors import InvalidTokenError
from lostcities.web.game_manager import GameManager, ManagerSettings
from lostcities.web.peers import Peers
from lostcities.web.store import GameStore
from lostcities.web.workers import BotRunner


class Deaf(Peers):
    """Another process shares the database, and its notifications never come."""

    shared = True


def _manager(url: str) -> GameManager:
    store = GameStore(url)
    store.create_tables()
    store.start()
    return GameManager(store, BotRunner("thread", 1, []), ManagerSettings(), peers=Deaf())


def test_a_process_behind_the_database_consults_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"

    async def main() -> None:
        a, b = _manager(url), _manager(url)
        g, _, invite = await a.create(schemas.CreateGame(opponent="friend", rounds=1))
        assert invite is not None
        gb = await b.get(g.id)  # b holds the game before the friend joins (on a)
        _, t1 = await a.join(g.id, invite, "Bea")
        # the new seat token, unknown to b's copy, is looked up
        assert await b.seat(gb, t1) == 1
        with pytest.raises(InvalidTokenError):
            await b.seat(gb, "not-a-token")
        # a move stored on a is seen by a read on b, and a move on b that names the
        # next ply is not refused as stale
        rng = random.Random(3)
        for _ in range(12):
            ga, gb = await a.current(g.id), await b.current(g.id)
            assert ga.version() == gb.version()
            mover = ga.round.to_move
            legal = [str(m) for m in ga.round.legal_moves()]
            await ga.play(mover, ga.round_index, ga.round.ply, rng.choice(legal))
            gb = await b.current(g.id)
            assert gb.round.ply == ga.round.ply
            assert (
                json.loads(gb.presenter.state(mover))["view"]
                == json.loads(ga.presenter.state(mover))["view"]
            )
            legal = [str(m) for m in gb.round.legal_moves()]
            # and the other way round: b moves, a is behind and is asked for the next ply
            await gb.play(gb.round.to_move, gb.round_index, gb.round.ply, rng.choice(legal))
            ga = await a.get(g.id)
            legal = [str(m) for m in gb.round.legal_moves()]
            await ga.play(gb.round.to_move, gb.round_index, gb.round.ply, rng.choice(legal))
        for m in (a, b):
            await m.close()
            m.store.close()

    asyncio.run(main())


def test_the_copy_without_the_fix_would_be_stale(tmp_path: Path) -> None:
    """What the managers above guard against: the copy a deaf process holds is behind
    (the test would pass without consulting the database only if it were not)."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"

    async def main() -> None:
        a, b = _manager(url), _manager(url)
        g, _, invite = await a.create(schemas.CreateGame(opponent="friend", rounds=1))
        assert invite is not None
        gb = await b.get(g.id)
        _, t1 = await a.join(g.id, invite, "Bea")
        with pytest.raises(InvalidTokenError):
            gb.seat_for(t1)  # the copy alone does not know the token
        assert gb.version() != g.version()
        for m in (a, b):
            await m.close()
            m.store.close()

    asyncio.run(main())


def test_requests_spread_over_two_processes_read_their_writes(
    server_factory: Any, pg_url: str
) -> None:
    """Every request of a game alternates between two processes: the join on one, the
    other asked for the state with the new token at once; each move over HTTP on one, the
    state read at once on the other, then the next move on that other. Never a 403, never
    a stale state, never a 409."""
    servers = [server_factory(pg_url, LOSTCITIES_LIMITS="off") for _ in "ab"]
    rng = random.Random(11)
    reads = 0
    for n in range(6):
        a, b = servers[n % 2], servers[1 - n % 2]
        status, g = a.request("POST", "/api/games", {"opponent": "friend", "rounds": 1})
        assert status == 201
        b.request("GET", f"/api/games/{g['id']}")  # b holds the game before the join
        invite = g["invite_url"].split("#", 1)[1]
        status, j = a.request("POST", f"/api/games/{g['id']}/join", {"invite": invite})
        assert status == 200
        tokens = (g["token"], j["token"])
        status, s = b.request(
            "GET", f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tokens[1]}
        )
        assert status == 200 and s["seat"] == 1, s
        ws = Client(b.ws_url, g["id"], tokens[1])  # the WebSocket lands on the other one
        assert ws.state["seat"] == 1
        ws.close()
        i = 0
        while not s["match"]["over"] and i < 40:
            here, there = servers[i % 2], servers[1 - i % 2]
            seat = s["view"]["to_move"]
            status, s = here.request(
                "GET", f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tokens[seat]}
            )
            assert status == 200
            body = {
                "token": tokens[seat],
                "move": rng.choice(s["view"]["legal"]),
                "round": s["round"],
                "ply": s["view"]["ply"],
            }
            status, after = here.request("POST", f"/api/games/{g['id']}/moves", body)
            assert status == 200, after
            status, s = there.request(
                "GET", f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tokens[seat]}
            )
            reads += 1
            assert status == 200 and s["view"] == after["view"], "a stale read"
            i += 1
    assert reads >= 200


def test_a_seat_handed_out_elsewhere_is_known_at_once(server_factory: Any, pg_url: str) -> None:
    a, b = (server_factory(pg_url, LOSTCITIES_LIMITS="off") for _ in "ab")
    for _ in range(10):
        status, g = a.request("POST", "/api/games", {"opponent": "friend", "rounds": 1})
        assert status == 201
        b.request("GET", f"/api/games/{g['id']}")  # b holds the game, seat 1 still empty
        invite = g["invite_url"].split("#", 1)[1]
        status, j = a.request("POST", f"/api/games/{g['id']}/join", {"invite": invite})
        gid, t0, t1 = g["id"], g["token"], j["token"]
        for token, seat in ((t1, 1), (t0, 0)):
            status, s = b.request("GET", f"/api/games/{gid}/state", headers={"X-Seat-Token": token})
            assert status == 200 and s["seat"] == seat
