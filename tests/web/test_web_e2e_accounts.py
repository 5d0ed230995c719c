"""Accounts in real headless Chromium (issue 27): sign up with a password (the guest game
of the same browser claimed), log out and in again; sign up with a passkey on Chromium's
virtual authenticator (CDP ``WebAuthn.addVirtualAuthenticator``), log out and log in with
it; on a phone's width, by keyboard.

WebAuthn needs a domain for its relying party (an IP address is refused), so the pages are
opened as ``http://localhost:PORT`` with ``localhost`` mapped to 127.0.0.1."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import ARGS, CHROMIUM, shot, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")

CODE = re.compile(r"[0-9a-f]{4}(-[0-9a-f]{4}){4}")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Chromium resolving ``localhost`` to 127.0.0.1 (the test server's only address)."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[*ARGS, "--host-resolver-rules=MAP localhost 127.0.0.1"],
            headless=True,
        )
        yield b
        b.close()


def _base(server: Any) -> str:
    return str(server.url).replace("127.0.0.1", "localhost").rstrip("/")


def _me(page: Any) -> Any:
    return page.evaluate("async () => (await (await fetch('/api/accounts/me')).json()).account")


def test_sign_up_with_a_password_then_log_out_and_in(chromium: Any, server: Any) -> None:
    base = _base(server)
    ctx = chromium.new_context(viewport={"width": 375, "height": 740})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(base + "/")
    # a guest game first: this browser remembers it, and the sign-up claims it
    gid = page.evaluate(
        """async () => {
            const g = await LC.api("POST", "/api/games", {opponent: "computer", rounds: 1});
            LC.remember({id: g.id, token: g.token, seat: g.seat});
            return g.id;
        }"""
    )
    page.goto(base + "/signup")
    page.focus("input[name=username]")
    page.keyboard.type("pat_e2e")
    page.keyboard.press("Tab")  # past the rule, to the password
    page.keyboard.type("correct horse")
    page.keyboard.press("Enter")  # the password form's submit
    page.wait_for_selector("#recovery:not(.hidden)")
    assert page.evaluate("document.activeElement.id") == "recovery"
    assert CODE.fullmatch(page.inner_text("#recovery-code"))
    assert "1" in page.inner_text("#claimed")
    shot(page, "signup-recovery-375")
    # no sideways scrolling on a phone
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.click("#recovery-done")
    page.wait_for_selector("#account-body:not(.hidden)")
    assert "pat_e2e" in page.inner_text("#account-status")
    assert gid  # (claimed: the count above)
    page.click("#logout")
    page.wait_for_url(base + "/")
    assert _me(page) is None
    page.goto(base + "/login")
    page.fill("#login-form input[name=username]", "PAT_E2E")
    page.fill("#login-form input[name=password]", "wrong password")
    page.click("#login-password")
    page.wait_for_function("() => document.querySelector('#form-error').textContent !== ''")
    assert page.inner_text("#form-error") == "wrong username or password"
    page.fill("#login-form input[name=password]", "correct horse")
    page.click("#login-password")
    page.wait_for_url(base + "/account")
    page.wait_for_selector("#account-body:not(.hidden)")
    assert _me(page)["username"] == "pat_e2e"
    assert not errors
    ctx.close()


def test_sign_up_and_log_in_with_a_passkey(chromium: Any, server: Any) -> None:
    base = _base(server)
    ctx = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors = watch_errors(page)
    cdp = ctx.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    page.goto(base + "/signup")
    page.fill("input[name=username]", "quinn")
    page.click("#signup-passkey")
    page.wait_for_selector("#recovery:not(.hidden)")
    assert CODE.fullmatch(page.inner_text("#recovery-code"))
    account = _me(page)
    assert account["username"] == "quinn" and not account["has_password"]
    assert len(account["passkeys"]) == 1
    page.goto(base + "/account")
    page.wait_for_selector("#account-body:not(.hidden)")
    assert page.locator("#current-field").is_hidden()  # no password to give
    shot(page, "account-passkey-1280")
    page.click("#logout")
    page.wait_for_url(base + "/")
    assert _me(page) is None
    page.goto(base + "/login")
    page.click("#login-passkey")  # the browser offers the site's passkey: no name typed
    page.wait_for_url(base + "/account")
    page.wait_for_selector("#account-body:not(.hidden)")
    assert "quinn" in page.inner_text("#account-status")
    # a second passkey (on a second authenticator: the first holds one for this account
    # already, which the options exclude), then the first removed (one is always left)
    second = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "usb",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    # the new passkey's name is offered: "Passkey 2", and the platform the browser tells
    assert page.input_value("#passkey-name").startswith("Passkey 2")
    page.click("#add-passkey")
    items = page.locator("#passkeys li[data-passkey]")
    page.wait_for_function(
        "() => document.querySelectorAll('#passkeys li[data-passkey]').length === 2"
    )
    names = page.locator("#passkeys li strong").all_inner_texts()
    assert names[0].startswith("Passkey 1") and names[1].startswith("Passkey 2"), names
    assert "last used" in items.nth(0).inner_text()  # (the log-in above)
    assert "never used" in items.nth(1).inner_text()
    # rename the second by keyboard: Enter on its button, type, Enter; focus comes back
    items.nth(1).locator("[data-rename]").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.name") == "name"
    page.keyboard.press("Control+A")
    page.keyboard.type("Travel key")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#passkeys li strong')]"
        ".some((s) => s.textContent === 'Travel key')"
    )
    assert [k["name"] for k in _me(page)["passkeys"]][1] == "Travel key"
    assert page.evaluate("() => document.activeElement.dataset.rename") == ""
    # Escape leaves a rename unchanged
    items.nth(0).locator("[data-rename]").click()
    page.keyboard.type("x")
    page.keyboard.press("Escape")
    assert page.locator("#passkeys li strong").first.inner_text().startswith("Passkey 1")
    # remove the first, then the last is refused (no password: the only way to log in)
    items.nth(0).locator("button", has_text="Remove").click()
    page.wait_for_function(
        "() => document.querySelectorAll('#passkeys li[data-passkey]').length === 1"
    )
    page.locator("#passkeys li button", has_text="Remove").click()
    page.wait_for_function("() => document.querySelector('#form-error').textContent !== ''")
    assert "only way to log in" in page.inner_text("#form-error")
    for auth in (made, second):
        creds = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth["authenticatorId"]})
        assert len(creds["credentials"]) == 1
    assert not errors
    ctx.close()


def test_the_account_pages_have_no_serious_accessibility_findings(
    chromium: Any, server: Any
) -> None:
    """axe-core (vendored) on /signup, /login (its recovery form open), /account signed out
    and signed in, and the recovery code shown, at a phone's width and a desktop's."""
    axe = Path(__file__).parent / "data" / "axe.min.js"

    def serious(page: Any) -> list[str]:
        page.add_script_tag(path=str(axe))  # (the context bypasses the CSP only to add axe)
        result = page.evaluate("async () => await axe.run(document)")
        return [
            f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    base = _base(server)
    found: dict[str, list[str]] = {}
    for width, height in ((375, 740), (1280, 800)):
        ctx = chromium.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
        page = ctx.new_page()
        for path in ("/signup", "/login", "/account"):
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            if path == "/login":
                page.click("#forgot summary")
            found[f"{path} {width}"] = serious(page)
        page.goto(base + "/signup")
        page.fill("input[name=username]", f"axe{width}")
        page.fill("input[name=password]", "correct horse")
        page.click("#signup-password")
        page.wait_for_selector("#recovery:not(.hidden)")
        found[f"recovery {width}"] = serious(page)
        page.goto(base + "/account")
        page.wait_for_selector("#account-body:not(.hidden)")
        found[f"/account signed in {width}"] = serious(page)
        shot(page, f"account-{width}")
        ctx.close()
    bad = {k: v for k, v in found.items() if v}
    assert not bad, bad
