from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from core_helpers import deck_with

from lostcities import Match, MatchContext, Round


def _finish(r: Round, prefer_draw_pile: bool = True) -> None:
    while not r.is_over():
        moves = r.legal_moves()
        r.push(
            next((m for m in moves if m.draw is None), moves[0]) if prefer_draw_pile else moves[0]
        )


def test_three_rounds_add_up_and_higher_total_starts() -> None:
    m = Match(seed=7, starter=1)
    assert m.num_rounds == 3 and m.next_starter() == 1
    totals = [0, 0]
    while not m.is_over():
        expected = m.next_starter()
        r = m.new_round()
        assert r.starter == expected
        _finish(r)
        totals = [totals[0] + r.scores()[0], totals[1] + r.scores()[1]]
        assert m.totals() == tuple(totals)
        if not m.is_over():
            a, b = totals
            if a != b:
                assert m.next_starter() == (0 if a > b else 1)
            else:
                assert m.next_starter() == r.starter ^ 1
    assert m.result() in ("1-0", "0-1", "1/2-1/2")
    assert m.winner() == (0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else None)


def test_tie_rule_directly() -> None:
    m = Match(3, starter=1)
    r = m.new_round(deck_with("y2 y3 y4 y5 y6 y7 y8 y9", "b2 b3 b4 b5 b6 b7 b8 b9"))
    # both only discard: 0 - 0
    while not r.is_over():
        r.push(next(mv for mv in r.legal_moves() if mv.action.value == "-" and mv.draw is None))
    assert m.totals() == (0, 0) and m.next_starter() == 0
    assert m.result() == "*"


def test_first_starter_drawn_from_the_seed_and_errors() -> None:
    assert Match(seed=3).first_starter == Match(seed=3).first_starter
    assert {Match(seed=s).first_starter for s in range(20)} == {0, 1}
    m = Match(1, seed=1)
    m.new_round()
    with pytest.raises(ValueError, match="not over"):
        m.new_round()
    with pytest.raises(ValueError, match="rounds"):
        Match(0)


def test_forfeit_loses_the_match() -> None:
    m = Match(3, seed=1, starter=0)
    r = m.new_round()
    r.forfeit(0, "crashed")
    assert m.is_over() and m.winner() == 1 and m.result() == "0-1"


def test_one_round_draw() -> None:
    m = Match(1, starter=0)
    r = m.new_round(deck_with("y2 y3 y4 y5 y6 y7 y8 y9", "b2 b3 b4 b5 b6 b7 b8 b9"))
    while not r.is_over():
        r.push(next(mv for mv in r.legal_moves() if mv.action.value == "-" and mv.draw is None))
    assert m.result() == "1/2-1/2" and m.winner() is None


def _tied(m: Match) -> None:
    """Play every round of ``m`` by discarding only: 0 - 0 each round."""
    while not m.is_over():
        r = m.new_round(deck_with("y2 y3 y4 y5 y6 y7 y8 y9", "b2 b3 b4 b5 b6 b7 b8 b9"))
        while not r.is_over():
            r.push(next(mv for mv in r.legal_moves() if mv.action.value == "-" and mv.draw is None))


@pytest.mark.parametrize("younger", [0, 1])
def test_youngest_tie_break_gives_equal_totals_to_the_younger_seat(younger: int) -> None:
    m = Match(3, starter=0, tie_break="youngest", younger=younger)
    _tied(m)
    assert m.totals() == (0, 0)
    assert m.winner() == younger
    assert m.result() == ("1-0" if younger == 0 else "0-1")
    assert m.reason() == "tie broken: the younger player wins"


def test_default_tie_break_is_a_draw_and_says_so() -> None:
    m = Match(1, starter=0)
    assert (m.tie_break, m.younger) == ("draw", None)
    _tied(m)
    assert m.result() == "1/2-1/2" and m.reason() == "equal totals: a draw"


def test_youngest_tie_break_changes_nothing_without_a_tie() -> None:
    m = Match(1, starter=0, tie_break="youngest", younger=1)
    r = m.new_round(deck_with("y2 y3 y4 y5 y6 y7 y8 y9", "b2 b3 b4 b5 b6 b7 b8 b9"))
    r.push("+y9.")  # player 0 starts yellow: -11, player 1 never scores
    while not r.is_over():
        r.push(next(mv for mv in r.legal_moves() if mv.action.value == "-" and mv.draw is None))
    assert m.totals()[0] < m.totals()[1]
    assert m.winner() == 1 and m.reason() == "higher total"
    # a forfeit beats the tie-break: the younger seat that forfeits loses
    f = Match(1, seed=2, starter=0, tie_break="youngest", younger=0)
    f.new_round().forfeit(0, "resigned")
    assert f.winner() == 1 and f.reason() == "player 0 forfeited"
    assert Match(1).reason() == ""


