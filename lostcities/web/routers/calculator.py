"""``/api/score``: the score calculator, with the CLI's parser and validation."""

from __future__ import annotations

from fastapi import APIRouter

from lostcities.presentation import format_score_table
from lostcities.scoring import parse_score_sheet, sheet_total
from lostcities.web import schemas

router = APIRouter(prefix="/api", tags=["calculator"])


@router.post("/score", response_model=schemas.ScoreResponse)
async def score(req: schemas.ScoreRequest) -> schemas.ScoreResponse:
    """Score one player's expeditions exactly as ``lostcities score`` does.

    ``{"variant": "classic", "expeditions": {"y": "x,2,5,10", "r": "3 4"}}``; a bad
    expedition answers 400 with the CLI's message.
    """
    items = [f"{color}:{cards}" for color, cards in req.expeditions.items() if cards.strip()]
    sheet = parse_score_sheet(items, req.variant)
    return schemas.ScoreResponse(
        variant=req.variant,
        expeditions={c.letter: schemas.expedition_out(e) for c, e in sheet.items()},
        total=sheet_total(sheet),
        table=format_score_table(dict(sheet)),
    )
