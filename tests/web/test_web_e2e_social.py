"""A friend game's move clock and quick chat in real headless Chromium (two browsers by
invite link): the clock chosen at creation counts down on both tables, a phrase sent by one
player shows on both in their own words, and muting hides it. The tutorial from the home page:
its first explanations, one when the first expedition is started, and skipping it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import (
    CHROMIUM,
    friend_tables,
    shot,
    start_tutorial,
    wait_my_turn_or_end,
    watch_errors,
)

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def test_clock_and_quick_chat_between_two_browsers(browser: Any, server: Any) -> None:
    home = browser.new_context().new_page()
    home.goto(server.url + "/")
    assert home.locator("#clock-field").is_hidden()  # computer games have no clock
    home.context.close()
    alice, bob, pa, pb = friend_tables(
        browser, server, clock="60", viewport={"width": 375, "height": 740}, locale="fr-FR"
    )
    errors = watch_errors(pa, pb)
    for p in (pa, pb):
        p.wait_for_selector("#clock:not(.hidden)")
        assert re.search(r"[01]:\d\d", p.inner_text("#clock")), p.inner_text("#clock")
    first = pa.inner_text("#clock")
    pa.wait_for_function(
        "(t) => document.querySelector('#clock').textContent !== t", arg=first, timeout=5000
    )
    # chat: Alice says good luck; Bob reads it in French
    pa.click("#chat-buttons button[data-phrase=good_luck]")
    pb.wait_for_function(
        "() => document.querySelector('#chat-log').textContent.includes('Bonne chance')"
    )
    pa.wait_for_function(
        "() => document.querySelector('#chat-log').textContent.includes('Alice: Good luck!')"
    )
    shot(pa, "chat-clock-1280")
    # an emote: the same picture for both, its name in each reader's language
    emote = pa.locator("#chat-buttons button[data-phrase=emote_thumbs_up]")
    assert emote.inner_text() == "👍" and emote.get_attribute("aria-label") == "thumbs up"
    assert (
        pb.get_attribute("#chat-buttons button[data-phrase=emote_thumbs_up]", "aria-label")
        == "pouce levé"
    )
    emote.click()
    pb.wait_for_function(
        "() => document.querySelector('#chat-log').textContent.includes('Alice : 👍')"
    )
    pa.wait_for_function(
        "() => document.querySelector('#chat-log').textContent.includes('Alice: 👍')"
    )
    # Bob mutes: the log empties and later phrases are not shown
    pb.check("#mute-chat")
    pa.click("#chat-buttons button[data-phrase=wow]")
    pa.wait_for_function("() => document.querySelector('#chat-log').textContent.includes('Wow')")
    pb.wait_for_timeout(300)
    assert pb.inner_text("#chat-log") == "" and pb.locator("#chat-buttons").is_hidden()
    pb.reload()
    pb.wait_for_selector("#hand .card")
    assert pb.is_checked("#mute-chat")  # remembered
    assert not errors, errors
    alice.close()
    bob.close()


def test_tutorial_explains_rules_as_they_matter_and_can_be_skipped(
    browser: Any, server: Any
) -> None:
    ctx, page, errors = start_tutorial(browser, server.url, {"width": 1280, "height": 800})
    assert "play one card" in page.inner_text("#tutorial-text")
    page.click("#tutorial-ok")
    assert page.locator("#tutorial").is_hidden()
    # start an expedition: the 20-point cost and the ascending order are explained then
    wait_my_turn_or_end(page)
    legal = page.locator("#hand .card.legal")
    legal.first.click()
    page.click("#actions [data-act=play]")
    page.wait_for_selector("#drawpile.drawable")
    page.click("#drawpile")
    page.wait_for_function(
        "() => document.querySelector('#tutorial-text').textContent.includes('20 points')"
    )
    assert "higher than the last" in page.inner_text("#tutorial-text")
    # beside the table (the side column), so the tips push nothing: the draw pile stays on
    # screen above the sticky hand, the tip's buttons too
    assert page.locator("aside.side > #tutorial").count() == 1
    pile, hand = page.locator("#drawpile").bounding_box(), page.locator("#hand-wrap").bounding_box()
    ok = page.locator("#tutorial-ok").bounding_box()
    assert (
        pile
        and hand
        and ok
        and pile["y"] + pile["height"] <= hand["y"]
        and ok["y"] + ok["height"] <= 800
    )
    shot(page, "tutorial-1280")
    page.click("#tutorial-skip")
    page.reload()
    page.wait_for_selector("#hand .card")
    page.wait_for_timeout(300)
    assert page.locator("#tutorial").is_hidden()  # skipped for good
    # a game not started from the tutorial button never shows it
    page.goto(server.url + "/")
    page.click("label:has(input[value=easy])")
    page.click("#start")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#hand .card")
    assert page.locator("#tutorial").is_hidden()
    assert not errors, errors
    ctx.close()
