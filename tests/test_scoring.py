"""Scoring as RULES.md says, with the seeds' worked example and common mistakes."""

from __future__ import annotations

import pytest

from lostcities import (
    InvalidExpeditionError,
    check_expedition,
    expedition_score,
    parse_cards,
    parse_score_sheet,
    raw_score,
    score_expedition,
    sheet_total,
)


def test_worked_example_of_seed_001() -> None:
    # Emma: yellow 2 4 6 9 10 -> 11; red x 3 5 7 8 9 -> 24; blue 4 6 -> -10;
    # green x x 2 3 4 5 6 7 -> (27 - 20) x 3 + 20 = 41; total 66
    assert expedition_score("y2 y4 y6 y9 y10") == 11
    assert expedition_score("rx r3 r5 r7 r8 r9") == 24
    assert expedition_score("b4 b6") == -10
    assert expedition_score("gx gx g2 g3 g4 g5 g6 g7") == 41
    sheet = parse_score_sheet(["y:2,4,6,9,10", "r:x,3,5,7,8,9", "b:4,6", "g:x,x,2,3,4,5,6,7"])
    assert sheet_total(sheet) == 66


def test_common_mistakes_of_seed_001() -> None:
    # forgetting the 20-point cost
    assert expedition_score("y10") == -10
    # multiplying the bonus too: it is added afterwards
    b = score_expedition(parse_cards("gx g2 g3 g4 g5 g6 g7 g8"))
    assert (b.number_sum, b.multiplier, b.bonus, b.score) == (35, 2, 20, 50)
    # a wager-only expedition is started: it costs 20, multiplied
    assert expedition_score("yx") == -40 and expedition_score("yx yx yx") == -80
    # an empty colour does not count as -20
    assert expedition_score([]) == 0 and raw_score(0, 0, 0) == 0


def test_faq_of_seed_000() -> None:
    # negative results are multiplied too
    assert expedition_score("bx bx b5") == -45
    # the eight-card bonus counts wagers, and is not multiplied
    assert expedition_score("wx wx wx w2 w3 w4 w5 w6") == (20 - 20) * 4 + 20
    # seven cards: no bonus
    assert expedition_score("wx w2 w3 w4 w5 w6 w7") == (27 - 20) * 2


def test_scoring_formula_over_all_shapes() -> None:
    for wagers in range(4):
        for n in range(0, 10):
            cards = ["r" + "x"] * wagers + [f"r{k}" for k in range(2, 2 + n)]
            s = sum(range(2, 2 + n))
            expected = 0 if not cards else (s - 20) * (wagers + 1) + (20 if len(cards) >= 8 else 0)
            assert expedition_score(cards) == expected


@pytest.mark.parametrize(
    ("cards", "why"),
    [
        ("y5 y3", "y3 is lower than the previous card y5"),
        ("y2 yx", "wager yx after the number card y2"),
        ("y2 b3", "b3 in a yellow expedition"),
    ],
)
def test_invalid_expeditions(cards: str, why: str) -> None:
    with pytest.raises(InvalidExpeditionError, match=why):
        check_expedition(parse_cards(cards))


@pytest.mark.parametrize(
    ("items", "why"),
    [
        (["y:2,2"], "y2 is repeated"),
        (["y:5,3"], "lower than the previous card y5"),
        (["y:x,x,x,x"], "more than 3 yellow wagers"),
        (["y:2,x"], "wager yx after the number card y2"),
        (["q:2"], "unknown colour 'q'"),
        (["p:2"], "purple is not in the classic variant"),
        (["y:11"], "rank 11 is not in 2..10"),
        (["y:2", "y:3"], "yellow is given twice"),
        (["y2"], "expected colour:cards"),
    ],
)
def test_score_sheet_errors_say_what_and_where(items: list[str], why: str) -> None:
    with pytest.raises(InvalidExpeditionError, match=why) as e:
        parse_score_sheet(items)
    assert repr(items[-1]) in str(e.value)


def test_score_sheet_long_variant() -> None:
    sheet = parse_score_sheet(["p:x,5,10"], "long")
    assert len(sheet) == 6 and sheet_total(sheet) == -10
