"""The bot API (issue 39, docs/bot-api.md) through the ASGI app: tokens, the upgrade, the
streams, play, challenges, every refusal (and that a refusal changes nothing), the leak
scan of the game streams, and a rated game of two bots played to its end over HTTP."""

from __future__ import annotations

import argparse
import datetime
import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from lostcities.web.accounts_cli import cli_main as users_cli
from lostcities.web.app import create_app
from lostcities.web.bot_api import BotHub, new_api_token
from lostcities.web.limits import Limits
from lostcities.web.models.accounts import AccountRow, ModLogRow
from lostcities.web.models.bots import ApiTokenRow, BotChallengeRow
from lostcities.web.models.games import GameRow, MoveRow
from lostcities.web.models.ratings import RatingChangeRow, RatingRow
from lostcities.web.ratings import DEFAULT, outcome, rate_pair
from lostcities.web.store import hash_token
from tests.web.leakcheck import Positions, check_bot_line
from tests.web.web_helpers import AsgiStream, app_settings
from tests.web.web_helpers import webharness as harness

KEEPALIVE = 0.2


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    """A TestClient on a fresh SQLite database, keep-alives every 0.2 s."""
    from fastapi.testclient import TestClient

    app = create_app(app_settings(f"sqlite:///{tmp_path / 'bots.db'}", bot_keepalive=KEEPALIVE))
    with TestClient(app) as c:
        yield c


def hub(c: Any) -> BotHub:
    out: BotHub = c.app.state.bots
    return out


def person(c: Any, name: str) -> dict[str, str]:
    """A signed-in account's browser headers (session cookie and CSRF)."""
    return harness.signed_in(c.app.state.store, name)


def token(
    c: Any, who: dict[str, str], scopes: tuple[str, ...] = ("bot:play", "challenge:write")
) -> str:
    r = c.post(
        "/api/account/tokens", json={"description": "engine", "scopes": list(scopes)}, headers=who
    )
    assert r.status_code == 201, r.text
    t: str = r.json()["token"]
    return t


