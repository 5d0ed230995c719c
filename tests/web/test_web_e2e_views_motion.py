"""The spectator's view and the tutorial at both viewport sizes, and motion that a redraw
interrupts, in real headless Chromium.

- At 1280x800 and 375x740, a spectator's card backs and message line, and the tutorial's
  tips, hand, buttons and message line, are wholly inside the viewport.
- A card's flight is short and interruptible: a redraw while a card is in the air (the
  opponent's reply arriving, or the same state sent twice at once) cancels the flight, no
  card is left flying, and the table shows the final state.

One server serves the whole module (its games are independent)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import (
    CHROMIUM,
    DESKTOP,
    PHONE,
    friend_game,
    on_screen,
    shot,
    start_tutorial,
    wait_my_turn_or_end,
    watch_errors,
)
from tests.web.web_helpers import Server

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

SIZES = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "375x740"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module (started once: the machine is slow and shared)."""
    tmp = tmp_path_factory.mktemp("views-motion")
    s = Server(f"sqlite:///{tmp / 'games.db'}", tmp).start()
    yield s
    s.stop()


def state(server: Server, gid: str, token: str) -> dict[str, Any]:
    status, st = server.request("GET", f"/api/games/{gid}/state", headers={"X-Seat-Token": token})
    assert status == 200, st
    return st


def move(server: Server, gid: str, token: str, pick: Any = None) -> dict[str, Any]:
    """Play a move for ``token``'s seat: ``pick(legal)``, else a play drawing blind, else the first."""
    st = state(server, gid, token)
    legal = st["view"]["legal"]
    m = (
        pick(legal)
        if pick
        else next((x for x in legal if x[0] == "+" and x.endswith(".")), legal[0])
    )
    body = {"token": token, "move": m, "round": st["round"], "ply": st["view"]["ply"]}
    status, out = server.request("POST", f"/api/games/{gid}/moves", body)
    assert status == 200, out
    return state(server, gid, token)


# -- the spectator and the tutorial on screen ------------------------------------------------


@SIZES
def test_a_spectators_view_is_on_screen(
    browser: Any, server: Server, viewport: dict[str, int]
) -> None:
    """Mid-round (long expeditions on both sides), a spectator's two rows of backs and the
    line saying who is to move are on screen, without scrolling."""
    g, tokens = friend_game(server, rounds=1)
    st = state(server, g["id"], tokens[0])

    def mid_round_move() -> dict[str, Any]:
        """Play onto an expedition of fewer than 4 cards (else discard), drawing blind: the
        table of any deal grows to mid-round size (a longer game's page scrolls)."""
        seat = st["view"]["to_move"]
        mine = state(server, g["id"], tokens[seat])
        colors, exps = mine["game"]["colors"], mine["view"]["expeditions"][seat]

        def pick(legal: list[str]) -> str:
            blind = [m for m in legal if m.endswith(".")]
            short = [m for m in blind if m[0] == "+" and len(exps[colors.index(m[1])]) < 4]
            return (short or [m for m in blind if m[0] == "-"])[0]

        return move(server, g["id"], tokens[seat], pick)

    for _ in range(24):  # both play onto their expeditions: the table grows
        st = mid_round_move()
    assert max(len(e) for e in st["view"]["expeditions"][0]) >= 3, st["view"]["expeditions"]
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + f"/game/{g['id']}")
    page.wait_for_function(
        "() => document.querySelector('#status-text').textContent.startsWith('Spectating')"
    )
    page.wait_for_selector("#my-backs .card")
    assert page.locator("#hand-wrap").is_hidden()  # no hand, no move buttons
    for sel in ("#status", "#opp-hand", "#my-backs"):
        on_screen(page, sel)
    # a move made meanwhile is shown and the view stays on screen
    n = page.locator("#log .n").count()
    mid_round_move()
    page.wait_for_function(f"() => document.querySelectorAll('#log .n').length > {n}")
    for sel in ("#status", "#opp-hand", "#my-backs"):
        on_screen(page, sel)
    shot(page, f"spectator-{viewport['width']}")
    assert not errors, errors
    ctx.close()


def tutorial_on_screen(page: Any, state_name: str) -> None:
    for sel in ("#tutorial-text", "#tutorial-ok", "#tutorial-skip", "#hand", "#hint"):
        on_screen(page, sel)
    if page.locator("#actions > *").count():
        on_screen(page, "#actions")
    shot(page, f"tutorial-{page.viewport_size['width']}-{state_name}")


@SIZES
def test_the_tutorial_is_on_screen(browser: Any, server: Server, viewport: dict[str, int]) -> None:
    """The tutorial's first turn, tips shown and not yet acknowledged: the tips and their
    buttons, the hand, the move buttons and the message line are on screen in each step."""
    ctx, page, errors = start_tutorial(browser, server.url, viewport)
    assert wait_my_turn_or_end(page) == "turn"
    tutorial_on_screen(page, "turn")
    legal = page.locator("#hand .card.legal")
    assert legal.count()  # no expedition started yet: every card can be played
    legal.first.click()
    tutorial_on_screen(page, "selected")
    page.click("#actions [data-act=play]")
    tutorial_on_screen(page, "draw")
    page.click("#drawpile")  # (below the fold: the page is scrolled down to it)
    # the expedition started: its cost is explained, added to the tips shown, in view
    page.wait_for_function(
        "() => document.querySelector('#tutorial-text').textContent.includes('20 points')"
    )
    assert wait_my_turn_or_end(page) == "turn"
    tutorial_on_screen(page, "after-move")
    assert not errors, errors
    ctx.close()


# -- motion: short and interruptible ---------------------------------------------------------

