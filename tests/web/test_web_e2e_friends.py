"""Friend games in real headless Chromium, two browsers by invite link: the match clock
(both players' time on both tables, the increment added after a move)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_web_e2e import ARGS, CHROMIUM, play_one_turn, shot

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


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


def mover(pa: Any, pb: Any) -> tuple[Any, Any]:
    """(the page whose turn it is, the other)."""
    for _ in range(200):
        for p, q in ((pa, pb), (pb, pa)):
            if "mine" in (p.get_attribute("#status", "class") or ""):
                return p, q
        pa.wait_for_timeout(50)
    raise AssertionError("nobody's turn")


def test_match_clock_shows_both_times_and_adds_the_increment(browser: Any, server: Any) -> None:
    alice, bob, pa, pb = friend_tables(browser, server, clock="300+5")
    both = re.compile(r"^Alice (\d+):(\d\d) · Bob (\d+):(\d\d)$")
    for p in (pa, pb):
        p.wait_for_selector("#clock:not(.hidden)")
        assert both.match(p.inner_text("#clock")), p.inner_text("#clock")
    page, other = mover(pa, pb)
    me = 0 if page is pa else 1  # Alice's time is shown first

    def my_seconds(p: Any) -> int:
        m = both.match(p.inner_text("#clock"))
        assert m, p.inner_text("#clock")
        return int(m.group(1 + 2 * me)) * 60 + int(m.group(2 + 2 * me))

    first = page.inner_text("#clock")
    page.wait_for_function("(t) => document.querySelector('#clock').textContent !== t", arg=first, timeout=5000)
    before = my_seconds(page)
    assert before < 300  # counting down
    play_one_turn(page, explain={"done": True})  # (well under the 5 s increment)
    other.wait_for_function("() => document.querySelector('#status').classList.contains('mine')")
    for p in (pa, pb):
        assert before < my_seconds(p) <= before + 5, (before, p.inner_text("#clock"))
    shot(pa, "match-clock-1280")
    alice.close()
    bob.close()
