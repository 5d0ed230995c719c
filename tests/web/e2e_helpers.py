"""Browser helpers of the Playwright tests (``from tests.web.e2e_helpers import shot``):
Debian's Chromium and its flags, screenshots kept as test artefacts, and the page steps
and viewports the end-to-end test modules share. No Playwright import here: each test
module skips itself without it."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = os.environ.get("LOSTCITIES_SCREENSHOTS") or str(
    Path(__file__).resolve().parents[2] / "build" / "test-artifacts" / "screenshots"
)
"""Where the screenshots of the main states are kept, as test artefacts (``LOSTCITIES_SCREENSHOTS``
names another folder; ``off`` takes none)."""

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}


PASSWORD = "lost cities at dusk"


def sign_up(browser: Any, url: str, username: str, **ctx: Any) -> tuple[Any, Any]:
    """A new context whose browser signed up (with a password) on the lobby page."""
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **ctx})
    page = context.new_page()
    page.goto(url + "/lobby")
    page.evaluate(
        "([u, p]) => LC.api('POST', '/api/accounts/signup', { username: u, password: p })",
        [username, PASSWORD],
    )
    page.goto(url + "/lobby")
    page.wait_for_selector(f"#lobby[data-account='{username}']", state="attached")
    return context, page


def shot(page: Any, name: str) -> None:
    """Keep a screenshot of the page as ``SHOTS/name.png``."""
    if SHOTS != "off":
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def wait_my_turn_or_end(page: Any, timeout: float = 20000) -> str:
    page.wait_for_function(
        """() => document.querySelector('#status').classList.contains('mine')
                 || document.querySelector('#status-text').textContent.startsWith('Match over')""",
        timeout=timeout,
    )
    return "end" if page.locator("#status-text").inner_text().startswith("Match over") else "turn"


def close_modal(page: Any) -> None:
    modal = page.locator("#modal")
    if modal.is_visible():
        page.keyboard.press("Escape")


def play_one_turn(page: Any, *, explain: dict[str, bool], drag: bool = False) -> None:
    """Play the first highlighted card (or discard one), then draw from the draw pile."""
    close_modal(page)
    ply = page.evaluate("() => document.querySelectorAll('#log .n').length")
    dim = page.locator("#hand .card.dim")
    if not explain.get("done") and dim.count():
        # an illegal attempt explains why, in the core's words, and changes nothing
        dim.first.click()
        page.click("#actions [data-act=play]")
        hint = page.locator("#hint")
        assert "Cannot play" in hint.inner_text()
        assert re.search(r"lower than|equal to|cannot follow", hint.inner_text()), hint.inner_text()
        page.click("#actions >> text=Cancel")
        explain["done"] = True
    legal = page.locator("#hand .card.legal")
    if legal.count():
        card = legal.first.get_attribute("data-card")
        if drag:
            page.drag_and_drop(
                f"#hand .card[data-card='{card}']", f"#my-exps .exp[data-color='{card[0]}']"
            )
        else:
            legal.first.click()
            page.click("#actions [data-act=play]")
    else:
        page.locator("#hand .card").first.click()
        page.click("#actions [data-act=discard]")
    page.wait_for_selector("#drawpile.drawable")
    page.click("#drawpile")
    page.wait_for_function(f"() => document.querySelectorAll('#log .n').length > {ply}")


def on_screen(page: Any, selector: str) -> None:
    """``selector`` is laid out and wholly inside the viewport."""
    vp = page.viewport_size
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    assert box["y"] >= 0 and box["y"] + box["height"] <= vp["height"] + 0.5, (selector, box, vp)
    assert box["x"] >= 0 and box["x"] + box["width"] <= vp["width"] + 0.5, (selector, box, vp)


def new_game(page: Any, url: str, opponent: str = "computer") -> None:
    page.goto(url + "/")
    if opponent == "friend":
        page.click("label:has(input[value=friend])")
    else:
        page.click("label:has(input[value=easy])")
    page.click('label:has(input[name=rounds][value="1"])')
    page.fill("input[name=name]", "Ana")
    page.click("#start")
    if opponent == "friend":
        page.wait_for_selector("#invite-box:not(.hidden)")
        page.click("#to-table")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#hand .card")


def friend_game(server: Any, rounds: int) -> tuple[dict[str, Any], list[str]]:
    """Ana creates a friend game of ``rounds`` rounds on ``server`` (its HTTP API), Bea joins
    it; the game and both seats' tokens."""
    status, g = server.request(
        "POST", "/api/games", {"opponent": "friend", "rounds": rounds, "name": "Ana"}
    )
    assert status == 201, g
    invite = g["invite_url"].split("#", 1)[1]
    status, j = server.request(
        "POST", f"/api/games/{g['id']}/join", {"invite": invite, "name": "Bea"}
    )
    assert status == 200, j
    return g, [g["token"], j["token"]]


