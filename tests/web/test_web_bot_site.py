"""The bot API's site (issue 39 item 4) through the ASGI app: the account page's API tokens
and "Become a bot", the BOT mark on a bot account's name, a bot's profile (who runs it, its
bot-pool rating, its games, the Challenge form), the leaderboard's pools and the lobby's
bots online."""

from __future__ import annotations

import datetime
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from lostcities.web.app import create_app
from lostcities.web.bot_api import ONLINE_SECONDS
from lostcities.web.models.accounts import AccountRow
from lostcities.web.models.games import GameRow
from lostcities.web.ratings import DEFAULT, rate_pair
from lostcities.web.repositories import bots as repo
from tests.web.web_helpers import AsgiStream, app_settings
from tests.web.web_helpers import webharness as harness

BADGE = re.compile(r'<span class="bot-badge"[^>]*>')


@pytest.fixture
def site(db_url: str) -> Iterator[Any]:
    """A TestClient on a fresh database (SQLite, and PostgreSQL when the tests have one),
    keep-alives every 0.2 s."""
    from fastapi.testclient import TestClient

    app = create_app(app_settings(db_url, bot_keepalive=0.2))
    with TestClient(app) as c:
        yield c


def person(c: Any, name: str) -> dict[str, str]:
    """A signed-in account's browser headers (session cookie and CSRF)."""
    return harness.signed_in(c.app.state.store, name)


def bot(c: Any, name: str, about: str) -> dict[str, str]:
    """A bot account upgraded with its own token: its ``Authorization`` header."""
    r = c.post(
        "/api/account/tokens",
        json={"description": "engine", "scopes": ["bot:play", "challenge:write"]},
        headers=person(c, name),
    )
    assert r.status_code == 201, r.text
    h = {"Authorization": f"Bearer {r.json()['token']}"}
    r = c.post("/api/bot/account/upgrade", json={"about": about}, headers=h)
    assert r.status_code == 200, r.text
    return h


def account_id(c: Any, name: str) -> int:
    with Session(c.app.state.store.engine) as s:
        found = s.scalar(select(AccountRow.id).where(AccountRow.username == name))
    assert found is not None
    return int(found)


def settled(c: Any, n: int) -> list[tuple[str, str]]:
    """The games the ratings settled, once there are ``n`` (a bounded wait on the count)."""
    hub = c.app.state.lobby
    for _ in range(500):
        if len(hub.settler.settled) >= n:
            break
        time.sleep(0.02)
    return list(hub.settler.settled)


def rated_win_over(c: Any, who: dict[str, str], bot_name: str, bot_h: dict[str, str]) -> str:
    """``who`` challenges the bot to a rated game, which it accepts and resigns at once:
    the game's id, once rated."""
    r = c.post(f"/api/bot/challenge/{bot_name}", json={"rounds": 1, "rated": True}, headers=who)
    assert r.status_code == 201, r.text
    cid = r.json()["challenge"]["id"]
    gid: str = c.post(f"/api/bot/challenge/{cid}/accept", headers=bot_h).json()["game_id"]
    g = c.portal.call(c.app.state.manager.get, gid)
    while g.round.ply < 2:  # (both move once: a resignation before is an abort)
        legal, ri, ply = str(g.round.legal_moves()[0]), g.round_index, g.round.ply
        if g.round.to_move == 0:
            body = {"token": "", "round": ri, "ply": ply, "move": legal}
            r = c.post(f"/api/games/{gid}/moves", json=body, headers=who)
        else:
            body = {"move": legal, "round": ri + 1, "ply": ply}
            r = c.post(f"/api/bot/game/{gid}/move", json=body, headers=bot_h)
        assert r.status_code == 200, r.text
    assert c.post(f"/api/bot/game/{gid}/resign", headers=bot_h).json() == {"ok": True}
    assert (gid, "rated") in settled(c, 1)
    return gid


