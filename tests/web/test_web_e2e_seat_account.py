"""A seat follows its account, in real headless Chromium (issue 27): a signed-in player
starts a rated game against the computer from the home page in one browser context, and a
second context logged in as the same account (no token of the game in its storage) opens
the game with the player's seat and plays it; a guest's context only watches."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import (
    CHROMIUM,
    PASSWORD,
    play_one_turn,
    sign_up,
    wait_my_turn_or_end,
    watch_errors,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("glicko2")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def test_a_second_browser_of_the_account_plays_the_seat(browser: Any, server: Any) -> None:
    one, pa = sign_up(browser, server.url, "carol")
    errors = watch_errors(pa)
    # the home page: a rated one-round game against the easy computer, by keyboard
    pa.goto(server.url + "/")
    pa.click('label:has(input[name=level][value="easy"])')
    pa.click('label:has(input[name=rounds][value="1"])')
    pa.focus("#rated-choice input[value=casual]")
    pa.keyboard.press("ArrowRight")  # a radio group: the arrow chooses "Rated"
    assert pa.is_checked("#rated-choice input[value=rated]")
    assert pa.is_disabled("input[name=ties][value=me]")  # a rated tie is a draw
    pa.click("#start")
    pa.wait_for_url(re.compile(r"/game/"))
    game_id = pa.url.rsplit("/", 1)[1]
    pa.wait_for_selector("#hand .card")
    assert pa.locator("#rated").inner_text() == "Rated"
    assert pa.locator("#hint-button").count() == 0  # no hints in a rated game

    # a second browser: the same account logs in; its storage has no token of the game
    two = browser.new_context(viewport={"width": 1280, "height": 900})
    pb = two.new_page()
    errors_b = watch_errors(pb)
    pb.goto(server.url + "/login")
    pb.evaluate(
        "([u, p]) => LC.api('POST', '/api/accounts/login', { username: u, password: p })",
        ["carol", PASSWORD],
    )
    assert pb.evaluate(f"() => LC.tokenFor({game_id!r})") is None
    pb.goto(f"{server.url}/game/{game_id}")
    pb.wait_for_selector("#hand .card")
    assert "spectating" not in (pb.get_attribute("#status", "class") or "")
    explain = {"done": True}
    assert wait_my_turn_or_end(pb) == "turn"
    plies = pa.evaluate("() => document.querySelectorAll('#log .n').length")
    play_one_turn(pb, explain=explain)
    # the first browser sees the move the second made (and the computer's answer)
    pa.wait_for_function(
        f"() => document.querySelectorAll('#log .n').length > {plies}", timeout=15000
    )

    # a guest's browser only watches
    three = browser.new_context(viewport={"width": 1280, "height": 900})
    pc = three.new_page()
    pc.goto(f"{server.url}/game/{game_id}")
    pc.wait_for_selector("#status.spectating")
    assert pc.locator("#hand .card").count() == 0 or not pc.is_visible("#hand-wrap")
    assert errors == [] and errors_b == []
    for c in (one, two, three):
        c.close()
