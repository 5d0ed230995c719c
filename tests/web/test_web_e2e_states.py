"""The table's end states at both viewport sizes, the language switch, and the screenshots
kept as test artefacts, in real headless Chromium.

The rounds are played through the HTTP API (fast), and the browser opens the table when a
round, then the match, is over: the result (the message line) and the buttons must be on
screen without scrolling, at 1280x800 and 375x740."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.web import e2e_helpers
from tests.web.e2e_helpers import (
    ARGS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    friend_game,
    new_game,
    on_screen,
    shot,
    start_tutorial,
    wait_my_turn_or_end,
    watch_errors,
)

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Any:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def play_until(server: Any, gid: str, tokens: list[str], rounds_done: int) -> None:
    """Play the first legal move until ``rounds_done`` rounds are over."""
    while True:
        status, st = server.request(
            "GET", f"/api/games/{gid}/state", headers={"X-Seat-Token": tokens[0]}
        )
        assert status == 200, st
        if len(st["match"]["rounds"]) >= rounds_done or st["match"]["over"]:
            return
        seat = st["view"]["to_move"]
        status, st = server.request(
            "GET", f"/api/games/{gid}/state", headers={"X-Seat-Token": tokens[seat]}
        )
        body = {
            "token": tokens[seat],
            "move": st["view"]["legal"][0],
            "round": st["round"],
            "ply": st["view"]["ply"],
        }
        status, out = server.request("POST", f"/api/games/{gid}/moves", body)
        assert status == 200, out


def modal_on_screen(page: Any) -> None:
    for sel in ("#modal-title", "#modal-result", "#modal-buttons"):
        on_screen(page, sel)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "375x740"])
def test_round_over_and_match_over_are_on_screen(
    browser: Any, server: Any, viewport: dict[str, int]
) -> None:
    g, tokens = friend_game(server, rounds=3)
    play_until(server, g["id"], tokens, rounds_done=1)
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.goto(server.url + f"/game/{g['id']}")
    # the first round is over: its result, final board and sheets, "Next round"
    page.wait_for_selector("#modal:not(.hidden)")
    assert "Round 1 of 3" in page.inner_text("#modal-title")
    modal_on_screen(page)
    shot(page, f"states-{viewport['width']}-round-over")
    page.click("#modal-buttons >> text=Next round")
    page.wait_for_selector("#modal.hidden", state="attached")
    page.wait_for_selector("#hand .card")
    for sel in ("#hand", "#hint"):
        on_screen(page, sel)
    # the last round's final board can be seen again during the next one
    page.click("#last-round")
    page.wait_for_selector("#modal:not(.hidden)")
    assert page.inner_text("#modal-board h3") == "Final board · round 1"
    modal_on_screen(page)
    page.keyboard.press("Escape")
    page.wait_for_selector("#modal.hidden", state="attached")
    # the other rounds are played elsewhere: the match ends on this table
    play_until(server, g["id"], tokens, rounds_done=3)
    page.wait_for_function(
        "() => document.querySelector('#modal-title').textContent.includes('Match over')"
    )
    page.wait_for_selector("#modal:not(.hidden)")
    modal_on_screen(page)
    shot(page, f"states-{viewport['width']}-match-over")
    assert not errors, errors
    ctx.close()


def test_the_language_switch_is_remembered(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    page.goto(server.url + "/")
    assert page.get_attribute("html", "lang") == "en"
    with page.expect_navigation():
        page.select_option("#lang-switch", "fr")
    assert page.get_attribute("html", "lang") == "fr"
    assert "Nouvelle partie" in page.inner_text("main")
    assert page.evaluate("() => LC.t('nav.rules')") == "Règles"
    assert {c["name"]: c["value"] for c in ctx.cookies()}.get("lc_lang") == "fr"
    shot(page, "home-fr")
    # the table's log in French: my move and the computer's, in words
    status, g = server.request(
        "POST", "/api/games", {"opponent": "computer", "level": "easy", "rounds": 1, "name": "Ana"}
    )
    assert status == 201, g
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.goto(server.url + f"/game/{g['id']}")
    page.wait_for_function("() => document.querySelector('#status').classList.contains('mine')")
    page.locator("#hand .card").first.click()
    page.click("#actions [data-act=discard]")
    page.click("#drawpile")
    page.wait_for_function("""() => {
      const says = [...document.querySelectorAll('#log .say')].map((e) => e.textContent);
      return says.some((x) => x.startsWith('Vous')) && says.some((x) => x.startsWith('Ordinateur'));
    }""")
    says = page.locator("#log .say").all_inner_texts()
    assert any(re.fullmatch(r"Vous défaussez le .+ et piochez", x) for x in says), says
    assert any(re.match(r"Ordinateur \(Facile\) (joue|défausse) le ", x) for x in says), says
    # remembered: another page, and a new tab, are in French although the browser says English
    page.goto(server.url + "/rules")
    assert page.get_attribute("html", "lang") == "fr"
    other = ctx.new_page()
    other.goto(server.url + "/calculator")
    assert other.get_attribute("html", "lang") == "fr" and other.input_value("#lang-switch") == "fr"
    with other.expect_navigation():
        other.select_option("#lang-switch", "ko")
    assert other.get_attribute("html", "lang") == "ko"
    page.reload()
    assert page.get_attribute("html", "lang") == "ko"
    ctx.close()


def focused(page: Any, selector: str) -> bool:
    return bool(
        page.evaluate(
            "(s) => !!document.activeElement && document.activeElement.matches(s)", selector
        )
    )


def tab_to(page: Any, selector: str, limit: int = 60) -> None:
    """Press Tab until the focus is on ``selector``."""
    for _ in range(limit):
        if focused(page, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def test_turns_by_keyboard_alone(browser: Any, server: Any) -> None:
    """A card chosen, discarded and a card drawn by Tab and Enter alone; after each step the
    focus is on the next one (Play, the draw pile, the hand), not back at the top of the page."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    new_game(page, server.url)
    for turn in range(2):
        assert wait_my_turn_or_end(page) == "turn"
        n = page.locator("#log .n").count()
        tab_to(page, "#hand .card")
        # screen readers: the card is named by its colour and rank, not its notation
        name = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
        assert re.fullmatch(r"(yellow|blue|white|green|red) (\d+|wager)", name), name
        card = page.evaluate("() => document.activeElement.dataset.card")
        page.keyboard.press("Enter")
        assert page.locator("#hand .card.selected").count() == 1
        assert focused(page, "#actions [data-act=play]")
        tab_to(page, "#actions [data-act=discard]", limit=3)
        page.keyboard.press("Enter")
        assert focused(page, "#drawpile")
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => document.querySelectorAll('#log .n').length >= {n + 2}")
        assert wait_my_turn_or_end(page) == "turn"
        pile = page.get_attribute(f"#piles .pile[data-color='{card[0]}']", "aria-label")
        # (the computer may have taken the card back off it)
        assert re.fullmatch(
            rf"{name.split()[0]} discard pile, (\d+ cards?, top: \w+ (\d+|wager)|empty)", pile or ""
        ), pile
        assert focused(page, "#hand .card"), turn  # ready for the next turn
    ctx.close()


