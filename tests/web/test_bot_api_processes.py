"""The bot API on two server processes sharing one PostgreSQL database (issue 39): an event
made on one process reaches an event stream on the other, a move made on one reaches the
game stream on the other, and a token revoked on one closes its stream on the other."""

from __future__ import annotations

from typing import Any

from tests.web.web_helpers import NdjsonStream, account, ok


def bot_token(srv: Any, who: dict[str, str]) -> dict[str, str]:
    made = ok(srv, "POST", "/api/account/tokens", {"scopes": ["bot:play", "challenge:write"]}, who)
    h = {"Authorization": f"Bearer {made['token']}"}
    ok(srv, "POST", "/api/bot/account/upgrade", None, h)
    return {**h, "id": str(made["id"])}


def test_events_moves_and_revocations_cross_processes(server_factory: Any, pg_url: str) -> None:
    one = server_factory(pg_url, LOSTCITIES_BOT_KEEPALIVE="30")  # (no keep-alive in the test)
    two = server_factory(pg_url, LOSTCITIES_BOT_KEEPALIVE="30")
    alpha, beta = account(pg_url, "alpha"), account(pg_url, "beta")
    a, b = bot_token(one, alpha), bot_token(two, beta)
    auth_a, auth_b = {"Authorization": a["Authorization"]}, {"Authorization": b["Authorization"]}
    events = NdjsonStream(two.port, "/api/bot/stream/event", auth_b)
    assert events.status == 200
    try:
        ch = ok(one, "POST", "/api/bot/challenge/beta", {"rounds": 1}, auth_a)["challenge"]
        got = events.until(lambda x: x != "" and x["type"] == "challenge")
        assert got["challenge"]["id"] == ch["id"] and got["challenge"]["challenger"]["bot"]
        gid = ok(one, "POST", f"/api/bot/challenge/{ch['id']}/accept", None, auth_b)["game_id"]
        start = events.until(lambda x: x != "" and x["type"] == "gameStart")
        assert start["game"]["id"] == gid and start["game"]["seat"] == 1
        # beta watches on two; the bot to move moves on one
        game = NdjsonStream(two.port, f"/api/bot/game/stream/{gid}", auth_b)
        full = game.until(lambda x: x != "")
        state = full["state"]
        mover = auth_a if state["to_move"] == 0 else auth_b
        if state["to_move"] == 1:
            move = state["legal"][0]
        else:  # (alpha's legal moves: from its own stream, on one)
            own = NdjsonStream(one.port, f"/api/bot/game/stream/{gid}", auth_a)
            move = own.until(lambda x: x != "")["state"]["legal"][0]
            own.close()
        body = {"move": move, "round": 1, "ply": 0}
        assert ok(one, "POST", f"/api/bot/game/{gid}/move", body, mover) == {"ok": True}
        after = game.until(lambda x: x != "" and x["type"] == "gameState")
        assert after["state"]["ply"] == 1 and after["state"]["to_move"] == 1 - state["to_move"]
        # revoked on one: both streams on two close at once
        ok(one, "DELETE", f"/api/account/tokens/{b['id']}", None, auth_b)
        assert events.ended.wait(10) and game.ended.wait(10)
        status, out = two.request("GET", "/api/account/tokens", None, auth_b)
        assert status == 401 and out["code"] == "bad_token"
        # no token in either server's log (uvicorn's access log is off)
        for srv in (one, two):
            text = srv.log_tail(10**7)
            assert "Lost Cities" in text  # (the log is read)
            for h in (a, b):
                assert h["Authorization"].removeprefix("Bearer lct_") not in text
    finally:
        events.close()
