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

from tests.web.test_web_e2e import CHROMIUM, shot

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

AXE = Path(__file__).parent / "data" / "axe.min.js"


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
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


def test_no_serious_or_critical_findings_on_any_page(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    page = ctx.new_page()
    found: dict[str, list[str]] = {}
    friend = _post(server.url + "/api/games", {"opponent": "friend", "rounds": 1})
    pages = ["/", "/rules", "/calculator", "/join/" + friend["id"]]
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
    gid = page.url.rsplit("/", 1)[1].split("?")[0].split("#")[0]
    token = page.evaluate("(id) => LC.tokenFor(id)", gid)
    _post(f"{server.url}/api/games/{gid}/resign", {"token": token})
    page.wait_for_function("() => document.querySelector('#status-text').textContent.startsWith('Match over')")
    found["/game (over)"] = _serious(page)
    for path in (f"/replay/{gid}", f"/analysis/{gid}"):
        page.goto(server.url + path)
        page.wait_for_load_state("networkidle")
        found[path] = _serious(page)
        shot(page, "page-" + path.strip("/").split("/")[0])
    ctx.close()
    bad = {k: v for k, v in found.items() if v}
    assert not bad, json.dumps(bad, indent=1)
