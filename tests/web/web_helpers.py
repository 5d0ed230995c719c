"""Helpers of the web tests (``from tests.web.web_helpers import app_settings``): the test
server (:class:`Server`), the tests' app settings, the CSRF header, and the steps through
the HTTP API, the WebSocket and the event streams that several test modules share. The
browser steps are in tests/web/e2e_helpers.py.

The fixtures are in tests/web/conftest.py, which no test module imports: ``conftest`` is a
bare module name that each test directory's conftest.py has, so ``from conftest import ...``
found whichever pytest had loaded last (tests/envs/conftest.py in ``pytest tests/web
tests/envs``)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

_BENCHMARKS = str(Path(__file__).resolve().parents[2] / "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)
import webharness  # noqa: E402  (benchmarks/webharness.py: the one server harness)

if TYPE_CHECKING:
    from wsclient import Client

    from lostcities.web.levels import Level

TEST_DEAL_SEED = 25
"""The deal seed of every test server (``LOSTCITIES_TEST_DEAL_SEED``): the games a test
creates are dealt from it in order, so each test plays known deals, and the bots' moves
(seeded by the deal) are the same every run."""

TEST_ENV = {
    "LOSTCITIES_BOT_EXECUTOR": "thread",
    "LOSTCITIES_LEVEL_EASY": "random",  # the random bot plays "easy" (the others keep theirs)
    "LOSTCITIES_TEST_DEAL_SEED": str(TEST_DEAL_SEED),
}
"""The tests' server settings over :data:`webharness.DEFAULT_ENV` (no per-client limits:
scripted clients play hundreds of moves a minute from one address; tests/web/test_web_limits.py
tests them; no bot delay)."""


PG_ENV = "LOSTCITIES_TEST_POSTGRES_URL"
"""The environment variable naming the test PostgreSQL database (the PostgreSQL tests are
skipped without it)."""


@contextlib.contextmanager
def pg_schema() -> Iterator[str]:
    """The URL of a fresh schema of the test PostgreSQL database (:data:`PG_ENV`; selected
    with the connection's search_path), dropped afterwards."""
    import sqlalchemy

    from lostcities.web.store import normalize_db_url

    base = normalize_db_url(os.environ[PG_ENV])
    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sqlalchemy.create_engine(base)
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.execute(sqlalchemy.text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


class Server(webharness.Server):
    """``lostcities serve`` as a subprocess on a free loopback port (:class:`webharness.Server`)
    with the tests' settings (:data:`TEST_ENV`, then ``env``), logging into ``tmp``."""

    def __init__(self, db_url: str, tmp: Path, env: dict[str, str] | None = None) -> None:
        super().__init__(
            db_url, tmp / f"server-{uuid.uuid4().hex[:6]}.log", {**TEST_ENV, **(env or {})}
        )


def app_settings(db_url: str, **overrides: Any) -> Any:
    """The tests' app :class:`~lostcities.web.deps.Settings` (as :data:`TEST_ENV` sets a
    server's): bots in threads, no delay, the random bot for "easy", no per-client limits
    (scripted play is fast; the limits: test_web_limits.py), deals from :data:`TEST_DEAL_SEED`."""
    from lostcities.web.deps import Settings
    from lostcities.web.levels import LEVELS, Level
    from lostcities.web.limits import Limits

    kw: dict[str, Any] = {
        "bot_executor": "thread",
        "bot_min_delay": 0.0,
        "levels": {**LEVELS, "easy": Level("random", "Easy")},
        "limits": Limits.off(),
        "test_deal_seed": TEST_DEAL_SEED,
    }
    return Settings(db_url=db_url, **{**kw, **overrides})


def csrf(c: Any) -> dict[str, str]:
    """The CSRF header of the client's browser (asks for the cookie once)."""
    from lostcities.web import accounts as acc

    tok = c.cookies.get(acc.CSRF_COOKIE) or c.get("/api/accounts/csrf").json()["csrf"]
    return {"X-CSRF-Token": tok}


def friend_game(client: Any, **kw: Any) -> tuple[str, str, str]:
    """A one-round friend game on a TestClient, Bea joined: its id and both seats' tokens."""
    r = client.post("/api/games", json={"opponent": "friend", "rounds": 1, **kw})
    assert r.status_code == 201, r.text
    g = r.json()
    invite = g["invite_url"].split("#", 1)[1]
    j = client.post(f"/api/games/{g['id']}/join", json={"invite": invite, "name": "Bea"})
    assert j.status_code == 200, j.text
    return g["id"], g["token"], j.json()["token"]


def state(client: Any, gid: str, token: str | None) -> dict[str, Any]:
    """The game's state as the seat of ``token`` (a spectator's without one) sees it."""
    headers = {"X-Seat-Token": token} if token else {}
    r = client.get(f"/api/games/{gid}/state", headers=headers)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def create_friend_game(
    server: Any, rounds: int = 1, variant: str = "classic"
) -> tuple[str, str, str]:
    """A friend game on a real ``server``, Bea joined: its id and both seats' tokens."""
    status, g = server.request(
        "POST", "/api/games", {"opponent": "friend", "rounds": rounds, "variant": variant}
    )
    assert status == 201, g
    invite = g["invite_url"].split("#", 1)[1]
    status, j = server.request(
        "POST", f"/api/games/{g['id']}/join", {"invite": invite, "name": "Bea"}
    )
    assert status == 200, j
    return g["id"], g["token"], j["token"]


def play_friend_game(
    clients: list[Client], watchers: list[Client], rng: random.Random, max_moves: int | None = None
) -> int:
    """Both seats move at random until the match ends (or ``max_moves``); every client
    receives every state. Returns the number of moves made."""
    from wsclient import position_key  # tests/web/wsclient.py, as the test modules import it

    n = 0
    while not clients[0].state["match"]["over"] and (max_moves is None or n < max_moves):
        seat = clients[0].state["game"]["to_move"]
        mover = clients[seat]
        legal = mover.state["view"]["legal"]
        assert legal, mover.state
        ack = mover.move(rng.choice(legal))
        target = position_key(ack)
        for c in [clients[1 - seat], *watchers]:
            c.wait_state(lambda m, t=target: position_key(m) == t)
        n += 1
    return n


def make_client(tmp_path: Path, levels: dict[str, Level]) -> Any:
    """A TestClient on ``tmp_path``'s levels.db with ``levels`` (bots in threads, no delay)."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.deps import Settings

    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'levels.db'}",
        bot_executor="thread",
        bot_min_delay=0.0,
        levels=levels,
    )
    return TestClient(create_app(settings))


def account(db_url: str, name: str) -> dict[str, str]:
    """An account and a session (put in the database the server uses): its browser's
    cookie and CSRF headers."""
    from lostcities.web.store import GameStore

    store = GameStore(db_url)
    try:
        return webharness.signed_in(store, name)
    finally:
        store.engine.dispose()


def ok(srv: Server, method: str, path: str, body: Any, who: dict[str, str]) -> Any:
    """The answer of a request that must succeed (200 or 201)."""
    status, out = srv.request(method, path, body, who)
    assert status in (200, 201), (path, status, out)
    return out


def move(srv: Server, gid: str, token: str, who: dict[str, str]) -> None:
    """The first legal move of the player of ``token``."""
    st = ok(srv, "GET", f"/api/games/{gid}/state", None, {**who, "X-Seat-Token": token})
    body = {
        "token": token,
        "round": st["round"],
        "ply": st["view"]["ply"],
        "move": st["view"]["legal"][0],
    }
    ok(srv, "POST", f"/api/games/{gid}/moves", body, who)


def to_move(srv: Server, gid: str, token: str) -> int:
    """The seat to move."""
    st = ok(srv, "GET", f"/api/games/{gid}/state", None, {"X-Seat-Token": token})
    return int(st["view"]["to_move"])


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
        """Close the connection, as a closed tab does (the reader's file would keep the
        socket open past a bare ``close``)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def game_row(store: Any, game_id: str) -> Any:
    """The stored row of the game ``game_id`` (:meth:`GameStore.load_sync`)."""
    stored = store.load_sync(game_id)
    assert stored is not None, f"no game {game_id!r} stored"
    return stored.row


def game_count(store: Any) -> int:
    """How many games are stored (one ``COUNT``)."""
    from sqlalchemy import func, select

    from lostcities.web.models.games import GameRow

    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(GameRow)).scalar_one())


