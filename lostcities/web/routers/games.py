"""``/api/games``: create, join, look up, move over HTTP, resign, rematch, replay, record,
hints and analysis."""

from __future__ import annotations

import contextlib
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import PlainTextResponse, Response

from lostcities.web import archive, schemas
from lostcities.web.accounts import Account, account_of, current_account
from lostcities.web.deps import get_manager, rate_limit
from lostcities.web.errors import InvalidTokenError, NeedsAccountError
from lostcities.web.game_manager import GameManager
from lostcities.web.live_game import LiveGame

router = APIRouter(prefix="/api/games", tags=["games"])
Mgr = Annotated[GameManager, Depends(get_manager)]
"""The app's game manager, as a route's parameter."""


def _id(account: Account | None) -> int | None:
    return None if account is None else account.id


async def _seat(request: Request, mgr: GameManager, g: LiveGame, token: str | None) -> int | None:
    """The seat of ``token``, else of the signed-in account (its session read only then:
    a token's request costs no session lookup)."""
    with contextlib.suppress(InvalidTokenError):
        seat = g.seat_for(token)
        if seat is not None:
            return seat
    return await mgr.seat(g, token, _id(await account_of(request)))


async def _player(
    request: Request, mgr: GameManager, game_id: str, token: str | None, to: str
) -> tuple[LiveGame, int]:
    """The game and the seat that asks ``to`` do something in it (:func:`_seat`).

    :raises InvalidTokenError: no seat: "a seat token is needed ``to``".
    """
    g = await mgr.get(game_id)
    seat = await _seat(request, mgr, g, token)
    if seat is None:
        raise InvalidTokenError(f"a seat token is needed {to}")
    return g, seat


def _state(g: LiveGame, seat: int | None) -> Response:
    """The answer of a move or an ending: the game's ``state`` for ``seat``."""
    return Response(g.presenter.state(seat), media_type="application/json")


def _token_ok(mgr: GameManager, game_id: str, token: str | None) -> bool:
    """Whether ``token`` opens a seat of the game as this process holds it."""
    g = mgr.games.get(game_id)
    if g is None or not token:
        return False
    try:
        return g.seat_for(token) is not None
    except InvalidTokenError:
        return False


def _created(
    game_id: str, seat: int, token: str, invite_url: str | None = None
) -> schemas.CreatedGame:
    """The answer for a created or joined game: its page, the seat and the seat's token."""
    return schemas.CreatedGame(
        id=game_id, seat=seat, token=token, url=f"/game/{game_id}", invite_url=invite_url
    )


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


@router.post(
    "",
    response_model=schemas.CreatedGame,
    status_code=201,
    dependencies=[Depends(rate_limit("create"))],
)
async def create_game(
    req: schemas.CreateGame,
    request: Request,
    mgr: Mgr,
    account: Account | None = Depends(current_account),
) -> schemas.CreatedGame:
    """A new game against the computer (seat 0 is yours) or a friend (send the invite URL).
    Signed in, the seat is the account's and plays under its username; a game against the
    computer may then be rated (a guest asking is refused)."""
    if req.rated and account is None:
        raise NeedsAccountError("sign in to play rated games (guests play casual games)")
    if account is not None:
        req = req.model_copy(update={"name": account.username})
    g, token, invite = await mgr.create(req, account_id=_id(account))
    invite_url = f"{_base(request)}/join/{g.id}#{invite}" if invite else None
    return _created(g.id, 0, token, invite_url)


@router.post("/lookup", response_model=list[schemas.GameSummary])
async def lookup(req: schemas.LookupRequest, mgr: Mgr) -> list[schemas.GameSummary]:
    """The status of the games a browser remembers (ids with their seat tokens)."""
    return await mgr.lookup(req.games)


@router.get("/{game_id}", response_model=schemas.GameSummary)
async def game_summary(game_id: str, mgr: Mgr) -> schemas.GameSummary:
    """Public facts about a game (no cards)."""
    g = await mgr.current(game_id)
    return g.summary(None)


@router.post(
    "/{game_id}/join",
    response_model=schemas.CreatedGame,
    dependencies=[Depends(rate_limit("join"))],
)
async def join_game(
    game_id: str,
    req: schemas.JoinGame,
    mgr: Mgr,
    account: Account | None = Depends(current_account),
) -> schemas.CreatedGame:
    """Claim the invited seat (once); signed in, for the account, under its username."""
    name = req.name if account is None else account.username
    g, token = await mgr.join(game_id, req.invite, name, account_id=_id(account))
    return _created(g.id, 1, token)


@router.get("/{game_id}/state")
async def game_state(
    game_id: str,
    request: Request,
    mgr: Mgr,
    x_seat_token: str | None = Header(default=None, max_length=200),
) -> Response:
    """The ``state`` message for the seat of the ``X-Seat-Token`` header, else the seat of
    the signed-in account (or a spectator)."""
    g = await mgr.current(game_id)  # (a write on another process included)
    seat = await _seat(request, mgr, g, x_seat_token)
    return _state(g, seat)


