"""Friend games in real headless Chromium, two browsers by invite link: the match clock
(both players' time on both tables, the increment added after a move) and the opt-in turn
alert (a sound and a notification when it becomes your turn in a hidden tab), server errors
and goal cards in the reader's language. (A whole round by invite link: test_web_e2e.py.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, friend_tables, play_one_turn, shot, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def mover(pa: Any, pb: Any) -> tuple[Any, Any]:
    """(the page whose turn it is, the other)."""
    for _ in range(200):
        for p, q in ((pa, pb), (pb, pa)):
            if "mine" in (p.get_attribute("#status", "class") or ""):
                return p, q
        pa.wait_for_timeout(50)
    raise AssertionError("nobody's turn")


def test_match_clock_shows_both_times_and_adds_the_increment(browser: Any, server: Any) -> None:
    alice, bob, pa, pb = friend_tables(browser, server, clock="300+5")
    both = re.compile(r"^Alice (\d+):(\d\d) · Bob (\d+):(\d\d)$")
    for p in (pa, pb):
        p.wait_for_selector("#clock:not(.hidden)")
        assert both.match(p.inner_text("#clock")), p.inner_text("#clock")
    page, other = mover(pa, pb)
    me = 0 if page is pa else 1  # Alice's time is shown first

    def my_seconds(p: Any) -> int:
        m = both.match(p.inner_text("#clock"))
        assert m, p.inner_text("#clock")
        return int(m.group(1 + 2 * me)) * 60 + int(m.group(2 + 2 * me))

    first = page.inner_text("#clock")
    page.wait_for_function(
        "(t) => document.querySelector('#clock').textContent !== t", arg=first, timeout=5000
    )
    before = my_seconds(page)
    assert before < 300  # counting down
    play_one_turn(page, explain={"done": True})  # (well under the 5 s increment)
    other.wait_for_function("() => document.querySelector('#status').classList.contains('mine')")
    for p in (pa, pb):
        assert before < my_seconds(p) <= before + 5, (before, p.inner_text("#clock"))
    shot(pa, "match-clock-1280")
    alice.close()
    bob.close()


# The page is made hidden (document.visibilityState overridden), Notification is a stub that
# records what is shown and whether permission was asked, and oscillators are counted.
HIDDEN_STUBS = """
window.__hidden = false;
Object.defineProperty(document, "visibilityState", { get: () => (window.__hidden ? "hidden" : "visible"), configurable: true });
Object.defineProperty(document, "hidden", { get: () => window.__hidden, configurable: true });
window.__notes = []; window.__asked = 0; window.__notes_permission = "default";
window.Notification = class {
  constructor(title, options) { window.__notes.push({ title, body: options && options.body }); }
  static get permission() { return window.__notes_permission; }
  static requestPermission() { window.__asked += 1; window.__notes_permission = "granted"; return Promise.resolve("granted"); }
  close() {}
};
window.__beeps = 0;
const make = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () { window.__beeps += 1; return make.call(this); };
"""


def test_turn_alert_only_when_enabled_and_hidden(browser: Any, server: Any) -> None:
    alice, bob, pa, pb = friend_tables(browser, server)
    errors = watch_errors(pa, pb)
    for ctx in (alice, bob):
        ctx.add_init_script(HIDDEN_STUBS)
    for p in (pa, pb):
        p.reload()
        p.wait_for_selector("#hand .card")
        assert not p.is_checked("#turn-alert")  # off by default
        assert p.evaluate("() => window.__asked") == 0  # and nothing asked before it is turned on
    pb.check("#turn-alert")  # Bob opts in: permission is asked then, once
    pb.wait_for_function("() => window.__asked === 1")
    for p in (pa, pb):
        p.evaluate("() => { window.__hidden = true; }")
    page, other = mover(pa, pb)
    for _ in range(4):  # alternate moves: each of Bob's turns alerts him once, Alice never
        play_one_turn(page, explain={"done": True})
        other.wait_for_function(
            "() => document.querySelector('#status').classList.contains('mine')"
        )
        page, other = other, page
    pb.wait_for_timeout(300)
    notes = pb.evaluate("() => window.__notes")
    assert len(notes) == 2, notes  # Bob's two turns, one notification each
    assert notes[0]["title"] == "Your turn" and "Alice" in notes[0]["body"]
    assert pb.evaluate("() => window.__beeps") == 2 * 2  # two notes a beep
    assert pa.evaluate("() => window.__notes.length + window.__beeps") == 0
    # visible: no alert when Alice's move makes it Bob's turn
    pb.evaluate("() => { window.__hidden = false; }")
    if page is pb:
        play_one_turn(pb, explain={"done": True})
        pa.wait_for_function("() => document.querySelector('#status').classList.contains('mine')")
    play_one_turn(pa, explain={"done": True})
    pb.wait_for_function("() => document.querySelector('#status').classList.contains('mine')")
    pb.wait_for_timeout(300)
    assert pb.evaluate("() => window.__notes.length") == 2
    pb.reload()
    pb.wait_for_selector("#hand .card")
    assert pb.is_checked("#turn-alert")  # remembered
    assert pb.evaluate("() => window.__asked") == 0  # not asked again without a click
    assert not errors, errors
    alice.close()
    bob.close()


def test_server_errors_and_goal_cards_in_the_readers_language(browser: Any, server: Any) -> None:
    # a wrong invite code, answered by the server in English, reads in French
    status, g = server.request("POST", "/api/games", {"opponent": "friend", "rounds": 1})
    assert status == 201
    fr = browser.new_context(viewport={"width": 1280, "height": 800}, locale="fr-FR")
    page = fr.new_page()
    errors = watch_errors(page)
    page.goto(server.url + f"/join/{g['id']}#not-the-code")
    page.wait_for_selector("#join-form:not(.hidden)")
    page.click("#join-form button")
    page.wait_for_function("() => (document.querySelector('#toast') || {}).textContent")
    assert page.inner_text("#toast") == "ce lien ou ce code n'est pas valable pour cette partie"
    # the goal cards of an achievements game, by their ids
    page.goto(server.url + "/")
    page.click("label:has(input[value=easy])")
    page.click("label:has(input[name=goals][value=on])")
    page.click("#start")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#goals .goal")
    from lostcities.achievements import DEFAULT_GOALS

    english = {x.id: x for x in DEFAULT_GOALS}
    shown = page.eval_on_selector_all(
        "#goals .goal",
        "els => els.map(e => [e.dataset.goal, e.querySelector('.goal-name').textContent, e.querySelector('.goal-text').textContent])",
    )
    assert len(shown) == 5
    for gid, _name, text in shown:
        assert text != english[gid].text and text.startswith(("Soyez", "En fin de manche")), (
            gid,
            text,
        )
    assert any(name != english[gid].name for gid, name, _ in shown)
    # a WebSocket error reads the same way (the table's socket errors go through LC.errorText)
    assert (
        page.evaluate("() => LC.errorText('not_your_turn', 'it is not your turn')")
        == "ce n'est pas votre tour"
    )
    # resigning: the round's forfeit reason ("resigned") and its goal results read in French
    page.on("dialog", lambda d: d.accept())
    page.click("#game-buttons .danger")
    page.wait_for_selector("#modal:not(.hidden)")
    assert page.inner_text("#modal-result").endswith("(abandon)"), page.inner_text("#modal-result")
    results = page.inner_text("#modal-board .goal-results")
    assert "(course)" in results or "(fin de manche)" in results
    assert not any(
        english[gid].name in results
        for gid, _, _ in shown
        if english[gid].name not in {"Grand Tour"}
    )
    # the calculator's reasons (the CLI's words on the server) read in French too
    page.goto(server.url + "/calculator")
    page.wait_for_selector(".calc-row[data-color=b]")
    page.fill(".calc-row[data-color=b] input", "5,5")  # (typed "5,3" is sorted, not refused)
    page.wait_for_function(
        "() => document.querySelector('#calc-error').textContent.includes('deux fois')"
    )
    assert page.inner_text("#calc-error").startswith("expédition bleue : ")
    page.fill(".calc-row[data-color=b] input", "")
    page.click("label:has(input[name=mode][value=totals])")
    page.fill("input[name=b-sum]", "12")
    page.fill("input[name=b-wagers]", "0")
    page.fill("input[name=b-cards]", "5")
    # (each field's edit is scored: wait for the answer to all three, not an earlier one's)
    page.wait_for_function(
        "() => document.querySelector('#calc-error').textContent.includes('5 cartes')"
    )
    assert (
        "5 cartes numérotées ne peuvent pas faire 12 (leur somme va de 20 à 40)"
        in page.inner_text("#calc-error")
    )
    assert not errors, errors
    fr.close()