def test_a_bot_profile_shows_who_runs_it_its_bot_pool_rating_and_games(site: Any) -> None:
    b = bot(site, "deepcat", "run by Ann; engine: ismcts:time=1")
    ann = person(site, "ann")
    gid = rated_win_over(site, ann, "deepcat", b)
    won, lost = rate_pair(DEFAULT, DEFAULT, 1.0)
    prof = site.get("/api/players/deepcat").json()
    assert prof["bot"] is True and prof["about"] == "run by Ann; engine: ismcts:time=1"
    # its rating is the bot pool's (b:<id>), changed by the library's Glicko-2 figures
    assert [(r["variant"], r["speed"], r["rating"]) for r in prof["ratings"]] == [
        ("classic", "untimed", round(lost.rating))
    ]
    assert prof["history"]["classic/untimed"][-1]["rating"] == round(lost.rating, 1)
    assert prof["games"][0]["id"] == gid and prof["games"][0]["result"] == "loss"
    assert prof["games"][0]["rating_change"] == round(lost.rating - DEFAULT.rating, 1)
    # (the person's profile: a person's, the bot opponent marked)
    mine = site.get("/api/players/ann").json()
    assert mine["bot"] is False and mine["about"] == ""
    assert mine["ratings"][0]["rating"] == round(won.rating)
    assert mine["games"][0]["opponent_bot"] is True
    page = site.get("/players/deepcat", headers=ann).text
    assert "run by Ann; engine: ismcts:time=1" in page
    assert re.search(r"<h1>deepcat <span class=\"bot-badge\"", page), page[:2000]
    assert f"{round(lost.rating)}" in page and 'id="challenge"' in page
    assert "/static/js/challenge.js" in page
    assert 'data-bot="deepcat"' in page and 'id="challenge-rated"' in page
    assert 'id="challenge-rated" disabled' not in page  # (signed in: rated may be chosen)
    # a guest gets the form too, casual only (with a name); the bot itself does not
    guest = site.get("/players/deepcat").text
    assert 'id="challenge-rated" disabled' in guest and 'id="challenge-name"' in guest
    ann_page = site.get("/players/ann", headers=ann).text
    assert 'id="challenge"' not in ann_page and "bot-badge" in ann_page  # (its opponent)
    # a person's profile reads the person's ratings (a:), never a bot pool's
    assert not BADGE.search(ann_page.split("<h1>")[1].split("</h1>")[0])


def test_the_leaderboard_keeps_bots_in_a_pool_of_their_own(site: Any) -> None:
    b = bot(site, "deepcat", "Ann's engine")
    rated_win_over(site, person(site, "ann"), "deepcat", b)
    people = site.get("/api/leaderboard", params={"speed": "untimed"}).json()
    assert people["pool"] == "people"
    assert [(p["name"], p["bot"], p["bot_account"]) for p in people["players"]] == [
        ("ann", False, False)
    ]
    bots = site.get("/api/leaderboard", params={"speed": "untimed", "pool": "bots"}).json()
    assert [(p["name"], p["bot"], p["bot_account"]) for p in bots["players"]] == [
        ("deepcat", True, True)
    ]
    assert site.get("/api/leaderboard", params={"pool": "robots"}).status_code == 422
    page = site.get("/leaderboard", params={"speed": "untimed", "pool": "bots"}).text
    assert '<a href="/players/deepcat">deepcat</a> <span class="bot-badge"' in page
    assert 'data-pool="bots"' in page and "ann" not in page.split('id="leaderboard"')[1]
    assert 'href="/leaderboard?variant=classic&amp;speed=untimed&amp;pool=people"' in page
    plain = site.get("/leaderboard", params={"speed": "untimed"}).text
    assert "deepcat" not in plain and '<a href="/players/ann">ann</a>' in plain


def test_the_lobby_lists_the_bots_online(site: Any) -> None:
    b = bot(site, "deepcat", "Ann's engine")
    bot(site, "sweeper", "never connected")
    assert site.get("/api/bot/online").json() == []
    assert 'id="lobby-no-bots">' in site.get("/lobby").text
    stream = AsgiStream(site, "/api/bot/stream/event", b)
    try:
        assert stream.next() == ""  # (open: its first keep-alive)
        assert site.get("/api/bot/online").json() == [{"name": "deepcat", "about": "Ann's engine"}]
        page = site.get("/lobby").text
        assert '<li data-bot="deepcat"><a href="/players/deepcat">deepcat</a>' in page
        assert "sweeper" not in page and 'class="muted hidden" id="lobby-no-bots"' in page
        assert "Online now" in site.get("/players/deepcat").text
        assert "Online now" not in site.get("/players/sweeper").text
    finally:
        stream.close()
    assert stream.ended.wait(5)
    for _ in range(250):  # (the stream's note goes once its generator closes)
        if site.get("/api/bot/online").json() == []:
            break
        time.sleep(0.02)
    assert site.get("/api/bot/online").json() == []
    # a stream open on another process is known by its note in the database, while fresh
    store, hub = site.app.state.store, site.app.state.bots
    now = hub.now()
    store.write_sync(repo.op_stream_seen(account_id(site, "sweeper"), "sweeper", now))
    assert [b["name"] for b in site.get("/api/bot/online").json()] == ["sweeper"]
    assert "sweeper" not in str(site.get("/api/lobby").json()["online"])  # (not a page's)
    stale = now - datetime.timedelta(seconds=ONLINE_SECONDS + 1)
    store.write_sync(repo.op_stream_seen(account_id(site, "sweeper"), "sweeper", stale))
    assert site.get("/api/bot/online").json() == []


