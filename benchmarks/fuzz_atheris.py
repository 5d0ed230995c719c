"""Coverage-guided fuzzing with atheris (issue 14), beside the Hypothesis targets of the suite:
the parsers a user reaches in the rules core (card and move notation, score sheets and
``--totals`` sheets, the record reader and replay), with the suite's property: the documented
error with a one-line message, no state change, no other exception (atheris reports any other
exception as a crash, with its input).

atheris is optional (``pip install atheris``; a binary wheel for CPython on Linux x86_64):

    python benchmarks/fuzz_atheris.py records -- -max_total_time=600 -print_final_stats=1 CORPUS_DIR
    python benchmarks/fuzz_atheris.py notation -- -max_total_time=60
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable

import atheris  # type: ignore[import-untyped, import-not-found, unused-ignore]

with atheris.instrument_imports():
    from lostcities import Card, Match, Move, Round, errors
    from lostcities.record import GameRecord, RecordError, read_records
    from lostcities.scoring import parse_score_sheet, parse_totals_sheet


def one_line(e: BaseException) -> None:
    msg = str(e)
    if not msg or "\n" in msg or "Traceback" in msg:
        raise AssertionError(f"not a one-line error: {msg!r}")


ROUND = Round.deal(seed=14)
for _ in range(9):
    ROUND.push(ROUND.legal_moves()[0])


def snapshot(r: Round) -> tuple[object, ...]:
    return (r.ply, r.to_move, tuple(r.history), tuple(r.hands[0]), tuple(r.hands[1]), tuple(r.draw_pile),
            tuple(tuple(p) for p in r.discard_piles.values()))


def notation(data: bytes) -> None:
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(64)
    try:
        card = Card.parse(text)
    except errors.InvalidCardError as e:
        one_line(e)
    else:
        assert Card.parse(str(card)) == card
    try:
        move = Move.parse(text)
    except errors.InvalidMoveError as e:
        one_line(e)
    else:
        assert Move.parse(str(move)) == move
    before = snapshot(ROUND)
    try:
        m = ROUND.parse_move(text)
    except (errors.InvalidMoveError, errors.IllegalMoveError) as e:
        one_line(e)
    else:
        assert m in ROUND.legal_moves()
    assert snapshot(ROUND) == before


def score(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    args = [fdp.ConsumeUnicodeNoSurrogates(16) for _ in range(fdp.ConsumeIntInRange(0, 6))]
    variant = "long" if fdp.ConsumeBool() else "classic"
    for parse in (parse_score_sheet, parse_totals_sheet):
        try:
            sheet = parse(args, variant)
        except errors.InvalidExpeditionError as e:
            one_line(e)
        else:
            assert all(isinstance(e.score, int) for e in sheet.values())


def _record() -> str:
    import random

    m = Match(2, seed=5)
    rng = random.Random(5)
    while not m.is_over():
        r = m.new_round()
        while not r.is_over():
            moves = r.legal_moves()
            r.push(moves[rng.randrange(len(moves))] if rng.random() < 0.3 else moves[0])
    return str(GameRecord.from_match(m, players=("ann", "bob")))


RECORD = _record()


def records(data: bytes) -> None:
    # a corpus folder given on the command line starts with a valid record (see main)
    text = data.decode("utf-8", "replace")
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
            assert str(GameRecord.from_match(match, players=rec.players)).count("[Deck") == len(rec.rounds)


TARGETS: dict[str, Callable[[bytes], None]] = {"notation": notation, "score": score, "records": records}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: fuzz_atheris.py {{{','.join(TARGETS)}}} [-- libFuzzer options]")
    target = TARGETS[sys.argv[1]]
    rest = sys.argv[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    for folder in (a for a in rest if not a.startswith("-")):  # libFuzzer's corpus folders
        os.makedirs(folder, exist_ok=True)
        if sys.argv[1] == "records" and not os.listdir(folder):
            with open(os.path.join(folder, "record.txt"), "w") as f:
                f.write(RECORD)  # start from a valid record
    atheris.Setup([sys.argv[0], *rest], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
