"""``/api/account/tokens``: personal API tokens (docs/bot-api.md): made signed in on the
site (session cookie and CSRF header); listed and revoked so, or with a token of the same
account. The routes authorise and call :class:`~lostcities.web.bot_api.BotHub`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request

from lostcities.web.accounts import Account, require_account
from lostcities.web.bot_api import TokenIn
from lostcities.web.routers.bot_api import api_token, bot_hub

__all__ = ["router", "token_or_session"]

router = APIRouter(prefix="/api/account/tokens", tags=["bot API"])


async def token_or_session(request: Request) -> Account:
    """The account of the request's API token (any scope) if it sends one, else the
    signed-in account.

    :raises BadTokenError: for a bad token; :raises NotSignedInError: for neither.
    """
    if request.headers.get("authorization"):
        return (await api_token()(request)).account
    return await require_account(request)


@router.post("", status_code=201)
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


@router.get("")
async def list_tokens(
    request: Request, account: Account = Depends(token_or_session)
) -> list[dict[str, Any]]:
    """The account's working tokens (never the tokens themselves)."""
    return await bot_hub(request).list_tokens(account)


@router.delete("/{token_id}")
async def revoke_token(
    token_id: int, request: Request, account: Account = Depends(token_or_session)
) -> dict[str, Any]:
    """Revoke a token: every stream opened with it closes at once."""
    await bot_hub(request).revoke_token(account, token_id)
    return {"ok": True}
