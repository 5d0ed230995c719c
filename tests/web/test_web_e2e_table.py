"""The table as a new player meets it, in real headless Chromium at 1280x800 and 375x740:
the hand, the buttons and the message line stay on screen in every state, a lost connection
shows a banner and stops moves, one of two equal wagers is selected alone, the log reads as
sentences, spectators are told so, the round's final board is reviewed, and the home,
rules and calculator pages' defects are gone."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import (
    ARGS,
    CHROMIUM,
    DESKTOP,
    PHONE,
    new_game,
    on_screen,
    shot,
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


def table_on_screen(page: Any, state: str) -> None:
    for sel in ("#hand", "#hint"):
        on_screen(page, sel)
    if page.locator("#actions > *").count():
        on_screen(page, "#actions")
    shot(page, f"table-{page.viewport_size['width']}-{state}")


def open_rewritten_game(
    browser: Any,
    server: Any,
    viewport: dict[str, int],
    rewrite: Callable[[dict[str, Any]], None],
) -> tuple[Any, Any]:
    """A new game against a friend, opened at ``viewport`` with the server's state messages
    rewritten on the way (Playwright's WebSocket routing): ``rewrite(m)`` edits each state
    message that shows a hand, which is then marked active with both players joined.
    Returns the browser context and the page."""
    status, created = server.request(
        "POST", "/api/games", {"opponent": "friend", "rounds": 1, "name": "Ana"}
    )
    assert status == 201
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", created)

    def patch(text: str) -> str:
        m = json.loads(text)
        if m.get("type") == "state" and m["view"]["hand"]:
            rewrite(m)
            m["game"]["status"] = "active"
            m["game"]["players"][1]["joined"] = True
        return json.dumps(m)

    def route(ws: Any) -> None:
        server_ws = ws.connect_to_server()
        server_ws.on_message(lambda msg: ws.send(patch(msg) if isinstance(msg, str) else msg))

    page.route_web_socket(re.compile(r".*/ws/games/.*"), route)
    page.goto(server.url + f"/game/{created['id']}")
    return ctx, page


def test_a_resent_state_of_the_same_position_keeps_the_card_chosen(
    browser: Any, server: Any
) -> None:
    """A state that changes nothing (here the resync a page asks for when it is shown again;
    a reconnection sends the same) must not drop the card the player picked: only a new
    position does."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    new_game(page, server.url)
    assert wait_my_turn_or_end(page) == "turn"
    page.evaluate(
        "() => { window.lcStates = 0; document.addEventListener('lc:state', () => window.lcStates++); }"
    )
    page.locator("#hand .card").first.click()
    page.wait_for_selector("#actions [data-act=discard]")
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")  # sends a sync
    page.wait_for_function("() => window.lcStates >= 1")
    assert page.locator("#hand .card.selected").count() == 1
    page.click("#actions [data-act=discard]")  # still there: the move goes on
    page.wait_for_selector("#drawpile.drawable")
    page.context.close()


def test_the_status_says_the_move_is_on_its_way_until_it_is_acknowledged(
    browser: Any, server: Any
) -> None:
    """While a move is in flight the status says so (not "your turn"), the table takes no
    other move, and the acknowledgement gives the turn away."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    held: list[Any] = []
    hold = {"on": False}

    def relay(ws: Any) -> None:
        server_ws = ws.connect_to_server()
        ws.on_message(server_ws.send)
        server_ws.on_message(lambda m: held.append(m) if hold["on"] else ws.send(m))
        relay.client = ws  # type: ignore[attr-defined]

    page.route_web_socket(re.compile(r"/ws/"), relay)
    new_game(page, server.url)
    assert wait_my_turn_or_end(page) == "turn"
    hold["on"] = True  # the server's replies (its acknowledgement) wait here
    page.locator("#hand .card").first.click()
    page.click("#actions [data-act=discard]")
    page.click("#drawpile")
    page.wait_for_function(
        "() => document.querySelector('#status-text').textContent === 'Sending your move…'"
    )
    assert "mine" not in (page.get_attribute("#status", "class") or "")
    assert page.locator("#hand .card.selected").count() == 1  # the card chosen stays up
    page.locator("#hand .card").nth(1).click()  # and no other card can be chosen meanwhile
    assert page.locator("#hand .card.selected").count() == 1
    for _ in range(100):  # the server has answered; its answer is held here
        if held:
            break
        page.wait_for_timeout(100)
    assert held and page.locator("#status-text").inner_text() == "Sending your move…"
    hold["on"] = False
    for m in held:
        relay.client.send(m)  # type: ignore[attr-defined]
    page.wait_for_function(
        "() => document.querySelector('#status-text').textContent !== 'Sending your move…'"
    )
    assert page.locator("#hand .card.selected").count() == 0
    page.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "375x740"])
def test_hand_buttons_and_message_line_stay_on_screen(
    browser: Any, server: Any, viewport: dict[str, int]
) -> None:
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    errors = watch_errors(page)
    # a friend game, the invite panel shown: the hand is not pushed below the fold
    new_game(page, server.url, "friend")
    page.wait_for_selector("#invite-panel:not(.hidden)")
    table_on_screen(page, "invite")
    # against the computer: every state of a turn, an illegal attempt included
    new_game(page, server.url)
    assert wait_my_turn_or_end(page) == "turn"
    table_on_screen(page, "turn")
    dim = page.locator("#hand .card.dim")
    for _ in range(8):
        if dim.count():
            break
        # no unplayable card yet: play a turn and look again
        ply = page.evaluate("() => document.querySelectorAll('#log .n').length")
        page.locator("#hand .card").first.click()
        page.click("#actions [data-act=discard]")
        page.click("#drawpile")
        # the move acknowledged and logged first
        page.wait_for_function(f"() => document.querySelectorAll('#log .n').length > {ply}")
        assert wait_my_turn_or_end(page) == "turn"
    if dim.count():
        dim.first.click()
        page.click("#actions [data-act=play]")
        assert "Cannot play" in page.locator("#hint").inner_text()
        table_on_screen(page, "illegal")
        page.click("#actions >> text=Cancel")
    page.locator("#hand .card").first.click()
    table_on_screen(page, "selected")
    page.click("#actions [data-act=discard]")
    table_on_screen(page, "draw")
    n = page.locator("#log .n").count()
    page.click("#drawpile")
    # the move is logged (the computer may have replied already: its turn can be too short to see)
    page.wait_for_function(f"() => document.querySelectorAll('#log .n').length > {n}")
    table_on_screen(page, "after-move")
    assert not errors, errors
    ctx.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "375x740"])
def test_connection_lost_banner_and_no_moves_until_back(
    browser: Any, server: Any, viewport: dict[str, int]
) -> None:
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    new_game(page, server.url)
    assert wait_my_turn_or_end(page) == "turn"
    assert page.locator("#conn-banner").is_hidden()
    port = server.port
    server.kill()
    page.wait_for_selector("#conn-banner:not(.hidden)")
    assert "Connection lost" in page.locator("#conn-banner").inner_text()
    for sel in ("#conn-banner", "#hand", "#hint"):
        on_screen(page, sel)
    assert "Your turn" not in page.locator("#status-text").inner_text()
    shot(page, f"table-{viewport['width']}-connection-lost")
    # moves are disabled: a card cannot even be selected
    page.locator("#hand .card").first.click()
    assert page.locator("#hand .card.selected").count() == 0
    assert page.locator("#actions > *").count() == 0
    server.start_on(port)
    page.wait_for_selector("#conn-banner.hidden", state="attached", timeout=20000)
    assert wait_my_turn_or_end(page) == "turn"
    page.locator("#hand .card").first.click()
    assert page.locator("#hand .card.selected").count() == 1
    ctx.close()


def test_one_of_two_equal_wagers_is_selected_alone(browser: Any, server: Any) -> None:
    """The server's state is rewritten on the way (Playwright's WebSocket routing) so that the
    hand holds two yellow wagers; selecting one highlights that one only."""

    def two_wagers(m: dict[str, Any]) -> None:
        v = m["view"]
        v["hand"][:2] = ["yx", "yx"]
        v["to_move"] = m["seat"]
        v["legal"] = sorted(set(v["legal"]) | {"+yx.", "-yx."})

    ctx, page = open_rewritten_game(browser, server, DESKTOP, two_wagers)
    page.wait_for_selector("#hand .card[data-card=yx]")
    assert page.locator("#hand .card[data-card=yx]").count() == 2
    page.locator("#hand .card[data-card=yx]").nth(1).click()
    assert page.locator("#hand .card.selected").count() == 1
    assert page.locator("#hand .card[data-card=yx]").nth(1).get_attribute("aria-pressed") == "true"
    assert page.locator("#hand .card[data-card=yx]").nth(0).get_attribute("aria-pressed") == "false"
    ctx.close()


def test_log_in_words_spectator_and_final_board(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    new_game(page, server.url)
    game_url = page.url
    # a spectator (no seat in this browser) is told so and sees both hands as backs
    spec = browser.new_context(viewport=DESKTOP).new_page()
    spec.goto(game_url)
    spec.wait_for_function(
        "() => document.querySelector('#status-text').textContent.startsWith('Spectating')"
    )
    assert (
        spec.locator("#my-backs .card").count() == 8
        and spec.locator("#opp-hand .card").count() == 8
    )
    assert spec.locator("#hand-wrap").is_hidden()
    shot(spec, "table-spectator")
    spec.context.close()
    # the log reads as sentences; the notation is beside it on demand
    turns = 0
    while wait_my_turn_or_end(page) == "turn":
        if page.locator("#modal").is_visible():
            page.keyboard.press("Escape")
        n = page.locator("#log .n").count()
        legal = page.locator("#hand .card.legal")
        (legal.first if legal.count() else page.locator("#hand .card").first).click()
        page.click("#actions [data-act=play]" if legal.count() else "#actions [data-act=discard]")
        page.click("#drawpile")
        page.wait_for_function(f"() => document.querySelectorAll('#log .n').length > {n}")
        turns += 1
        if turns == 2:
            says = page.locator("#log .say").all_inner_texts()
            assert any(
                re.fullmatch(r"You (play|discard) \w+ (\d+|wager) and draw from the deck", s)
                for s in says
            ), says
            assert any(re.match(r"Computer \(Easy\) (plays|discards) ", s) for s in says), says
            assert page.locator("#log .nota").first.is_hidden()
            page.check("#show-notation")
            assert re.fullmatch(
                r"[+-][ybwgrp](\d+|x)[.ybwgrp]", page.locator("#log .nota").first.inner_text()
            )
    # the round's review: the final board beside the score sheets
    page.wait_for_selector("#modal:not(.hidden)")
    board = page.locator("#modal-board")
    assert "Final board" in board.inner_text()
    assert (
        board.locator(".pile").count() == 5
        and board.locator(".cols:not(.piles) .exp").count() == 10
    )
    assert board.locator(".chip").count() > 0
    shot(page, "table-final-board")
    ctx.close()


def test_home_rules_and_calculator(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    page.goto(server.url + "/")
    assert page.locator("#hero-text").inner_text().startswith("Five expeditions")
    page.click("label:has(input[name=variant][value=long])")
    assert page.locator("#hero-text").inner_text().startswith("Six expeditions")
    # a game waiting for a friend is listed after one where it is your turn, and says Open
    _, friend = server.request("POST", "/api/games", {"opponent": "friend", "rounds": 1})
    _, bot = server.request(
        "POST", "/api/games", {"opponent": "computer", "level": "easy", "rounds": 1}
    )
    for g in (bot, friend):  # the friend game is remembered last, so it comes first by age
        page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.reload()
    page.wait_for_selector("#games li")
    items = page.locator("#games li")
    ids = [items.nth(i).get_attribute("data-game") for i in range(items.count())]
    waiting = page.locator(f"#games li[data-game='{friend['id']}']")
    assert "waiting for friend" in waiting.inner_text()
    assert waiting.locator("a").inner_text() == "Open"
    your_turn = page.locator(f"#games li[data-game='{bot['id']}']")
    if "your turn" in your_turn.inner_text():
        assert ids.index(bot["id"]) < ids.index(friend["id"])
    # the rules page uses the desktop's width
    page.goto(server.url + "/rules")
    width = page.locator("article.prose").bounding_box()["width"]
    assert width > 0.8 * (min(1180, DESKTOP["width"]) - 40), width
    # the calculator drops its breakdown once the input is invalid
    page.goto(server.url + "/calculator")
    page.fill(".calc-row[data-color=y] input", "x,3,5")
    page.wait_for_function(
        "() => document.querySelector('#breakdown').textContent.includes('total')"
    )
    page.fill(".calc-row[data-color=y] input", "x,5,5")  # ("x,5,3" is sorted now: issue 26)
    page.wait_for_function(
        "() => document.querySelector('#calc-error').textContent.includes('twice')"
    )
    assert page.locator("#breakdown").inner_text().strip() == ""
    assert page.locator("#calc-total").inner_text() == "–"
    assert page.locator(".calc-row[data-color=y] .score").inner_text() == "–"
    ctx.close()


WATCH_FLIGHTS = """() => {
  window.__flights = [];  // where each flying card lands (the id of its nearest part of the table)
  new MutationObserver((ms) => ms.forEach((m) => {
    if (m.target.classList && m.target.classList.contains('flying')) window.__flights.push(m.target.parentElement.closest('[id]').id);
  })).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['class'] });
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_cards_move_unless_reduced_motion_is_asked(browser: Any, server: Any, motion: str) -> None:
    ctx = browser.new_context(viewport=DESKTOP, reduced_motion=motion)
    page = ctx.new_page()
    new_game(page, server.url)
    assert wait_my_turn_or_end(page) == "turn"
    page.evaluate(WATCH_FLIGHTS)
    n = page.locator("#log .n").count()
    page.locator("#hand .card").first.click()
    page.click("#actions [data-act=discard]")
    page.click("#drawpile")
    # my move and the bot's reply are both told
    page.wait_for_function(f"() => document.querySelectorAll('#log .n').length >= {n + 2}")
    assert wait_my_turn_or_end(page) == "turn"
    flights = page.evaluate("() => window.__flights")
    if motion == "reduce":
        assert flights == []
    else:
        # my discard onto its pile and my card drawn into the hand; the bot's card to its
        # expedition or a pile and its card drawn onto its hand's backs
        assert "piles" in flights and "hand" in flights and "opp-hand" in flights, flights
        assert "opp-exps" in flights or flights.count("piles") >= 2, flights
    ctx.close()


