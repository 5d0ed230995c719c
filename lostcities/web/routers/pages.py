"""The HTML pages (Jinja2 templates; the JavaScript needs no build step)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from lostcities.web import i18n, schemas
from lostcities.web.accounts import Account, current_account
from lostcities.web.deps import get_manager
from lostcities.web.game_manager import GameManager
from lostcities.web.levels import LEVELS

__all__ = [
    "API_PREFIXES",
    "is_page",
    "not_found_page",
    "render_page",
    "router",
    "templates",
]

router = APIRouter(tags=["pages"], include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).resolve().parent.parent / "templates"))

API_PREFIXES = ("/api/", "/static/", "/i18n/", "/ws", "/healthz")
"""Paths that answer machines (JSON, scripts, files): a 404 there stays JSON; any other path
is a page, and a page that is not there is an HTML page saying so."""


def render_page(request: Request, name: str, **ctx: object) -> HTMLResponse:
    """The page ``name`` (a template) in the reader's language (``t`` translates in the
    template), with ``ctx``: the one page renderer of the app's routers."""
    lang = i18n.negotiate(request.headers.get("accept-language"), request.cookies.get(i18n.COOKIE))

    def t(key: str, **params: object) -> str:
        text = i18n.translate(lang, key, **params)
        return Markup(text) if key.endswith("_html") else text

    context = {
        "page": name.removesuffix(".html"),
        "lang": lang,
        "languages": i18n.LANGUAGES,
        "t": t,
        **ctx,
    }
    response = templates.TemplateResponse(request, name, context)
    response.headers["Content-Language"] = lang
    response.headers["Vary"] = "Accept-Language, Cookie"
    return response


def is_page(request: Request) -> bool:
    """Whether ``request`` asks for a page (a ``GET`` or ``HEAD`` outside
    :data:`API_PREFIXES`), whose errors are answered in HTML."""
    path = request.url.path
    return request.method in ("GET", "HEAD") and not path.startswith(API_PREFIXES)


def not_found_page(request: Request, what: str = "page", name: str = "") -> HTMLResponse:
    """The 404 page in the reader's language: no such ``game``, ``player`` (``name``) or
    ``page``, with the ways on (home, lobby, leaderboard)."""
    lang = i18n.negotiate(request.headers.get("accept-language"), request.cookies.get(i18n.COOKIE))
    key = what if what in ("game", "player") else "page"
    response = render_page(
        request, "not_found.html", message=i18n.translate(lang, f"not_found.{key}", name=name)
    )
    response.status_code = 404
    return response


async def _existing(game_id: str, mgr: GameManager = Depends(get_manager)) -> str:
    """The path's ``game_id``, if there is such a game (a dependency of the game pages).

    :raises GameNotFoundError: if there is none (the page is answered 404).
    """
    await mgr.get(game_id)
    return game_id


GameId = Annotated[str, Depends(_existing)]
"""The ``{game_id}`` of a page's path, of a game that exists."""


@router.get("/i18n/{lang}.js")
async def messages(lang: str) -> Response:
    """A language's catalogue for the scripts (``LC.t``): a static script, as the pages'
    Content-Security-Policy allows no inline one."""
    if lang not in i18n.LANGUAGES:
        return PlainTextResponse("no such language", status_code=404)
    body = f"window.LC_LANG = {json.dumps(lang)};\nwindow.LC_MESSAGES = {json.dumps(i18n.catalogue(lang), ensure_ascii=False)};\n"
    return Response(
        body,
        media_type="text/javascript; charset=utf-8",
        headers={"Cache-Control": "public, max-age=300"},
    )


@router.get("/", response_class=HTMLResponse)
async def home(
    request: Request,
    mgr: GameManager = Depends(get_manager),
    account: Account | None = Depends(current_account),
) -> HTMLResponse:
    """Home: new games (the level picker says what each level plays; signed in, a game
    against the computer may be rated) and your games."""
    lang = i18n.negotiate(request.headers.get("accept-language"), request.cookies.get(i18n.COOKIE))
    levels = []
    for name, lv in mgr.levels.items():
        # the default levels are translated; an overridden one says what it plays, in English
        default = LEVELS.get(name)
        known = default is not None and default.spec == lv.spec and default.about == lv.about
        label = i18n.translate(lang, f"level.{name}") if default is not None else lv.label
        about = i18n.translate(lang, f"level.{name}.about") if known else lv.about
        # a level that cannot play here is shown disabled, saying so in the reader's language
        # (the technical reason is in /api/levels); one playing its fallback names the bot
        why = mgr.levels.unavailable(name)
        if why is None and mgr.levels.own_bot_missing(name) is not None:
            spec = mgr.levels.resolve(name)[0]
            like = next(
                (k for k, other in mgr.levels.items() if other.spec == spec and k in LEVELS), None
            )
            instead = (
                i18n.translate(
                    lang, "level.instead_level", level=i18n.translate(lang, f"level.{like}")
                )
                if like is not None
                else i18n.translate(lang, "level.instead", bot=spec)
            )
            about = f"{about}; {instead}" if about else instead
        warming = mgr.levels.warming_up(name)  # a first start compiles its search
        unavailable = (
            i18n.translate(lang, "home.warming_up")
            if warming
            else i18n.translate(lang, "home.unavailable")
            if why is not None
            else ""
        )
        levels.append((name, label, about, unavailable, warming))
    return render_page(request, "home.html", levels=levels, account=account)


@router.get("/game/{game_id}", response_class=HTMLResponse)
async def game(request: Request, game_id: GameId) -> HTMLResponse:
    """The table (404 for a game that does not exist)."""
    return render_page(
        request, "game.html", game_id=game_id, chat_phrases=" ".join(schemas.CHAT_PHRASES)
    )


@router.get("/join/{game_id}", response_class=HTMLResponse)
async def join(request: Request, game_id: GameId) -> HTMLResponse:
    """Accept an invite (the code is in the URL fragment) (404 for a game that does not exist)."""
    return render_page(request, "join.html", game_id=game_id)


@router.get("/replay/{game_id}", response_class=HTMLResponse)
async def replay(request: Request, game_id: GameId) -> HTMLResponse:
    """Step through a finished game (404 for a game that does not exist)."""
    return render_page(request, "replay.html", game_id=game_id)


@router.get("/analysis/{game_id}", response_class=HTMLResponse)
async def analysis(request: Request, game_id: GameId) -> HTMLResponse:
    """A finished game's analysis: the win-probability curve, the marked moves, each
    position with the better move (404 for a game that does not exist)."""
    return render_page(request, "replay.html", game_id=game_id, analysis=True)


@router.get("/calculator", response_class=HTMLResponse)
async def calculator(request: Request) -> HTMLResponse:
    """The score calculator."""
    return render_page(request, "calculator.html")


@router.get("/rules", response_class=HTMLResponse)
async def rules(request: Request) -> HTMLResponse:
    """The rules in short."""
    return render_page(request, "rules.html")


@router.get("/healthz", response_class=PlainTextResponse)
async def healthz() -> str:
    """Liveness probe."""
    return "ok"
