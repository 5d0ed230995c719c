"""End-to-end (real Chromium, real server): a hint in a game against the computer, then the
analysis page of the finished game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def my_turn(page: Any) -> None:
    page.wait_for_function("() => document.querySelector('#status').classList.contains('mine')", timeout=20000)


def test_hint_then_analysis_page(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.on("dialog", lambda d: d.accept())
    page.goto(server.url + "/")
    page.click("label:has(input[value=easy])")
    page.click("label:has(input[name=rounds][value=\"1\"])")
    page.click("#start")
    page.wait_for_url(re.compile(r"/game/"))
    gid = page.url.rsplit("/", 1)[1]
    my_turn(page)
    page.click("#hint-button")
    page.wait_for_function("() => document.querySelector('#engine-hint').textContent.startsWith('Hint: ')")
    text = page.locator("#engine-hint").inner_text()
    assert re.search(r"Hint: [+-]\w+\S* \(expected margin [+-]?\d+\.\d, \d+% to win the round\)", text), text
    page.wait_for_selector("#assisted")
    assert "1 hint" in page.locator("#assisted").inner_text()
    for _ in range(4):  # a few moves: draw-pile plays or discards
        my_turn(page)
        ply = page.evaluate("() => document.querySelectorAll('#log .n').length")
        page.locator("#hand .card").first.click()
        page.click("#actions [data-act=discard]")
        page.wait_for_selector("#drawpile.drawable")
        page.click("#drawpile")
        page.wait_for_function(f"() => document.querySelectorAll('#log .n').length > {ply}")
    assert page.locator("#engine-hint").inner_text() == ""  # the hint was for an old position
    my_turn(page)
    page.click("#game-buttons >> text=Resign")
    page.wait_for_selector("#modal:not(.hidden)")
    page.click("#modal-buttons >> text=Analysis")
    page.wait_for_url(re.compile(r"/analysis/"))
    page.wait_for_selector("#analysis-moves .analysis-row", timeout=60000)
    rows = page.locator("#analysis-moves .analysis-row")
    assert rows.count() >= 8
    assert page.locator("#analysis-curves svg.curve").count() == 1
    assert "accuracy" in page.locator("#analysis-summary").inner_text()
    rows.nth(3).click()  # the position before move 4, and what the engine preferred
    assert page.locator("#ply-label").inner_text().startswith("Move 3 of")
    assert re.search(r"to move: played \S+", page.locator("#analysis-move").inner_text())
    summary = page.request.get(f"{server.url}/api/games/{gid}").json()
    assert summary["assisted"] and summary["hints"] == 1
    assert '[Assisted "1 hints"]' in page.request.get(f"{server.url}/api/games/{gid}/record").text()
    assert not errors, errors
    ctx.close()
