"""Fuzzing every parser a user or a bot can reach (issue 14): card and move notation, the
``score`` arguments (cards and ``--totals``), the record reader and replay, and the lines a
bot sends. Property: a clear one-line error of the documented kind, no state change, no
other exception.

Each target runs ``FUZZ_EXAMPLES`` examples (2,000; ``LOSTCITIES_FUZZ_EXAMPLES`` overrides it,
e.g. for a long run: ``LOSTCITIES_FUZZ_EXAMPLES=200000 pytest tests/test_fuzz.py``), or for a
fixed wall time per target with ``LOSTCITIES_FUZZ_SECONDS`` (tests/fuzzbudget.py;
benchmarks/fuzz_long.py runs every target so).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lostcities import Move, errors
from lostcities.cli import main
from lostcities.protocol.host import BotProtocol, MockTransport
from lostcities.record import read_records
from tests import fuzzbudget
from tests.fuzzbudget import timed
from tests.fuzzprops import (
    RECORD,
    ROUND,
    check_card,
    check_move,
    check_record_text,
    check_score_sheets,
    one_line,
)

FUZZ_EXAMPLES = int(os.environ.get("LOSTCITIES_FUZZ_EXAMPLES", "2000"))
fuzz = settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

NOTATION = "ybwgrpYBWGRPx0123456789+-.: \t,;|\n\x00é"
# text near the grammar (mostly notation characters) and anything at all
near = st.text(alphabet=NOTATION, max_size=12)
anything = st.text(max_size=40)
texts = st.one_of(near, anything)


# -- notation -----------------------------------------------------------------------------


@timed
@fuzz
@given(texts)
def test_card_notation(text: str) -> None:
    check_card(text)


@timed
@fuzz
@given(texts)
def test_move_notation_changes_nothing(text: str) -> None:
    check_move(text)


# -- lostcities score ---------------------------------------------------------------------

items = st.lists(
    st.one_of(st.builds(lambda c, r: f"{c}:{r}", st.sampled_from("ybwgrpzY"), near), anything),
    max_size=6,
)


@timed
@fuzz
@given(items, st.sampled_from(["classic", "long"]))
def test_score_sheets(args: list[str], variant: str) -> None:
    check_score_sheets(args, variant)


@timed
@settings(
    max_examples=max(50, FUZZ_EXAMPLES // 10),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(items, st.booleans(), st.booleans())
def test_score_command(args: list[str], totals: bool, as_json: bool) -> None:
    argv = [
        "score",
        *(["--json"] if as_json else []),
        *(["--totals"] if totals else []),
        "--",
        *args,
    ]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse: usage error
            code = e.code
    if code == 0:
        assert out.getvalue() and err.getvalue() == ""
    else:
        assert code == 2 and out.getvalue() == ""
        assert "Traceback" not in err.getvalue()
        # one line of error (argparse prints its usage line first)
        assert err.getvalue().strip().splitlines()[-1].startswith("lostcities")


# -- records ------------------------------------------------------------------------------


LINES = RECORD.splitlines()


@st.composite
def mutated_records(draw: st.DrawFn) -> str:
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["delete", "duplicate", "replace", "edit", "swap"]))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "replace":
            lines[i] = draw(texts)
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif lines[i]:
            k = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:k] + draw(near) + lines[i][k + draw(st.integers(0, 3)) :]
        if not lines:
            break
    return "\n".join(lines) + "\n"


@timed
@fuzz
@given(st.one_of(mutated_records(), anything))
def test_record_reader_and_replay(text: str) -> None:
    check_record_text(text)


# -- protocol: lines from a bot -----------------------------------------------------------

VIEW = ROUND.view(ROUND.to_move)
LEGAL = [str(m) for m in VIEW.legal_moves()]
bot_lines = st.lists(
    st.one_of(
        near,
        anything,
        st.builds(
            lambda w, m: f"{w} {m}",
            st.sampled_from(["move", "info", "id", "readyok", "MOVE"]),
            st.one_of(near, st.sampled_from(LEGAL)),
        ),
        st.binary(max_size=20),
    ),
    max_size=6,
)


@timed
@settings(
    max_examples=max(100, FUZZ_EXAMPLES // 4),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(bot_lines)
def test_lines_from_a_bot(lines: list[str | bytes]) -> None:
    raw = [(x if isinstance(x, bytes) else x.encode()).replace(b"\n", b" ") for x in lines]
    # a last, valid answer: the garbage before it is ignored, or a bad move line is refused
    mock = MockTransport()
    mock.expect(None, [*raw, f"move {LEGAL[0]}".encode()])
    for _ in range(11):
        mock.expect(None)

    async def go() -> Move:
        bot = BotProtocol(mock)
        return await bot.play(VIEW, 1.0)

    try:
        move = asyncio.run(go())
    except errors.BotError as e:
        one_line(e)
    else:
        assert move in VIEW.legal_moves()


@pytest.mark.parametrize("target", ["notation", "records"])
def test_the_fuzzers_find_a_planted_bug(target: str) -> None:
    # the properties can fail: a parser that lets an exception escape is caught
    if target == "notation":

        @settings(max_examples=500, deadline=None, database=None)
        @given(texts)
        def buggy(text: str) -> None:
            if "+" in text and "." in text:
                raise KeyError(text)  # a bug: not the documented error

        with pytest.raises(KeyError):
            buggy()
    else:

        @settings(max_examples=500, deadline=None, database=None)
        @given(mutated_records())
        def buggy_lines(text: str) -> None:
            for rec in read_records(io.StringIO(text)):
                if rec.errors:
                    raise AssertionError("two-line\nerror")

        with pytest.raises(AssertionError):
            buggy_lines()


def test_a_wall_time_budget_reruns_batches_and_still_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LOSTCITIES_FUZZ_SECONDS: batches rerun until the time is spent, every example counted
    report = tmp_path / "report.jsonl"
    monkeypatch.setattr(fuzzbudget, "SECONDS", 0.5)
    monkeypatch.setattr(fuzzbudget, "REPORT", str(report))

    @settings(max_examples=20, deadline=None, database=None)
    @given(st.integers())
    def fine(x: int) -> None:
        pass

    fuzzbudget.run(fine, "fine")
    line = json.loads(report.read_text())
    assert line["target"] == "fine" and line["batches"] >= 2 and line["wall_s"] >= 0.5
    assert line["examples"] == 20 * line["batches"]

    @settings(max_examples=20, deadline=None, database=None)
    @given(st.integers())
    def buggy(x: int) -> None:
        assert x != 0

    with pytest.raises(AssertionError):
        fuzzbudget.run(buggy, "buggy")