def test_the_tutorial_explains_every_rule_by_the_end_of_its_round(
    browser: Any, server: Any
) -> None:
    """The tutorial's round played to its end (the person's moves over HTTP, the table
    watching): each rule was explained on the way, the 8-card bonus once an expedition
    reached 4 cards."""
    ctx, page, _ = start_tutorial(browser, server.url, PHONE)
    page.wait_for_selector("#hand .card")
    for sel in ("#hand", "#hint", "#tutorial-ok"):  # the tips do not push the hand off screen
        on_screen(page, sel)
    g = page.evaluate("() => JSON.parse(localStorage.getItem('lostcities.games'))[0]")
    headers = {"X-Seat-Token": g["token"]}
    longest = 0
    for _ in range(2000):
        status, st = server.request("GET", f"/api/games/{g['id']}/state", headers=headers)
        assert status == 200, st
        v = st["view"]
        longest = max(longest, *(len(e) for e in v["expeditions"][0]))
        if v["over"]:
            break
        if v["to_move"] != 0:
            page.wait_for_timeout(20)  # the computer's turn
            continue
        # play onto the longest expedition when possible (to reach the bonus), drawing blind
        blind = [m for m in v["legal"] if m.endswith(".")]
        plays = sorted(
            (m for m in blind if m[0] == "+"),
            key=lambda m: -len(v["expeditions"][0]["ybwgr".index(m[1])]),
        )
        move = (plays or blind or v["legal"])[0]
        status, out = server.request(
            "POST",
            f"/api/games/{g['id']}/moves",
            {"token": g["token"], "move": move, "round": st["round"], "ply": v["ply"]},
        )
        assert status == 200, out
    assert v["over"]
    key = f"lostcities.tutorial.{g['id']}.seen"
    page.wait_for_function(f"() => (localStorage.getItem('{key}') || '').includes('end')")
    seen = set(page.evaluate(f"() => JSON.parse(localStorage.getItem('{key}'))"))
    want = {"intro", "wager", "pile", "cost", "ascending", "last_cards", "end"} | (
        {"bonus"} if longest >= 4 else set()
    )
    assert want <= seen, want - seen
    assert "The round is over" in page.inner_text("#tutorial-text")
    # every tip of the round added up (none acknowledged): Got it is still in reach
    page.wait_for_selector("#modal:not(.hidden)")
    page.keyboard.press("Escape")
    on_screen(page, "#tutorial-ok")
    shot(page, "tutorial-375-end")
    ctx.close()


class _Page:
    """What :func:`shot` needs of a Playwright page."""

    def screenshot(self, path: str, full_page: bool) -> None:
        Path(path).write_bytes(b"\x89PNG")


def test_screenshots_are_kept_as_test_artefacts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if "LOSTCITIES_SCREENSHOTS" not in os.environ:
        # kept by default, in the build folder (ignored by git): no variable needed
        assert (
            Path(e2e_helpers.SHOTS)
            == Path(e2e_helpers.__file__).resolve().parents[2]
            / "build"
            / "test-artifacts"
            / "screenshots"
        )
    monkeypatch.setattr(e2e_helpers, "SHOTS", str(tmp_path / "shots"))
    e2e_helpers.shot(_Page(), "x")
    assert (tmp_path / "shots" / "x.png").exists()
    monkeypatch.setattr(e2e_helpers, "SHOTS", "off")
    e2e_helpers.shot(_Page(), "y")
    assert not re.search("y", " ".join(p.name for p in (tmp_path / "shots").iterdir()))
