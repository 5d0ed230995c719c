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
    # the correspondence clock: days and hours, never "0 d 23 h"
    assert re.fullmatch(r"(Your|Their) turn · [12] d \d+ h left", state[running]), state
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
