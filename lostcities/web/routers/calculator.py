"""``/api/score``: the score calculator, with the CLI's parser and validation."""

from __future__ import annotations

from fastapi import APIRouter

from lostcities.presentation import format_score_table
from lostcities.scoring import goal_points, parse_score_sheet, parse_totals_sheet, sheet_total
from lostcities.web import schemas

router = APIRouter(prefix="/api", tags=["calculator"])


@router.post("/score", response_model=schemas.ScoreResponse)
async def score(req: schemas.ScoreRequest) -> schemas.ScoreResponse:
    """Score one player's expeditions exactly as ``lostcities score`` does.

    ``{"variant": "classic", "expeditions": {"y": "x,2,5,10", "r": "3 4"}}``, or by totals
    (``lostcities score --totals``): ``{"totals": {"r": [32, 1, 6]}}``; ``"achievements": N``
    adds N x 10. Bad input answers 400 with the CLI's message.
    """
    if req.totals is not None:
        items = [f"{color}:{s},{w},{n}" for color, (s, w, n) in req.totals.items()]
        sheet = parse_totals_sheet(items, req.variant)
    else:
        items = [f"{color}:{cards}" for color, cards in req.expeditions.items() if cards.strip()]
        sheet = parse_score_sheet(items, req.variant)
    return schemas.ScoreResponse(
        variant=req.variant,
        expeditions={c.letter: schemas.expedition_out(e) for c, e in sheet.items()},
        achievements=req.achievements,
        achievement_points=goal_points(req.achievements),
        total=sheet_total(sheet, req.achievements),
        table=format_score_table(dict(sheet), req.achievements),
    )
