"""The rollout policy: hand-made positions for each rule, and the numba port against the
Python reference (same moves, same final scores)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lostcities import LONG, Card, Move, Round
from lostcities.bots import rollout
from lostcities.bots.rollout import playout, playout_python, rollout_move

from .positions import random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.state import state_from_round  # noqa: E402


def _round(hand0: str, hand1: str, rest: str = "", variant: str = "classic") -> Round:
    """A classic round whose hands start with the given cards (the rest of each hand and
    the draw pile filled with the remaining cards in deck order, ``rest`` next to draw)."""
    from lostcities import get_variant

    deck = list(get_variant(variant).deck())
    chosen = []
    for text in (hand0, hand1, rest):
        part = [Card.parse(t) for t in text.split()]
        for c in part:
            deck.remove(c)
        chosen.append(part)
    h0 = chosen[0] + [deck.pop() for _ in range(8 - len(chosen[0]))]
    h1 = chosen[1] + [deck.pop() for _ in range(8 - len(chosen[1]))]
    return Round.from_deck(h0 + h1 + chosen[2] + deck, variant=variant)


def test_plays_the_smallest_gap_onto_a_started_expedition() -> None:
    r = _round("y2 y5 b3 b6 w4 w9 r10 g10", "rx r2 r3 r4 g2 g3 g4 g5", "y3 b2 w2 w3")
    r.push("+y2.")  # player 0 starts yellow (and draws y3)
    r.push("-rx.")  # player 1 discards (draws b2)
    # player 0: yellow started at 2: y3 (gap 1) beats y5 (gap 3); blue not started
    assert rollout_move(r) == Move.parse("+y3.")


def test_gap_ties_go_to_the_lowest_card_index_and_gaps_over_3_are_not_played() -> None:
    r = _round("y2 b2 y4 b4 w8 r10 g10 p10", "rx r2 r3 r4 g2 g3 g4 g5", "w2 w3 w4 w5", "long")
    r.push("+y2.")
    r.push("-rx.")
    r.push("+b2.")
    r.push("-r2.")
    # y4 and b4 both have gap 2: yellow (index 3) before blue (index 13)
    assert rollout_move(r) == Move.parse("+y4.")
    r2 = _round("y2 y7 b8 w8 r9 g9 g10 r10", "rx r2 r3 r4 g2 g3 g4 g5", "w2 w3 w4 w5")
    r2.push("+y2.")
    r2.push("-rx.")
    # y7 is 5 above the top: not played; a discard instead
    assert rollout_move(r2).action.value == "-"


def test_wager_only_expedition_counts_as_started_with_top_0() -> None:
    r = _round("yx y3 y5 b9 w9 r9 g9 g10", "rx r2 r3 r4 g2 g3 g4 g5", "w2 w3 w4 w5")
    r.push("+yx.")
    r.push("-rx.")
    # top 0: y3 has gap 3 (played), y5 gap 5
    assert rollout_move(r) == Move.parse("+y3.")


def test_discards_a_dead_card_the_opponent_cannot_use_first() -> None:
    # player 0 plays y5; then y4 is dead for it and the opponent has no yellow expedition:
    # y4 goes before the lower b2 and w2
    r = _round("y5 y4 b10 w10 g10 r10 b9 b2", "rx r2 r3 r4 g2 g3 g4 g5", "w2 w3 w4 w5")
    r.push("+y5.")
    r.push("-rx.")
    assert rollout_move(r) == Move.parse("-y4.")


def test_a_dead_wager_goes_first_even_before_a_dead_number() -> None:
    r = _round("y5 yx y2 b10 w10 g10 r10 b9", "rx r2 r3 r4 g2 g3 g4 g5", "w2 w3 w4 w5")
    r.push("+y5.")
    r.push("-rx.")
    assert rollout_move(r) == Move.parse("-yx.")


def test_a_dead_card_the_opponent_can_play_is_kept_back() -> None:
    # player 0 played y5; y4 is dead for it but the opponent's yellow is at y2: y4 helps it
    r = _round("y5 y4 b10 w10 g10 r10 b9 w9", "y2 r2 r3 r4 g2 g3 g4 g5", "w2 w3 w4 w5")
    r.push("+y5.")
    r.push("+y2.")
    # hand: y4 b10 w10 g10 r10 b9 w9 w2: the lowest card the opponent cannot play is w2
    assert rollout_move(r) == Move.parse("-w2.")


def test_lowest_value_card_when_everything_helps_the_opponent() -> None:
    # the opponent starts every colour with a wager: it could play any card player 0 holds
    r = _round("y9 b8 w7 g6 r5 y10 b10 w10", "yx bx wx gx rx r2 r3 r4", "")
    r.push("-w10.")
    for m in ("+yx.", "+bx.", "+wx.", "+gx.", "+rx."):
        r.push(m)
        if m != "+rx.":
            r.push(f"-{r.hands[0][-1]}.")  # player 0 discards its highest card
    assert r.to_move == 0
    low = min(r.hands[0], key=lambda c: (c.value, c.index))
    assert rollout_move(r) == Move.discard(low)


def test_rollout_move_on_an_ended_round_raises() -> None:
    r = Round.deal(seed=1, max_turns=1)
    r.push(r.legal_moves()[0])
    with pytest.raises(ValueError, match="over"):
        rollout_move(r)


def test_playout_leaves_the_round_unchanged_and_respects_the_cap() -> None:
    r = Round.deal(seed=11, max_turns=30)
    for _ in range(25):
        r.push(r.legal_moves()[1])
    before = (r.history, r.hands, r.deck_size, r.ply, str(r))
    s = playout(r)
    assert (r.history, r.hands, r.deck_size, r.ply, str(r)) == before
    # the cap at ply 30 stops the playout after 5 more moves
    c = r.copy(stack=False)
    for _ in range(5):
        c.push_unchecked(rollout_move(c))
    assert c.is_over() and c.truncated
    assert s == c.scores() == playout_python(r)


def test_playout_of_an_ended_round_is_its_score() -> None:
    r = Round.deal(seed=2, max_turns=3)
    for _ in range(3):
        r.push(r.legal_moves()[0])
    assert r.is_over()
    assert playout(r) == playout_python(r) == r.scores()


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_numba_policy_equals_the_python_reference(variant: str) -> None:
    n = 400
    for r in random_positions(n, variant, seed=7):
        s = state_from_round(r)
        c = r.copy(stack=False)
        while not c.is_over():
            move = rollout_move(c)
            assert int(K.rollout_action(s)) == move.index, (str(c), move)
            c.push_unchecked(move)
            K.apply(s, move.index)
        assert (K.score(s, 0), K.score(s, 1)) == c.scores()
        assert playout(r) == playout_python(r) == c.scores()


def test_playout_uses_the_compiled_port_when_numba_is_there() -> None:
    assert rollout.uses_numba()
    r = _opening(9)
    want = playout(r)
    with rollout.python_rollouts():
        assert not rollout.uses_numba()
        assert playout(r) == want
    assert rollout.uses_numba()


def test_importing_the_rollouts_does_not_import_numba() -> None:
    code = (
        "import sys\n"
        "import lostcities.bots.rollout as r\n"
        "assert 'numba' not in sys.modules\n"
        "r.playout(r.Round.deal(seed=1))\n"
        "assert 'numba' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _opening(seed: int) -> Round:
    r = Round.deal(seed=seed)
    for _ in range(12):
        r.push(r.legal_moves()[0])  # plays first: starts expeditions
    return r


def test_falls_back_to_python_without_numba() -> None:
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "from lostcities import Round\n"
        "from lostcities.bots import rollout\n"
        "assert not rollout.uses_numba()\n"
        "r = Round.deal(seed=4)\n"
        "for _ in range(12):\n"
        "    r.push(r.legal_moves()[0])\n"
        "print(*rollout.playout(r))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    want = playout(_opening(4))
    assert want != (0, 0)
    assert tuple(map(int, out.stdout.split())) == want


def test_long_variant_positions_include_purple() -> None:
    r = Round.deal(seed=3, variant=LONG)
    assert state_from_round(r)[K.NCOL] == 6


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_playouts_after_each_move(variant: str) -> None:
    from lostcities.bots.rollout import playouts_after

    for r in random_positions(60, variant, seed=21):
        moves = list(r.legal_moves())[::3]
        want = []
        for m in moves:
            c = r.copy(stack=False)
            c.push(m)
            want.append(playout_python(c))
        before = r.history
        assert playouts_after(r, moves) == want
        with rollout.python_rollouts():
            assert playouts_after(r, moves) == want
        assert r.history == before


def test_playouts_after_an_illegal_move_raises() -> None:
    from lostcities import IllegalMoveError
    from lostcities.bots.rollout import playouts_after

    r = Round.deal(seed=3)
    bad = next(
        m
        for m in (Move.parse(f"+{c}.") for c in ("y2", "b2", "w2", "g2", "r2"))
        if not r.is_legal(m)
    )
    for ctx in (rollout.python_rollouts, None):
        with ctx() if ctx else _nothing(), pytest.raises(IllegalMoveError):
            playouts_after(r, [r.legal_moves()[0], bad])


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
