"""Every rule of RULES.md, and the traps in the seeds' FAQ and common mistakes."""

from __future__ import annotations

import random

import pytest
from core_helpers import deck_with, position

from lostcities import (
    CLASSIC,
    LONG,
    Action,
    Card,
    Color,
    IllegalMoveError,
    InvalidDeckError,
    InvalidMoveError,
    Move,
    Round,
    Termination,
)

H0 = "yx y2 y3 y5 b4 b6 gx g7"
H1 = "rx r3 r5 w2 w9 b10 g2 y4"


def test_deal_is_deterministic_and_complete() -> None:
    a, b = Round.deal(seed=42), Round.deal(seed=42)
    assert a.deal_order == b.deal_order and a.seed == 42
    assert Round.deal(seed=43).deal_order != a.deal_order
    assert sorted(a.deal_order) == sorted(CLASSIC.deck())
    assert len(a.hands[0]) == len(a.hands[1]) == 8 and a.deck_size == 44
    assert Round.deal(seed=1, variant="long").deck_size == 72 - 16
    assert Round.deal().seed is not None  # an unseeded deal keeps its seed


def test_from_deck_deals_in_order() -> None:
    deck = deck_with(H0, H1, draw="r10 w3")
    r = Round.from_deck([str(c) for c in deck], starter=1)
    assert [str(c) for c in r.hands[0]] == sorted(H0.split(), key=lambda t: Card.parse(t).index)
    assert set(map(str, r.hands[1])) == set(H1.split())
    assert r.to_move == 1 and r.starter == 1
    assert r.draw_pile[:2] == (Card.parse("r10"), Card.parse("w3"))
    r.push("+rx.")
    assert Card.parse("r10") in r.hands[1]


def test_from_deck_says_what_is_missing_or_extra() -> None:
    deck = CLASSIC.deck()
    deck[3] = Card.parse("y7")  # y2 replaced by a second y7
    with pytest.raises(InvalidDeckError, match="missing y2; extra y7"):
        Round.from_deck(deck)
    with pytest.raises(InvalidDeckError, match="59 cards, expected 60"):
        Round.from_deck(CLASSIC.deck()[:-1])
    with pytest.raises(InvalidDeckError, match="extra px"):
        Round.from_deck(LONG.deck())
    with pytest.raises(InvalidDeckError, match="invalid card"):
        Round.from_deck(["y77"] * 60)


def test_number_cards_strictly_ascending_gaps_allowed() -> None:
    r = position(H0, H1, moves="+y3. +r3.")
    assert r.is_legal("+y5.")  # a gap is fine
    with pytest.raises(IllegalMoveError, match="y2 is lower than the last yellow card y3"):
        r.push("+y2.")
    r.push("+y5.")
    r.push("+r5.")
    assert r.expeditions[0]["y"] == (Card.parse("y3"), Card.parse("y5"))


def test_wagers_only_before_the_first_number() -> None:
    r = position(H0, H1, draw="yx yx", moves="+yx. +rx.")  # player 0 draws a second yx
    assert r.is_legal("+yx.")
    r.push("+y2.")
    r.push("+r3.")
    with pytest.raises(IllegalMoveError, match="a yellow wager cannot follow the number card y2"):
        r.push("+yx.")
    assert r.is_legal("-yx.")  # a wager may always be discarded


def test_up_to_three_wagers_then_numbers() -> None:
    r = position("yx yx yx y2 b4 b6 gx g7", H1)
    for m in ["+yx.", "+rx.", "+yx.", "+r3.", "+yx."]:
        r.push(m)
    r.push("+r5.")
    r.push("+y2.")
    assert [str(c) for c in r.expeditions[0][Color.YELLOW]] == ["yx", "yx", "yx", "y2"]


def test_wager_alone_starts_an_expedition_and_costs() -> None:
    # seed 000 FAQ: a single wager starts an expedition: (0 - 20) x 2 = -40
    r = position(H0, H1, moves="+yx.")
    assert r.scores() == (-40, 0)


def test_identical_wagers_are_one_move() -> None:
    r = position("yx yx y2 y3 b4 b6 gx g7", H1)
    moves = list(r.legal_moves())
    assert len(moves) == len(set(moves))
    assert sum(1 for m in moves if str(m) == "+yx.") == 1


