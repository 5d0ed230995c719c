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
