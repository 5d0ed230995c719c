"""The automated accessibility check: axe-core (vendored in tests/web/data) run in real headless
Chromium on every page (home, rules, calculator, a game table, the join page, a finished game's
replay and analysis), with zero serious or critical findings."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, play_one_turn, shot, wait_my_turn_or_end

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

AXE = Path(__file__).parent / "data" / "axe.min.js"


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req) as r:
        out: dict[str, Any] = json.loads(r.read())
        return out


def _serious(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))  # (the context bypasses the CSP only to add axe)
    result = page.evaluate("async () => await axe.run(document)")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def _with_every_mark(route: Any) -> None:
    """Serve the real analysis with a move of each mark, whatever this short game's were."""
    response = route.fetch()
    body = response.json()
    if body.get("status") == "done" and body.get("moves"):
        moves = body["moves"]
        while len(moves) < 4:
            moves.append(dict(moves[-1]))
        for move, mark in zip(moves, ("inaccuracy", "mistake", "blunder"), strict=False):
            move.update(mark=mark, loss=4.0)
    route.fulfill(response=response, json=body)


def test_no_serious_or_critical_findings_on_any_page(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    page = ctx.new_page()
    found: dict[str, list[str]] = {}
    friend = _post(server.url + "/api/games", {"opponent": "friend", "rounds": 1})
    pages = ["/", "/rules", "/calculator", "/join/" + friend["id"], "/nope"]
    for path in pages:
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        found[path] = _serious(page)
        shot(page, "page-" + (path.strip("/").split("/")[0] or "home"))
    # a table with cards on it, then (resigned) the replay and analysis pages
    page.goto(server.url + "/")
    page.click("label:has(input[value=easy])")
    page.click("label:has(input[name=rounds][value='1'])")
    page.click("#start")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#hand .card")
    found["/game"] = _serious(page)
    wait_my_turn_or_end(page)
    play_one_turn(page, explain={"done": True})  # (so the analysis has a move to mark)
    gid = page.url.rsplit("/", 1)[1].split("?")[0].split("#")[0]
    token = page.evaluate("(id) => LC.tokenFor(id)", gid)
    _post(f"{server.url}/api/games/{gid}/resign", {"token": token})
    page.wait_for_function(
        "() => document.querySelector('#status-text').textContent.startsWith('Match over')"
    )
    found["/game (over)"] = _serious(page)
    for path in (f"/replay/{gid}", f"/analysis/{gid}"):
        if path.startswith("/analysis"):
            page.route(f"**/api/games/{gid}/analysis", _with_every_mark)
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        if path.startswith("/analysis"):
            page.wait_for_selector("#analysis-moves .analysis-row.blunder")
        found[path] = _serious(page)
        shot(page, "page-" + path.strip("/").split("/")[0])
    ctx.close()
    bad = {k: v for k, v in found.items() if v}
    assert not bad, json.dumps(bad, indent=1)