def test_the_account_page_makes_tokens_and_a_bot(site: Any) -> None:
    ann = person(site, "ann")
    page = site.get("/account", headers=ann).text
    for marker in ('id="tokens-section"', 'id="token-form"', 'value="bot:play"', 'id="bot-form"'):
        assert marker in page, marker
    assert site.get("/api/account/bot").status_code == 401
    assert site.get("/api/account/bot", headers=ann).json() == {
        "bot": False,
        "about": "",
        "may_upgrade": True,
        "rated_games": 0,
    }
    # irreversible: the username typed again, with the CSRF header
    body = {"confirm": "someone", "about": "Ann's engine"}
    r = site.post("/api/account/bot", json=body, headers=ann)
    assert r.status_code == 422 and r.json()["error"] == "confirm"
    r = site.post(
        "/api/account/bot", json={**body, "confirm": "ANN"}, headers={"Cookie": ann["Cookie"]}
    )
    assert r.status_code == 403
    assert site.get("/api/account/bot", headers=ann).json()["bot"] is False
    assert site.post("/api/account/bot", json={**body, "confirm": "ANN"}, headers=ann).json() == {
        "ok": True
    }
    assert site.get("/api/account/bot", headers=ann).json() == {
        "bot": True,
        "about": "Ann's engine",
        "may_upgrade": False,
        "rated_games": 0,
    }
    # a bot changes its description without the confirmation
    r = site.post("/api/account/bot", json={"about": "engine: expert"}, headers=ann)
    assert r.status_code == 200, r.text
    assert site.get("/api/players/ann").json()["about"] == "engine: expert"
    # an account with a rated game as a person is told why it may not
    b = bot(site, "deepcat", "x")
    bob = person(site, "bob")
    rated_win_over(site, bob, "deepcat", b)
    assert site.get("/api/account/bot", headers=bob).json() == {
        "bot": False,
        "about": "",
        "may_upgrade": False,
        "rated_games": 1,
    }
    r = site.post("/api/account/bot", json={"confirm": "bob"}, headers=bob)
    assert r.status_code == 409 and r.json()["error"] == "upgrade_refused"


def test_a_bot_accounts_seat_is_marked_in_every_summary(site: Any) -> None:
    b = bot(site, "deepcat", "x")
    ann = person(site, "ann")
    r = site.post("/api/bot/challenge/deepcat", json={"rounds": 1}, headers=ann)
    cid = r.json()["challenge"]["id"]
    gid = site.post(f"/api/bot/challenge/{cid}/accept", headers=b).json()["game_id"]
    players = site.get(f"/api/games/{gid}").json()["players"]
    assert [(p["name"], p["bot_account"]) for p in players] == [("ann", False), ("deepcat", True)]
    state = site.get(f"/api/games/{gid}/state", headers=ann).json()
    assert [p["bot_account"] for p in state["game"]["players"]] == [False, True]
    mine = site.post("/api/my-games", json={"games": []}, headers=ann).json()
    assert [p["bot_account"] for p in mine[0]["players"]] == [False, True]
    # loaded afresh from the database (another process, a restart): still marked
    site.app.state.manager.games.pop(gid)
    players = site.get(f"/api/games/{gid}").json()["players"]
    assert [p["bot_account"] for p in players] == [False, True]
    # a person's game (guest seat included) is not marked; an account upgraded later is
    r = site.post(
        "/api/games",
        json={"opponent": "friend", "rounds": 1, "name": "Cy"},
        headers=person(site, "cy"),
    )
    g2 = r.json()["id"]
    with Session(site.app.state.store.engine) as s:
        row = s.get(GameRow, g2)
        assert row is not None and row.account0 == account_id(site, "cy")
    assert [p["bot_account"] for p in site.get(f"/api/games/{g2}").json()["players"]] == [
        False,
        False,
    ]
    cy = person_again(site, "cy")
    r = site.post("/api/account/bot", json={"confirm": "cy"}, headers=cy)
    assert r.status_code == 200, r.text
    assert [p["bot_account"] for p in site.get(f"/api/games/{g2}").json()["players"]] == [
        True,
        False,
    ]


def person_again(c: Any, name: str) -> dict[str, str]:
    """Another session of the existing account ``name``."""
    import secrets

    from lostcities.web.accounts import CSRF_COOKIE, SESSION_COOKIE, op_new_session

    token = secrets.token_urlsafe(16)
    c.app.state.store.write_sync(op_new_session(account_id(c, name), token))
    csrf = secrets.token_urlsafe(16)
    return {"Cookie": f"{SESSION_COOKIE}={token}; {CSRF_COOKIE}={csrf}", "X-CSRF-Token": csrf}


def test_the_lobby_marks_a_bot_online_in_its_list(site: Any) -> None:
    bot(site, "deepcat", "x")
    own = person_again(site, "deepcat")
    hub = site.app.state.lobby
    # a bot account's browser on the lobby page is shown online, marked
    from lostcities.web.lobby import Player

    site.portal.call(hub.seen, Player.account(account_id(site, "deepcat"), "deepcat"))
    snap = site.get("/api/lobby", headers=own).json()
    assert {"name": "deepcat", "account": True, "bot": True} in snap["online"]


def test_every_decline_reason_is_said_in_every_language() -> None:
    from lostcities.web import i18n
    from lostcities.web.bot_api import DECLINE_REASONS

    for lang in i18n.LANGUAGES:
        cat = i18n.catalogue(lang)
        missing = [r for r in DECLINE_REASONS if f"challenge.reason.{r}" not in cat]
        assert not missing, (lang, missing)
