"""``/api/bot/``: the bot API (docs/bot-api.md): the upgrade to a bot account, the event
stream, the game streams, moves and the other table actions, and challenges. Each route
authorises (an API token with its scope: :func:`api_token`; for challenges also the
session cookie or a guest) and calls :class:`~lostcities.web.bot_api.BotHub`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import StreamingResponse

from lostcities.web.accounts import account_of
from lostcities.web.bot_api import (
    AboutIn,
    BotHub,
    Caller,
    ChallengeIn,
    ChatIn,
    ClaimIn,
    DeclineIn,
    MoveIn,
    TokenAuth,
)
from lostcities.web.deps import get_limits, get_settings
from lostcities.web.limits import ClientLimits, client_key

__all__ = ["api_token", "bot_hub", "challenge_caller", "router"]

router = APIRouter(prefix="/api/bot", tags=["bot API"])

GameId = Path(max_length=32)
ChallengeId = Path(max_length=16)

STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
"""Sent with a stream: no cache, and no buffering by a reverse proxy (nginx)."""


def bot_hub(request: Request) -> BotHub:
    """The app's bot API hub."""
    hub: BotHub = request.app.state.bots
    return hub


def _client(request: Request) -> str:
    return client_key(request, get_settings(request).client_salt)


def api_token(*scopes: str) -> Callable[[Request], Awaitable[TokenAuth]]:
    """A route dependency: the request's API token (``Authorization: Bearer``), with one
    of ``scopes`` (none given: any token), charged to the token's and the client's limits.

    :raises BadTokenError: (401) no token, or an unknown or revoked one.
    :raises MissingScopeError: (403) a token without the scope.
    """

    async def dep(request: Request) -> TokenAuth:
        header = request.headers.get("authorization")
        return await bot_hub(request).authenticate(header, scopes, _client(request))

    return dep


async def challenge_caller(request: Request) -> Caller:
    """Who sends a challenge request: an API token (``challenge:write``; a ``GET`` also
    ``challenge:read`` or ``bot:play``), else the signed-in person (session cookie; the
    CSRF guard checked a state-changing request), else a guest; with the challenge token
    of a person (``X-Seat-Token``) if sent."""
    header = request.headers.get("authorization")
    if header:
        scopes: tuple[str, ...] = ("challenge:write",)
        if request.method == "GET":
            scopes = ("challenge:write", "challenge:read", "bot:play")
        auth = await bot_hub(request).authenticate(header, scopes, _client(request))
        return Caller(auth.account, auth)
    seat_token = request.headers.get("x-seat-token")
    return Caller(await account_of(request), None, seat_token[:200] if seat_token else None)


def _stream(lines: AsyncIterator[bytes]) -> StreamingResponse:
    return StreamingResponse(lines, media_type="application/x-ndjson", headers=STREAM_HEADERS)


OK = {"ok": True}

BotPlay = Annotated[TokenAuth, Depends(api_token("bot:play"))]
"""A request's working token with the ``bot:play`` scope (:meth:`BotHub.authenticate`)."""


@router.get("/online")
async def online(request: Request) -> list[dict[str, Any]]:
    """The bot accounts online (an event stream open: a connected ``lostcities
    connect``), by name: ``[{"name", "about"}]``. Public."""
    return await bot_hub(request).online_bots()


@router.post("/account/upgrade")
async def upgrade(
    request: Request,
    auth: BotPlay,
    body: AboutIn | None = None,
) -> dict[str, Any]:
    """Turn the token's account into a bot account (irreversible; refused for an account
    that played a rated game as a person); ``about``: who runs it and which engine."""
    await bot_hub(request).upgrade(auth.account, None if body is None else body.about)
    return OK


@router.get("/stream/event")
async def event_stream(
    request: Request,
    since: int | None = Query(default=None, ge=0, le=2**62),
    auth: TokenAuth = Depends(api_token("bot:play", "challenge:read")),
) -> StreamingResponse:
    """The account's events, newline-delimited JSON (``?since=``: resume after that
    ``event_id``)."""
    return _stream(bot_hub(request).event_stream(auth, since))


