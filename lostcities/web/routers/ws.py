"""``/ws/games/{id}``: live play. See docs/web.md for the messages.

The client first sends ``{"type": "hello", "token": ...}`` (no token: a spectator) and gets
the full ``state``; then ``move`` messages name the round and ply they were made at. Every
problem is answered with ``{"type": "error", "code": ..., "message": ...}`` and changes
nothing.

A signed-in player's browser (its session cookie came with the handshake, from a page of
this site: :func:`same_site`) gets the seat its account holds even without the token, in
any browser where the account is signed in. Such a seat is checked again against the
database at every later message (a move, a resign, a chat phrase, the page's ping every 25
s): once the session ended (log-out, a password change, a ban), the socket is told
``invalid_token`` and closed.
"""

from __future__ import annotations

import asyncio
import json
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from lostcities.web import schemas
from lostcities.web.accounts import (
    SESSION_COOKIE,
    Account,
    account_of,
    blocked_between,
    session_account_sync,
)
from lostcities.web.conns import Conn
from lostcities.web.deps import get_limits, ws_manager
from lostcities.web.errors import GameError, InvalidTokenError, RateLimitedError, StaleMoveError
from lostcities.web.game_manager import GameManager
from lostcities.web.limits import CLOSE_RATE_LIMITED, ClientLimits, client_key
from lostcities.web.live_game import LiveGame

router = APIRouter(tags=["ws"])
log = logging.getLogger("lostcities.web")


def error_message(code: str, message: str, msg_id: int | str | None = None) -> str:
    """The ``error`` message as JSON text."""
    return json.dumps({"type": "error", "code": code, "message": message, "id": msg_id})


def same_site(ws: WebSocket) -> bool:
    """Whether a WebSocket's handshake may use the session cookie: no ``Origin`` (not a
    browser's page) or one on this server's host (the scheme is not compared: behind a
    TLS proxy the page is ``https`` and the socket arrives as ``ws``). A page of another
    site (a sibling subdomain, to which a ``SameSite=Lax`` cookie still goes) gets no
    account's seat: the WebSocket's counterpart of the CSRF rule."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    _, sep, host = origin.rstrip("/").partition("://")
    return bool(sep) and host.lower() == ws.headers.get("host", "").lower()


async def _signed_in(ws: WebSocket) -> Account | None:
    """The handshake's signed-in account (``None``: a guest, or a page of another site)."""
    return await account_of(ws) if same_site(ws) else None


async def _still_signed_in(ws: WebSocket, account: Account) -> bool:
    """Whether the handshake's session still opens ``account`` (read from the database)."""
    token = ws.cookies.get(SESSION_COOKIE, "")
    if not token or len(token) > 100:
        return False
    now = await asyncio.to_thread(session_account_sync, ws.app.state.store, token)
    return now is not None and now.id == account.id


def _token_seat(g: LiveGame, token: str | None) -> int | None:
    """The seat ``token`` opens in this process's copy of ``g`` (``None``: none)."""
    try:
        return g.seat_for(token)
    except InvalidTokenError:
        return None


async def _presence(g: LiveGame) -> None:
    connected = [p.connected for p in g.summary().players]
    await g.send_all(json.dumps({"type": "presence", "connected": connected}))


@router.websocket("/ws/games/{game_id}")
async def game_socket(ws: WebSocket, game_id: str) -> None:
    """One client of one game."""
    mgr = ws_manager(ws)
    limit: int = ws.app.state.settings.max_message_bytes
    limits = get_limits(ws)
    key = client_key(ws, ws.app.state.settings.client_salt)
    await ws.accept()
    if not limits.open_socket(key):
        await ws.send_text(
            error_message(
                "rate_limited", f"too many open connections (at most {limits.limits.sockets})"
            )
        )
        await ws.close(code=CLOSE_RATE_LIMITED)
        return
    try:
        await _serve(ws, game_id, mgr, limit, limits, key)
    finally:
        limits.close_socket(key)


