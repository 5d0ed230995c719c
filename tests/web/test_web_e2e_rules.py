"""End-to-end in headless Chromium: the calculator's quick mode (totals and achievements) on a
phone and a desktop, and the rules page's questions and comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def _total_is(page: Any, value: str) -> None:
    page.wait_for_function(f"() => document.querySelector('#calc-total').textContent === {value!r}")


@pytest.mark.parametrize(
    "viewport",
    [{"width": 375, "height": 800}, {"width": 1280, "height": 900}],
    ids=["phone", "desktop"],
)
def test_calculator_quick_mode_by_totals(
    browser: Any, server: Any, viewport: dict[str, int]
) -> None:
    ctx = browser.new_context(viewport=viewport, has_touch=viewport["width"] < 500)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/calculator")
    page.wait_for_selector(".calc-row[data-color=y]")
    page.click("label:has(input[name=mode][value=totals])")
    page.wait_for_selector(".calc-row[data-color=y] .calc-quick input")
    assert page.locator(".calc-row[data-color=y] .calc-quick input").count() == 3
    # seed 001's worked example by totals: 66
    for color, values in {
        "y": (31, 0, 5),
        "r": (32, 1, 6),
        "b": (10, 0, 2),
        "g": (27, 2, 8),
    }.items():
        for name, v in zip(("sum", "wagers", "cards"), values, strict=True):
            page.fill(f"input[name={color}-{name}]", str(v))
    _total_is(page, "66")
    assert page.locator(".calc-row[data-color=g] .score").inner_text() == "41"
    assert page.locator(".calc-row[data-color=w] .detail").inner_text() == "not started"
    assert "8 cards" in page.locator("#breakdown").inner_text()
    # achievements add 10 each
    page.fill("#achievements", "2")
    _total_is(page, "86")
    # impossible totals are refused with the CLI's words
    page.fill("input[name=b-sum]", "12")
    page.fill("input[name=b-cards]", "5")
    page.wait_for_function(
        "() => document.querySelector('#calc-error').textContent.includes('cannot sum to 12')"
    )
    assert "5 number cards cannot sum to 12" in page.locator("#calc-error").inner_text()
    page.fill("input[name=b-sum]", "10")
    page.fill("input[name=b-cards]", "2")
    _total_is(page, "86")
    # kept over a reload, and the inputs fit the screen
    page.reload()
    page.wait_for_selector("input[name=r-sum]")
    assert (
        page.input_value("input[name=r-sum]") == "32" and page.input_value("#achievements") == "2"
    )
    _total_is(page, "86")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"] + 1
    box = page.locator("input[name=g-cards]").bounding_box()
    assert box is not None and box["height"] >= 32 and box["width"] >= 40  # finger-sized
    # back to the cards: the card entry is still there
    page.click("label:has(input[name=mode][value=cards])")
    page.wait_for_selector(".calc-row[data-color=y] .key.wager")
    assert not errors, errors
    ctx.close()


def test_rules_page_questions_link_to_worked_examples(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 375, "height": 800})
    page = ctx.new_page()
    page.goto(server.url + "/rules")
    questions = page.locator(".faq dt")
    assert questions.count() >= 10
    links = page.locator(".faq dd a[href^='#ex-']")
    assert links.count() == questions.count()
    for href in links.evaluate_all("els => els.map(e => e.getAttribute('href'))"):
        assert page.locator(href).count() == 1, href
    page.click(".faq dd a[href='#ex-bonus']")
    assert page.evaluate("() => location.hash") == "#ex-bonus"
    assert "41" in page.locator("#ex-bonus").inner_text()
    ctx.close()


def test_comments_post_show_and_survive_a_reload_as_text(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = watch_errors(page)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(server.url + "/rules")
    page.wait_for_function(
        "() => document.querySelector('#c-empty').textContent.startsWith('No comments')"
    )
    script = (
        "<script>alert('pwned')</script><img src=x onerror=alert(2)> is the 8-card bonus doubled?"
    )
    page.fill("#c-nickname", "Zoë <b>")
    page.select_option("#c-kind", "mistake")
    page.fill("#c-text", script)
    page.click("#c-post")
    page.wait_for_selector("#comment-list .comment")
    first = page.locator("#comment-list .comment").first
    assert first.locator(".comment-text").inner_text() == script
    assert first.locator(".comment-nick").inner_text() == "Zoë <b>"
    assert "mistake" in first.inner_text()
    assert page.locator("#comment-list script, #comment-list img, #comment-list b b").count() == 0
    # a second comment goes on top (newest first)
    page.fill("#c-text", "A tool to count the draw pile, please")
    page.select_option("#c-kind", "tool request")
    page.click("#c-post")
    page.wait_for_function("() => document.querySelectorAll('#comment-list .comment').length === 2")
    # reload: both are still there, from the database, in the same order
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('#comment-list .comment').length === 2")
    texts = page.locator("#comment-list .comment-text").all_inner_texts()
    assert texts == ["A tool to count the draw pile, please", script]
    assert page.input_value("#c-nickname") == "Zoë <b>"  # remembered in this browser
    # an empty text is refused before sending
    page.click("#c-post")
    assert "Please write something" in page.locator("#c-error").inner_text()
    assert not dialogs and not errors, (dialogs, errors)
    ctx.close()


@pytest.mark.parametrize(
    ("locale", "says"),
    [("en-US", "try again in 113 seconds"), ("fr-FR", "réessayez dans 113 secondes")],
)
def test_the_comment_rate_limit_says_how_long_to_wait(
    browser: Any, server: Any, locale: str, says: str
) -> None:
    """The server's 429 carries the wait (Retry-After, ``retry_after``); the page says it
    rather than "wait a moment" (the answer is routed: the real limit waits minutes)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    page = ctx.new_page()
    body = '{"error": "rate_limited", "message": "too many comments: try again in 113 s", "retry_after": 113}'
    page.route(
        "**/api/comments",
        lambda route: (
            route.fulfill(
                status=429,
                body=body,
                headers={"Retry-After": "113", "Content-Type": "application/json"},
            )
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    page.goto(server.url + "/rules")
    page.fill("#c-nickname", "Zoë")
    page.fill("#c-text", "is the 8-card bonus doubled?")
    page.click("#c-post")
    page.wait_for_function("() => document.querySelector('#c-error').textContent !== ''")
    assert says in page.locator("#c-error").inner_text()
    page.locator("#c-error").scroll_into_view_if_needed()
    page.screenshot(
        path=str(
            Path(__file__).resolve().parents[2]
            / "build"
            / "test-artifacts"
            / "screenshots"
            / f"comment-rate-limit-{locale}.png"
        )
    )
    ctx.close()


def test_calculator_sorts_typed_cards_and_explains_errors_in_plain_english(
    browser: Any, server: Any
) -> None:
    """Typed "5,3" was refused as out of order while the keys sort: it is put in order; and
    English errors were the command line's ("card 'w11' (rank 11 is not in 2..10)")."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(server.url + "/calculator")
    page.wait_for_selector(".calc-row[data-color=y] .calc-line input")
    box = page.locator(".calc-row[data-color=y] .calc-line input")
    box.fill("5,3")
    box.press("Tab")
    page.wait_for_function(
        "() => document.querySelector('.calc-row[data-color=y] .score').textContent === '-12'"
    )
    assert page.locator(".calc-row[data-color=y] .calc-line input").input_value() == "3,5"
    assert page.locator("#calc-error").inner_text() == ""
    page.locator(".calc-row[data-color=b] .calc-line input").fill("3,11")
    page.wait_for_function("() => document.querySelector('#calc-error').textContent !== ''")
    said = page.locator("#calc-error").inner_text()
    assert said == "blue expedition: not a card: use 2 to 10, and x for a wager", said
    # one bad colour does not blank the round: yellow keeps its score, the total waits
    page.wait_for_function(
        "() => document.querySelector('.calc-row[data-color=y] .score').textContent === '-12'"
    )
    assert page.locator(".calc-row[data-color=b] .score").inner_text() == "–"
    assert page.locator("#calc-total").inner_text() == "–"
    page.locator("#calc-error").scroll_into_view_if_needed()
    page.screenshot(
        path=str(
            Path(__file__).resolve().parents[2]
            / "build"
            / "test-artifacts"
            / "screenshots"
            / "calculator-typed.png"
        )
    )
    ctx.close()
