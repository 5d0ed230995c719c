"""Fixtures for the web tests: real server processes, TestClient apps, database URLs."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

PG_ENV = "LOSTCITIES_TEST_POSTGRES_URL"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``lostcities serve`` as a subprocess on a free port."""

    def __init__(self, db_url: str, tmp: Path, env: dict[str, str] | None = None) -> None:
        self.db_url = db_url
        self.tmp = tmp
        self.extra_env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.log = tmp / f"server-{uuid.uuid4().hex[:6]}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start_on(self, port: int) -> Server:
        """Start again on a given port (e.g. the same one after a crash)."""
        return self.start(port=port)

    def start(self, timeout: float = 30.0, port: int | None = None) -> Server:
        self.port = port or free_port()
        env = dict(os.environ)
        # bots: the random bot plays "easy" (the other levels keep their real bots)
        env.update(
            {
                "LOSTCITIES_BOT_DELAY": "0",
                "LOSTCITIES_BOT_EXECUTOR": "thread",
                "LOSTCITIES_LEVEL_EASY": "random",
                # scripted clients play hundreds of moves a minute from one address: no
                # per-client limits here (tests/web/test_web_limits.py tests them)
                "LOSTCITIES_LIMITS": "off",
            }
        )
        env.update(self.extra_env)
        cmd = [
            sys.executable, "-m", "lostcities.cli", "serve",
            "--host", "127.0.0.1", "--port", str(self.port), "--db", self.db_url,
        ]
        self.log = self.tmp / f"server-{self.port}.log"
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log.read_text()}")

    def kill(self) -> None:
        """Kill -9: no shutdown code runs (as in a crash)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    # -- HTTP helpers ------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                raw = r.read()
                status = r.status
        except urllib.error.HTTPError as e:
            raw = e.read()
            status = e.code
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode()


def db_params() -> list[Any]:
    params: list[Any] = ["sqlite"]
    if os.environ.get(PG_ENV):
        params.append("postgresql")
    else:
        params.append(pytest.param("postgresql", marks=pytest.mark.skip(reason=f"{PG_ENV} not set")))
    return params


@pytest.fixture(params=db_params())
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh database: a temp SQLite file, or a fresh schema of the test PostgreSQL
    database (selected with the connection's search_path, dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.db'}"
        return
    with pg_schema() as url:
        yield url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh schema of the test PostgreSQL database (skipped when there is none)."""
    if not os.environ.get(PG_ENV):
        pytest.skip(f"{PG_ENV} not set")
    with pg_schema() as url:
        yield url


@contextlib.contextmanager
def pg_schema() -> Iterator[str]:
    """The URL of a fresh schema of the test PostgreSQL database (selected with the
    connection's search_path), dropped afterwards."""
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


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Any]:
    servers: list[Server] = []

    def make(db_url: str | None = None, **env: str) -> Server:
        s = Server(db_url or f"sqlite:///{tmp_path / 'server.db'}", tmp_path, env)
        servers.append(s)
        return s.start()

    yield make
    for s in servers:
        s.stop()


@pytest.fixture
def server(server_factory: Any) -> Server:
    """A running server on a temp SQLite database."""
    s: Server = server_factory()
    return s


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    """A TestClient on a temp SQLite file (bots in threads, no delay)."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app
    from lostcities.web.deps import Settings
    from lostcities.web.games import LEVELS, Level
    from lostcities.web.limits import Limits

    levels = {**LEVELS, "easy": Level("random", "Easy")}
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'app.db'}",
        bot_executor="thread",
        bot_min_delay=0.0,
        levels=levels,
        limits=Limits.off(),  # scripted play is fast (the limits: test_web_limits.py)
    )
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium, one per test module (skipped without Playwright or
    /usr/bin/chromium)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.web.test_web_e2e import ARGS, CHROMIUM

    if not Path(CHROMIUM).exists():
        pytest.skip("needs /usr/bin/chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def watch_errors(*pages: Any) -> list[str]:
    """The uncaught script errors of ``pages`` from now on (a test asserts it stays empty)."""
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def start_tutorial(browser: Any, url: str, viewport: dict[str, int]) -> tuple[Any, Any, list[str]]:
    """A new page at ``viewport`` that starts the tutorial from the home page and waits for
    its first tip; the context, the page and its script errors (:func:`watch_errors`)."""
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(url + "/")
    page.click("#tutorial-start")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#tutorial:not(.hidden)")
    return ctx, page, errors


def friend_tables(browser: Any, server: Any, *, clock: str | None = None, **bob_ctx: Any) -> tuple[Any, Any, Any, Any]:
    """Alice creates a one-round friend game on the home page, Bob joins by the invite link;
    returns both contexts and pages, both at the table."""
    alice = browser.new_context(viewport={"width": 1280, "height": 800})
    bob = browser.new_context(**{"viewport": {"width": 1280, "height": 800}, **bob_ctx})
    pa, pb = alice.new_page(), bob.new_page()
    pa.goto(server.url + "/")
    pa.click("label:has(input[value=friend])")
    if clock is not None:
        pa.click(f"label:has(input[name=clock][value=\"{clock}\"])")
    pa.click("label:has(input[name=rounds][value=\"1\"])")
    pa.fill("input[name=name]", "Alice")
    pa.click("#start")
    pa.wait_for_selector("#invite-box:not(.hidden)")
    invite = pa.input_value("#invite-url")
    pa.click("#to-table")
    pa.wait_for_url(re.compile(r"/game/"))
    pb.goto(invite)
    pb.wait_for_selector("#join-form:not(.hidden)")
    pb.fill("input[name=name]", "Bob")
    pb.click("#join-form button")
    pb.wait_for_url(re.compile(r"/game/"))
    for p in (pa, pb):
        p.wait_for_selector("#hand .card")
    return alice, bob, pa, pb