@router.get("/game/stream/{game_id}")
async def game_stream(
    request: Request,
    auth: BotPlay,
    game_id: str = GameId,
) -> StreamingResponse:
    """One game of the bot: its seat's view only, newline-delimited JSON."""
    return _stream(await bot_hub(request).game_stream(auth, game_id))


@router.post("/game/{game_id}/move")
async def move(
    request: Request,
    auth: BotPlay,
    req: MoveIn,
    game_id: str = GameId,
) -> dict[str, Any]:
    """Make a move in notation."""
    await bot_hub(request).move(auth, game_id, req)
    return OK


@router.post("/game/{game_id}/resign")
async def resign(request: Request, auth: BotPlay, game_id: str = GameId) -> dict[str, Any]:
    """Resign the match."""
    await bot_hub(request).resign(auth, game_id)
    return OK


@router.post("/game/{game_id}/abort")
async def abort(request: Request, auth: BotPlay, game_id: str = GameId) -> dict[str, Any]:
    """Abort the game (before both players moved)."""
    await bot_hub(request).abort(auth, game_id)
    return OK


@router.post("/game/{game_id}/claim")
async def claim(
    request: Request,
    auth: BotPlay,
    req: ClaimIn,
    game_id: str = GameId,
) -> dict[str, Any]:
    """Claim the win or a draw: the opponent left the table long enough ago."""
    await bot_hub(request).claim(auth, game_id, req.claim)
    return OK


@router.post("/game/{game_id}/chat")
async def chat(
    request: Request,
    auth: BotPlay,
    req: ChatIn,
    game_id: str = GameId,
) -> dict[str, Any]:
    """Say one of the site's quick-chat phrases."""
    await bot_hub(request).chat(auth, game_id, req.phrase)
    return OK


@router.post("/challenge/{username}", status_code=201)
async def challenge(
    request: Request,
    req: ChallengeIn,
    username: str = Path(max_length=40),
    caller: Caller = Depends(challenge_caller),
) -> dict[str, Any]:
    """Challenge a player (with a token) or a bot (also signed in, or as a guest: casual
    only); a person or a guest gets their ``token``, their seat's once accepted."""
    if caller.token is None:
        ClientLimits.check(get_limits(request).create, _client(request), "new games")
    ch, token = await bot_hub(request).challenge(caller, username, req)
    out: dict[str, Any] = {"challenge": ch}
    if token is not None:
        out["token"] = token
        out["game_url"] = None
    return out


@router.get("/challenge/{challenge_id}")
async def challenge_info(
    request: Request,
    challenge_id: str = ChallengeId,
    caller: Caller = Depends(challenge_caller),
) -> dict[str, Any]:
    """A challenge, for its challenger or the challenged (a person's: with ``game_url``
    once accepted)."""
    return await bot_hub(request).challenge_info(caller, challenge_id)


@router.post("/challenge/{challenge_id}/accept")
async def accept(
    request: Request,
    challenge_id: str = ChallengeId,
    caller: Caller = Depends(challenge_caller),
) -> dict[str, Any]:
    """Accept a challenge: the game starts."""
    game_id = await bot_hub(request).accept(caller, challenge_id)
    return {"ok": True, "game_id": game_id}


@router.post("/challenge/{challenge_id}/decline")
async def decline(
    request: Request,
    req: DeclineIn | None = None,
    challenge_id: str = ChallengeId,
    caller: Caller = Depends(challenge_caller),
) -> dict[str, Any]:
    """Decline a challenge, with a reason."""
    reason = "generic" if req is None else req.reason
    await bot_hub(request).decline(caller, challenge_id, reason)
    return OK


@router.post("/challenge/{challenge_id}/cancel")
async def cancel(
    request: Request,
    challenge_id: str = ChallengeId,
    caller: Caller = Depends(challenge_caller),
) -> dict[str, Any]:
    """Take back one's own challenge."""
    await bot_hub(request).cancel(caller, challenge_id)
    return OK
