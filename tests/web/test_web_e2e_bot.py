"""A person challenges a connected bot from its profile and plays a round against it, in real
headless Chromium (issue 39 item 4): the bot's owner makes an API token and turns the account
into a bot on the account page, ``lostcities connect`` plays it (a subprocess, the built-in
``heuristic`` bot), a guest finds it among the lobby's bots online, challenges it (casual,
one round) from its profile, is taken to the table with the seat and plays the round to
its end, the bot's name marked BOT; the connector is stopped at the end. axe-core finds
nothing serious on the pages on the way (the account page, the lobby, the profile, the
table)."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import (
    CHROMIUM,
    play_one_turn,
    shot,
    sign_up,
    wait_my_turn_or_end,
    watch_errors,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("httpx")  # (lostcities connect's client)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(__file__).parent / "data" / "axe.min.js"
BOT = "heurbot"
ABOUT = "run by the e2e test; engine: heuristic"


def serious(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the page (its context bypasses the CSP
    only to add axe)."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document)")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


class Connector:
    """``lostcities connect ... --log-json heuristic`` as a subprocess; its JSON records are
    read as they come (a thread), to be waited on."""

    def __init__(self, url: str, token_file: Path) -> None:
        cmd = [sys.executable, "-m", "lostcities.cli", "connect", url, "--token-file"]
        cmd += [str(token_file), "--retry-base", "0.1", "--log-json", "heuristic"]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        self.records: list[dict[str, Any]] = []
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                self._lines.put(json.loads(line))
        self._lines.put(None)

    def wait(self, test: Any, timeout: float = 60.0) -> dict[str, Any]:
        """The first record from now on that passes ``test``."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no such record: {self.records[-5:]}"
            try:
                rec = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            assert rec is not None, f"the connector ended: {self.records[-5:]}"
            self.records.append(rec)
            if test(rec):
                return rec

    def stop(self) -> tuple[int, str]:
        """SIGTERM (as Ctrl-C): its exit code and its stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            _, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        while True:
            try:
                rec = self._lines.get(timeout=5)
            except queue.Empty:
                break
            if rec is None:
                break
            self.records.append(rec)
        return self.proc.returncode, err


def test_a_guest_challenges_a_connected_bot_and_plays_a_round(
    browser: Any, server_factory: Any, tmp_path: Path
) -> None:
    server = server_factory()
    # the bot's owner: a token made on the account page (shown once), then "Become a bot"
    owner, po = sign_up(browser, server.url, BOT, bypass_csp=True)
    owner_errors = watch_errors(po)
    po.goto(server.url + "/account")
    po.wait_for_selector("#tokens li")
    po.fill("#token-form input[name=description]", "e2e engine")
    assert po.is_checked("#token-form input[value='bot:play']")
    po.click("#token-create")
    po.wait_for_selector("#token-made:not(.hidden)")
    token = po.input_value("#token-value")
    assert token.startswith("lct_") and len(token) == 47
    po.wait_for_selector("#tokens li[data-token] [data-revoke]")
    assert "e2e engine" in po.inner_text("#tokens") and token not in po.inner_text("#tokens")
    po.wait_for_selector("#bot-form:not(.hidden)")
    po.fill("#bot-about", ABOUT)
    po.fill("#bot-form input[name=confirm]", BOT)
    po.click("#bot-submit")
    po.wait_for_selector("#bot-is:not(.hidden)")
    assert po.is_hidden("#bot-confirm-field")
    shot(po, "bot-account-page")
    found = {"account": serious(po)}

    token_file = tmp_path / "token"
    token_file.write_text(token + "\n", encoding="utf-8")
    bot = Connector(server.url, token_file)
    try:
        bot.wait(lambda r: r["event"] == "connected")
        # a guest finds it among the bots online and opens its profile
        guest = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        pg = guest.new_page()
        errors = watch_errors(pg)
        pg.goto(server.url + "/lobby")
        link = pg.locator(f"#lobby-bots li[data-bot='{BOT}'] a")
        link.wait_for()
        assert pg.locator(f"#lobby-bots li[data-bot='{BOT}'] .bot-badge").count() == 1
        shot(pg, "bot-lobby")
        found["lobby"] = serious(pg)
        link.click()
        pg.wait_for_url(re.compile(rf"/players/{BOT}$"))
        assert ABOUT in pg.inner_text("#bot-about")
        assert pg.locator("h1 .bot-badge").count() == 1
        assert pg.is_disabled("#challenge-rated")  # a guest plays casual games
        shot(pg, "bot-profile")
        found["profile"] = serious(pg)
        # the challenge: casual, one round; accepted, the table with the guest's seat
        pg.fill("#challenge-name", "Gus")
        pg.click('#challenge-form label:has(input[name=rounds][value="1"])')
        pg.click("#challenge-send")
        pg.wait_for_url(re.compile(r"/game/"), timeout=60000)
        game_id = pg.url.rsplit("/", 1)[1]
        assert pg.evaluate("(id) => LC.tokenFor(id)", game_id)
        pg.wait_for_selector("#hand .card")
        pg.wait_for_selector("#opp-name .bot-badge")
        assert BOT in pg.inner_text("#opp-name")
        shot(pg, "bot-game")
        found["game"] = serious(pg)
        started = bot.wait(lambda r: r["event"] == "game" and r.get("game") == game_id)
        assert started["opponent"] == "Gus"
        # the round, played by clicks to its end (the bot answers each move)
        explain = {"done": True}
        for _ in range(80):
            if wait_my_turn_or_end(pg, timeout=30000) == "end":
                break
            play_one_turn(pg, explain=explain)
        assert pg.locator("#status-text").inner_text().startswith("Match over")
        done = bot.wait(
            lambda r: (
                r["event"] == "game"
                and r.get("game") == game_id
                and str(r.get("status", "")).split()[0] in ("won", "lost", "draw")
            )
        )
        summary = json.loads(
            pg.evaluate("(id) => fetch(`/api/games/${id}`).then((r) => r.text())", game_id)
        )
        assert summary["status"] == "finished" and summary["rated"] is False
        assert [p["bot_account"] for p in summary["players"]] == [False, True]
        assert done["score"] == [summary["totals"][1], summary["totals"][0]]
        assert errors == [] and owner_errors == []
        assert found == {k: [] for k in found}, found
        guest.close()
    finally:
        code, err = bot.stop()
    assert code == 130, err
    assert bot.records[-1]["event"] == "stopped", bot.records[-3:]
    assert "Traceback" not in err and token not in err + json.dumps(bot.records)
    owner.close()
