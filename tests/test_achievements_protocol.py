"""The bot protocol in the achievements variant: goal and tally lines, round trips, real bots."""

from __future__ import annotations

import io
import random
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lostcities import Round
from lostcities.arena import play_round
from lostcities.bots import make
from lostcities.protocol import PositionError, PositionReader, position_lines, serve
from lostcities.rules import Move, PlayerView

PY = sys.executable


def _played(seed: int, plies: int, variant: str = "classic") -> Round:
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant, starter=seed & 1, achievements=True)
    for _ in range(plies):
        if r.is_over():
            break
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    if r.is_over():
        r.pop()
    return r


def _read_back(lines: list[str], variant: str, seat: int) -> PlayerView:
    reader = PositionReader()
    reader.newgame(variant, seat)
    for line in lines:
        reader.feed(line)
    return reader.view()


@given(st.integers(0, 10**6), st.integers(0, 120), st.sampled_from(["classic", "long"]))
def test_goal_positions_round_trip_the_view(seed: int, plies: int, variant: str) -> None:
    r = _played(seed, plies, variant)
    view = r.view(r.to_move)
    lines = position_lines(view)
    assert sum(line.startswith("goal ") for line in lines) == 5
    assert lines[-1].startswith("tally ")
    assert _read_back(lines, variant, view.player) == view


def test_classic_positions_have_no_goal_lines() -> None:
    r = Round.deal(seed=3)
    lines = position_lines(r.view(0))
    assert len(lines) == 11 and not any(line.startswith(("goal", "tally")) for line in lines)


@pytest.mark.parametrize(
    "line",
    [
        "goal x - a | race | A | cards >= 1 | t",
        "goal 0 2 a | race | A | cards >= 1 | t",
        "goal 0 - a | race | A | gold >= 1 | t",
        "goal 0 -",
        "tally 1 2 3",
        "tally 1 2 3 x",
    ],
)
def test_bad_goal_lines_are_position_errors(line: str) -> None:
    reader = PositionReader()
    reader.newgame("classic", 0)
    with pytest.raises(PositionError):
        reader.feed(line)


def test_goal_lines_out_of_order_are_incomplete() -> None:
    r = _played(2, 4)
    view = r.view(r.to_move)
    lines = [line for line in position_lines(view) if not line.startswith("goal 0 ")]
    with pytest.raises(PositionError, match="goal lines"):
        _read_back(lines, "classic", view.player)


def test_the_engine_side_gives_its_player_the_goals() -> None:
    seen: list[PlayerView] = []

    class Spy:
        def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
            seen.append(view)
            return view.legal_moves()[0]

    r = _played(7, 9)
    view = r.view(r.to_move)
    lines = [f"newgame classic {view.player}", *position_lines(view), "go 50"]
    out = io.StringIO()
    assert serve(Spy(), name="spy", stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out) == 0
    assert seen == [view] and seen[0].achievements is not None


def test_a_subprocess_bot_plays_a_goal_round_to_the_end() -> None:
    bot = make(f"cmd:{PY} -m lostcities.cli bot random", seed=4)
    try:
        r = play_round(
            [bot, make("random", seed=1)],  # type: ignore[list-item]
            Round.deal(seed=5, achievements=True),
            time_limit=5.0,
        )
        o = r.outcome()
        assert o is not None and o.termination.name == "DRAW_PILE_EMPTY"
        assert o.scores == r.scores() and len(r.claims) == 5
    finally:
        bot.close()


def test_the_example_bot_ignores_goal_lines_and_plays_legally() -> None:
    from pathlib import Path

    example = Path(__file__).resolve().parent.parent / "examples" / "bot.py"
    bot = make(f"cmd:{PY} {example}")
    try:
        r = play_round(
            [bot, make("random", seed=2)],
            Round.deal(seed=9, achievements=True),  # type: ignore[list-item]
            time_limit=5.0,
        )
        o = r.outcome()
        assert o is not None and o.termination.name == "DRAW_PILE_EMPTY"
    finally:
        bot.close()