@router.post("/{game_id}/moves", dependencies=[Depends(rate_limit("moves"))])
async def make_move(
    game_id: str,
    req: schemas.MoveRequest,
    request: Request,
    mgr: Mgr,
) -> Response:
    """Make a move over HTTP (the WebSocket does the same); answers with the new state.
    The seat: the token's, else the signed-in account's."""
    g, seat = await _player(request, mgr, game_id, req.token, "to move")
    await g.play(seat, req.round, req.ply, req.move)
    return _state(g, seat)


async def _leave(
    request: Request,
    mgr: GameManager,
    game_id: str,
    req: schemas.TokenRequest | schemas.ClaimRequest,
    how: Literal["resign", "abort", "claim"],
) -> Response:
    """Resign, abort or claim (``how``; a claim says what in ``req``) for the seat that asks,
    tell the table, and answer with the new state."""
    g, seat = await _player(request, mgr, game_id, req.token, f"to {how}")
    if isinstance(req, schemas.ClaimRequest):
        await g.claim(seat, req.claim)
    elif how == "abort":
        await g.abort(seat)
    else:
        await g.resign(seat)
    await g.broadcast()
    return _state(g, seat)


@router.post("/{game_id}/resign", dependencies=[Depends(rate_limit("moves"))])
async def resign(game_id: str, req: schemas.TokenRequest, request: Request, mgr: Mgr) -> Response:
    """Give up the match."""
    return await _leave(request, mgr, game_id, req, "resign")


@router.post("/{game_id}/abort", dependencies=[Depends(rate_limit("moves"))])
async def abort(game_id: str, req: schemas.TokenRequest, request: Request, mgr: Mgr) -> Response:
    """End the game with no result, before both players have moved (docs/web.md,
    "Leaving a game")."""
    return await _leave(request, mgr, game_id, req, "abort")


@router.post("/{game_id}/claim", dependencies=[Depends(rate_limit("moves"))])
async def claim(game_id: str, req: schemas.ClaimRequest, request: Request, mgr: Mgr) -> Response:
    """Your opponent left the table long enough ago: claim the win or a draw (docs/web.md,
    "Leaving a game")."""
    return await _leave(request, mgr, game_id, req, "claim")


@router.post(
    "/{game_id}/rematch",
    response_model=schemas.CreatedGame,
    dependencies=[Depends(rate_limit("create"))],
)
async def rematch(
    game_id: str,
    req: schemas.TokenRequest,
    request: Request,
    mgr: Mgr,
) -> schemas.CreatedGame:
    """Start (or join) the rematch of a finished game."""
    account = None if _token_ok(mgr, game_id, req.token) else await account_of(request)
    g, seat, token = await mgr.rematch(game_id, req.token, _id(account))
    return _created(g.id, seat, token)


@router.get("/{game_id}/replay", response_model=schemas.ReplayOut)
async def replay(game_id: str, mgr: Mgr) -> schemas.ReplayOut:
    """Every position of a finished game, both hands revealed."""
    g = await mgr.get(game_id)
    return archive.replay(g)


@router.get("/{game_id}/record", response_class=PlainTextResponse)
async def record(game_id: str, mgr: Mgr) -> PlainTextResponse:
    """The game record (``lostcities replay`` reads it) of a finished game."""
    g = await mgr.get(game_id)
    text = archive.record_text(g)
    return PlainTextResponse(
        text,
        headers={"Content-Disposition": f'attachment; filename="lostcities-{g.id}.txt"'},
    )


@router.get("/{game_id}/position.svg")
async def position_svg(game_id: str, mgr: Mgr, round: int = 1, ply: int = 0) -> Response:
    """A finished game's position as an SVG picture (``round`` from 1, after ``ply``
    moves; both hands shown, as the replay shows them), to download."""
    g = await mgr.get(game_id)
    svg = archive.position_svg(g, round, ply)
    name = f"lostcities-{g.id}-round{round}-ply{ply}.svg"
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.post("/{game_id}/hint", response_model=schemas.HintOut)
async def hint(
    game_id: str,
    req: schemas.TokenRequest,
    request: Request,
    mgr: Mgr,
) -> schemas.HintOut:
    """The engine's move for your position (casual games against the computer; the game is
    then marked assisted)."""
    g, seat = await _player(request, mgr, game_id, req.token, "for a hint")
    out = await mgr.analyst.hint(g, seat)
    await g.broadcast()
    return out


@router.get("/{game_id}/analysis", response_model=schemas.AnalysisOut)
async def analysis(game_id: str, mgr: Mgr) -> schemas.AnalysisOut:
    """The analysis of a finished game (computed once, in the bot workers): ``status``
    ``running`` with its progress until it is ``done``."""
    g = await mgr.get(game_id)
    return await mgr.analyst.analysis(g)
