"""Issue 37's items 8, 9, 12, 14 and 15 in real headless Chromium: what players tripped over
in the pages. "My games" tells one game from another (date, clock, score, won or lost); a
refusal names what is wrong; a passkey on an IP address says to use the host name; the
replay speaks in words and fits a laptop; the table fits a laptop, a wide screen and a phone
with goal cards; the phone's top bar reaches every page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, shot, watch_errors

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def _friend_game(server: Any, **body: Any) -> tuple[str, str, str]:
    """A friend game Ana created and Bea joined: its id and both tokens."""
    status, g = server.request(
        "POST", "/api/games", {"opponent": "friend", "rounds": 1, "name": "Ana", **body}
    )
    assert status == 201, g
    invite = g["invite_url"].split("#", 1)[1]
    status, j = server.request(
        "POST", f"/api/games/{g['id']}/join", {"invite": invite, "name": "Bea"}
    )
    assert status == 200, j
    return g["id"], g["token"], j["token"]


# -- item 12: my games ----------------------------------------------------------------------------


def test_my_games_tells_the_games_apart(browser: Any, server: Any) -> None:
    lost, a1, _ = _friend_game(server)
    won, a2, b2 = _friend_game(server)
    running, a3, _ = _friend_game(server, clock="3d")
    assert server.request("POST", f"/api/games/{lost}/resign", {"token": a1})[0] == 200
    assert server.request("POST", f"/api/games/{won}/resign", {"token": b2})[0] == 200
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.evaluate(
        "(seats) => seats.forEach(([id, token]) => LC.remember({ id, token, seat: 0 }))",
        [[lost, a1], [won, a2], [running, a3]],
    )
    page.goto(server.url + "/my-games")
    page.wait_for_function("() => document.querySelectorAll('#my-games tbody tr').length === 3")
    rows = {
        gid: page.locator(f"#my-games tr[data-game='{gid}']").inner_text()
        for gid in (lost, won, running)
    }
    assert len(set(rows.values())) == 3, rows  # no two rows alike
    state = {
        gid: page.locator(f"#my-games tr[data-game='{gid}'] td.state").inner_text() for gid in rows
    }
    assert state[lost] == "You lost" and state[won] == "You won", state
    # the correspondence clock: days and hours, never "0 d 23 h" (2 d 23 h, or 3 d 0 h while
    # less than a second has passed since the game began: the clock's seconds round up)
    assert re.fullmatch(r"(Your|Their) turn · [23] d \d+ h left", state[running]), state
    assert "3 days per move" in rows[running] and "Classic" in rows[running]
    for gid in rows:  # when each last changed
        assert page.locator(f"#my-games tr[data-game='{gid}'] td.when time").count() == 1
        score = page.locator(f"#my-games tr[data-game='{gid}'] td.score").inner_text()
        assert re.match(r"-?\d+–-?\d+", score), score
    texts = page.evaluate(
        "() => [LC.clockText(23 * 3600 + 300), LC.clockText(2 * 86400 + 7200), LC.clockText(65)]"
    )
    assert texts == ["23 h 5 min", "2 d 2 h", "1:05"], texts
    shot(page, "my-games-1280")
    assert not errors, errors
    ctx.close()


# -- item 9: a refusal names what is wrong; item 15: a passkey on an IP address -------------------


def test_a_refused_name_or_password_says_what_is_wrong(browser: Any, server: Any) -> None:
    status, g = server.request("POST", "/api/games", {"opponent": "friend", "rounds": 1})
    assert status == 201
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + g["invite_url"].removeprefix(server.url))
    page.wait_for_selector("#join-form:not(.hidden)")
    page.fill("input[name=name]", "Bob\u202etxt.exe")
    page.click("#join-form button")
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    assert toast.inner_text() == (
        "your name: holds an invisible character that reverses the text's direction"
        " (such as U+202E): type it without"
    ), toast.inner_text()
    page.goto(server.url + "/signup")
    for name, password, said in [
        ("_zed", "a long phrase of mine", "a username starts with a letter or a digit"),
        ("zed", "password", "that password is too common"),
        ("zed", "zed2024!!", "a password may not be your username"),
    ]:
        page.fill("input[name=username]", name)
        page.fill("input[name=password]", password)
        page.click("#signup-form button[type=submit]")
        page.wait_for_function(
            "(s) => document.getElementById('form-error').textContent.startsWith(s)", arg=said
        )
    assert not errors, errors
    ctx.close()


def test_a_passkey_on_an_ip_address_says_to_use_the_host_name(browser: Any, server: Any) -> None:
    assert "//127.0.0.1:" in server.url
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors = watch_errors(page)
    port = server.url.rsplit(":", 1)[1]
    for path, button in (("/signup", "#signup-passkey"), ("/login", "#login-passkey")):
        page.goto(server.url + path)
        if path == "/signup":
            page.fill("input[name=username]", "yuri")
        page.click(button)
        page.wait_for_function("() => document.getElementById('form-error').textContent !== ''")
        said = page.inner_text("#form-error")
        assert f"http://localhost:{port}{path}" in said and "IP address" in said, said
        assert "invalid domain" not in said
    assert not errors, errors
    ctx.close()


# -- item 14: the replay in words, the replay and the table on laptops and a wide screen ----------


def _finished_game(server: Any, turns: int = 12) -> str:
    """A friend game of ``turns`` moves (each player's first legal move), then resigned."""
    from tests.web.web_helpers import to_move

    gid, a, b = _friend_game(server)
    tokens = [a, b]
    for _ in range(turns):
        tok = tokens[to_move(server, gid, a)]
        status, st = server.request("GET", f"/api/games/{gid}/state", None, {"X-Seat-Token": tok})
        body = {"token": tok, "round": st["round"], "ply": st["view"]["ply"]}
        status, _ = server.request(
            "POST", f"/api/games/{gid}/moves", {**body, "move": st["view"]["legal"][0]}
        )
        assert status == 200
    assert server.request("POST", f"/api/games/{gid}/resign", {"token": a})[0] == 200
    return gid


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share some height (sit on one row)."""
    return a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def test_the_replay_speaks_in_words_and_fits_a_laptop(browser: Any, server: Any) -> None:
    gid = _finished_game(server)
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/replay/{gid}")
    page.wait_for_selector("#replay-body:not(.hidden)")
    page.click("#last")
    page.click("#prev")
    said = page.inner_text("#move-now")
    assert re.fullmatch(
        r"(Ana|Bea) (plays|discards) \w+ (\d+|wager) and (draws from the deck|takes the top of the \w+ pile)\.",
        said,
    ), said
    # the draw pile beside the discard piles, not a row of its own; the hand on screen
    piles = page.locator("#r-piles").bounding_box()
    deck = page.locator("#r-table .drawrow").bounding_box()
    assert piles and deck and _overlap(piles, deck) and deck["x"] >= piles["x"] + piles["width"]
    page.evaluate("() => document.getElementById('replay-body').scrollIntoView()")
    hand = page.locator("#r-hand0").bounding_box()
    assert hand and hand["y"] + hand["height"] <= 800, hand
    shot(page, "replay-1280x800")
    assert not errors, errors
    ctx.close()


def test_the_table_keeps_resign_and_rated_in_view_and_uses_a_wide_screen(
    browser: Any, server: Any
) -> None:
    from tests.web.e2e_helpers import on_screen, sign_up
    from tests.web.web_helpers import account, move, ok, to_move

    bob = account(server.db_url, "bob")
    table = ok(server, "POST", "/api/lobby/tables", {"rounds": 3, "rated": True}, bob)
    ctx, page = sign_up(browser, server.url, "alice")
    errors = watch_errors(page)
    seated = page.evaluate(f"() => LC.api('POST', '/api/lobby/{table['id']}/join', {{}})")
    page.evaluate("(s) => LC.remember({ id: s.id, token: s.token, seat: s.seat })", seated)
    gid = seated["id"]
    tokens = {seated["seat"]: (seated["token"], {}), 1 - seated["seat"]: (table["token"], bob)}
    for _ in range(14):  # a log of 14 moves: the side column as tall as it gets
        token, who = tokens[to_move(server, gid, seated["token"])]
        move(server, gid, token, who)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{server.url}/game/{seated['id']}")
    page.wait_for_selector("#hand .card")
    page.wait_for_selector("#chat-panel:not(.hidden)")  # the quick chat of a game between people
    page.wait_for_selector("#rated")
    for sel in ("#game-buttons .danger", "#rated", "#hand", "#my-exps"):
        on_screen(page, sel)
    shot(page, "table-rated-1366x768")
    # a wide screen: the table takes most of the width, the cards larger than a laptop's
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_function("() => document.querySelector('#table').offsetWidth > 1100")
    width = page.evaluate("() => document.querySelector('#table').getBoundingClientRect().width")
    card = page.locator("#hand .card").first.bounding_box()
    assert width >= 0.6 * 1920 and card and card["width"] >= 60, (width, card)
    for sel in ("#game-buttons .danger", "#rated", "#hand", "#my-exps", "#opp-exps"):
        on_screen(page, sel)
    shot(page, "table-rated-1920x1080")
    assert not errors, errors
    ctx.close()


# -- item 8: a phone with goal cards; the phone's top bar ------------------------------------------


def _phone_goal_game(browser: Any, server: Any, turns: int) -> tuple[Any, Any, list[str]]:
    """A one-round game with goal cards against the computer on a 390x844 phone, ``turns``
    turns played (the first legal card, else a discard; from the draw pile)."""
    from tests.web.e2e_helpers import play_one_turn, wait_my_turn_or_end

    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    g = page.evaluate(
        """() => LC.api('POST', '/api/games', { opponent: 'computer', level: 'easy', rounds: 1,
                                                achievements: true, name: 'Ana' })"""
    )
    page.evaluate("(g) => LC.remember({ id: g.id, token: g.token, seat: g.seat })", g)
    page.goto(f"{server.url}/game/{g['id']}")
    page.wait_for_selector("#hand .card")
    page.wait_for_selector("#goals:not(.hidden) .goal")
    for _ in range(turns):
        if wait_my_turn_or_end(page) == "end":
            break
        play_one_turn(page, explain={"done": True})
    wait_my_turn_or_end(page)
    return ctx, page, errors


def test_a_phone_with_goal_cards_shows_the_whole_table_above_the_hand(
    browser: Any, server: Any
) -> None:
    ctx, page, errors = _phone_goal_game(browser, server, 16)
    # as the page opens: the opponent's row down to your expeditions, none of it under the
    # hand bar that sticks to the bottom of the screen
    page.evaluate("() => window.scrollTo(0, 0)")
    hand = page.locator("#hand-wrap").bounding_box()
    mine = page.locator("#my-exps").bounding_box()
    theirs = page.locator("#opp-exps").bounding_box()
    assert hand and mine and theirs
    assert theirs["y"] >= 0, theirs
    assert mine["y"] + mine["height"] <= hand["y"] + 0.5, (mine, hand)
    shot(page, "phone-goals-390x844")
    # the goal row says that it scrolls, and where to
    goals = page.locator("#goals")
    n = goals.locator(".goal").count()
    assert n == 5
    cue = page.evaluate(
        """() => { const g = document.getElementById('goals');
                   return { more: g.classList.contains('more-right'), over: g.scrollWidth > g.clientWidth,
                            label: g.getAttribute('aria-label') }; }"""
    )
    if cue["over"]:
        assert cue["more"], cue
        page.evaluate(
            "() => { const g = document.getElementById('goals'); g.scrollLeft = g.scrollWidth; }"
        )
        page.wait_for_function(
            "() => !document.getElementById('goals').classList.contains('more-right')"
        )
        assert page.evaluate(
            "() => document.getElementById('goals').classList.contains('more-left')"
        )
    assert not errors, errors
    ctx.close()


def test_the_phones_top_bar_reaches_every_page(browser: Any, server: Any) -> None:
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    toggle = page.locator("#nav-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    for name in ("Play", "Lobby", "My games", "Score calculator", "Rules", "Account"):
        link = page.locator("#site-nav a", has_text=name)
        box = link.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (name, box)
        assert box["y"] + box["height"] <= 844, (name, box)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    shot(page, "phone-nav-open-390x844")
    page.keyboard.press("Escape")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert page.locator("#site-nav a", has_text="Rules").is_hidden()
    toggle.click()
    page.locator("#site-nav a", has_text="Rules").click()
    page.wait_for_url(server.url + "/rules")
    # a desktop shows the links themselves, no menu button
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.locator("#nav-toggle").is_hidden()
    assert page.locator("#site-nav a", has_text="Account").is_visible()
    assert not errors, errors
    ctx.close()