def test_draw_sources() -> None:
    r = position(H0, H1, moves="-b4. -b10.")
    # seed 000 FAQ: after discarding you may draw from a different colour's pile ...
    assert r.is_legal("-y2b")
    # ... but never the card just discarded (the pile just discarded onto)
    with pytest.raises(
        IllegalMoveError, match="cannot take back the card just discarded onto the blue pile"
    ):
        r.push("-b6b")
    with pytest.raises(IllegalMoveError, match="the red discard pile is empty"):
        r.push("+y2r")
    before = r.deck_size
    r.push("+y2b")  # only the top card is available: b10, not b4
    assert Card.parse("b10") in r.hands[0] and r.discard_piles["b"] == (Card.parse("b4"),)
    assert r.deck_size == before  # a discard-pile draw does not shorten the draw pile
    assert r.known_cards(0) == (Card.parse("b10"),)


def test_hand_is_eight_after_every_turn_and_card_must_be_held() -> None:
    r = position(H0, H1)
    with pytest.raises(IllegalMoveError, match="r3 is not in player 0's hand"):
        r.push("+r3.")
    for _ in range(10):
        r.push(r.legal_moves()[0])
        assert len(r.hands[0]) == len(r.hands[1]) == 8


def test_round_ends_immediately_on_the_last_draw() -> None:
    r = Round.deal(seed=5)
    while r.deck_size > 1:
        # discard-draw from the pile keeps the game going; use the draw pile
        r.push(next(m for m in r.legal_moves() if m.draw is None))
    assert not r.is_over()
    mover = r.to_move
    r.push(next(m for m in r.legal_moves() if m.draw is None))
    assert r.is_over() and r.termination is Termination.DRAW_PILE_EMPTY
    assert r.to_move == mover and len(r.legal_moves()) == 0
    with pytest.raises(IllegalMoveError, match="the round is over"):
        r.push(r.view(0).hand[0].__str__().join(["+", "."]))
    # cards left in hand do not count: scores are the expeditions only
    assert r.scores() == (
        sum(e.score for e in r.score_breakdown(0).values()),
        sum(e.score for e in r.score_breakdown(1).values()),
    )


def test_turn_cap_truncates() -> None:
    r = Round.deal(seed=3, max_turns=10)
    while not r.is_over():
        r.push(r.legal_moves()[-1])
    assert r.ply == 10 and r.truncated and r.termination is Termination.TURN_LIMIT
    outcome = r.outcome()
    assert outcome is not None and outcome.truncated and outcome.scores == r.scores()
    r.pop()
    assert not r.is_over()


def test_no_cap_by_default() -> None:
    assert Round.deal(seed=1).max_turns is None
    with pytest.raises(ValueError, match="max_turns"):
        Round.deal(seed=1, max_turns=0)


def test_purple_only_in_the_long_game() -> None:
    r = Round.deal(seed=1)
    with pytest.raises(IllegalMoveError, match="purple is not in the classic variant"):
        r.push("+p5.")
    long = Round.deal(seed=1, variant="long")
    assert len(long.discard_piles) == 6 and Color.PURPLE in long.expeditions[0]


def test_push_rejects_garbage_and_changes_nothing() -> None:
    r = position(H0, H1)
    before = (r.hands, r.history, r.deck_size)
    for bad in ["", "+y7", "y2.", "+y2x", "+q2.", 17]:
        with pytest.raises((InvalidMoveError, IllegalMoveError)):
            r.push(bad)  # type: ignore[arg-type]
        assert not r.is_legal(bad) if isinstance(bad, str) else True
    assert (r.hands, r.history, r.deck_size) == before


def test_pop_restores_exactly() -> None:
    r = position(H0, H1, moves="-b4. -b10.")
    snapshot = (r.hands, r.expeditions, r.discard_piles, r.draw_pile, r.known_cards(0), r.to_move)
    r.push("+y2b")
    r.push("+r3.")
    assert r.pop() == Move.parse("+r3.")
    assert r.pop() == Move.parse("+y2b")
    assert (
        r.hands,
        r.expeditions,
        r.discard_piles,
        r.draw_pile,
        r.known_cards(0),
        r.to_move,
    ) == snapshot
    r.pop()
    r.pop()
    with pytest.raises(IndexError):
        r.pop()


def test_known_cards_follow_the_card() -> None:
    r = position(H0, H1, moves="-b4. -b10. +y2b")
    assert r.view(1).opponent_known == (Card.parse("b10"),)
    r.push("+r3.")
    r.push("-b10.")  # played away again: no longer known
    assert r.view(1).opponent_known == ()


def test_view_holds_only_what_the_player_may_know() -> None:
    r = position(H0, H1, moves="-b4. -b10. +y2b")
    v = r.view(1)
    assert v.player == 1 and v.hand == r.hands[1]
    assert v.deck_size == r.deck_size and v.history == r.history
    fields = {f for f in type(v).__dataclass_fields__}
    assert not {"deck", "draw_pile", "hands", "opponent_hand"} & fields
    assert v.legal_moves() and not r.view(0).legal_moves()  # only the player to move has moves
    assert set(v.legal_moves()) == set(r.legal_moves())