@pytest.mark.parametrize(
    ("tie_break", "younger", "match"),
    [
        ("youngest", None, "needs the younger seat"),
        ("youngest", 2, "needs the younger seat"),
        ("draw", 0, "takes no younger seat"),
        ("oldest", None, "expected draw or youngest"),
    ],
)
def test_bad_tie_break_settings_are_one_line_errors(
    tie_break: str, younger: int | None, match: str
) -> None:
    from lostcities.errors import TieBreakError

    with pytest.raises(TieBreakError, match=match):
        Match(1, tie_break=tie_break, younger=younger)


def test_the_record_keeps_the_tie_break_and_replay_checks_it() -> None:
    import io

    from lostcities.record import GameRecord, RecordError, read_record

    m = Match(1, starter=0, tie_break="youngest", younger=1)
    _tied(m)
    text = str(GameRecord.from_match(m, players=("ann", "bob")))
    assert '[TieBreak "youngest"]' in text and '[Younger "1"]' in text
    rec = read_record(io.StringIO(text))
    assert rec is not None and not rec.errors
    again = rec.replay()
    assert (again.tie_break, again.younger) == ("youngest", 1)
    assert again.result() == "0-1" and again.reason() == "tie broken: the younger player wins"
    # without the tags the same moves are a draw: the recorded result no longer replays
    plain = text.replace('[TieBreak "youngest"]\n', "").replace('[Younger "1"]\n', "")
    bad = read_record(io.StringIO(plain))
    assert bad is not None
    with pytest.raises(RecordError, match="Result is '0-1', but the rounds give '1/2-1/2'"):
        bad.replay()
    for tags, why in [
        ('[TieBreak "oldest"]', "expected draw or youngest"),
        ('[TieBreak "youngest"]\n[Younger "2"]', "needs the younger seat"),
    ]:
        broken = read_record(io.StringIO(plain.replace("[Scores", tags + "\n[Scores")))
        assert broken is not None
        with pytest.raises(RecordError, match=why):
            broken.replay()
    # a classic record has no tie-break tags
    d = Match(1, starter=0)
    _tied(d)
    assert "TieBreak" not in str(GameRecord.from_match(d))


# -- the match context of a view --------------------------------------------------------------


def test_the_view_in_a_match_carries_round_totals_and_tie_break_from_the_viewers_seat() -> None:
    m = Match(rounds=3, seed=11, starter=0, tie_break="youngest", younger=1)
    seen = []
    while not m.is_over():
        before = m.totals()
        r = m.new_round()
        for p in (0, 1):
            c = m.view(p).match
            assert c is not None
            assert (c.round, c.rounds, c.totals, c.player) == (len(m.rounds), 3, before, p)
            assert c.rounds_left == 3 - len(m.rounds) and c.last_round == (len(m.rounds) == 3)
            assert c.lead == before[p] - before[p ^ 1] == -m.view(p ^ 1).match.lead  # type: ignore[union-attr]
            assert c.tie_value == (1 if p == 1 else -1)
            assert m.view(p) == dataclasses.replace(r.view(p), match=c)  # nothing else changes
        seen.append(before)
        _finish(r)
    assert seen[0] == (0, 0) and len(seen) == 3
    assert Round.deal(seed=1).view(0).match is None  # a lone round has none


def test_earlier_views_keep_the_match_context_seen_from_each_mover() -> None:
    m = Match(rounds=2, seed=3, starter=1)
    _finish(m.new_round())
    r = m.new_round()
    for mv in list(r.legal_moves())[:1]:
        r.push(mv)
    r.push(r.legal_moves()[0])
    past = m.view(0).earlier_views()
    assert [v.match.player for v in past] == [v.player for v in past]  # type: ignore[union-attr]
    assert all(v.match.totals == m.totals() for v in past)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"round": 0, "rounds": 3, "totals": (0, 0), "player": 0},
        {"round": 4, "rounds": 3, "totals": (0, 0), "player": 0},
        {"round": 1, "rounds": 3, "totals": (0, 0), "player": 2},
        {"round": 1, "rounds": 3, "totals": (0, 0), "player": 0, "tie_break": "youngest"},
        {"round": 1, "rounds": 3, "totals": (0, 0), "player": 0, "younger": 1},
    ],
)
def test_a_bad_match_context_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="invalid match context"):
        MatchContext(**kwargs)


def test_the_context_needs_a_dealt_round() -> None:
    with pytest.raises(ValueError, match="no round"):
        Match(rounds=1, seed=1).view(0)