LATE = ["yx", "yx", "yx", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "y10"]
"""A 12-card column, the longest a round can build (three wagers, then 2 to 10)."""


@pytest.mark.parametrize(
    "viewport",
    [DESKTOP, {"width": 1366, "height": 768}, {"width": 390, "height": 844}],
    ids=["1280x800", "1366x768", "390x844"],
)
def test_every_part_of_a_late_round_table_is_on_screen(
    browser: Any, server: Any, viewport: dict[str, int]
) -> None:
    """A late-round position (the server's state rewritten on the way: 12 cards in a column on
    each side, long columns beside them): on a laptop the status, both sides' expeditions to
    their last card, the piles, the draw pile and the hand are all on screen at once, none
    under the sticky hand bar; on a phone nothing scrolls sideways."""

    def late_round(m: dict[str, Any]) -> None:
        v = m["view"]
        colours = m["game"]["colors"]
        late = [[c + card[1:] for card in LATE] for c in colours]
        mine = [late[0], [], *[[f"{c}{r}" for r in range(3, 10)] for c in colours[2:]]]
        theirs = [[], late[1], *[[f"{c}2", f"{c}10"] for c in colours[2:]]]
        seat = m["seat"]
        v["expeditions"][seat], v["expeditions"][1 - seat] = mine, theirs
        v["expedition_scores"] = [[0] * len(colours), [0] * len(colours)]
        v["deck_size"] = 3
        v["to_move"] = seat

    ctx, page = open_rewritten_game(browser, server, viewport, late_round)
    page.wait_for_selector("#my-exps .exp .chip")
    page.locator("#hand .card").first.click()
    shot(page, f"table-{viewport['width']}x{viewport['height']}-late-round")
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= viewport["width"], f"the page scrolls sideways: {wide} px wide"
    if viewport["width"] < 640:
        ctx.close()
        return
    for sel in (
        "#status",
        "#opp-hand",
        "#opp-exps",
        "#piles",
        "#drawpile",
        "#my-exps",
        "#hand",
        "#actions",
        "#hint",
    ):
        on_screen(page, sel)
    bar = page.locator("#hand-wrap").bounding_box()
    assert bar is not None
    for side in ("#my-exps", "#opp-exps"):
        for chip in page.locator(f"{side} .chip").all():
            box = chip.bounding_box()
            assert box is not None and box["y"] + box["height"] <= bar["y"] + 0.5, (side, box, bar)
    ctx.close()


