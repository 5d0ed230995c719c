""" "Play now" in real headless Chromium (issue 37): a tab closed without Cancel leaves no
seek behind, a player waiting in two tabs counts once and both tabs go to the game; the
page says whom a seek waits for (casual: anyone with the settings; rated: a rating range
that widens as it waits)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, sign_up, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("glicko2")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def play_now(page: Any) -> None:
    page.click('label:has(input[name=rounds][value="1"])')
    page.click("#lobby-play-now")
    page.wait_for_selector("#lobby-mine li >> text=Play now")


def waiting_text(page: Any, text: str) -> None:
    page.wait_for_function(
        "(t) => document.querySelector('#lobby-seeks').textContent === t", arg=text
    )


def test_a_closed_tab_leaves_no_seek_behind(browser: Any, server: Any) -> None:
    bob, first = sign_up(browser, server.url, "bob")
    alice, pa = sign_up(browser, server.url, "alice")
    errors = watch_errors(first, pa)
    # Bob presses Play now, and closes the tab without Cancel: nobody waits any more
    play_now(first)
    waiting_text(pa, "1 player waiting for Play now")
    first.close()
    waiting_text(pa, "")
    # he opens the lobby in two tabs and presses Play now in both: he waits once
    tabs = []
    for _ in range(2):
        tab = bob.new_page()
        errors += watch_errors(tab)
        tab.goto(server.url + "/lobby")
        play_now(tab)
        tabs.append(tab)
    waiting_text(pa, "1 player waiting for Play now")
    assert pa.request.get(server.url + "/api/lobby").json()["seeks"] == 1
    # Alice is paired with him, and both his tabs go to their game
    pa.click('label:has(input[name=rounds][value="1"])')
    pa.click("#lobby-play-now")
    pa.wait_for_url(re.compile(r"/game/"))
    game = pa.url.rsplit("/", 1)[1]
    for tab in tabs:
        tab.wait_for_url(re.compile(rf"/game/{game}$"), timeout=15000)
    for p in (pa, *tabs):
        p.wait_for_selector("#hand .card")
    # each at the table with the other there (● : connected), not waiting for an absent Bob
    for p, other in ((pa, "bob"), *((tab, "alice") for tab in tabs)):
        p.wait_for_function(
            "(n) => document.querySelector('#opp-name').textContent === n + ' ●'", arg=other
        )
    assert not errors, errors
    alice.close()
    bob.close()


def test_a_seek_says_whom_it_waits_for(browser: Any, server: Any) -> None:
    ctx, page = sign_up(browser, server.url, "carol")
    # casual: anyone who asks for the same settings, at once
    page.click("#lobby-play-now")
    line = page.locator("#lobby-mine [data-search]")
    line.wait_for()
    assert line.inner_text() == "Casual: you play the first player who asks for these settings"
    page.click("#lobby-mine [data-cancel]")
    line.wait_for(state="detached")
    # rated: a rating range that widens as the seek waits
    page.check("#lobby-rated")
    page.click("#lobby-play-now")
    line = page.locator("#lobby-mine [data-search]")
    line.wait_for()
    first = line.inner_text()
    m = re.fullmatch(r"Rated: players rated (\d+)–(\d+); widening the search…", first)
    assert m and 1400 <= int(m.group(1)) < 1500 < int(m.group(2)) <= 1600, first
    page.wait_for_function(
        "(t) => document.querySelector('#lobby-mine [data-search]').textContent !== t", arg=first
    )
    m2 = re.fullmatch(r"Rated: players rated (\d+)–(\d+); widening the search…", line.inner_text())
    assert m2 and int(m2.group(1)) < int(m.group(1)), line.inner_text()
    ctx.close()
