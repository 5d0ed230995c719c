"""The table's clock and its end-of-round popups in real headless Chromium (issue 37): the
countdown runs to the deadline the server gave, whatever the page redraws (a card chosen,
Cancel, Back); the popups put the focus on the button that goes on (Next round, Rematch),
so Enter never shows an old round again."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, DESKTOP, friend_game, friend_tables, watch_errors
from tests.web.web_helpers import move, ok, to_move

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def shown_seconds(page: Any) -> int:
    """The seconds the move clock shows ("Alice: 0:57 left")."""
    m = re.search(r"(\d+):(\d\d)", page.inner_text("#clock"))
    assert m, page.inner_text("#clock")
    return 60 * int(m.group(1)) + int(m.group(2))


def test_a_redraw_keeps_the_countdown_running(browser: Any, server: Any) -> None:
    alice, bob, pa, pb = friend_tables(browser, server, clock="60")
    errors = watch_errors(pa, pb)
    pa.wait_for_function("() => document.querySelector('#status').classList.contains('mine')")
    pa.wait_for_selector("#clock:not(.hidden)")
    # the player thinks a few seconds: the clock counts down from 1:00
    pa.wait_for_function(
        "() => /0:5[0-7]/.test(document.querySelector('#clock').textContent)", timeout=15000
    )
    before = shown_seconds(pa)
    # a card chosen, Cancel, a card chosen again, Play, Back: each redraws the table, and
    # the clock goes on from where it was (it jumped back to 1:00 at each)
    pa.locator("#hand .card.legal").first.click()
    assert shown_seconds(pa) <= before
    pa.click("#actions >> text=Cancel")
    assert shown_seconds(pa) <= before
    pa.locator("#hand .card.legal").first.click()
    pa.click("#actions [data-act=play]")
    pa.wait_for_selector("#actions >> text=Back")
    assert shown_seconds(pa) <= before
    pa.click("#actions >> text=Back")
    assert shown_seconds(pa) <= before
    assert not errors, errors
    alice.close()
    bob.close()


def focused(page: Any, selector: str) -> bool:
    return bool(
        page.evaluate(
            "(s) => !!document.activeElement && document.activeElement.matches(s)", selector
        )
    )


def play_rounds(server: Any, gid: str, tokens: list[str], rounds: int) -> None:
    """The first legal move of the player to move, until ``rounds`` rounds are over."""
    while True:
        st = ok(server, "GET", f"/api/games/{gid}/state", None, {"X-Seat-Token": tokens[0]})
        if len(st["match"]["rounds"]) >= rounds or st["match"]["over"]:
            return
        move(server, gid, tokens[to_move(server, gid, tokens[0])], {})


def test_the_popups_focus_the_button_that_goes_on(browser: Any, server: Any) -> None:
    g, tokens = friend_game(server, rounds=3)
    play_rounds(server, g["id"], tokens, 2)
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.goto(server.url + f"/game/{g['id']}")
    # the second round is over: the round buttons are there, the focus is on Next round
    page.wait_for_selector("#modal:not(.hidden)")
    assert "Round 2 of 3" in page.inner_text("#modal-title")
    assert page.locator("#modal-buttons [aria-label='previous round']").is_enabled()
    assert focused(page, "#modal-buttons button.primary"), page.evaluate(
        "() => document.activeElement.outerHTML"
    )
    assert page.inner_text("#modal-buttons button.primary") == "Next round"
    # going back a round keeps the focus on the round buttons, not on Close
    page.click("#modal-buttons [aria-label='previous round']")
    page.wait_for_function(
        "() => document.querySelector('#modal-board h3').textContent.includes('round 1')"
    )
    assert focused(page, "#modal-buttons [aria-label='next finished round']")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('#modal-board h3').textContent.includes('round 2')"
    )
    assert focused(page, "#modal-buttons [aria-label='previous round']")
    page.keyboard.press("Escape")
    page.wait_for_selector("#modal.hidden", state="attached")
    # the match ends: the focus is on Rematch, and Enter asks for it
    play_rounds(server, g["id"], tokens, 3)
    page.wait_for_function(
        "() => document.querySelector('#modal-title').textContent.includes('Match over')"
    )
    page.wait_for_selector("#modal:not(.hidden)")
    assert page.locator("#modal-buttons [aria-label='previous round']").is_enabled()
    assert focused(page, "#modal-buttons button.primary")
    assert page.inner_text("#modal-buttons button.primary") == "Rematch"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/game/(?!" + g["id"] + r")"))
    assert not errors, errors
    ctx.close()