def test_legal_moves_sequence_protocol() -> None:
    r = Round.deal(seed=11)
    for _ in range(30):
        lm = r.legal_moves()
        listed = list(lm)
        assert [lm[i] for i in range(len(lm))] == listed == lm[:]
        assert lm[-1] == listed[-1]
        with pytest.raises(IndexError):
            lm[len(lm)]
        assert all(m in lm for m in listed) and all(r.is_legal(m) for m in listed)
        for card in lm.cards(Action.DISCARD):
            for d in lm.draws(Action.DISCARD, card):
                assert Move(Action.DISCARD, card, d) in lm
        r.push(listed[len(listed) // 2])


def test_move_notation() -> None:
    m = Move.parse(" -R10B ")
    assert (m.action, str(m.card), m.draw, str(m)) == (Action.DISCARD, "r10", Color.BLUE, "-r10b")
    assert Move.play("y7") == Move.parse("+y7.") and Move.discard("gx", "r") == Move.parse("-gxr")
    assert eval(repr(m)) == m
    for bad, why in [
        ("", "empty"),
        ("y7.", "must start with"),
        ("+y7", "draw source"),
        ("+y1.", "rank 1"),
        ("+y7q", "draw source 'q'"),
    ]:
        with pytest.raises(InvalidMoveError, match=why):
            Move.parse(bad)


def test_forfeit() -> None:
    r = Round.deal(seed=2)
    r.push(r.legal_moves()[0])
    r.forfeit(1, "timed out")
    o = r.outcome()
    assert o is not None and o.winner == 0 and o.termination is Termination.FORFEIT
    assert o.reason == "timed out" and o.result() == "1-0"
    with pytest.raises(IllegalMoveError):
        r.forfeit(0)


def test_copy_is_independent() -> None:
    r = Round.deal(seed=4)
    r.push(r.legal_moves()[0])
    c = r.copy()
    c.push(c.legal_moves()[0])
    assert len(r.history) == 1 and len(c.history) == 2
    s = r.copy(stack=False)
    assert s.ply == 1 and s.history == r.history  # history is kept, the undo stack is not
    with pytest.raises(IndexError):
        s.pop()


def test_sampled_round_is_consistent_with_the_view() -> None:
    import random

    r = position(H0, H1, moves="-b4. -b10. +y2b +r3.")
    v = r.view(1)
    for seed in range(20):
        s = v.sample_round(random.Random(seed))
        sv = s.view(1)
        assert sv.hand == v.hand and sv.expeditions == v.expeditions
        assert sv.discard_piles == v.discard_piles and sv.deck_size == v.deck_size
        assert Card.parse("b10") in s.hands[0]  # the opponent's known card
        assert sorted(s.hands[0] + s.draw_pile + v.hand) == sorted(
            r.hands[0] + r.draw_pile + r.hands[1]
        )
        assert set(sv.legal_moves()) == set(v.legal_moves()) == set()
        mover = r.view(0).sample_round(random.Random(seed))  # the player to move
        assert set(mover.legal_moves()) == set(r.legal_moves())


@pytest.mark.parametrize("max_turns", [None, 17])
def test_ends_round_says_what_making_the_move_would(max_turns: int | None) -> None:
    """``ends_round`` says, without making it, whether each legal move ends the round: the
    draw pile's last card drawn, or the last turn under ``max_turns``."""
    rng = random.Random(4)
    for seed in range(6):
        r = Round.deal(seed=seed, max_turns=max_turns)
        while not r.is_over():
            for m in r.legal_moves():
                r.push(m)
                ends = r.is_over()
                r.pop()
                assert r.ends_round(m) == ends, (seed, r.ply, str(m))
            legal = r.legal_moves()
            r.push(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("variant", [CLASSIC, LONG])
def test_parse_move_accepts_exactly_the_legal_moves(variant: object) -> None:
    """``parse_move`` (the bitmasks' quick yes, else the reason) gives back every legal move
    and refuses every other move, with its reason, through a few rounds."""
    from lostcities.rules import NUM_MOVES

    rng = random.Random(9)
    for seed in range(2):
        r = Round.deal(seed=seed, variant=variant)  # type: ignore[arg-type]
        while not r.is_over():
            legal = set(r.legal_moves())
            for i in range(NUM_MOVES):
                m = Move.from_index(i)
                if m in legal:
                    assert r.parse_move(str(m)) == m
                else:
                    with pytest.raises(IllegalMoveError, match="illegal move"):
                        r.parse_move(str(m))
            moves = sorted(legal, key=str)
            r.push(moves[rng.randrange(len(moves))])
