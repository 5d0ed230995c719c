"""The lobby in real headless Chromium: two signed-up players meet in the lobby (one opens a
rated one-round table, the other joins it from the list), play the whole round, and both
ratings change by the figures the glicko2 package computes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lostcities.web import ratings
from tests.web.e2e_helpers import (
    CHROMIUM,
    play_one_turn,
    shot,
    sign_up,
    wait_my_turn_or_end,
    watch_errors,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("glicko2")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def rating_on_profile(page: Any, url: str, username: str) -> int:
    page.goto(f"{url}/players/{username}")
    cell = page.locator("table.ratings tbody tr").first.locator("td").nth(1).inner_text()
    m = re.match(r"(\d+)", cell)
    assert m, cell
    return int(m.group(1))


def test_two_players_meet_in_the_lobby_and_play_a_rated_match(browser: Any, server: Any) -> None:
    alice, pa = sign_up(browser, server.url, "alice")
    bob, pb = sign_up(
        browser,
        server.url,
        "bob",
        viewport={"width": 375, "height": 800},
        is_mobile=True,
        has_touch=True,
    )
    errors = watch_errors(pa, pb)
    # Alice opens a rated one-round table; Bob sees it listed live and joins it
    pa.click('label:has(input[name=rounds][value="1"])')
    pa.check("#lobby-rated")
    pa.click("#lobby-open")
    pa.wait_for_selector("#lobby-mine li")
    row = pb.locator("#lobby-tables tbody tr", has_text="alice")
    row.wait_for()
    assert "Rated" in row.inner_text()
    assert pb.evaluate("() => document.documentElement.scrollWidth") <= 376
    shot(pb, "lobby-phone")
    row.locator("button[data-join]").click()
    pb.wait_for_url(re.compile(r"/game/"))
    pa.wait_for_url(re.compile(r"/game/"), timeout=15000)  # the owner's page follows
    game_id = pa.url.rsplit("/", 1)[1]
    assert pb.url.endswith(game_id)
    for p in (pa, pb):
        p.wait_for_selector("#hand .card")
    # the whole round, each making the first legal card action and drawing from the deck
    page = other = None
    for _ in range(200):
        mine = [p for p in (pa, pb) if "mine" in (p.get_attribute("#status", "class") or "")]
        if mine:
            page, other = mine[0], (pb if mine[0] is pa else pa)
            break
        pa.wait_for_timeout(50)
    assert page is not None and other is not None
    explain = {"done": True}
    moves = 0
    while True:
        deck = int(page.inner_text("#deck-n"))
        play_one_turn(page, explain=explain)
        moves += 1
        other.wait_for_function(f"() => document.querySelectorAll('#log .n').length >= {moves}")
        if deck == 1:
            break
        wait_my_turn_or_end(other)
        page, other = other, page
    # both ratings changed by the package's figures for this result
    summary = pa.request.get(f"{server.url}/api/games/{game_id}").json()
    score = ratings.outcome(summary["result"])
    assert score is not None
    new_a, new_b = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, score)
    for _ in range(100):
        board = pa.request.get(f"{server.url}/api/leaderboard?speed=untimed").json()["players"]
        if len(board) == 2:
            break
        pa.wait_for_timeout(100)
    assert {p["name"]: p["rating"] for p in board} == {
        "alice": round(new_a.rating),
        "bob": round(new_b.rating),
    }
    assert rating_on_profile(pa, server.url, "alice") == round(new_a.rating)
    assert rating_on_profile(pb, server.url, "bob") == round(new_b.rating)
    change = pb.locator(f"#profile-games tr[data-game='{game_id}'] .rating-change").inner_text()
    assert float(change) == round(new_b.rating - 1500.0, 1)
    shot(pb, "profile-phone")
    assert not errors, errors
    alice.close()
    bob.close()


AXE = Path(__file__).parent / "data" / "axe.min.js"


def serious_findings(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the page as it is."""
    page.add_script_tag(path=str(AXE))  # (the context bypasses the CSP only to add axe)
    result = page.evaluate("async () => await axe.run(document)")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def test_the_lobby_pages_have_no_serious_accessibility_findings(browser: Any, server: Any) -> None:
    ctx, page = sign_up(browser, server.url, "carol", bypass_csp=True)
    page.click("#lobby-open")  # a table of hers is listed (and "waiting" shown)
    page.wait_for_selector("#lobby-tables tbody tr")
    found = {"/lobby": serious_findings(page)}
    for path in ("/leaderboard", "/players/carol", "/my-games"):
        page.goto(server.url + path)
        found[path] = serious_findings(page)
    assert found == {k: [] for k in found}, found
    # the lobby works from the keyboard: Enter on the focused "Play now" starts a seek
    page.goto(server.url + "/lobby")
    page.focus("#lobby-play-now")
    page.keyboard.press("Enter")
    page.wait_for_selector("#lobby-mine li >> text=Play now")
    ctx.close()
