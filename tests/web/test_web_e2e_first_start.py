"""The level picker while a first start compiles the search (issue 26, web 2), in real
headless Chromium: a level that ``/api/levels`` says is warming up is shown disabled with
"warming up", asked about again, and opens once it is ready. The server's answers are
played by the page's router (the server's own side: tests/web/test_web_first_start.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, shot, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def test_the_picker_says_warming_up_then_opens_the_level(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="de-DE")
    page = ctx.new_page()
    errors = watch_errors(page)
    real = page.request.get(server.url + "/api/levels").json()
    answers: list[bool] = []  # warming up, per answer given

    def levels(route: Any) -> None:
        warming = len(answers) < 2  # the first two answers: still warming up
        answers.append(warming)
        body = [
            {**lv, "available": not warming, "warming_up": True, "reason": "warming up"}
            if warming and lv["level"] in ("hard", "expert")
            else lv
            for lv in real
        ]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/levels", levels)
    page.goto(server.url + "/")
    hard = page.locator("label:has(input[value=hard])")
    page.wait_for_selector("label.warming:has(input[value=hard]) .warming-note")
    assert hard.locator("input").is_disabled()
    assert "wird vorbereitet" in hard.inner_text()  # in the reader's language
    assert page.locator("label:has(input[value=medium]) input").is_enabled()
    shot(page, "levels-warming-up")
    # asked again every 2 s: the third answer says ready, and the level opens
    page.wait_for_function(
        "() => !document.querySelector('input[value=hard]').disabled", timeout=15000
    )
    assert len(answers) == 3 and answers == [True, True, False]
    assert "wird vorbereitet" not in hard.inner_text() and "warming" not in (
        hard.get_attribute("class") or ""
    )
    hard.click()
    assert page.locator("input[value=hard]").is_checked()
    page.wait_for_timeout(2500)
    assert len(answers) == 3  # no more asking once every level is ready
    assert not errors, errors
    ctx.close()