def _luminance(rgb: tuple[float, ...]) -> float:
    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _colours(css: str) -> list[tuple[float, ...]]:
    return [tuple(float(x) for x in m.split(",")[:3]) for m in re.findall(r"rgba?\(([^)]*)\)", css)]


def test_log_by_keyboard_draw_pile_name_and_banner_contrast(browser: Any, server: Any) -> None:
    """The log scrolls: it is reached by Tab and named; the draw pile is called "draw pile,
    N cards" (it read "44draw pile"); the home banner's note is readable over every colour of
    its gradient (axe cannot see through a gradient: measured here, 4.5:1 or more)."""
    status, created = server.request(
        "POST", "/api/games", {"opponent": "computer", "level": "easy", "rounds": 1, "name": "Ana"}
    )
    assert status == 201
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    page.goto(server.url + "/")
    note = page.locator(".hero .muted")
    colour = _colours(note.evaluate("(e) => getComputedStyle(e).color"))[0]
    stops = _colours(page.locator(".hero").evaluate("(e) => getComputedStyle(e).backgroundImage"))
    assert len(stops) >= 2
    worst = min(_contrast(colour, s) for s in stops)
    assert worst >= 4.5, f"the banner's note has {worst:.2f}:1 over its gradient"
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", created)
    page.goto(server.url + f"/game/{created['id']}")
    page.wait_for_selector("#hand .card")
    deck = page.locator("#deck-n").inner_text()
    pile = page.locator("#drawpile")
    sync_api.expect(pile).to_have_accessible_name(f"draw pile, {deck} cards")
    log = page.get_by_role("log", name="Game log", exact=True)
    assert log.get_attribute("tabindex") == "0"
    for _ in range(60):  # Tab through the page until the log has the focus
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.id") == "log":
            break
    else:
        raise AssertionError("the log is never reached by Tab")
    shot(page, "table-1280-log-focused")
    ctx.close()


