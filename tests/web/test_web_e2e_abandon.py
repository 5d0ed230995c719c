"""A player who leaves, in real headless Chromium (issue 37, item 4): two browsers at a
friend game; before both have moved either may abort it; once both have, one closes the tab
(its socket drops), the other's page counts down the server's wait (a test server's short
``LOSTCITIES_ABANDON_SECONDS``) and then offers the claims; the claimed win ends the game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, friend_tables, play_one_turn, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

WAIT = 6
"""The test server's claim wait (seconds)."""


def mover(pa: Any, pb: Any) -> tuple[Any, Any]:
    """The page whose turn it is, and the other."""
    for _ in range(400):
        for p, q in ((pa, pb), (pb, pa)):
            if "mine" in (p.get_attribute("#status", "class") or ""):
                return p, q
        pa.wait_for_timeout(25)
    raise AssertionError("nobody's turn")


def test_abort_then_a_claim_after_the_opponent_left(browser: Any, server_factory: Any) -> None:
    server = server_factory(LOSTCITIES_ABANDON_SECONDS=str(WAIT))
    alice, bob, pa, pb = friend_tables(browser, server)
    errors = watch_errors(pa, pb)
    # before both have moved: Abort (asked first) beside Resign; it ends the game
    for p in (pa, pb):
        p.locator("#abort").wait_for()
    pa.once("dialog", lambda d: d.accept())
    pa.click("#abort")
    for p in (pa, pb):
        p.wait_for_function(
            "() => document.querySelector('#status-text').textContent === 'Game aborted: no result'"
        )
    alice.close()
    bob.close()
    # a second game: both move, then Bob closes his tab
    alice, bob, pa, pb = friend_tables(browser, server)
    errors += watch_errors(pa, pb)
    explain = {"done": True}
    for n in (1, 2):
        page, other = mover(pa, pb)
        play_one_turn(page, explain=explain)
        other.wait_for_function(f"() => document.querySelectorAll('#log .n').length >= {n}")
    for p in (pa, pb):
        p.wait_for_function("() => !document.querySelector('#abort')")
    assert pa.locator("#abandon-panel").is_hidden()
    bob.close()  # the socket drops
    pa.locator("#abandon-panel").wait_for()
    assert pa.locator("#abandon-text").inner_text() == "Bob left the game."
    assert re.fullmatch(r"You can claim victory in 0:0[1-6]\.", pa.inner_text("#abandon-time"))
    pa.locator("#claim-win").wait_for(timeout=20000)
    assert pa.locator("#abandon-text").inner_text().startswith("Bob left the game: you may claim")
    assert pa.locator("#claim-draw").is_visible()
    pa.click("#claim-win")
    pa.wait_for_function(
        "() => document.querySelector('#status-text').textContent.startsWith('Match over: you won')"
    )
    assert "Bob left the game" in pa.inner_text("#status-text")
    assert pa.locator("#abandon-panel").is_hidden()
    assert errors == []
