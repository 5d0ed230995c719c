"""End-to-end (real Chromium, real server): a hint in a game against the computer, then the
analysis page of the finished game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import shot, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def my_turn(page: Any) -> None:
    page.wait_for_function(
        "() => document.querySelector('#status').classList.contains('mine')", timeout=20000
    )


def test_hint_then_analysis_page(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.on("dialog", lambda d: d.accept())
    page.goto(server.url + "/")
    page.click("label:has(input[value=easy])")
    page.click('label:has(input[name=rounds][value="1"])')
    page.click("#start")
    page.wait_for_url(re.compile(r"/game/"))
    gid = page.url.rsplit("/", 1)[1]
    my_turn(page)
    page.click("#hint-button")
    page.wait_for_function(
        "() => document.querySelector('#engine-hint').textContent.startsWith('Hint: ')"
    )
    text = page.locator("#engine-hint").inner_text()
    # in the log's words (issue 26: it said "Hint: -b2.")
    said = r"(play|discard) [\w ]+ and (draw from the deck|take the top of the \w+ pile)"
    assert re.search(
        rf"Hint: {said} \(expected margin [+-]?\d+\.\d, \d+% to win the round\)", text
    ), text
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
    assert re.search(rf"to move: {said}", page.locator("#analysis-move").inner_text())
    summary = page.request.get(f"{server.url}/api/games/{gid}").json()
    assert summary["assisted"] and summary["hints"] == 1
    assert '[Assisted "1 hint"]' in page.request.get(f"{server.url}/api/games/{gid}/record").text()
    assert not errors, errors
    ctx.close()


def test_the_analysis_speaks_the_page_language_and_the_logs_words(
    browser: Any, server: Any
) -> None:
    """The analysis page in French: the computer's name translated ("Computer (Expert)" stayed
    English), the moves in the log's words, their notation only behind the log's switch (the
    analysis itself is routed: a real one takes minutes on a loaded machine)."""
    status, g = server.request(
        "POST", "/api/games", {"opponent": "computer", "level": "easy", "rounds": 1, "name": "Ana"}
    )
    assert status == 201
    status, _ = server.request("POST", f"/api/games/{g['id']}/resign", {"token": g["token"]})
    assert status == 200
    analysis = {
        "status": "done",
        "bot": "expert",
        "worlds": 8,
        "players": ["Ana", "Computer (Expert)"],
        "summary": [
            {
                "player": p,
                "accuracy": 90.0,
                "average_loss": 1.0,
                "inaccuracies": 1,
                "mistakes": 0,
                "blunders": 0,
            }
            for p in (0, 1)
        ],
        "moves": [
            {
                "round": 1,
                "ply": 0,
                "player": 1,
                "move": "-y2.",
                "best": "+b3g",
                "win": 0.4,
                "best_win": 0.5,
                "loss": 2.5,
                "mark": "inaccuracy",
            }
        ],
    }
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr-FR")
    page = ctx.new_page()
    errors = watch_errors(page)
    page.route("**/api/games/*/analysis", lambda route: route.fulfill(json=analysis))
    page.goto(server.url + f"/analysis/{g['id']}")
    page.wait_for_selector("#analysis-moves .analysis-row")
    row = page.locator("#analysis-moves .analysis-row").first
    assert "Ordinateur (Expert)" in page.locator("#analysis-summary").inner_text()
    text = row.inner_text()
    assert "Ordinateur (Expert)" in text and "Computer" not in text, text
    assert "défausser le" in text and "piocher" in text and "jouer le" in text, text
    assert "-y2." not in text and "+b3g" not in text, text
    row.click()
    said = page.locator("#analysis-move").inner_text()
    assert (
        said.startswith("Ordinateur (Expert) au trait : défausser le")
        and "mieux : jouer le" in said
    ), said
    page.check("#show-notation")
    assert "(-y2.)" in row.inner_text() and "(+b3g)" in row.inner_text()
    shot(page, "analysis-fr-words")
    assert not errors, errors
    ctx.close()
