"""The lobby, the leaderboard, players' profiles and "my games": the pages ``/lobby``,
``/leaderboard``, ``/players/{username}``, ``/my-games`` and their JSON under ``/api/``
(docs/web.md, "Lobby and ratings")."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field

from lostcities.web import i18n, profiles, ratings, schemas
from lostcities.web.accounts import Account, current_account, find_account
from lostcities.web.deps import get_manager, rate_limit
from lostcities.web.errors import (
    AccountNotFoundError,
    BotInLobbyError,
    GameError,
    NeedsAccountError,
)
from lostcities.web.game_manager import GameManager
from lostcities.web.lobby import (
    RANGE_MAX,
    RANGE_START,
    RANGE_WIDEN,
    EntryToken,
    LobbyHub,
    NewEntry,
    Opened,
    Player,
    seen_by,
)
from lostcities.web.routers.bot_api import bot_hub
from lostcities.web.routers.pages import render_page
from lostcities.web.turn_alerts import MAX_GAMES, TurnHub, parse_game_ids

router = APIRouter(tags=["lobby"])


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class VersusComputer(_In):
    """``POST /api/lobby/computer``: a game against a built-in bot, rated or casual."""

    level: schemas.Level = "medium"
    variant: schemas.VariantName = "classic"
    rounds: Literal[1, 3] = 3
    rated: bool = False
    name: schemas.Name = ""


class MyGames(_In):
    """``POST /api/my-games``: the games this browser remembers (as for the home page)."""

    games: list[schemas.LookupItem] = Field(default_factory=list, max_length=200)


def hub_of(request: Request) -> LobbyHub:
    """The process's lobby."""
    hub: LobbyHub = request.app.state.lobby
    return hub


def _player(account: Account | None, browser: str, name: str) -> Player:
    if account is not None:
        return Player.account(account.id, account.username)
    return Player.guest(browser or "anonymous", name)


def _person(account: Account | None, browser: str, name: str) -> Player:
    """:func:`_player` for a table or a seek: never a bot account (issue 39).

    :raises BotInLobbyError: for a bot account.
    """
    if account is not None and account.is_bot:
        raise BotInLobbyError(
            "a bot account does not play in the lobby: people challenge it from its profile"
        )
    if account is not None:
        return Player.account(account.id, account.username)
    return Player.guest(browser or "anonymous", name)


# -- the lobby's API ---------------------------------------------------------------------------


@router.get("/api/lobby")
async def lobby_now(
    request: Request, account: Account | None = Depends(current_account)
) -> dict[str, Any]:
    """The lobby now (open tables, seeks waiting, who is online), read from the database:
    whichever process answers, it includes every write made before the request. The
    tables of players you blocked, or who blocked you, are left out."""
    hub = hub_of(request)
    await hub.refresh()
    return seen_by(hub.snapshot, None if account is None else account.id)


