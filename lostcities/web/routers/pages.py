"""The HTML pages (Jinja2 templates; the JavaScript needs no build step)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates

from lostcities.web.deps import get_manager
from lostcities.web.games import GameManager

router = APIRouter(tags=["pages"], include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).resolve().parent.parent / "templates"))


def _page(request: Request, name: str, **ctx: object) -> HTMLResponse:
    return templates.TemplateResponse(request, name, {"page": name.removesuffix(".html"), **ctx})


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, mgr: GameManager = Depends(get_manager)) -> HTMLResponse:
    """Home: new games (the level picker says what each level plays) and your games."""
    levels = [(name, lv.label, lv.about) for name, lv in mgr.levels.items()]
    return _page(request, "home.html", levels=levels)


@router.get("/game/{game_id}", response_class=HTMLResponse)
async def game(request: Request, game_id: str) -> HTMLResponse:
    """The table."""
    return _page(request, "game.html", game_id=game_id)


@router.get("/join/{game_id}", response_class=HTMLResponse)
async def join(request: Request, game_id: str) -> HTMLResponse:
    """Accept an invite (the code is in the URL fragment)."""
    return _page(request, "join.html", game_id=game_id)


@router.get("/replay/{game_id}", response_class=HTMLResponse)
async def replay(request: Request, game_id: str) -> HTMLResponse:
    """Step through a finished game."""
    return _page(request, "replay.html", game_id=game_id)


@router.get("/analysis/{game_id}", response_class=HTMLResponse)
async def analysis(request: Request, game_id: str) -> HTMLResponse:
    """A finished game's analysis: the win-probability curve, the marked moves, each
    position with the better move."""
    return _page(request, "replay.html", game_id=game_id, analysis=True)


@router.get("/calculator", response_class=HTMLResponse)
async def calculator(request: Request) -> HTMLResponse:
    """The score calculator."""
    return _page(request, "calculator.html")


@router.get("/rules", response_class=HTMLResponse)
async def rules(request: Request) -> HTMLResponse:
    """The rules in short."""
    return _page(request, "rules.html")


@router.get("/healthz", response_class=PlainTextResponse)
async def healthz() -> str:
    """Liveness probe."""
    return "ok"
