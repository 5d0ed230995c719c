"""``/api/account/tokens``: personal API tokens (docs/bot-api.md): made signed in on the
site (session cookie and CSRF header); listed and revoked so, or with a token of the same
account. ``/api/account/bot``: the account page's "Become a bot" (signed in on the site).
The routes authorise and call :class:`~lostcities.web.bot_api.BotHub`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from lostcities.web.accounts import Account, require_account
from lostcities.web.bot_api import BecomeBotIn, TokenIn
from lostcities.web.routers.bot_api import api_token, bot_hub

__all__ = ["router", "token_or_session"]

router = APIRouter(prefix="/api/account", tags=["bot API"])


async def token_or_session(request: Request) -> Account:
    """The account of the request's API token (any scope) if it sends one, else the
    signed-in account.

    :raises BadTokenError: for a bad token; :raises NotSignedInError: for neither.
    """
    if request.headers.get("authorization"):
        return (await api_token()(request)).account
    return await require_account(request)


@router.post("/tokens", status_code=201)
async def create_token(
    req: TokenIn, request: Request, account: Account = Depends(require_account)
) -> dict[str, Any]:
    """A new token with ``scopes``; the answer is the only time ``token`` is shown."""
    row, token = await bot_hub(request).create_token(account, req.description, req.scopes)
    return {
        "id": row.id,
        "token": token,
        "description": row.description,
        "scopes": row.scopes.split(),
        "created": row.created_at.isoformat() + "Z",
    }


@router.get("/tokens")
async def list_tokens(
    request: Request, account: Account = Depends(token_or_session)
) -> list[dict[str, Any]]:
    """The account's working tokens (never the tokens themselves)."""
    return await bot_hub(request).list_tokens(account)


@router.delete("/tokens/{token_id}")
async def revoke_token(
    token_id: int, request: Request, account: Account = Depends(token_or_session)
) -> dict[str, Any]:
    """Revoke a token: every stream opened with it closes at once."""
    await bot_hub(request).revoke_token(account, token_id)
    return {"ok": True}


@router.get("/bot")
async def bot_status(
    request: Request, account: Account = Depends(require_account)
) -> dict[str, Any]:
    """The signed-in account as a bot: ``bot``, ``about``, ``may_upgrade`` (and the
    ``rated_games`` it played as a person, which forbid it)."""
    return await bot_hub(request).bot_status(account)


@router.post("/bot")
async def become_bot(
    req: BecomeBotIn, request: Request, account: Account = Depends(require_account)
) -> dict[str, Any]:
    """Turn the signed-in account into a bot account (irreversible: ``confirm``, the
    username typed again), with its description ``about``; a bot account only changes its
    description."""
    await bot_hub(request).become_bot(account, req.confirm, req.about)
    return {"ok": True}
