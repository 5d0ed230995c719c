"""``/api/levels``: the computer levels and whether each is available on this server."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from lostcities.web.deps import get_manager
from lostcities.web.games import GameManager

router = APIRouter(prefix="/api", tags=["bots"])


class LevelOut(BaseModel):
    """A computer level."""

    level: str
    label: str
    bot: str
    mistakes: float = 0.0
    available: bool
    reason: str | None = None


@router.get("/levels", response_model=list[LevelOut])
async def levels(mgr: GameManager = Depends(get_manager)) -> list[LevelOut]:
    """Every level, its bot spec, and why it is unavailable if it is."""
    out = []
    for level, lv in mgr.levels.items():
        why = mgr.level_unavailable(level)
        spec = lv.spec if why is not None else mgr.resolve_level(level)[0]
        out.append(
            LevelOut(
                level=level,
                label=lv.label,
                bot=spec,
                mistakes=lv.mistakes if spec == lv.spec else 0.0,
                available=why is None,
                reason=why,
            )
        )
    return out
