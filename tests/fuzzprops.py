"""The fuzzing properties of the rules core's parsers, one body each, shared by the
Hypothesis targets of the suite (tests/test_fuzz.py) and the coverage-guided ones of
benchmarks/fuzz_atheris.py: a clear one-line error of the documented kind, no state change,
no other exception."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

from lostcities import Card, Match, Move, Round, errors
from lostcities.record import GameRecord, RecordError, read_records
from lostcities.scoring import parse_score_sheet, parse_totals_sheet


def one_line(e: BaseException) -> None:
    msg = str(e)
    assert msg and "\n" not in msg and "Traceback" not in msg, repr(msg)


def snapshot(r: Round) -> tuple[object, ...]:
    return (
        r.ply,
        r.to_move,
        tuple(r.history),
        tuple(r.hands[0]),
        tuple(r.hands[1]),
        tuple(r.draw_pile),
        tuple(tuple(p) for p in r.discard_piles.values()),
    )


def _round() -> Round:
    r = Round.deal(seed=14)
    for _ in range(9):
        r.push(r.legal_moves()[0])
    return r


ROUND = _round()
"""A round nine moves in: move text is parsed against it (and must not change it)."""


def _record() -> str:
    m = Match(2, seed=5)
    rng = random.Random(5)
    while not m.is_over():
        r = m.new_round()
        while not r.is_over():
            moves = r.legal_moves()
            r.push(moves[rng.randrange(len(moves))] if rng.random() < 0.3 else moves[0])
    return str(GameRecord.from_match(m, players=("ann", "bob")))


RECORD = _record()
"""A valid two-round match record, the seed of the mutated ones."""


def _round_trip(parse: Callable[[str], object], error: type[ValueError], text: str) -> None:
    """``text`` parses to a value whose string parses back to it, or fails with ``error``."""
    try:
        value = parse(text)
    except error as e:
        one_line(e)
    else:
        assert parse(str(value)) == value


def check_card(text: str) -> None:
    _round_trip(Card.parse, errors.InvalidCardError, text)


def check_move(text: str) -> None:
    _round_trip(Move.parse, errors.InvalidMoveError, text)
    before = snapshot(ROUND)
    try:
        m = ROUND.parse_move(text)
    except (errors.InvalidMoveError, errors.IllegalMoveError) as e:
        one_line(e)
    else:
        assert m in ROUND.legal_moves()
    assert snapshot(ROUND) == before


def check_score_sheets(args: list[str], variant: str) -> None:
    for parse in (parse_score_sheet, parse_totals_sheet):
        try:
            sheet = parse(args, variant)
        except errors.InvalidExpeditionError as e:
            one_line(e)
        else:
            assert all(isinstance(e.score, int) for e in sheet.values())


def check_record_text(text: str) -> None:
    for rec in read_records(io.StringIO(text)):
        for e in rec.errors:
            assert isinstance(e, RecordError)
            one_line(e)
        try:
            match = rec.replay()
        except RecordError as e:
            one_line(e)
            assert e.line is None or e.line >= 1
        else:
            assert match.rounds or not rec.rounds
            assert str(GameRecord.from_match(match, players=rec.players)).count("[Deck") == len(
                rec.rounds
            )