@router.get("/api/lobby/events")
async def lobby_events(
    request: Request,
    browser: str = Query(default="", max_length=64),
    name: str = Query(default="", max_length=40),
    page: str = Query(default="", max_length=32, pattern=r"^[A-Za-z0-9_-]*$"),
    account: Account | None = Depends(current_account),
) -> StreamingResponse:
    """Server-sent events: the lobby now, then each change (a guest's page names its
    browser id and name, to be shown online; a page names itself, and the entries it opens
    live as long as this stream)."""
    player = _player(account, browser, schemas.check_typed(name)) if account or browser else None
    return StreamingResponse(
        hub_of(request).events(player, page),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.post("/api/lobby/tables", status_code=201, dependencies=[Depends(rate_limit("create"))])
async def open_table(
    req: NewEntry, request: Request, account: Account | None = Depends(current_account)
) -> dict[str, Any]:
    """Open a table; its token becomes your seat token once someone joins."""
    opened = await hub_of(request).open(_person(account, req.browser, req.name), req, "table")
    return {"id": opened.id, "token": opened.token}


@router.post("/api/lobby/seeks", status_code=201, dependencies=[Depends(rate_limit("create"))])
async def play_now(
    req: NewEntry, request: Request, account: Account | None = Depends(current_account)
) -> dict[str, Any]:
    """ "Play now": wait to be paired with the next player who asks for the same settings
    (rated: of a near rating, the range widening as you wait)."""
    opened = await hub_of(request).open(_person(account, req.browser, req.name), req, "seek")
    return {"id": opened.id, "token": opened.token, "search": _search(req, opened)}


def _search(req: NewEntry, opened: Opened) -> dict[str, Any]:
    """Whom a seek waits for, as its page says it: anyone (casual), or a rating range that
    widens (rated: its centre and, in points, where it starts, how fast it widens, its limit)."""
    if not req.rated or opened.rating is None:
        return {"rated": False}
    return {
        "rated": True,
        "rating": round(opened.rating),
        "range": {"start": RANGE_START, "widen": RANGE_WIDEN, "max": RANGE_MAX},
    }


@router.post("/api/lobby/{entry_id}/cancel")
async def cancel(entry_id: str, req: EntryToken, request: Request) -> dict[str, Any]:
    """Close your open table or seek."""
    return {"cancelled": await hub_of(request).cancel(entry_id[:16], req.token)}


@router.post("/api/lobby/{entry_id}/status")
async def entry_status(entry_id: str, req: EntryToken, request: Request) -> dict[str, Any]:
    """Your table or seek: ``open``, ``matched`` (and the game), ``cancelled``."""
    return await asyncio.to_thread(hub_of(request).status_sync, entry_id[:16], req.token)


@router.post("/api/lobby/{entry_id}/join", dependencies=[Depends(rate_limit("join"))])
async def join(
    entry_id: str,
    req: EntryToken,
    request: Request,
    account: Account | None = Depends(current_account),
) -> dict[str, Any]:
    """Take the other seat at an open table: the game starts."""
    seated = await hub_of(request).join(entry_id[:16], _person(account, req.browser, req.name))
    return {
        "id": seated.game_id,
        "token": seated.token,
        "seat": seated.seat,
        "url": f"/game/{seated.game_id}",
    }


@router.post("/api/lobby/computer", status_code=201, dependencies=[Depends(rate_limit("create"))])
async def versus_computer(
    req: VersusComputer,
    mgr: GameManager = Depends(get_manager),
    account: Account | None = Depends(current_account),
) -> dict[str, Any]:
    """A game against the computer; rated (for a signed-in player) rates the bot too."""
    if req.rated and account is None:
        raise NeedsAccountError("sign in to play rated games (guests play casual games)")
    name = account.username if account is not None else req.name
    create = schemas.CreateGame(
        opponent="computer",
        level=req.level,
        variant=req.variant,
        rounds=req.rounds,
        name=name,
        rated=req.rated,
    )
    # (as the home page's: the game is stored rated and the account's in one write)
    g, token, _ = await mgr.create(create, account_id=None if account is None else account.id)
    return {"id": g.id, "token": token, "seat": 0, "url": f"/game/{g.id}"}


# -- ratings, profiles, my games -------------------------------------------------------------


Pool = Literal["people", "bots"]


async def _board(request: Request, variant: str, speed: str, pool: str) -> list[dict[str, Any]]:
    return await asyncio.to_thread(
        profiles.leaderboard_sync, request.app.state.store, variant, speed, pool=pool
    )


@router.get("/api/leaderboard")
async def leaderboard(
    request: Request,
    variant: schemas.VariantName = "classic",
    speed: Literal["blitz", "rapid", "untimed", "correspondence"] = "untimed",
    pool: Pool = "people",
) -> dict[str, Any]:
    """The best ratings of a variant and speed in a pool (``people``, with the computer
    levels; ``bots``: the bot accounts, kept apart); provisional ones marked."""
    rows = await _board(request, variant, speed, pool)
    return {"variant": variant, "speed": speed, "pool": pool, "players": rows}


async def _profile(request: Request, username: str) -> profiles.Profile:
    store = request.app.state.store
    acc = await find_account(store, username[:40])
    if acc is None or acc.status != "active":
        raise AccountNotFoundError(f"no player {username[:40]!r}")
    return await asyncio.to_thread(profiles.profile_sync, store, acc.id, acc.username)


@router.get("/api/players/{username}")
async def player(request: Request, username: str) -> dict[str, Any]:
    """A player's ratings, record against each opponent, finished games (rated or not,
    with the rating change) and rating history."""
    p = await _profile(request, username)
    return {
        "username": p.username,
        "bot": p.bot,
        "about": p.about,
        "ratings": p.ratings,
        "opponents": p.opponents,
        "games": p.games,
        "history": {
            k: [{"at": t, "rating": round(v, 1)} for t, v in pts] for k, pts in p.history.items()
        },
    }


@router.get("/api/players/{username}/rating.svg")
async def rating_svg(
    request: Request,
    username: str,
    variant: schemas.VariantName = "classic",
    speed: Literal["blitz", "rapid", "untimed", "correspondence"] = "untimed",
) -> Response:
    """The rating history of one variant and speed as an SVG plot."""
    p = await _profile(request, username)
    svg = profiles.history_svg(
        p.history.get(f"{variant}/{speed}", []), f"{p.username}: {variant}, {speed}"
    )
    return Response(svg, media_type="image/svg+xml")


@router.post("/api/my-games", response_model=list[schemas.GameSummary])
async def my_games(
    req: MyGames,
    request: Request,
    mgr: GameManager = Depends(get_manager),
    account: Account | None = Depends(current_account),
) -> list[schemas.GameSummary]:
    """Every game of the signed-in player (from any browser) and those this browser
    remembers, unfinished first; ``your_turn`` says whose turn it is."""
    out = {s.id: s for s in await mgr.lookup(req.games)}
    if account is not None:
        ids = await asyncio.to_thread(profiles.my_games_sync, mgr.store, account.id)
        for gid in ids:
            if gid in out:
                continue
            try:
                g = await mgr.get(gid)
            except GameError:
                continue
            seat = 0 if g.row.account0 == account.id else 1
            out[gid] = g.summary(seat)
    return sorted(out.values(), key=lambda s: (s.status == "finished", not s.your_turn))


@router.get("/api/my-games/events")
async def my_games_events(
    request: Request,
    games: str = Query(default="", max_length=(MAX_GAMES + 1) * 33),
    account: Account | None = Depends(current_account),
) -> StreamingResponse:
    """Server-sent events: which of your games changed, as soon as they do (the games
    named, the ids a browser remembers, and the signed-in account's); the page then reads
    ``POST /api/my-games`` again."""
    ids = parse_game_ids(games)
    hub: TurnHub = request.app.state.turns
    return StreamingResponse(
        hub.events(None if account is None else account.id, ids),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


# -- pages -----------------------------------------------------------------------------------


@router.get("/lobby", response_class=HTMLResponse, include_in_schema=False)
async def lobby_page(
    request: Request, account: Account | None = Depends(current_account)
) -> HTMLResponse:
    """Open tables, "play now", who is online (the bots too), a rated game against the
    computer."""
    bots = await bot_hub(request).online_bots()
    return render_page(request, "lobby.html", account=account, bots=bots)


@router.get("/leaderboard", response_class=HTMLResponse, include_in_schema=False)
async def leaderboard_page(
    request: Request,
    variant: schemas.VariantName = "classic",
    speed: Literal["blitz", "rapid", "untimed", "correspondence"] = "untimed",
    pool: Pool = "people",
) -> HTMLResponse:
    """The leaderboard of a variant and speed, people's or bots' (``pool``)."""
    rows = await _board(request, variant, speed, pool)
    return render_page(
        request,
        "leaderboard.html",
        rows=rows,
        variant=variant,
        speed=speed,
        pool=pool,
        pools=profiles.POOLS,
        speeds=ratings.SPEEDS,
        variants=("classic", "long"),
    )


@router.get("/players/{username}", response_class=HTMLResponse, include_in_schema=False)
async def player_page(
    request: Request, username: str, account: Account | None = Depends(current_account)
) -> HTMLResponse:
    """A player's profile (another signed-in player may block or report them here); a
    bot's says who runs it, whether it is online, and has its Challenge form."""
    p = await _profile(request, username)
    lang = i18n.negotiate(request.headers.get("accept-language"), request.cookies.get(i18n.COOKIE))
    plots = []
    for key, pts in p.history.items():
        variant, speed = key.split("/")
        title = i18n.translate(
            lang,
            "profile.plot_title",
            name=p.username,
            variant=i18n.translate(lang, f"home.{variant}"),
            speed=i18n.translate(lang, f"speed.{speed}"),
        )
        words = {
            "axis": i18n.translate(lang, "profile.plot_axis"),
            "start": i18n.translate(lang, "profile.plot_start"),
            "desc": i18n.translate(lang, "profile.plot_desc", n=len(pts) - 1),
        }
        plots.append((key, Markup(profiles.history_svg(pts, title, words=words))))
    online = p.bot and await bot_hub(request).is_online(p.username)
    return render_page(
        request, "player.html", profile=p, plots=plots, account=account, bot_online=online
    )


@router.get("/my-games", response_class=HTMLResponse, include_in_schema=False)
async def my_games_page(
    request: Request, account: Account | None = Depends(current_account)
) -> HTMLResponse:
    """Every game of yours and whose turn it is."""
    return render_page(request, "my_games.html", account=account)
