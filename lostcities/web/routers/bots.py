"""``/api/levels``: the computer levels and whether each is available on this server."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from lostcities.web.deps import get_manager
from lostcities.web.games import LEVELS, GameManager

router = APIRouter(prefix="/api", tags=["bots"])


class LevelOut(BaseModel):
    """A computer level."""

    level: str
    label: str
    bot: str
    available: bool
    reason: str | None = None


@router.get("/levels", response_model=list[LevelOut])
async def levels(mgr: GameManager = Depends(get_manager)) -> list[LevelOut]:
    """Every level, its bot spec, and why it is unavailable if it is."""
    out = []
    for level, (spec, label) in LEVELS.items():
        why = mgr.level_unavailable(level)
        out.append(LevelOut(level=level, label=label, bot=spec, available=why is None, reason=why))
    return out
