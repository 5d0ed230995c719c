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


# -- scores from totals (the calculator's quick mode, seed 000) ------------------------------


def test_totals_give_the_worked_example() -> None:
    from lostcities.scoring import parse_totals_sheet, score_from_totals

    sheet = parse_totals_sheet(["y:31,0,5", "r:32,1,6", "b:10,0,2", "g:27,2,8"])
    cards = parse_score_sheet(["y:2,4,6,9,10", "r:x,3,5,7,8,9", "b:4,6", "g:x,x,2,3,4,5,6,7"])
    assert sheet_total(sheet) == sheet_total(cards) == 66
    for c in cards:
        a, b = sheet[c], cards[c]
        assert (a.number_sum, a.wagers, a.multiplier, a.bonus, a.score, a.num_cards) == (
            b.number_sum,
            b.wagers,
            b.multiplier,
            b.bonus,
            b.score,
            b.num_cards,
        )
        assert a.started == b.started and a.minus_cost == b.minus_cost
    assert sheet_total(sheet, achievements=3) == 96
    assert score_from_totals(0, 1, 1).score == -40  # a lone wager is started


def test_every_subset_of_a_colour_scores_the_same_from_its_totals() -> None:
    """All 2**9 sets of number cards with 0..3 wagers: the totals score as the cards do,
    and a sum is accepted exactly when some set of that many ranks makes it."""
    import itertools

    from lostcities import Card, Color
    from lostcities.scoring import score_from_totals

    makeable: set[tuple[int, int]] = set()
    for k in range(10):
        for ranks in itertools.combinations(range(2, 11), k):
            makeable.add((k, sum(ranks)))
            for w in range(4):
                cards = [Card(Color.RED, 0)] * w + [Card(Color.RED, r) for r in ranks]
                e = score_expedition(cards, check=False)
                t = score_from_totals(sum(ranks), w, w + k)
                assert (t.score, t.bonus, t.multiplier) == (e.score, e.bonus, e.multiplier)
    for k in range(10):
        for total in range(0, 60):
            if (k, total) in makeable:
                assert score_from_totals(total, 0, k).number_sum == total
            else:
                with pytest.raises(InvalidExpeditionError, match=r"cannot sum to|but no cards"):
                    score_from_totals(total, 0, k)


@pytest.mark.parametrize(
    ("totals", "why"),
    [
        (
            (12, 0, 5),
            "5 number cards cannot sum to 12 (5 different ranks from 2..10 sum to 20..40)",
        ),
        ((55, 0, 9), "9 number cards cannot sum to 55"),
        ((10, 4, 5), "4 wagers (a colour has 3)"),
        ((30, 0, 13), "13 cards (a colour has 12"),
        ((54, 0, 10), "10 number cards with 0 wagers (a colour has 9"),
        ((-1, 0, 2), "sum is -1 (negative numbers are not allowed)"),
        ((5, -1, 2), "wagers is -1"),
        ((5, 0, -2), "cards is -2"),
        ((0, 2, 1), "2 wagers but only 1 card"),
        ((5, 2, 2), "a sum of 5 but the 2 cards are wagers"),
        ((5, 0, 0), "a sum of 5 but no cards"),
    ],
)
def test_impossible_totals_say_why(totals: tuple[int, int, int], why: str) -> None:
    from lostcities.scoring import score_from_totals

    with pytest.raises(InvalidExpeditionError, match=r"^invalid totals: ") as e:
        score_from_totals(*totals)
    assert why in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("items", "variant", "why"),
    [
        (["y:31,0"], "classic", "expected colour:sum,wagers,cards"),
        (["y31,0,5"], "classic", "expected colour:sum,wagers,cards"),
        (["q:3,0,1"], "classic", "unknown colour 'q'"),
        (["p:5,0,1"], "classic", "purple is not in the classic variant (use --variant long)"),
        (["y:2,0,1", "y:3,0,1"], "classic", "yellow is given twice"),
        (["y:a,0,1"], "classic", "sum 'a' is not a whole number"),
        (["y:12,0,5"], "classic", "'y:12,0,5': 5 number cards cannot sum to 12"),
    ],
)
def test_bad_totals_sheets_say_what_and_where(items: list[str], variant: str, why: str) -> None:
    from lostcities.scoring import parse_totals_sheet

    with pytest.raises(InvalidExpeditionError) as e:
        parse_totals_sheet(items, variant)
    assert why in str(e.value)


def test_purple_totals_in_the_long_game_and_negative_achievements() -> None:
    from lostcities.scoring import goal_points, parse_totals_sheet

    sheet = parse_totals_sheet(["p:19,1,3"], "long")
    assert sheet_total(sheet) == -2 and len(sheet) == 6
    with pytest.raises(InvalidExpeditionError, match="negative"):
        goal_points(-1)


def test_the_rules_hot_path_scores_every_expedition_as_raw_score() -> None:
    """``expeditions_points`` (what ``Round.scores`` and ``PlayerView.scores`` add) gives
    ``raw_score`` for all 2**9 sets of number cards with 0..3 wagers, alone and summed,
    and still scores a pile longer than a colour (a hand-made view) by the formula."""
    import itertools

    from lostcities import Card, Color
    from lostcities.scoring import expeditions_points

    everything: list[list[Card]] = []
    for k in range(10):
        for ranks in itertools.combinations(range(2, 11), k):
            for w in range(4):
                cards = [Card(Color.RED, 0)] * w + [Card(Color.RED, r) for r in ranks]
                assert expeditions_points([cards]) == raw_score(sum(ranks), w, w + k)
                everything.append(cards)
    total = sum(
        raw_score(sum(c.rank for c in e), sum(not c.rank for c in e), len(e)) for e in everything
    )
    assert expeditions_points(everything) == total
    too_long = [Card(Color.RED, 0)] * 5 + [Card(Color.RED, r) for r in range(2, 11)]
    assert expeditions_points([too_long]) == raw_score(54, 5, 14)