def watch_errors(*pages: Any) -> list[str]:
    """The uncaught script errors of ``pages`` from now on (a test asserts it stays empty)."""
    errors: list[str] = []
    for page in pages:
        page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def start_tutorial(browser: Any, url: str, viewport: dict[str, int]) -> tuple[Any, Any, list[str]]:
    """A new page at ``viewport`` that starts the tutorial from the home page and waits for
    its first tip; the context, the page and its script errors (:func:`watch_errors`)."""
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(url + "/")
    page.click("#tutorial-start")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#tutorial:not(.hidden)")
    return ctx, page, errors


def friend_tables(
    browser: Any, server: Any, *, clock: str | None = None, **bob_ctx: Any
) -> tuple[Any, Any, Any, Any]:
    """Alice creates a one-round friend game on the home page, Bob joins by the invite link;
    returns both contexts and pages, both at the table."""
    alice = browser.new_context(viewport={"width": 1280, "height": 800})
    bob = browser.new_context(**{"viewport": {"width": 1280, "height": 800}, **bob_ctx})
    pa, pb = alice.new_page(), bob.new_page()
    pa.goto(server.url + "/")
    pa.click("label:has(input[value=friend])")
    if clock is not None:
        pa.click(f'label:has(input[name=clock][value="{clock}"])')
    pa.click('label:has(input[name=rounds][value="1"])')
    pa.fill("input[name=name]", "Alice")
    pa.click("#start")
    pa.wait_for_selector("#invite-box:not(.hidden)")
    invite = pa.input_value("#invite-url")
    pa.click("#to-table")
    pa.wait_for_url(re.compile(r"/game/"))
    pb.goto(invite)
    pb.wait_for_selector("#join-form:not(.hidden)")
    pb.fill("input[name=name]", "Bob")
    pb.click("#join-form button")
    pb.wait_for_url(re.compile(r"/game/"))
    for p in (pa, pb):
        p.wait_for_selector("#hand .card")
    return alice, bob, pa, pb


def seat_token(page: Any, game_id: str) -> str:
    """The seat token that the browser of ``page`` keeps for game ``game_id``."""
    token: str = page.evaluate(
        "(id) => JSON.parse(localStorage.getItem('lostcities.games') || '[]')"
        ".find((g) => g.id === id).token",
        game_id,
    )
    return token


def play_on_by_api(server: Any, game_id: str, tokens: list[str], *, until_deck: int) -> int:
    """Play game ``game_id`` on through the HTTP API while its pages watch, so that a browser
    test clicks the moves it is about and not every move of a round: whichever seat of
    ``tokens`` is to move makes its first legal move that draws from the draw pile (the
    computer's turns are waited for), until a seat of ``tokens`` is to move with
    ``until_deck`` cards or fewer left in the draw pile. The number of moves made."""
    made = 0
    for _ in range(5000):
        for token in tokens:
            status, st = server.request(
                "GET", f"/api/games/{game_id}/state", headers={"X-Seat-Token": token}
            )
            assert status == 200, st
            view = st["view"]
            assert not view["over"], "the round ended before the draw pile got that low"
            if view["legal"]:
                break
        else:
            time.sleep(0.02)  # the computer's turn: ask again
            continue
        if view["deck_size"] <= until_deck:
            return made
        blind = [m for m in view["legal"] if m.endswith(".")]
        move = {"token": token, "move": blind[0], "round": st["round"], "ply": view["ply"]}
        status, out = server.request("POST", f"/api/games/{game_id}/moves", move)
        assert status == 200, out
        made += 1
    raise AssertionError("the round never got there")