def test_the_final_board_runs_the_opponents_columns_as_the_table_does(
    browser: Any, server: Any
) -> None:
    """The opponent's columns ran 10->2 on the table but 2->10 in the final-board popup: the
    popup's opponent columns are laid out as the table's (toward the piles)."""
    status, g = server.request(
        "POST", "/api/games", {"opponent": "computer", "level": "easy", "rounds": 1, "name": "Ana"}
    )
    assert status == 201
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.goto(server.url + f"/game/{g['id']}")
    page.wait_for_selector("#hand .card")
    page.on("dialog", lambda d: d.accept())
    page.click("#game-buttons >> text=Resign")
    page.wait_for_selector("#modal:not(.hidden)", timeout=20000)
    layout = "(e) => { const s = getComputedStyle(e); return [s.flexDirection, s.flexWrap]; }"
    table = page.locator("#opp-exps .exp").first.evaluate(layout)
    popup = page.locator("#modal-board .review > .cols").first.locator(".exp")
    assert (
        popup.count() == 5
        and page.locator("#modal-board .review > .cols").first.locator(".exp.theirs").count() == 5
    )
    assert popup.first.evaluate(layout) == table
    mine = page.locator("#modal-board .review > .cols").last.locator(".exp")
    assert mine.locator(".theirs").count() == 0 and "theirs" not in (
        mine.first.get_attribute("class") or ""
    )
    ctx.close()


