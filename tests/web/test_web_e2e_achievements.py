"""End-to-end in headless Chromium: a game with goal cards, chosen at creation, shows its
goals on the table, and claims are marked and animated."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import play_one_turn, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

# counts the goal cards that appear with the claim animation
WATCH = """
window.__claimed = [];
new MutationObserver((records) => {
  for (const r of records) for (const n of r.addedNodes)
    if (n.classList && n.classList.contains("claimed-now")) window.__claimed.push(n.dataset.goal);
}).observe(document, { childList: true, subtree: true });
"""


def _state(page: Any, server: Any) -> dict[str, Any]:
    gid = page.url.rsplit("/", 1)[1]
    js = f"""async () => {{
        const g = JSON.parse(localStorage.getItem("lostcities.games") || "[]").find((x) => x.id === {gid!r});
        const r = await fetch("/api/games/{gid}/state", {{ headers: {{ "X-Seat-Token": g.token }} }});
        return await r.json();
    }}"""
    out: dict[str, Any] = page.evaluate(js)
    return out


def test_a_goal_game_shows_its_goals_and_claims(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.add_init_script(WATCH)
    page.goto(server.url + "/")
    page.click("label:has(input[value=easy])")
    page.click('label:has(input[name=rounds][value="1"])')
    page.click("label:has(input[name=goals][value=on])")
    page.click("#start")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#goals .goal")
    st = _state(page, server)
    goals = st["view"]["goals"]
    assert len(goals) == 5
    shown = page.locator("#goals .goal")
    assert shown.count() == 5
    for i, g in enumerate(goals):
        card = shown.nth(i)
        assert card.get_attribute("data-goal") == g["id"]
        text = card.inner_text()
        assert g["name"] in text and g["text"] in text
        assert ("RACE" in text.upper()) == (g["kind"] == "race")
    # play the round out: first legal card, else discard; draw from the draw pile
    for _ in range(60):
        page.wait_for_function(
            """() => document.querySelector('#status').classList.contains('mine')
                     || document.querySelector('#status-text').textContent.startsWith('Match over')""",
            timeout=30000,
        )
        if page.locator("#status-text").inner_text().startswith("Match over"):
            break
        play_one_turn(page, explain={"done": True})  # (no illegal attempt first)
    page.wait_for_selector("#modal:not(.hidden)")
    final = _state(page, server)
    held = [g for g in final["view"]["goals"] if g["claimed_by"] is not None]
    assert held  # a round without a single goal taken is all but impossible (about 3 a round)
    seat = final["seat"]
    assert page.locator("#goals .goal.mine").count() == sum(g["claimed_by"] == seat for g in held)
    assert page.locator("#goals .goal.theirs").count() == sum(g["claimed_by"] != seat for g in held)
    claimed_now = page.evaluate("() => window.__claimed")
    assert sorted(set(claimed_now)) == sorted(g["id"] for g in held)  # each claim animated
    # the round's result lists the goals, and the scores count them
    results = page.locator("#modal-board .goal-results li")
    assert results.count() == 5
    summary = final["match"]["rounds"][0]
    assert summary["scores"][seat] == sum(
        e["score"] for e in summary["breakdown"][seat]
    ) + 10 * sum(g["claimed_by"] == seat for g in summary["goals"])
    assert errors == []
    ctx.close()
