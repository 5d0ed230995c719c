"""Fixtures for the web tests: real server processes, TestClient apps, database URLs."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

PG_ENV = "LOSTCITIES_TEST_POSTGRES_URL"


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import webharness  # noqa: E402  (benchmarks/webharness.py: the one server harness)

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


class Server(webharness.Server):
    """``lostcities serve`` as a subprocess on a free loopback port (:class:`webharness.Server`)
    with the tests' settings (:data:`TEST_ENV`, then ``env``), logging into ``tmp``."""

    def __init__(self, db_url: str, tmp: Path, env: dict[str, str] | None = None) -> None:
        super().__init__(
            db_url, tmp / f"server-{uuid.uuid4().hex[:6]}.log", {**TEST_ENV, **(env or {})}
        )


@pytest.fixture(scope="session", autouse=True)
def compiled_search() -> None:
    """Compile the search kernels into numba's on-disk cache once per test process (a load
    of a few seconds when the cache is fresh), so that no test server spends its start-up
    timeout compiling them: after a change to lostcities/fast every server start did, and
    two servers starting at once on a loaded machine took over a minute."""
    from lostcities.web.workers import prepare_search

    prepare_search()


def db_params() -> list[Any]:
    params: list[Any] = ["sqlite"]
    if os.environ.get(PG_ENV):
        params.append("postgresql")
    else:
        params.append(
            pytest.param("postgresql", marks=pytest.mark.skip(reason=f"{PG_ENV} not set"))
        )
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


def app_settings(db_url: str, **overrides: Any) -> Any:
    """The tests' app :class:`~lostcities.web.deps.Settings` (as :data:`TEST_ENV` sets a
    server's): bots in threads, no delay, the random bot for "easy", no per-client limits
    (scripted play is fast; the limits: test_web_limits.py), deals from :data:`TEST_DEAL_SEED`."""
    from lostcities.web.deps import Settings
    from lostcities.web.games import LEVELS, Level
    from lostcities.web.limits import Limits

    kw: dict[str, Any] = {
        "bot_executor": "thread",
        "bot_min_delay": 0.0,
        "levels": {**LEVELS, "easy": Level("random", "Easy")},
        "limits": Limits.off(),
        "test_deal_seed": TEST_DEAL_SEED,
    }
    return Settings(db_url=db_url, **{**kw, **overrides})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    """A TestClient on a temp SQLite file (:func:`app_settings`)."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app

    with TestClient(create_app(app_settings(f"sqlite:///{tmp_path / 'app.db'}"))) as c:
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


def friend_tables(
    browser: Any, server: Any, *, clock: str | None = None, **bob_ctx: Any
) -> tuple[Any, Any, Any, Any]:
    """Alice creates a one-round friend game on the home page, Bob joins by the invite link;
    returns both contexts and pages, both at the table."""
    alice = browser.new_context(viewport={"width": 1280, "height": 800})
    bob = browser.new_context(**{"viewport": {"width": 1280, "height": 800}, **bob_ctx})
    pa, pb = alice.new_page(), bob.new_page()
    pa.goto(server.url + "/")
    pa.click("label:has(input[value=friend])")
    if clock is not None:
        pa.click(f'label:has(input[name=clock][value="{clock}"])')
    pa.click('label:has(input[name=rounds][value="1"])')
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


@pytest.fixture
def web(db_url: str) -> Iterator[Any]:
    """A TestClient on a fresh database: SQLite, and PostgreSQL when the tests have one."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app

    with TestClient(create_app(app_settings(db_url))) as c:
        yield c


def csrf(c: Any) -> dict[str, str]:
    """The CSRF header of the client's browser (asks for the cookie once)."""
    from lostcities.web import accounts as acc

    tok = c.cookies.get(acc.CSRF_COOKIE) or c.get("/api/accounts/csrf").json()["csrf"]
    return {"X-CSRF-Token": tok}
