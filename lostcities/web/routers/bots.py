"""``/api/levels``: the computer levels and whether each is available on this server."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict

from lostcities.web.deps import get_manager
from lostcities.web.game_manager import GameManager

router = APIRouter(prefix="/api", tags=["bots"])


class LevelOut(BaseModel):
    """A computer level."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    level: str
    """Its name in ``POST /api/games``."""
    label: str
    """Its name on the page."""
    about: str = ""
    """What it plays, in one line (with the fallback it plays on this server, if any)."""
    bot: str
    """The bot spec it plays on this server."""
    mistakes: float = 0.0
    """Probability of a random legal move instead of the bot's."""
    available: bool
    reason: str | None = None
    """Why it is not available, if it is not."""
    warming_up: bool = False
    """Whether it waits for the search engine, which a first start compiles in the
    background: not available for a few seconds, then available."""


@router.get("/levels", response_model=list[LevelOut])
async def levels(mgr: GameManager = Depends(get_manager)) -> list[LevelOut]:
    """Every level: what it plays (``about``, the bot spec ``bot``: easy = ``heuristic``
    with 40% random moves, medium = ``heuristic``, hard = ``ismcts:time=1``, expert =
    ``expert:time=1``, or ``ismcts:time=1`` where numba is missing), and why it is
    unavailable if it is (``warming_up``: for a few seconds at a first start)."""
    out = []
    for level, lv in mgr.levels.items():
        why = mgr.levels.unavailable(level)
        spec = lv.spec if why is not None else mgr.levels.resolve(level)[0]
        about = lv.about
        if spec != lv.spec:
            instead = f"this server plays {spec} instead ({mgr.levels.own_bot_missing(level)})"
            about = f"{about}; {instead}" if about else instead
        out.append(
            LevelOut(
                level=level,
                label=lv.label,
                about=about,
                bot=spec,
                mistakes=lv.mistakes if spec == lv.spec else 0.0,
                available=why is None,
                reason=why,
                warming_up=mgr.levels.warming_up(level),
            )
        )
    return out
