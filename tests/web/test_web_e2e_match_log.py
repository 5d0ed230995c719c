"""The whole match in the table's log, and the chat after a reload, in real headless
Chromium (issue 26, web 13): a three-round game's log keeps round 1 under its header once
round 2 is dealt, through a reload and a server restart; a friend game's chat is shown
again, in order, after a reload and after a restart."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, friend_tables, shot, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def _state(page: Any, url: str, gid: str, token: str) -> dict[str, Any]:
    r = page.request.get(f"{url}/api/games/{gid}/state", headers={"X-Seat-Token": token})
    assert r.ok, r.text()
    out: dict[str, Any] = r.json()
    return out


def _play_round_by_api(page: Any, url: str, gid: str, token: str) -> dict[str, Any]:
    """Seat 0 draws from the draw pile every move until the next round is dealt (the
    computer answers meanwhile); the state then."""
    s = _state(page, url, gid, token)
    start = s["round"]
    deadline = time.monotonic() + 120
    while s["round"] == start:
        assert time.monotonic() < deadline, "the round never ended"
        v = s["view"]
        if v["to_move"] == 0 and not v["over"]:
            move = next(m for m in v["legal"] if m.endswith("."))
            r = page.request.post(
                f"{url}/api/games/{gid}/moves",
                data={"token": token, "move": move, "round": s["round"], "ply": v["ply"]},
            )
            assert r.ok, r.text()
        else:
            time.sleep(0.02)
        s = _state(page, url, gid, token)
    return s


def _log(page: Any) -> tuple[list[str], int]:
    heads = page.locator("#log .round-head").all_inner_texts()
    return heads, page.locator("#log .say").count()


def test_the_log_keeps_the_whole_match_through_a_reload_and_a_restart(
    browser: Any, server_factory: Any, tmp_path: Path
) -> None:
    server = server_factory(f"sqlite:///{tmp_path / 'log.db'}")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.click("label:has(input[value=easy])")
    page.click('label:has(input[name=rounds][value="3"])')
    page.fill("input[name=name]", "Ada")
    page.click("#start")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#hand .card")
    gid = page.url.rstrip("/").split("/")[-1]
    token = page.evaluate("(id) => LC.tokenFor(id)", gid)
    s = _play_round_by_api(page, server.url, gid, token)
    first = s["match"]["rounds"][0]["history"]
    assert s["round"] == 1 and len(first) > 10
    expected = len(first) + len(s["view"]["history"])
    page.reload()
    page.wait_for_selector("#log .round-head")
    heads, says = _log(page)
    assert heads[0].startswith("Round 1") and heads[1].startswith("Round 2"), heads
    assert re.search(r"You -?\d+ · Computer \(Easy\) -?\d+", heads[0]), heads  # its score
    assert says >= expected, (says, expected)  # every move of round 1, then round 2's
    assert "Ada plays" not in page.inner_text("#log")  # "You ..." for the reader's own moves
    page.locator("#log").evaluate("(el) => { el.scrollTop = 0; }")
    shot(page, "match-log-1280")
    # a server restart (kill -9, as in a crash): the page reconnects; the log is the same
    port = server.port
    server.kill()
    server.start_on(port)
    page.reload()
    page.wait_for_selector("#log .round-head")
    heads2, says2 = _log(page)
    assert heads2[:2] == heads[:2] and says2 >= expected
    assert not errors, errors
    ctx.close()


def test_the_chat_is_shown_again_after_a_reload_and_a_restart(
    browser: Any, server_factory: Any, tmp_path: Path
) -> None:
    server = server_factory(f"sqlite:///{tmp_path / 'chat.db'}")
    alice, bob, pa, pb = friend_tables(browser, server)
    errors = watch_errors(pa, pb)
    pa.click("#chat-buttons button[data-phrase=hello]")
    pb.wait_for_function("() => document.querySelector('#chat-log').textContent.includes('Hello')")
    pb.click("#chat-buttons button[data-phrase=good_luck]")
    pa.wait_for_function(
        "() => document.querySelector('#chat-log').textContent.includes('Good luck')"
    )
    said = pb.locator("#chat-log > div").all_inner_texts()
    assert len(said) == 2 and said[0].startswith("Alice") and said[1].startswith("Bob"), said
    pb.reload()
    pb.wait_for_selector("#hand .card")
    pb.wait_for_function("() => document.querySelectorAll('#chat-log > div').length === 2")
    assert pb.locator("#chat-log > div").all_inner_texts() == said  # in order, once each
    port = server.port
    server.kill()
    server.start_on(port)
    pa.reload()
    pa.wait_for_selector("#hand .card")
    pa.wait_for_function("() => document.querySelectorAll('#chat-log > div').length === 2")
    assert pa.locator("#chat-log > div").all_inner_texts() == said
    shot(pa, "chat-after-reload-1280")
    assert not errors, errors
    alice.close()
    bob.close()