class AsgiStream:
    """A streaming response of a TestClient's app, read as it comes (the TestClient itself
    waits for a response's end): the request runs in the client's event loop (its portal),
    each line of the body goes to a queue (JSON decoded; an empty line as ``""``), and
    :meth:`close` disconnects as a client that goes away does."""

    def __init__(self, client: Any, path: str, headers: dict[str, str] | None = None) -> None:
        self.client = client
        self.items: queue.Queue[Any] = queue.Queue()
        self.status = 0
        self.ended = threading.Event()
        self._ready = threading.Event()
        self._gone: Any = None
        self._closed = False
        self.future = client.portal.start_task_soon(self._run, path, headers or {})
        self._ready.wait(10)

    async def _run(self, path: str, headers: dict[str, str]) -> None:
        import anyio

        self._gone = anyio.Event()
        self._ready.set()
        target, _, query = path.partition("?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": target,
            "raw_path": target.encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": [(b"host", b"testserver")]
            + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        asked = False
        buf = b""

        async def receive() -> dict[str, Any]:
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await self._gone.wait()
            return {"type": "http.disconnect"}

        async def send(msg: dict[str, Any]) -> None:
            nonlocal buf
            if self._closed:
                raise OSError("the client went away")
            if msg["type"] == "http.response.start":
                self.status = msg["status"]
            elif msg["type"] == "http.response.body":
                buf += msg.get("body", b"")
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    self.items.put(json.loads(line) if line.strip() else "")

        try:
            await self.client.app(scope, receive, send)
        finally:
            if buf.strip():
                self.items.put(json.loads(buf))
            self.ended.set()
            self.items.put(None)

    def next(self, timeout: float = 10.0) -> Any:
        """The next line (``""``: a keep-alive; ``None``: the stream ended)."""
        try:
            return self.items.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line within {timeout} s") from None

    def until(self, pred: Callable[[Any], bool], timeout: float = 10.0) -> Any:
        """The first line for which ``pred`` holds (fails if the stream ends first)."""
        deadline = time.monotonic() + timeout
        while True:
            item = self.next(max(0.01, deadline - time.monotonic()))
            if item is None:
                raise AssertionError("the stream ended")
            if pred(item):
                return item

    def rest(self, timeout: float = 10.0) -> list[Any]:
        """Every line until the stream ends."""
        out = []
        while (item := self.next(timeout)) is not None:
            out.append(item)
        return out

    def close(self) -> None:
        """Disconnect; wait for the app to finish the response."""
        if not self._closed:
            self._closed = True
            self.client.portal.call(self._gone.set)
        self.ended.wait(10)


class NdjsonStream:
    """A newline-delimited JSON stream of a real server (the bot API's), read by a thread:
    each line in a queue (JSON decoded; a keep-alive as ``""``; ``None`` once it ended)."""

    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None) -> None:
        import http.client

        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.request("GET", path, headers=headers or {})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.items: queue.Queue[Any] = queue.Queue()
        self.ended = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            while line := self.resp.readline():
                self.items.put(json.loads(line) if line.strip() else "")
        except (OSError, ValueError):
            pass
        finally:
            self.ended.set()
            self.items.put(None)

    def until(self, pred: Callable[[Any], bool], timeout: float = 20.0) -> Any:
        """The first line for which ``pred`` holds (fails if the stream ends first)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                item = self.items.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no such line within {timeout} s") from None
            if item is None:
                raise AssertionError("the stream ended")
            if pred(item):
                return item

    def close(self) -> None:
        """Close the connection."""
        with contextlib.suppress(OSError):
            if self.conn.sock is not None:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()
