"""The lobby and "my games" in real headless Chromium (issue 27): on a 375 px phone the
open tables are cards that never scroll sideways; a move in a correspondence game reaches
the other player's /my-games page by its event stream (no polling), and after a server
restart the page reconnects by itself and is told of the next move."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, shot, watch_errors
from tests.web.web_helpers import account, move, ok, to_move

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

LONG_NAMES = [
    "Maximilian-Alexander Lärmschutz",
    "Wilhelmina Konstantinopoulou",
    "강감찬 을지문덕 연개소문",
]


def test_the_open_tables_fit_a_phone(browser: Any, server: Any) -> None:
    for i, name in enumerate(LONG_NAMES):  # long names, clocks, goal cards: the widest rows
        body = {
            "name": name,
            "browser": secrets.token_hex(8),
            "clock": ["600+10", "7d", 180][i],
            "achievements": i != 1,
            "variant": "long" if i else "classic",
        }
        assert server.request("POST", "/api/lobby/tables", body)[0] == 201
    ctx = browser.new_context(
        viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, locale="de-DE"
    )
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/lobby")
    page.wait_for_function("() => document.querySelectorAll('#lobby-tables tbody tr').length === 3")
    fit = page.evaluate(
        """() => {
          const box = document.querySelector('#lobby-tables').closest('.table-scroll');
          const buttons = [...document.querySelectorAll('#lobby-tables [data-join]')];
          return {
            doc: document.documentElement.scrollWidth, view: window.innerWidth,
            scroll: box.scrollWidth, client: box.clientWidth,
            buttons: buttons.map((b) => b.getBoundingClientRect().right),
          };
        }"""
    )
    assert fit["doc"] <= fit["view"] == 375, fit
    assert fit["scroll"] <= fit["client"], fit  # the table itself scrolls no more
    assert len(fit["buttons"]) == 3 and max(fit["buttons"]) <= 375, fit
    # each card names its settings (in the page's language), and stays a table to a
    # screen reader: 1 header row and 3 rows of cells
    first = page.locator("#lobby-tables tbody tr").first
    assert "Maximilian" in first.inner_text()
    shown = first.locator("td[data-label]").first.evaluate(
        "(td) => getComputedStyle(td, '::before').content"
    )
    assert "Uhr" in shown, shown  # "Uhr: 10 min + 10 s"
    assert page.get_by_role("row").count() == 4
    # (exact: the Join cell's name holds the owner's name too, in its button's label)
    assert page.get_by_role("cell", name="Wilhelmina Konstantinopoulou", exact=True).count() == 1
    # the keyboard reaches a Join button
    page.locator("#lobby-tables [data-join]").first.focus()
    assert page.evaluate("() => document.activeElement.dataset.join") is not None
    shot(page, "lobby-cards-375")
    assert not errors, errors
    ctx.close()


RECORD_EVENTS = """
(() => {
  const Real = window.EventSource;
  window.__events = [];
  window.EventSource = class extends Real {
    constructor(url, opts) {
      super(url, opts);
      if (String(url).includes('/api/my-games/events')) {
        this.addEventListener('message', (m) => window.__events.push(JSON.parse(m.data)));
      }
    }
  };
})();
"""


def _alerted(page: Any, gid: str) -> None:
    """Wait until the page says it is your turn in the game and shows it so."""
    page.wait_for_selector(f"#my-games tr.your-turn[data-game='{gid}']", timeout=10000)
    page.wait_for_function(
        "() => document.getElementById('my-games-turns').textContent !== ''", timeout=10000
    )


def test_my_games_is_told_of_a_move_and_reconnects_after_a_restart(
    browser: Any, server: Any
) -> None:
    db = server.db_url
    bob = account(db, "bob")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.add_init_script(RECORD_EVENTS)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/my-games")
    page.evaluate(
        "([u, p]) => LC.api('POST', '/api/accounts/signup', { username: u, password: p })",
        ["alice", "lost cities at dusk"],
    )
    table = ok(server, "POST", "/api/lobby/tables", {"rounds": 1, "clock": "3d"}, bob)
    seated = page.evaluate(f"() => LC.api('POST', '/api/lobby/{table['id']}/join', {{}})")
    gid, alice_token = seated["id"], seated["token"]
    page.goto(server.url + "/my-games")
    page.wait_for_selector("#my-games-live[data-state=live]")
    page.wait_for_selector(f"#my-games tr[data-game='{gid}']")

    def alice_moves() -> None:
        st = page.evaluate(
            f"() => fetch('/api/games/{gid}/state', {{ headers: {{ 'X-Seat-Token': '{alice_token}' }} }}).then((r) => r.json())"
        )
        body = {"token": alice_token, "round": st["round"], "ply": st["view"]["ply"]}
        page.evaluate(
            f"(b) => LC.api('POST', '/api/games/{gid}/moves', {{ ...b, move: '{st['view']['legal'][0]}' }})",
            body,
        )

    if to_move(server, gid, table["token"]) == 1:  # Alice starts: her move first
        alice_moves()
    page.wait_for_selector(f"#my-games tr[data-game='{gid}']:not(.your-turn)")
    page.evaluate("() => { document.getElementById('my-games-turns').textContent = ''; }")
    move(server, gid, table["token"], bob)
    _alerted(page, gid)
    events = page.evaluate("() => window.__events")
    assert {"type": "changed", "games": [gid]} in events, events
    # the server goes away: the page says so and tries again, backing off
    alice_moves()
    page.wait_for_selector(f"#my-games tr[data-game='{gid}']:not(.your-turn)")
    server.stop()
    page.wait_for_selector("#my-games-live[data-state=retrying]")
    server.start(timeout=120)
    page.wait_for_selector("#my-games-live[data-state=live]", timeout=90000)
    page.evaluate("() => { document.getElementById('my-games-turns').textContent = ''; }")
    move(server, gid, table["token"], bob)  # the correspondence game survived the restart
    _alerted(page, gid)
    hellos = [e for e in page.evaluate("() => window.__events") if e["type"] == "hello"]
    assert len(hellos) >= 2  # (connected again)
    assert not errors, errors
    ctx.close()