def test_the_tutorials_last_tip_shows_inside_the_round_over_popup(
    browser: Any, server: Any
) -> None:
    """The tutorial's last tip hid behind the round-over popup; and it called the wager "the
    handshake" while the cards show a multiplier sign (in every language: "×")."""
    from tests.web.e2e_helpers import start_tutorial

    catalogues = Path(__file__).resolve().parents[2] / "lostcities" / "web" / "static" / "i18n"
    for lang in ("en", "de", "es", "fr", "ko"):
        tip = json.loads((catalogues / f"{lang}.json").read_text(encoding="utf-8"))["tut.wager"]
        assert "×" in tip and "handshake" not in tip, (lang, tip)
    ctx, page, errors = start_tutorial(browser, server.url, DESKTOP)
    page.click("#tutorial-ok")
    page.on("dialog", lambda d: d.accept())
    page.click("#game-buttons >> text=Resign")
    page.wait_for_selector("#modal:not(.hidden)", timeout=20000)
    page.wait_for_selector("#modal #tutorial:not(.hidden)")
    on_screen(page, "#tutorial-text")
    # nothing covers it: the element at its centre is the tip itself
    box = page.locator("#tutorial-text").bounding_box()
    assert box is not None
    top = page.evaluate(
        f"() => document.elementFromPoint({box['x'] + box['width'] / 2}, {box['y'] + box['height'] / 2}).id"
    )
    assert top == "tutorial-text", top
    shot(page, "table-1280-tutorial-end")
    assert not errors, errors
    ctx.close()


