"""The replay's "Download position (SVG)": the endpoint, its errors, and the page's link."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from lostcities import Round
from lostcities.record import read_records
from lostcities.svg import position
from tests.web.e2e_helpers import watch_errors

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def finished_game(post: Any, get: Any) -> tuple[str, Round]:
    """A one-round friend game with four moves, then a resignation; its round replayed."""
    g = post("/api/games", {"opponent": "friend", "rounds": 1})
    invite = g["invite_url"].split("#", 1)[1]
    tokens = [g["token"], post(f"/api/games/{g['id']}/join", {"invite": invite})["token"]]
    for ply in range(4):
        s = get(f"/api/games/{g['id']}/state", tokens[0])
        seat = s["view"]["to_move"]
        if seat != 0:
            s = get(f"/api/games/{g['id']}/state", tokens[1])
        post(
            f"/api/games/{g['id']}/moves",
            {"token": tokens[seat], "move": s["view"]["legal"][-1], "round": 0, "ply": ply},
        )
    post(f"/api/games/{g['id']}/resign", {"token": tokens[1]})
    rec = next(read_records(io.StringIO(get(f"/api/games/{g['id']}/record", None, text=True))))
    return g["id"], rec.replay().rounds[0]


def at(r: Round, ply: int) -> Round:
    x = Round.from_deck(r.deal_order, r.starter, r.variant)
    for mv in r.history[:ply]:
        x.push(mv)
    return x


def test_a_position_of_a_finished_game_downloads_as_svg(client: Any) -> None:
    def post(path: str, body: dict[str, Any]) -> Any:
        r = client.post(path, json=body)
        assert r.status_code in (200, 201), r.text
        return r.json()

    def get(path: str, token: str | None, text: bool = False) -> Any:
        r = client.get(path, headers={"X-Seat-Token": token} if token else {})
        assert r.status_code == 200, r.text
        return r.text if text else r.json()

    g = post("/api/games", {"opponent": "friend", "rounds": 1})
    early = client.get(f"/api/games/{g['id']}/position.svg?round=1&ply=0")
    assert early.status_code == 409 and early.json()["error"] == "not_finished"

    gid, r = finished_game(post, get)
    for ply in (0, 2, 4):
        resp = client.get(f"/api/games/{gid}/position.svg?round=1&ply={ply}")
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("image/svg+xml")
        assert (
            f'filename="lostcities-{gid}-round1-ply{ply}.svg"'
            in resp.headers["content-disposition"]
        )
        ET.fromstring(resp.text)  # well-formed
        assert resp.text == position(at(r, ply))
    assert client.get(f"/api/games/{gid}/position.svg").text == position(at(r, 0))

    for query, code in (
        ("round=2&ply=0", 404),
        ("round=0", 404),
        ("ply=99", 404),
        ("ply=-1", 404),
        ("ply=x", 422),
    ):
        bad = client.get(f"/api/games/{gid}/position.svg?{query}")
        assert bad.status_code == code, query
        msg = bad.json()["message"]
        assert msg and "\n" not in msg and "Traceback" not in msg
    assert (
        "no ply 99 in round 1 (it has 0..4)"
        in client.get(f"/api/games/{gid}/position.svg?ply=99").json()["message"]
    )


def test_the_replay_page_links_the_position_shown(
    browser: Any, server_factory: Any, tmp_path: Path
) -> None:
    server = server_factory(f"sqlite:///{tmp_path / 'svg.db'}")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = watch_errors(page)

    def post(path: str, body: dict[str, Any]) -> Any:
        r = page.request.post(server.url + path, data=body)
        assert r.ok, r.text()
        return r.json()

    def get(path: str, token: str | None, text: bool = False) -> Any:
        r = page.request.get(server.url + path, headers={"X-Seat-Token": token} if token else {})
        assert r.ok, r.text()
        return r.text() if text else r.json()

    gid, r = finished_game(post, get)
    page.goto(f"{server.url}/replay/{gid}")
    page.wait_for_selector("#replay-body:not(.hidden)")
    link = page.locator("#download-svg")
    assert link.is_visible() and link.get_attribute("download") is not None
    page.click("#next")
    page.click("#next")
    href = link.get_attribute("href")
    assert href == f"/api/games/{gid}/position.svg?round=1&ply=2"
    svg = page.request.get(server.url + href)
    assert svg.ok and svg.text() == position(at(r, 2))
    page.click("#last")
    assert (
        link.get_attribute("href") == f"/api/games/{gid}/position.svg?round=1&ply={len(r.history)}"
    )
    assert not errors
    ctx.close()