# Every animation the page starts is kept in window.__anims; while window.__freeze is set,
# a new one is stopped half-way (a card held in the air until something redraws the table).
# window.__drawn lists the table's redraws, by the number of moves in the state drawn.
WATCH_MOTION = """
window.__anims = []; window.__freeze = false; window.__drawn = [];
document.addEventListener('lc:state', (ev) => { window.__drawn.push(ev.detail.view.history.length); });
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  const a = animate.apply(this, args);
  window.__anims.push(a);
  if (window.__freeze) { a.pause(); a.currentTime = 130; }
  return a;
};
"""

ALL_FROM = "(k) => window.__anims.slice(k).map((a) => a.playState)"


def board(page: Any) -> dict[str, Any]:
    """What the table shows: the hand, both rows of expeditions, the piles' tops, the deck."""
    return dict(
        page.evaluate(
            """() => {
      const cards = (sel) => [...document.querySelectorAll(sel)].map((e) => e.dataset.card);
      const row = (id) => [...document.querySelectorAll(`#${id} .exp`)].map((e) => cards(`#${id} .exp[data-color=${e.dataset.color}] [data-card]`));
      return {
        hand: cards('#hand .card'),
        mine: row('my-exps'),
        theirs: row('opp-exps'),
        tops: [...document.querySelectorAll('#piles .pile')].map((p) => (p.querySelector('.card') || {dataset: {}}).dataset.card || null),
        deck: Number(document.querySelector('#deck-n').textContent),
        backs: document.querySelectorAll('#opp-hand .card').length,
        flying: document.querySelectorAll('.flying').length,
      };
    }"""
        )
    )


def expected(st: dict[str, Any]) -> dict[str, Any]:
    v = st["view"]
    return {
        "hand": v["hand"],
        "mine": v["expeditions"][0],
        "theirs": v["expeditions"][1],
        "tops": [p[-1] if p else None for p in v["discard_piles"]],
        "deck": v["deck_size"],
        "backs": 8,
        "flying": 0,
    }


def test_a_redraw_during_a_flight_cancels_it_and_shows_the_final_board(
    browser: Any, server: Server
) -> None:
    """Two interruptions, the flights held in the air until the redraw comes:

    1. my discard and my drawn card are flying when the opponent's reply arrives;
    2. the state after my next move is sent twice at once (the second copy redraws the
       table while the first copy's cards fly).

    Each time the interrupted flights are cancelled (not left running), no card is left
    flying once the redraw's own flights (260 ms) are over, and the table is the final state."""
    g, tokens = friend_game(server, rounds=1)
    st = state(server, g["id"], tokens[0])
    if st["view"]["to_move"] == 1:
        move(server, g["id"], tokens[1])
    ctx = browser.new_context(viewport=DESKTOP, reduced_motion="no-preference")
    ctx.add_init_script(WATCH_MOTION)
    page = ctx.new_page()
    errors = watch_errors(page)
    twice = {"on": False}

    def relay(ws: Any, msg: Any) -> None:
        ws.send(msg)
        if twice["on"] and isinstance(msg, str) and json.loads(msg).get("type") == "state":
            twice["on"] = False
            ws.send(msg)  # the same state again, at once

    def route(ws: Any) -> None:
        server_ws = ws.connect_to_server()
        server_ws.on_message(lambda msg: relay(ws, msg))

    page.route_web_socket(re.compile(r".*/ws/games/.*"), route)
    page.goto(server.url + "/")
    page.evaluate("(g) => LC.remember({id: g.id, token: g.token, seat: 0})", g)
    page.goto(server.url + f"/game/{g['id']}")
    assert wait_my_turn_or_end(page) == "turn"

    # 1. my card flies (held in the air) when the opponent's reply arrives
    page.evaluate("() => { window.__freeze = true; }")
    k = page.evaluate("() => window.__anims.length")
    page.locator("#hand .card").first.click()
    page.click("#actions [data-act=discard]")
    page.click("#drawpile")
    page.wait_for_function(
        f"() => window.__anims.length >= {k + 2} && document.querySelectorAll('.flying').length >= 2"
    )
    held = page.evaluate("() => window.__anims.length")
    assert page.evaluate(ALL_FROM, k) == ["paused"] * (held - k)  # in the air
    page.evaluate("() => { window.__freeze = false; }")
    after = move(server, g["id"], tokens[1])
    page.wait_for_function(
        f"() => document.querySelectorAll('#log .n').length === {len(after['view']['history'])}"
    )
    assert page.evaluate(f"() => window.__anims.slice({k}, {held}).map((a) => a.playState)") == [
        "idle"
    ] * (held - k)
    assert page.evaluate("() => window.__anims.length") > held  # the reply's own flights
    page.wait_for_function("() => !document.querySelector('.flying')", timeout=3000)  # short
    assert set(page.evaluate(ALL_FROM, held)) <= {"finished", "idle"}
    assert board(page) == expected(state(server, g["id"], tokens[0]))

    # 2. the state after my move sent twice at once: the second copy redraws mid-flight
    assert wait_my_turn_or_end(page) == "turn"
    page.evaluate("() => { window.__freeze = true; }")
    k = page.evaluate("() => window.__anims.length")
    plies = len(after["view"]["history"]) + 1
    twice["on"] = True
    page.locator("#hand .card").first.click()
    page.click("#actions [data-act=discard]")
    page.click("#drawpile")
    page.wait_for_function(f"() => window.__drawn.filter((n) => n === {plies}).length >= 2")
    assert not twice["on"]
    states = page.evaluate(ALL_FROM, k)
    assert len(states) >= 2 and set(states) == {"idle"}, states  # cancelled, not held or run on
    assert board(page) == expected(state(server, g["id"], tokens[0]))  # no card flying, at once
    assert not errors, errors
    ctx.close()