def test_round_over_shows_the_sheets_first_and_the_goal_points_line(
    browser: Any, server: Any
) -> None:
    """At 1280x800 the score sheets sat below the fold inside the round-over popup, and in a
    goals game the sheet's total left the goal points out with no line saying so."""
    status, g = server.request(
        "POST",
        "/api/games",
        {"opponent": "computer", "level": "easy", "rounds": 1, "name": "Ana", "achievements": True},
    )
    assert status == 201
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.goto(server.url + f"/game/{g['id']}")
    page.wait_for_selector("#hand .card")
    page.on("dialog", lambda d: d.accept())
    page.click("#game-buttons >> text=Resign")
    page.wait_for_selector("#modal:not(.hidden)", timeout=20000)
    sheets = page.locator("#modal-sheets").bounding_box()
    assert sheets is not None and sheets["y"] + 120 <= DESKTOP["height"], sheets
    lines = page.locator("#modal-sheets .sheet-goals")
    assert lines.count() == 2
    assert re.fullmatch(
        r"goals: \+\d+, not in this sheet: -?\d+ for the round", lines.first.inner_text()
    ), lines.first.inner_text()
    shot(page, "table-1280-round-over-goals")
    ctx.close()


def test_a_phones_goal_cards_take_one_row(browser: Any, server: Any) -> None:
    """Five goal cards took ~700 px on a phone: they take one row, scrolled on its own, and
    the page does not scroll sideways."""
    status, g = server.request(
        "POST",
        "/api/games",
        {"opponent": "computer", "level": "easy", "rounds": 1, "name": "Ana", "achievements": True},
    )
    assert status == 201
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.goto(server.url + f"/game/{g['id']}")
    page.wait_for_selector("#goals .goal")
    box = page.locator("#goals").bounding_box()
    assert box is not None and box["height"] <= 180, box
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    shot(page, "table-390-goals")
    ctx.close()