def bearer(t: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {t}"}


def bot(
    c: Any, name: str, scopes: tuple[str, ...] = ("bot:play", "challenge:write")
) -> dict[str, str]:
    """A bot account (upgraded with its own token): its ``Authorization`` header."""
    h = bearer(token(c, person(c, name), scopes))
    r = c.post("/api/bot/account/upgrade", json={"about": f"{name}'s engine"}, headers=h)
    assert r.status_code == 200, r.text
    return h


def refused(r: Any, status: int, code: str) -> dict[str, Any]:
    """A refusal in the bot API's form: one line, the code in ``code`` (and ``error``)."""
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    assert body["detail"] and "\n" not in body["detail"], body
    return body


def count(c: Any, model: Any) -> int:
    with Session(c.app.state.store.engine) as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


def game_of(c: Any, a: dict[str, str], b: dict[str, str], b_name: str, **kw: Any) -> str:
    """``a`` challenges the bot ``b_name`` (``b`` its header), who accepts: the game id."""
    body = {"variant": "classic", "rounds": 1, "clock": None, "rated": False, **kw}
    r = c.post(f"/api/bot/challenge/{b_name}", json=body, headers=a)
    assert r.status_code == 201, r.text
    ch = r.json()["challenge"]
    r = c.post(f"/api/bot/challenge/{ch['id']}/accept", headers=b)
    assert r.status_code == 200, r.text
    gid: str = r.json()["game_id"]
    return gid


def first_state(c: Any, gid: str, who: dict[str, str]) -> dict[str, Any]:
    """The ``gameFull`` line of the game's stream (the stream then closed)."""
    s = AsgiStream(c, f"/api/bot/game/stream/{gid}", who)
    try:
        full: dict[str, Any] = s.next()
        assert full["type"] == "gameFull", full
        return full
    finally:
        s.close()


# -- tokens ------------------------------------------------------------------------------------


def test_tokens_are_made_listed_and_revoked(api: Any) -> None:
    ann = person(api, "ann")
    r = api.post(
        "/api/account/tokens", json={"description": "my bot", "scopes": ["bot:play"]}, headers=ann
    )
    assert r.status_code == 201
    made = r.json()
    assert set(made) == {"id", "token", "description", "scopes", "created"}
    assert made["token"].startswith("lct_") and len(made["token"]) == 47
    # listed without the token, with the session or the token itself
    for who in (ann, bearer(made["token"])):
        listed = api.get("/api/account/tokens", headers=who).json()
        assert [set(t) for t in listed] == [{"id", "description", "scopes", "created", "last_used"}]
        assert made["token"] not in str(listed)
    # only the hash is stored
    with Session(api.app.state.store.engine) as s:
        stored = s.scalars(select(ApiTokenRow)).one()
        assert stored.token_hash == hash_token(made["token"])
        assert made["token"] not in repr([getattr(stored, c.key) for c in ApiTokenRow.__table__.c])
    # made only signed in, with the CSRF header, and with known scopes
    no_csrf = {"Cookie": ann["Cookie"]}
    assert (
        api.post("/api/account/tokens", json={"scopes": ["bot:play"]}, headers=no_csrf).status_code
        == 403
    )
    refused(
        api.post("/api/account/tokens", json={"scopes": ["root"]}, headers=ann), 422, "bad_request"
    )
    refused(api.post("/api/account/tokens", json={"scopes": []}, headers=ann), 422, "bad_request")
    assert api.post("/api/account/tokens", json={"scopes": ["bot:play"]}).status_code == 401
    # revoked: refused at once
    r = api.delete(f"/api/account/tokens/{made['id']}", headers=bearer(made["token"]))
    assert r.json() == {"ok": True}
    refused(api.get("/api/account/tokens", headers=bearer(made["token"])), 401, "bad_token")
    refused(api.delete(f"/api/account/tokens/{made['id']}", headers=ann), 404, "no_such_token")


def test_a_token_needs_its_scope_and_a_well_formed_header(api: Any) -> None:
    reader = bearer(token(api, person(api, "ann"), ("challenge:read",)))
    refused(api.post("/api/bot/account/upgrade", headers=reader), 403, "missing_scope")
    refused(
        api.post("/api/bot/game/abc/move", json={"move": "+y7."}, headers=reader),
        403,
        "missing_scope",
    )
    for header in (
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic abc"},
        bearer("lct_" + "x" * 43),
        bearer(new_api_token()),
    ):
        refused(api.post("/api/bot/account/upgrade", headers=header), 401, "bad_token")


def test_the_upgrade_is_refused_after_a_rated_game_and_bots_stay_out_of_the_lobby(api: Any) -> None:
    ann = person(api, "ann")
    t = bearer(token(api, ann))
    with Session(api.app.state.store.engine) as s:
        ann_id = s.scalar(select(AccountRow.id).where(AccountRow.username == "ann"))
    api.app.state.store.write_sync(
        lambda s: s.add(
            GameRow(
                id="rated1",
                variant="classic",
                num_rounds=1,
                seed=1,
                first_starter=0,
                status="finished",
                name0="ann",
                name1="x",
                account0=ann_id,
                rated=True,
            )
        )
    )
    refused(api.post("/api/bot/account/upgrade", headers=t), 409, "upgrade_refused")
    # a bot account: marked, described, logged; no lobby
    bob = person(api, "bob")
    h = bearer(token(api, bob))
    assert api.post(
        "/api/bot/account/upgrade", json={"about": "Bob, heuristic"}, headers=h
    ).json() == {"ok": True}
    with Session(api.app.state.store.engine) as s:
        row = s.scalars(select(AccountRow).where(AccountRow.username == "bob")).one()
        assert row.is_bot and row.bot_about == "Bob, heuristic"
        assert (
            s.scalars(select(ModLogRow.action).where(ModLogRow.actor == "bob")).all()[-1]
            == "bot_upgrade"
        )
    for path in ("/api/lobby/seeks", "/api/lobby/tables"):
        r = api.post(path, json={"browser": "b"}, headers=bob)
        assert r.status_code == 403 and r.json()["error"] == "not_for_bots", r.text


# -- streams -----------------------------------------------------------------------------------


def test_the_event_stream_tells_challenges_and_games_and_resumes(api: Any) -> None:
    a, b = bot(api, "alpha"), bot(api, "beta")
    s = AsgiStream(api, "/api/bot/stream/event", b)
    try:
        assert s.next() == ""  # nothing yet: a keep-alive
        r = api.post("/api/bot/challenge/beta", json={"rounds": 1}, headers=a)
        ch = r.json()["challenge"]
        ev = s.until(lambda x: x != "")
        assert ev["type"] == "challenge" and ev["challenge"]["id"] == ch["id"]
        assert ev["challenge"]["challenger"] == {"name": "alpha", "bot": True, "rating": 1500}
        assert set(ev["challenge"]) == {
            "id",
            "challenger",
            "dest",
            "variant",
            "rounds",
            "clock",
            "rated",
            "status",
        }
        first = ev["event_id"]
        gid = api.post(f"/api/bot/challenge/{ch['id']}/accept", headers=b).json()["game_id"]
        ev = s.until(lambda x: x != "")
        assert ev["type"] == "gameStart" and ev["event_id"] > first
        assert ev["game"] == {
            "id": gid,
            "variant": "classic",
            "rounds": 1,
            "rated": False,
            "clock": None,
            "seat": 1,
            "opponent": {"name": "alpha", "bot": True, "rating": 1500},
        }
    finally:
        s.close()
    # resumed after the first event: the gameStart again, then the snapshot (its game)
    again = AsgiStream(api, f"/api/bot/stream/event?since={first}", b)
    try:
        got = again.next()
        assert got["type"] == "gameStart" and got["event_id"] > first
        snap = again.next()
        assert snap["type"] == "gameStart" and snap["game"]["id"] == gid
    finally:
        again.close()
    refused(api.get("/api/bot/stream/event?since=-1", headers=b), 422, "bad_request")


def test_a_revoked_token_closes_its_streams_at_once(api: Any) -> None:
    ann = person(api, "ann")
    made = api.post(
        "/api/account/tokens", json={"scopes": ["bot:play", "challenge:write"]}, headers=ann
    ).json()
    t = bearer(made["token"])
    api.post("/api/bot/account/upgrade", headers=t)
    other = bot(api, "zed")
    gid = game_of(api, other, t, "ann")
    hub(api).keepalive = 60.0  # (no keep-alive comes: the revocation alone closes them)
    events = AsgiStream(api, "/api/bot/stream/event", t)
    game = AsgiStream(api, f"/api/bot/game/stream/{gid}", t)
    assert game.next()["type"] == "gameFull"
    assert hub(api).open_streams(made["id"]) == 2
    assert api.delete(f"/api/account/tokens/{made['id']}", headers=ann).json() == {"ok": True}
    assert events.ended.wait(2) and game.ended.wait(2)
    assert hub(api).open_streams(made["id"]) == 0
    refused(api.get("/api/bot/stream/event", headers=t), 401, "bad_token")


def test_the_users_ban_revokes_the_accounts_tokens(api: Any, tmp_path: Path, capsys: Any) -> None:
    t = bot(api, "rogue")
    s = AsgiStream(api, "/api/bot/stream/event", t)
    args = argparse.Namespace(
        action="ban", name="rogue", reason="spam", db=f"sqlite:///{tmp_path / 'bots.db'}"
    )
    assert users_cli(args) == 0
    assert "1 API token revoked" in capsys.readouterr().out
    # another process banned it: the stream sees it at its next keep-alive
    assert s.ended.wait(5)
    refused(api.get("/api/account/tokens", headers=t), 401, "bad_token")


def test_a_game_stream_is_its_bots_only(api: Any) -> None:
    a, b, c = bot(api, "alpha"), bot(api, "beta"), bot(api, "gamma")
    gid = game_of(api, a, b, "beta")
    refused(api.get(f"/api/bot/game/stream/{gid}", headers=c), 403, "not_your_game")
    refused(api.get("/api/bot/game/stream/nosuchgame", headers=a), 404, "not_found")
    human = bearer(token(api, person(api, "hugo")))
    refused(api.get(f"/api/bot/game/stream/{gid}", headers=human), 403, "not_a_bot")
    refused(api.post(f"/api/bot/game/{gid}/resign", headers=c), 403, "not_your_game")
    full = first_state(api, gid, a)
    assert full["seat"] == 0 and full["players"] == [
        {"name": "alpha", "bot": True},
        {"name": "beta", "bot": True},
    ]
    assert set(full["state"]) == {
        "round",
        "ply",
        "to_move",
        "position",
        "legal",
        "clock",
        "totals",
        "status",
        "result",
    }


# -- moves: refusals change nothing ------------------------------------------------------------


def moves_stored(c: Any, gid: str) -> int:
    with Session(c.app.state.store.engine) as s:
        return int(
            s.scalar(select(func.count()).select_from(MoveRow).where(MoveRow.game_id == gid)) or 0
        )


def test_bad_moves_are_refused_and_change_nothing(api: Any) -> None:
    a, b = bot(api, "alpha"), bot(api, "beta")
    gid = game_of(api, a, b, "beta")
    st = first_state(api, gid, a)["state"]
    me, other = (a, b) if st["to_move"] == 0 else (b, a)
    url = f"/api/bot/game/{gid}/move"
    refused(
        api.post(url, content=b"{not json", headers={**me, "Content-Type": "application/json"}),
        422,
        "bad_request",
    )
    refused(api.post(url, json={"mv": "+y7."}, headers=me), 422, "bad_request")
    refused(api.post(url, json={"move": "zz9"}, headers=me), 422, "illegal_move")
    legal = first_state(api, gid, me)["state"]["legal"]
    assert legal
    refused(api.post(url, json={"move": legal[0]}, headers=other), 409, "not_your_turn")
    refused(
        api.post(url, json={"move": legal[0], "round": 1, "ply": 5}, headers=me), 409, "stale_move"
    )
    refused(
        api.post(f"/api/bot/game/{gid}/chat", json={"phrase": "hello world"}, headers=me),
        422,
        "bad_request",
    )
    assert moves_stored(api, gid) == 0
    # then the same bot may go on: a legal move is taken
    assert api.post(url, json={"move": legal[0], "round": 1, "ply": 0}, headers=me).json() == {
        "ok": True
    }
    assert moves_stored(api, gid) == 1
    refused(
        api.post(url, json={"move": legal[0], "round": 1, "ply": 0}, headers=me), 409, "stale_move"
    )
    assert moves_stored(api, gid) == 1
    api.portal.call(hub(api).settle)
    with Session(api.app.state.store.engine) as s:
        assert "bot_move" in s.scalars(select(ModLogRow.action)).all()


def test_a_flood_is_refused_with_retry_after(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    limits = Limits(bot=(5, 60.0))
    app = create_app(app_settings(f"sqlite:///{tmp_path / 'f.db'}", limits=limits))
    with TestClient(app) as c:
        t = bearer(token(c, person(c, "ann")))
        codes = [c.get("/api/account/tokens", headers=t).status_code for _ in range(7)]
        assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]
        r = c.get("/api/account/tokens", headers=t)
        body = refused(r, 429, "rate_limited")
        assert int(r.headers["Retry-After"]) >= 1 and body["retry_after"] >= 1


# -- challenges ----------------------------------------------------------------------------------


def test_challenges_are_declined_cancelled_and_expire(api: Any) -> None:
    a, b = bot(api, "alpha"), bot(api, "beta")
    events = AsgiStream(api, "/api/bot/stream/event", a)
    try:
        ch = api.post(
            "/api/bot/challenge/beta", json={"rounds": 3, "clock": "300+5"}, headers=a
        ).json()["challenge"]
        refused(
            api.post(f"/api/bot/challenge/{ch['id']}/decline", json={"reason": "nope"}, headers=b),
            422,
            "bad_request",
        )
        refused(
            api.post(f"/api/bot/challenge/{ch['id']}/decline", json={"reason": "later"}, headers=a),
            404,
            "no_such_challenge",
        )
        assert api.post(
            f"/api/bot/challenge/{ch['id']}/decline", json={"reason": "tooFast"}, headers=b
        ).json() == {"ok": True}
        ev = events.until(lambda x: x != "" and x["type"] == "challengeDeclined")
        assert ev["challenge"]["decline_reason"] == "tooFast"
        got = api.get(f"/api/bot/challenge/{ch['id']}", headers=a).json()["challenge"]
        assert (
            got["status"] == "declined"
            and got["decline_reason"] == "tooFast"
            and got["clock"] == "300+5"
        )
        refused(
            api.post(f"/api/bot/challenge/{ch['id']}/accept", headers=b), 409, "challenge_closed"
        )
    finally:
        events.close()
    ch = api.post("/api/bot/challenge/beta", json={}, headers=a).json()["challenge"]
    refused(api.post(f"/api/bot/challenge/{ch['id']}/cancel", headers=b), 404, "no_such_challenge")
    assert api.post(f"/api/bot/challenge/{ch['id']}/cancel", headers=a).json() == {"ok": True}
    assert (
        api.get(f"/api/bot/challenge/{ch['id']}", headers=b).json()["challenge"]["status"]
        == "canceled"
    )
    # unanswered for 60 s: expired
    ch = api.post("/api/bot/challenge/beta", json={}, headers=a).json()["challenge"]
    h = hub(api)
    h.now = lambda: (
        datetime.datetime.now(datetime.UTC).replace(tzinfo=None) + datetime.timedelta(seconds=61)
    )
    assert (
        api.get(f"/api/bot/challenge/{ch['id']}", headers=a).json()["challenge"]["status"]
        == "expired"
    )
    refused(api.post(f"/api/bot/challenge/{ch['id']}/accept", headers=b), 409, "challenge_closed")
    assert api.portal.call(h.sweep) == 1
    with Session(api.app.state.store.engine) as s:
        assert s.get(BotChallengeRow, ch["id"]).status == "expired"  # type: ignore[union-attr]
    # nobody challenges themselves or someone unknown
    refused(api.post("/api/bot/challenge/alpha", json={}, headers=a), 422, "bad_request")
    refused(api.post("/api/bot/challenge/nobody", json={}, headers=a), 404, "no_such_player")


def test_a_guest_and_a_person_challenge_a_bot(api: Any) -> None:
    b = bot(api, "beta")
    refused(
        api.post("/api/bot/challenge/beta", json={"rated": True, "name": "Gus"}), 422, "bad_request"
    )
    r = api.post("/api/bot/challenge/beta", json={"rounds": 1, "name": "Gus"})
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["game_url"] is None and out["challenge"]["challenger"]["name"] == "Gus"
    seat_token = out["token"]
    cid = out["challenge"]["id"]
    refused(api.get(f"/api/bot/challenge/{cid}"), 404, "no_such_challenge")  # (whose?)
    gid = api.post(f"/api/bot/challenge/{cid}/accept", headers=b).json()["game_id"]
    got = api.get(f"/api/bot/challenge/{cid}", headers={"X-Seat-Token": seat_token}).json()
    assert got["game_url"] == f"/game/{gid}" and got["token"] == seat_token
    st = api.get(f"/api/games/{gid}/state", headers={"X-Seat-Token": seat_token}).json()
    assert st["seat"] == 0 and st["view"]["hand"]
    # a signed-in person: the session and its CSRF header; a person is not challenged here
    pat = person(api, "pat")
    refused(api.post("/api/bot/challenge/pat", json={}, headers=pat), 422, "bad_request")
    person(api, "oscar")
    refused(api.post("/api/bot/challenge/oscar", json={}, headers=pat), 403, "not_a_bot")
    assert (
        api.post("/api/bot/challenge/beta", json={}, headers={"Cookie": pat["Cookie"]}).status_code
        == 403
    )
    r = api.post("/api/bot/challenge/beta", json={"rated": True, "rounds": 1}, headers=pat)
    cid = r.json()["challenge"]["id"]
    gid = api.post(f"/api/bot/challenge/{cid}/accept", headers=b).json()["game_id"]
    got = api.get(f"/api/bot/challenge/{cid}", headers=pat).json()
    assert got["challenge"]["status"] == "accepted" and got["challenge"]["game_id"] == gid
    assert got["game_url"] == f"/game/{gid}"
    st = api.get(f"/api/games/{gid}/state", headers=pat).json()  # (the seat is the account's)
    assert st["seat"] == 0 and st["game"]["rated"] is True


# -- a whole game --------------------------------------------------------------------------------


def play_out(
    c: Any, gid: str, seats: dict[int, dict[str, str]], rng: random.Random
) -> list[list[Any]]:
    """Both bots play the game through their streams to its end (a random legal move
    each); returns every line each seat's stream sent."""
    streams = {s: AsgiStream(c, f"/api/bot/game/stream/{gid}", h) for s, h in seats.items()}
    lines: dict[int, list[Any]] = {0: [], 1: []}
    try:
        state = {}
        for s, st in streams.items():
            full = st.next()
            lines[s].append(full)
            state[s] = full["state"]
        for _ in range(400):
            if state[0]["status"] != "started":
                break
            mover = state[0]["to_move"]
            mine = state[mover]
            assert mine["legal"], mine
            body = {"move": rng.choice(mine["legal"]), "round": mine["round"], "ply": mine["ply"]}
            r = c.post(f"/api/bot/game/{gid}/move", json=body, headers=seats[mover])
            assert r.json() == {"ok": True}, r.text
            for s, st in streams.items():
                line = st.until(lambda x: x != "" and x["type"] == "gameState")
                lines[s].append(line)
                state[s] = line["state"]
        assert state[0]["status"] == "finished", state[0]
        for st in streams.values():
            assert st.rest() == []  # the stream ends after the last state
    finally:
        for st in streams.values():
            st.close()
    return [lines[0], lines[1]]


def test_two_bots_play_a_rated_game_to_its_end_rated_in_the_bot_pool(api: Any) -> None:
    a, b = bot(api, "alpha"), bot(api, "beta")
    events = AsgiStream(api, "/api/bot/stream/event", b)
    gid = game_of(api, a, b, "beta", rated=True, clock="600+10")
    seats = {0: a, 1: b}
    lines = play_out(api, gid, seats, random.Random(39))
    fin = events.until(lambda x: x != "" and x["type"] == "gameFinish")
    events.close()
    last = lines[0][-1]["state"]
    assert fin["game"]["result"] == last["result"] and last["result"]["scores"] == last["totals"]
    assert last["result"]["ending"] == "normal"  # (the match's own end, as the docs name it)
    assert lines[0][0]["clock"] == "600+10" and set(last["clock"]) == {"0", "1"}
    # the leak scan: every line names only cards its seat may know; the hand is its own
    g = api.portal.call(api.app.state.manager.get, gid)
    positions = Positions(list(g.match.rounds))
    for seat in (0, 1):
        for line in lines[seat]:
            check_bot_line(line, seat, positions)
    # (the scan can fail: the opponent's hand in a line is caught)
    bad = {**lines[0][0], "state": {**lines[0][0]["state"]}}
    other = " ".join(str(x) for x in positions.at(0, 0).hands[1])
    bad["state"]["position"] = [*bad["state"]["position"], f"note {other}"]
    with pytest.raises(AssertionError, match="leaked"):
        check_bot_line(bad, 0, positions)
    # rated: both in the bot pool (b:<id>), by the library's Glicko-2 figures
    with Session(api.app.state.store.engine) as s:
        row = s.get(GameRow, gid)
        assert row is not None and row.rated and row.status == "finished"
        score = outcome(row.result)
        assert score is not None
        ids = (row.account0, row.account1)
        changes = {
            c.seat: c
            for c in s.scalars(select(RatingChangeRow).where(RatingChangeRow.game_id == gid))
        }
        rows = {r.player: r for r in s.scalars(select(RatingRow))}
    want = rate_pair(DEFAULT, DEFAULT, score)
    for seat in (0, 1):
        key = f"b:{ids[seat]}"
        assert changes[seat].player == key and rows[key].games == 1
        assert rows[key].rating == pytest.approx(want[seat].rating)
    assert not [k for k in rows if k.startswith("a:")]


def test_a_resignation_ends_the_game_streams_with_its_reason(api: Any) -> None:
    a, b = bot(api, "alpha"), bot(api, "beta")
    gid = game_of(api, a, b, "beta", rounds=3)
    streams = {s: AsgiStream(api, f"/api/bot/game/stream/{gid}", h) for s, h in ((0, a), (1, b))}
    try:
        for st in streams.values():
            assert st.next()["type"] == "gameFull"
        assert api.post(f"/api/bot/game/{gid}/resign", headers=b).json() == {"ok": True}
        for st in streams.values():
            last = st.until(lambda x: x != "" and x["type"] == "gameState")["state"]
            assert last["status"] == "finished" and last["to_move"] is None
            assert last["result"] == {"winner": 0, "scores": [0, 0], "ending": "resigned"}
            assert st.rest() == []
    finally:
        for st in streams.values():
            st.close()


# -- fuzz ------------------------------------------------------------------------------------------


def test_fuzzed_move_and_challenge_bodies_change_nothing(api: Any) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    a, b = bot(api, "alpha"), bot(api, "beta")
    gid = game_of(api, a, b, "beta")
    state = first_state(api, gid, a)["state"]
    mover = a if state["to_move"] == 0 else b
    legal = set(state["legal"])
    values = st.recursive(
        st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=20),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=6,
    )
    move_bodies = st.one_of(
        values,
        st.fixed_dictionaries(
            {"move": st.text(alphabet="+-.ybwgrpx0123456789 ", max_size=8)},
            optional={"round": values, "ply": values, "extra": values},
        ),
    )
    challenges_before = count(api, BotChallengeRow)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=move_bodies, who=st.sampled_from(["mover", "other"]))
    def moves(body: Any, who: str) -> None:
        if isinstance(body, dict) and body.get("move") in legal and who == "mover":
            return  # (a legal move is made, as it should be)
        headers = mover if who == "mover" else (b if mover is a else a)
        r = api.post(f"/api/bot/game/{gid}/move", json=body, headers=headers)
        assert 400 <= r.status_code < 500 and r.json()["code"], r.text
        assert moves_stored(api, gid) == 0

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=values)
    def challenges(body: Any) -> None:
        r = api.post("/api/bot/challenge/beta", json=body, headers=a)
        if r.status_code == 201:  # a body that is a valid challenge (an empty one is)
            made[0] += 1
            return
        assert 400 <= r.status_code < 500 and r.json()["code"], r.text
        assert count(api, BotChallengeRow) == challenges_before + made[0]

    made = [0]
    moves()
    assert count(api, BotChallengeRow) == challenges_before
    challenges()
    assert moves_stored(api, gid) == 0


# -- logs ------------------------------------------------------------------------------------------


def test_tokens_never_reach_the_logs(api: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    ann = person(api, "ann")
    made = api.post(
        "/api/account/tokens", json={"scopes": ["bot:play", "challenge:write"]}, headers=ann
    ).json()
    t = bearer(made["token"])
    api.post("/api/bot/account/upgrade", headers=t)
    other = bot(api, "zed")
    gid = game_of(api, other, t, "ann")
    api.post(f"/api/bot/game/{gid}/move", json={"move": "zz"}, headers=t)
    api.post(f"/api/bot/game/{gid}/resign", headers=t)
    api.delete(f"/api/account/tokens/{made['id']}", headers=t)
    api.get("/api/account/tokens", headers=t)  # (refused: revoked)
    api.portal.call(hub(api).settle)
    assert "bot_upgrade" in caplog.text  # (the log was captured)
    secret = made["token"].removeprefix("lct_")
    assert secret not in caplog.text
    with Session(api.app.state.store.engine) as s:
        logged = " ".join(
            f"{r.actor} {r.action} {r.target} {r.detail}" for r in s.scalars(select(ModLogRow))
        )
    assert "bot_resign" in logged and secret not in logged
