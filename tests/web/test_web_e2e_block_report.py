"""Blocking and reporting where players meet, in real headless Chromium (issue 37, items 3
and 5): a blocked player never sees the blocker's open table (nor the other way round),
and the lobby row, the profile and the table menu block and report with a confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, sign_up, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def table_row(page: Any, owner: str) -> Any:
    return page.locator("#lobby-tables tbody tr", has_text=owner)


def test_a_blocked_player_never_sees_the_blockers_table(browser: Any, server: Any) -> None:
    _, pa = sign_up(browser, server.url, "alice")
    _, pb = sign_up(browser, server.url, "bob")
    _, pc = sign_up(browser, server.url, "carol")
    errors = watch_errors(pa, pb, pc)
    pa.evaluate("() => LC.api('POST', '/api/players/bob/block', {})")
    pa.click("#lobby-open")
    table_row(pc, "alice").wait_for()  # carol sees alice's table
    # carol's table comes after alice's: once bob's page has it, it had every change before
    pc.click("#lobby-open")
    table_row(pb, "carol").wait_for()
    assert table_row(pb, "alice").count() == 0
    listed = pb.evaluate("() => LC.api('GET', '/api/lobby')")
    assert [t["owner"] for t in listed["tables"]] == ["carol"]
    assert all("_hidden" not in t for t in listed["tables"])  # nobody learns who blocked whom
    # unblocked, the table shows; a block made while the page is open takes it away
    pa.evaluate("() => LC.api('DELETE', '/api/players/bob/block')")
    table_row(pb, "alice").wait_for()
    pb.evaluate("() => LC.api('POST', '/api/players/alice/block', {})")
    table_row(pb, "alice").wait_for(state="detached")
    table_row(pa, "carol").wait_for()  # (alice still sees carol's table, not bob's)
    assert table_row(pc, "alice").count() == 1
    assert errors == []


def reports(server: Any) -> list[tuple[str, str, str | None]]:
    """The reports stored: (reason, text, game id)."""
    import sqlalchemy as sa

    engine = sa.create_engine(server.db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT reason, text, game_id FROM lc_reports ORDER BY id"))
            return [(str(r), str(t), g) for r, t, g in rows]
    finally:
        engine.dispose()


def blocked(page: Any) -> list[str]:
    me = page.evaluate("() => LC.api('GET', '/api/accounts/me')")
    return list(me["account"]["blocked"])


AXE = Path(__file__).parent / "data" / "axe.min.js"


def serious(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the page as it stands."""
    page.add_script_tag(path=str(AXE))  # (the context bypasses the CSP only to add axe)
    result = page.evaluate("async () => await axe.run(document)")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def dialog(page: Any, title: str) -> Any:
    d = page.locator("dialog.lc-dialog")
    d.wait_for()
    assert d.locator("h2").inner_text() == title
    return d


def test_block_and_report_on_a_profile_a_lobby_row_and_the_table(browser: Any, server: Any) -> None:
    _, pa = sign_up(browser, server.url, "alice")
    _, pb = sign_up(browser, server.url, "bob", bypass_csp=True)
    errors = watch_errors(pa, pb)
    # the profile: blocking asks first; cancelled, nothing changes
    pb.goto(f"{server.url}/players/alice")
    pb.click("#player-block")
    dialog(pb, "Block alice?").locator("button[value=cancel]").click()
    pb.locator("dialog.lc-dialog").wait_for(state="detached")
    assert blocked(pb) == []
    pb.click("#player-block")
    d = dialog(pb, "Block alice?")
    assert "never be paired" in d.inner_text()
    d.locator("[data-confirm]").click()
    pb.locator("#player-unblock").wait_for()
    assert blocked(pb) == ["alice"]
    assert pb.locator("#toast").inner_text() == "alice is blocked"
    pb.click("#player-unblock")
    pb.locator("#player-block").wait_for()
    assert blocked(pb) == []
    pb.click("#player-report")
    d = dialog(pb, "Report alice")
    assert serious(pb) == []  # (the profile with its dialog open)
    d.locator("select[name=reason]").select_option("name")
    d.locator("textarea[name=text]").fill("rude name")
    d.locator("[data-confirm]").click()
    pb.wait_for_function("() => document.querySelector('#toast').textContent.includes('was sent')")
    assert reports(server) == [("name", "rude name", None)]
    # no controls on one's own profile
    pa.goto(f"{server.url}/players/alice")
    assert pa.locator("#player-actions").count() == 0
    # the lobby row: block alice from her table's row, and the table goes
    pa.goto(f"{server.url}/lobby")
    pb.goto(f"{server.url}/lobby")
    pa.click("#lobby-open")
    row = table_row(pb, "alice")
    row.locator("[data-block]").click()
    dialog(pb, "Block alice?").locator("[data-confirm]").click()
    row.wait_for(state="detached")
    assert blocked(pb) == ["alice"]
    pb.evaluate("() => LC.api('DELETE', '/api/players/alice/block')")
    row.locator("[data-report]").click()  # (listed again) a report from the row, cancelled
    dialog(pb, "Report alice").locator("button[value=cancel]").click()
    assert len(reports(server)) == 1
    row.locator("[data-join]").click()
    for p in (pa, pb):
        p.wait_for_selector("#hand .card", timeout=20000)
    # the table's player menu: report (with the game) and block
    game_id = pb.url.rsplit("/", 1)[1]
    menu = pb.locator("#player-menu")
    menu.locator("summary").click()
    assert menu.locator("summary").inner_text() == "Player: alice"
    assert serious(pb) == []  # (the table with its player menu open)
    pb.click("#report-opp")
    d = dialog(pb, "Report alice")
    d.locator("select[name=reason]").select_option("cheating")
    d.locator("[data-confirm]").click()
    pb.wait_for_function("() => document.querySelector('#toast').textContent.includes('was sent')")
    assert reports(server)[-1] == ("cheating", "", game_id)
    pb.click("#block-opp")
    dialog(pb, "Block alice?").locator("[data-confirm]").click()
    pb.wait_for_function(
        "() => document.querySelector('#toast').textContent === 'alice is blocked'"
    )
    assert blocked(pb) == ["alice"]
    assert pa.locator("#player-menu summary").inner_text() == "Player: bob"
    assert errors == []
