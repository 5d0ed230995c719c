"""Helpers of the web tests (``from tests.web.web_helpers import app_settings``): the test
server (:class:`Server`), the tests' app settings, the CSRF header, and the browser steps
the Playwright tests share.

The fixtures are in tests/web/conftest.py, which no test module imports: ``conftest`` is a
bare module name that each test directory's conftest.py has, so ``from conftest import ...``
found whichever pytest had loaded last (tests/envs/conftest.py in ``pytest tests/web
tests/envs``)."""

from __future__ import annotations

import re
import sys
import uuid
from pathlib import Path
from typing import Any

_BENCHMARKS = str(Path(__file__).resolve().parents[2] / "benchmarks")
if _BENCHMARKS not in sys.path:
    sys.path.insert(0, _BENCHMARKS)
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


def csrf(c: Any) -> dict[str, str]:
    """The CSRF header of the client's browser (asks for the cookie once)."""
    from lostcities.web import accounts as acc

    tok = c.cookies.get(acc.CSRF_COOKIE) or c.get("/api/accounts/csrf").json()["csrf"]
    return {"X-CSRF-Token": tok}
