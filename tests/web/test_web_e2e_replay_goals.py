"""The replay page of an achievements game shows its goal cards, and who holds each, at
every position (real headless Chromium)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.e2e_helpers import CHROMIUM, shot, watch_errors

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium")


def _played_goal_game(server: Any) -> tuple[str, dict[str, Any]]:
    """A one-round friend game of the achievements variant played out over HTTP (the first
    legal move each turn); its id and final state."""
    status, g = server.request(
        "POST", "/api/games", {"opponent": "friend", "rounds": 1, "achievements": True}
    )
    assert status == 201
    invite = g["invite_url"].split("#", 1)[1]
    status, j = server.request(
        "POST", f"/api/games/{g['id']}/join", {"invite": invite, "name": "Bea"}
    )
    assert status == 200
    tokens = [g["token"], j["token"]]
    _, st = server.request(
        "GET", f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tokens[0]}
    )
    while not st["match"]["over"]:
        tok = tokens[st["view"]["to_move"]]
        _, st = server.request("GET", f"/api/games/{g['id']}/state", headers={"X-Seat-Token": tok})
        body = {
            "token": tok,
            "move": st["view"]["legal"][0],
            "round": st["round"],
            "ply": st["view"]["ply"],
        }
        status, st = server.request("POST", f"/api/games/{g['id']}/moves", body)
        assert status == 200, st
    return g["id"], st


def test_the_replay_shows_the_goal_cards_and_their_holders(browser: Any, server: Any) -> None:
    gid, end = _played_goal_game(server)
    goals = end["match"]["rounds"][0]["goals"]
    names = [p["name"] for p in end["game"]["players"]]
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + f"/replay/{gid}")
    page.wait_for_selector("#replay-body:not(.hidden)")
    cards = page.locator("#r-goals .goal")
    assert cards.count() == 5
    assert [cards.nth(i).get_attribute("data-goal") for i in range(5)] == [g["id"] for g in goals]
    assert (
        page.locator("#r-goals .goal.mine, #r-goals .goal.theirs").count() == 0
    )  # the deal: nobody yet
    page.click("#last")
    page.wait_for_selector("#r-summary:not(.hidden)")
    for i, g in enumerate(goals):
        holder = cards.nth(i).locator(".goal-holder").inner_text()
        if g["claimed_by"] is None:
            assert holder == "10 points"
        else:
            assert holder == f"+10 {names[g['claimed_by']]}"
    assert any(g["claimed_by"] is not None for g in goals)
    assert page.inner_text("#r-score0") == str(
        end["match"]["rounds"][0]["scores"][0]
    )  # goal points in
    shot(page, "replay-goals-1280")
    assert not errors, errors
    ctx.close()
