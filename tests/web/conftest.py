"""Fixtures for the web tests: real server processes, TestClient apps, database URLs.

A test module imports its helpers from :mod:`tests.web.web_helpers`, never from here:
``conftest`` is a bare module name that each test directory's conftest.py has."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from tests.web.web_helpers import PG_ENV, Server, app_settings, pg_schema


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
    from tests.web.e2e_helpers import ARGS, CHROMIUM

    if not Path(CHROMIUM).exists():
        pytest.skip("needs /usr/bin/chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def web(db_url: str) -> Iterator[Any]:
    """A TestClient on a fresh database: SQLite, and PostgreSQL when the tests have one."""
    from fastapi.testclient import TestClient

    from lostcities.web.app import create_app

    with TestClient(create_app(app_settings(db_url))) as c:
        yield c