async def _serve(
    ws: WebSocket, game_id: str, mgr: GameManager, limit: int, limits: ClientLimits, key: str
) -> None:
    try:
        g = await mgr.get(game_id)
    except GameError as e:
        await ws.send_text(error_message(e.code, str(e)))
        await ws.close(code=4404)
        return
    conn: Conn | None = None
    by_account: Account | None = None  # the account whose seat this socket plays
    try:
        while True:
            raw = await ws.receive()
            if raw["type"] == "websocket.disconnect":
                break
            try:
                ClientLimits.check(limits.messages, key, "messages")
            except RateLimitedError as e:  # a flood: answered once, then the socket closes
                await ws.send_text(error_message("rate_limited", str(e)))
                await ws.close(code=CLOSE_RATE_LIMITED)
                break
            data = raw.get("text")
            if data is None:
                data = raw.get("bytes") or b""
            if len(data) > limit:
                await ws.send_text(
                    error_message(
                        "too_large", f"message too large ({len(data)} bytes, at most {limit})"
                    )
                )
                continue
            try:
                msg = schemas.parse_client_message(data)
            except ValidationError as e:
                await ws.send_text(error_message("bad_message", schemas.validation_message(e)))
                continue
            if conn is None:
                if not isinstance(msg, schemas.Hello):
                    await ws.send_text(
                        error_message("hello_first", "send hello (with your seat token) first")
                    )
                    continue
                try:
                    # the live instance now (it may have been reloaded), as stored (a seat
                    # or a move another process just stored included)
                    g = await mgr.current(game_id)
                    account = (
                        None if _token_seat(g, msg.token) is not None else await _signed_in(ws)
                    )
                    seat = await mgr.seat(g, msg.token, None if account is None else account.id)
                    if seat is not None and _token_seat(g, msg.token) != seat:
                        by_account = account  # (then checked again at each message)
                except InvalidTokenError as e:
                    await ws.send_text(error_message(e.code, str(e)))
                    await ws.close(code=4403)
                    return
                except GameError as e:
                    await ws.send_text(error_message(e.code, str(e)))
                    await ws.close(code=4404)
                    return
                conn = Conn(ws, seat)
                g.conns.append(conn)
                # the seat is at its table again, recorded before its first state (which then
                # says so, and a claim made after the hello is answered knows it)
                await mgr.presence.arrived(g, conn)
                await g.send(conn, g.state(seat))
                await g.chat.join(conn)  # the chat so far (a reload), then each new phrase
                await _presence(g)
                g.schedule_bot()
                g.schedule_clock()
                continue
            if by_account is not None and not await _still_signed_in(ws, by_account):
                await ws.send_text(
                    error_message(
                        "invalid_token", "your session ended: sign in again to play this seat"
                    )
                )
                await ws.close(code=4403)
                break
            if isinstance(msg, schemas.Hello):
                await ws.send_text(error_message("already_joined", "already said hello"))
            elif isinstance(msg, schemas.Ping):
                await ws.send_text('{"type":"pong"}')
            elif isinstance(msg, schemas.Sync):
                await g.send(conn, g.state(conn.seat))
            elif isinstance(msg, schemas.Chat):
                if conn.seat is None:
                    await ws.send_text(error_message("spectator", "spectators cannot chat"))
                    continue
                if await blocked_between(mgr.store, g.row.account0, g.row.account1):
                    await ws.send_text(
                        error_message("blocked", "no chat: one of you blocked the other")
                    )
                    continue
                # a phrase id, never free text: every client shows it in its own language;
                # kept with the game, so that a reload shows it again
                try:
                    await g.chat.say(conn.seat, msg.phrase)
                except GameError as e:
                    await ws.send_text(error_message(e.code, str(e)))
            elif isinstance(msg, schemas.Resign | schemas.Abort | schemas.ClaimMsg):
                if conn.seat is None:
                    await ws.send_text(error_message("spectator", f"spectators cannot {msg.type}"))
                    continue
                try:
                    ClientLimits.check(limits.moves, key, "moves")
                    if isinstance(msg, schemas.Resign):
                        await g.resign(conn.seat)
                    elif isinstance(msg, schemas.Abort):
                        await g.abort(conn.seat)
                    else:
                        await g.claim(conn.seat, msg.claim)
                except RateLimitedError as e:
                    await ws.send_text(error_message("rate_limited", str(e)))
                    continue
                except GameError as e:
                    await ws.send_text(error_message(e.code, str(e)))
                    continue
                await g.broadcast()
            else:
                if conn.seat is None:
                    await ws.send_text(error_message("spectator", "spectators cannot move", msg.id))
                    continue
                try:
                    ClientLimits.check_free(limits.moves, key, "moves")
                    await g.play(conn.seat, msg.round, msg.ply, msg.move, ack_conn=conn, ack=msg.id)
                except RateLimitedError as e:
                    await ws.send_text(error_message("rate_limited", str(e), msg.id))
                    continue
                except StaleMoveError as e:
                    await ws.send_text(error_message(e.code, str(e), msg.id))
                    await g.send(conn, g.state(conn.seat))
                    continue
                except GameError as e:
                    await ws.send_text(error_message(e.code, str(e), msg.id))
                    continue
                ClientLimits.charge(limits.moves, key)  # only moves made are charged
    except WebSocketDisconnect:
        pass
    except Exception:  # never leave a broken connection behind
        log.exception("websocket error in game %s", game_id)
    finally:
        if conn is not None:
            conn.alive = False
            if conn in g.conns:
                g.conns.remove(conn)
            await _presence(g)
            if conn.seat is not None:
                try:
                    await mgr.presence.left(g, conn.seat)  # (its opponent's claim countdown)
                except Exception as e:  # the database is away: the next beat has no seat here
                    log.warning("could not mark seat %s of game %s as left: %s", conn.seat, g.id, e)
