"""The achievements variant: goals as data, race and end goals, claims, undo, views."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lostcities import CLASSIC, Card, Match, Move, PlayerView, Round, parse_cards
from lostcities.achievements import (
    DEFAULT_GOALS,
    GOAL_POINTS,
    MEASURES,
    Goal,
    GoalBoard,
    GoalSet,
    decide_end,
    load_goals,
)
from lostcities.errors import InvalidGoalError
from tests.core_helpers import deck_with


def exps(*colours: str) -> list[list[object]]:
    """A player's expeditions, one string of cards per started expedition."""
    return [parse_cards(c) for c in colours]  # type: ignore[misc]


# For every race goal of the default pool: (expeditions, discards, pile draws) that meet it,
# and a near miss that does not.
RACE_CASES: dict[str, tuple[tuple[list[str], int, int], tuple[list[str], int, int]]] = {
    "trailblazer": ((["y2", "b3", "w4"], 0, 0), (["y2", "b3"], 5, 5)),
    "grand-tour": ((["y2", "b3", "w4", "g5", "r6"], 0, 0), (["y2", "b3", "w4", "g5"], 0, 0)),
    "long-march": ((["rx r2 r3 r4 r5 r6 r7 r8"], 0, 0), (["r2 r3 r4 r5 r6 r7 r8"], 0, 0)),
    "double-stake": ((["gx gx g5"], 0, 0), (["gx g5", "bx"], 0, 0)),
    "all-in": ((["bx bx bx"], 0, 0), (["bx bx", "rx rx"], 0, 0)),
    "treasure": ((["bx b6 b7 b8 b9 b10"], 0, 0), (["y4 y5 y6 y7 y8 y9 y10"], 0, 0)),  # 40, 29
    "three-summits": ((["y10", "b10", "r9 r10"], 0, 0), (["y10", "b10", "r9"], 0, 0)),
    "stepping-stones": ((["w2 w4 w5 w6 w7 w8"], 0, 0), (["w4 w5 w6 w7 w9 w10"], 0, 0)),
    "heavy-packs": (
        (["yx y2 y3 y4 y5 y6 y7 y8", "b2 b3 b4 b5 b6 b7 b8 b9"], 0, 0),
        (["yx y2 y3 y4 y5 y6 y7 y8", "b2 b3 b4 b5 b6 b7 b8"], 0, 0),
    ),
    "in-the-black": (
        (["y5 y8 y9", "b3 b9 b10", "r4 r7 r10"], 0, 0),  # 2, 2, 1
        (["y5 y8 y9", "b3 b9 b10", "r4 r6 r10"], 0, 0),  # 2, 2, 0
    ),
    "scavenger": (([], 0, 4), ([], 4, 3)),
}

# For every end goal: two players' (expeditions, discards, pile draws) where player 0 wins
# it, and a tie.
END_CASES: dict[str, tuple[tuple[tuple[list[str], int, int], tuple[list[str], int, int]], ...]] = {
    "cartographer": (
        ((["y2", "b2"], 0, 0), (["r2"], 0, 0)),
        ((["y2", "b2"], 0, 0), (["r2", "g2"], 0, 0)),
    ),
    "high-ground": (
        ((["y8 y9 y10", "b2"], 0, 0), (["r8 r9"], 0, 0)),
        ((["y8 y9 y10"], 0, 0), (["r8 r9 r10", "bx"], 0, 0)),
    ),
    "tidy-camp": (
        (([], 3, 0), ([], 4, 0)),
        (([], 2, 0), ([], 2, 9)),
    ),
    "high-roller": (
        ((["yx yx", "bx"], 0, 0), (["rx rx"], 0, 0)),
        ((["yx yx"], 0, 0), (["rx", "gx"], 0, 0)),
    ),
    "deep-pockets": (
        ((["y9 y10"], 0, 0), (["r8 r10", "b9"], 0, 0)),
        ((["y8 y10"], 0, 0), (["rx r8 r10"], 0, 0)),
    ),
}


def _ex(spec: list[str]) -> list[list[object]]:
    return exps(*spec)


def test_the_default_pool_has_at_least_12_goals_of_both_kinds() -> None:
    assert len(DEFAULT_GOALS) >= 12
    kinds = {g.kind for g in DEFAULT_GOALS}
    assert kinds == {"race", "end"}
    assert {g.id for g in DEFAULT_GOALS if g.kind == "race"} == set(RACE_CASES)
    assert {g.id for g in DEFAULT_GOALS if g.kind == "end"} == set(END_CASES)


@pytest.mark.parametrize("goal_id", sorted(RACE_CASES))
def test_every_race_goal_is_met_and_missed(goal_id: str) -> None:
    g = DEFAULT_GOALS.get(goal_id)
    assert g is not None and g.kind == "race"
    (yes, d1, p1), (no, d2, p2) = RACE_CASES[goal_id]
    assert g.met(_ex(yes), d1, p1)  # type: ignore[arg-type]
    assert not g.met(_ex(no), d2, p2)  # type: ignore[arg-type]


@pytest.mark.parametrize("goal_id", sorted(END_CASES))
def test_every_end_goal_is_won_and_tied(goal_id: str) -> None:
    g = DEFAULT_GOALS.get(goal_id)
    assert g is not None and g.kind == "end"
    won, tied = END_CASES[goal_id]
    (a, da, pa), (b, db, pb) = won
    assert decide_end(g, [_ex(a), _ex(b)], (da, db), (pa, pb)) == 0  # type: ignore[list-item]
    assert decide_end(g, [_ex(b), _ex(a)], (db, da), (pb, pa)) == 1  # type: ignore[list-item]
    (a, da, pa), (b, db, pb) = tied
    assert decide_end(g, [_ex(a), _ex(b)], (da, db), (pa, pb)) is None  # type: ignore[list-item]


def test_every_measure_is_documented() -> None:
    for name, (doc, fn) in MEASURES.items():
        assert doc and callable(fn), name
        assert fn([], 0, 0) == 0, name


# -- claims in a real round ---------------------------------------------------------------

TRAIL = DEFAULT_GOALS.get("trailblazer")
assert TRAIL is not None


def _race_round() -> Round:
    deck = deck_with("y2 b2 w2 g2 r2 y3 b3 w3", "y4 b4 w4 g4 r4 y5 b5 w5")
    return Round.from_deck(deck, achievements=[TRAIL])


def test_a_race_goal_is_claimed_by_the_first_player_only() -> None:
    r = _race_round()
    for m in ["+y2.", "+y4.", "+b2.", "+b4."]:
        r.push(m)
    assert r.claims == (None,)
    r.push("+w2.")  # player 0's third expedition: claimed at the end of this turn
    assert r.claims == (0,)
    r.push("+w4.")  # player 1 meets it too, too late
    assert r.claims == (0,)
    assert r.goal_points(0) == GOAL_POINTS and r.goal_points(1) == 0
    view = r.view(1)
    assert view.achievements is not None and view.achievements.claims == (0,)
    assert view.scores() == r.scores()
    base = Round.from_deck(deck_with("y2 b2 w2 g2 r2 y3 b3 w3", "y4 b4 w4 g4 r4 y5 b5 w5"))
    for m in r.history:
        base.push(m)
    assert r.scores() == (base.scores()[0] + 10, base.scores()[1])
    r.pop()
    r.pop()
    assert r.claims == (None,)  # pop un-claims


def test_a_race_goal_stays_claimed_when_its_condition_no_longer_holds() -> None:
    lone = Goal.parse("lone | race | Lone Scout | cards <= 1 and expeditions >= 1 | One card only.")
    r = Round.from_deck(
        deck_with("y2 y3 y4 w2 g2 r2 b3 w3", "b4 w4 g4 r4 y5 b5 w5 y6"), achievements=[lone]
    )
    r.push("+y2.")
    assert r.claims == (0,)
    r.push("-b4.")
    r.push("+y3.")  # two cards now: the claim stands
    assert r.claims == (0,)


def test_end_goals_are_decided_when_the_round_ends_and_a_tie_gives_nobody() -> None:
    carto = DEFAULT_GOALS.get("cartographer")
    tidy = DEFAULT_GOALS.get("tidy-camp")
    assert carto is not None and tidy is not None
    r = Round.from_deck(
        deck_with("y2 b2 w2 g2 r2 y3 b3 w3", "y4 b4 w4 g4 r4 y5 b5 w5"),
        achievements=[carto, tidy],
        max_turns=4,
    )
    for m in ["+y2.", "+y4.", "+b2.", "-g4."]:
        r.push(m)
    assert r.is_over()
    # expeditions 2 vs 1: player 0; discards 0 vs 1: player 0
    assert r.claims == (0, 0)
    r.pop()
    assert r.claims == (None, None)  # not decided while the round goes on
    r.push("+g4.")  # 2 expeditions each, no discards: both tied
    assert r.claims == (None, None)
    assert r.achievements is not None and r.achievements.decided
    assert r.goal_points(0) == r.goal_points(1) == 0


def test_the_classic_game_is_unchanged() -> None:
    r = Round.deal(seed=3)
    assert r.goals == () and r.claims == () and r.achievements is None
    assert r.view(0).achievements is None
    m = Match(rounds=1, seed=3)
    assert m.achievements is None and m.new_round().achievements is None


def test_five_goals_are_drawn_from_the_seed() -> None:
    a = Round.deal(seed=11, achievements=True)
    b = Round.deal(seed=11, achievements=True)
    c = Round.deal(seed=12, achievements=True)
    assert len(a.goals) == 5 and len({g.id for g in a.goals}) == 5
    assert a.goals == b.goals and a.goals != c.goals
    assert a.deal_order == Round.deal(seed=11).deal_order  # the deal itself is the classic one
    m = Match(rounds=2, seed=4, achievements=True)
    r1 = m.new_round()
    assert r1.goals == Round.deal(seed=r1.seed, achievements=True).goals


def test_a_world_from_a_view_keeps_the_goals_and_claims() -> None:
    r = _race_round()
    for m in ["+y2.", "+y4.", "+b2.", "+b4.", "+w2."]:
        r.push(m)
    view = r.view(1)
    w = view.sample_round(random.Random(1))
    assert w.goals == r.goals and w.claims == r.claims
    assert w.achievements == r.achievements
    assert w.scores() == r.scores()


def test_match_totals_include_goal_points() -> None:
    m = Match(rounds=1, seed=8, achievements=True, max_turns=60)
    r = m.new_round()
    rng = random.Random(2)
    while not r.is_over():
        r.push(rng.choice(list(r.legal_moves())))
    assert m.totals() == r.scores()
    expedition_only = tuple(sum(e.score for e in r.score_breakdown(p).values()) for p in (0, 1))
    assert r.scores() == (
        expedition_only[0] + r.goal_points(0),
        expedition_only[1] + r.goal_points(1),
    )


# -- push/pop keep the claims exact ------------------------------------------------------


def _goal_snapshot(r: Round) -> object:
    return (r.claims, r.achievements, r.scores(), r.history, r.hands, r.to_move)


@given(
    st.integers(min_value=0, max_value=2**32),
    st.sampled_from(["classic", "long"]),
    st.integers(min_value=1, max_value=150),
)
def test_pop_restores_goals_and_claims(seed: int, variant: str, plies: int) -> None:
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant, achievements=True)
    states = []
    while not r.is_over() and r.ply < plies:
        states.append(_goal_snapshot(r))
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
        c = r.copy()
        assert _goal_snapshot(c) == _goal_snapshot(r)
    while r.history:
        r.pop()
        assert _goal_snapshot(r) == states.pop()


# -- the file format -----------------------------------------------------------------------


def test_the_default_pool_prints_and_parses_back() -> None:
    again = GoalSet.parse(str(DEFAULT_GOALS))
    assert list(again) == list(DEFAULT_GOALS)
    for g in DEFAULT_GOALS:
        assert Goal.parse(str(g)) == g


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a | race | A | cards >= 3", "line 1: expected 5 fields"),
        ("\n# c\nA! | race | A | cards >= 3 | t", "line 3: bad id 'A!'"),
        ("a | sprint | A | cards >= 3 | t", "line 1: bad kind 'sprint'"),
        ("a | race | A | cards => 3 | t", "line 1: bad race condition 'cards => 3'"),
        ("a | race | A | gold >= 3 | t", "line 1: unknown measure 'gold'"),
        ("a | end | A | biggest cards | t", "line 1: bad end condition 'biggest cards'"),
        ("a | end | A | most gold | t", "line 1: unknown measure 'gold'"),
        ("a | race | | cards >= 3 | t", "line 1: empty name"),
        ("a | race | A | cards >= 3 | ", "line 1: empty text"),
        ("a | race | A | cards >= 3 | t; u", "line 1: ';' is not allowed"),
        (
            "a | race | A | cards >= 3 | t\na | race | B | cards >= 4 | u",
            "line 2: the id 'a' is already used on line 1",
        ),
        ("# nothing\n\n", "no goals"),
    ],
)
def test_a_bad_goal_file_gets_a_one_line_error_with_the_line(text: str, message: str) -> None:
    with pytest.raises(InvalidGoalError) as e:
        GoalSet.parse(text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_load_goals_names_the_file(tmp_path: Path) -> None:
    good = tmp_path / "mine.goals"
    good.write_text("# my goals\nsix | race | Six | cards >= 6 | Six cards.\n", encoding="utf-8")
    s = load_goals(good)
    assert s.name == "mine" and [g.id for g in s] == ["six"]
    bad = tmp_path / "bad.goals"
    bad.write_text("six | race | Six | cards >= 6 | Six cards.\nseven | race\n", encoding="utf-8")
    with pytest.raises(InvalidGoalError, match=r"bad.goals: invalid goal: line 2: "):
        load_goals(bad)
    with pytest.raises(InvalidGoalError, match="cannot read"):
        load_goals(tmp_path / "missing.goals")


def test_bad_achievements_arguments_are_rejected() -> None:
    with pytest.raises(InvalidGoalError):
        Round.deal(seed=1, achievements="yes")
    with pytest.raises(InvalidGoalError, match="used twice"):
        Round.deal(seed=1, achievements=[TRAIL, TRAIL])
    with pytest.raises(ValueError, match="not played with achievements"):
        Match(rounds=1, seed=1).new_round(goals=[TRAIL])


def test_the_docs_list_every_default_goal_and_measure() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "achievements.md").read_text(encoding="utf-8")
    for g in DEFAULT_GOALS:
        assert f"| `{g.id}` | {g.name} | {g.kind} | `{g.condition}` |" in doc, g.id
    for name in MEASURES:
        assert f"| `{name}` |" in doc, name
    # the example file in the docs parses
    example = doc.split("```\n# id | kind")[1].split("```")[0]
    assert len(GoalSet.parse("# id | kind" + example)) == 3


# -- the same cases as real positions: a Round built from a view (public API), one move -----


def _goal_round(
    goal: Goal,
    mine: list[list[Card]],
    theirs: list[list[Card]],
    discards: tuple[int, int],
    pile_draws: tuple[int, int],
    hand: list[Card],
    pile: list[Card],
    over: bool = False,
) -> Round:
    """A classic round at a constructed position: player 0 to move holding ``hand`` (the
    rest of it filled up), the expeditions and counters given, ``pile`` on its discard
    piles, the other cards in the opponent's hand and the draw pile."""
    var = CLASSIC
    table = [c for e in mine + theirs for c in e] + pile
    rest = var.deck()
    for c in table + hand:
        rest.remove(c)
    # fillers: cards of no expedition of player 0's, so a discard is always legal
    fill = [c for c in rest if not any(e and e[0].color == c.color for e in mine)]
    fill = [c for c in fill if not pile or c.color != pile[0].color][: 8 - len(hand)]
    for c in fill:
        rest.remove(c)
    my_hand = hand + fill
    opp_hand, draw = rest[:8], rest[8:]

    def by_colour(exps: list[list[Card]]) -> tuple[tuple[Card, ...], ...]:
        out: list[tuple[Card, ...]] = [() for _ in var.colors]
        for e in exps:
            if e:
                out[e[0].color] = tuple(e)
        return tuple(out)

    piles = [tuple(c for c in pile if c.color == col) for col in var.colors]
    board = GoalBoard((goal,), (None,), discards, pile_draws)
    view = PlayerView(
        variant=var,
        player=0,
        hand=tuple(sorted(my_hand)),
        expeditions=(by_colour(mine), by_colour(theirs)),
        discard_piles=tuple(piles),
        deck_size=len(draw),
        to_move=0,
        history=(),
        opponent_known=(),
        over=over,
        achievements=board,
    )
    return Round.from_view(view, opp_hand, draw)


def _cards(spec: list[str]) -> list[list[Card]]:
    return [parse_cards(e) for e in spec]


@pytest.mark.parametrize("case", ["met", "missed"])
@pytest.mark.parametrize("goal_id", sorted(RACE_CASES))
def test_every_race_goal_claimed_or_not_in_a_real_position(goal_id: str, case: str) -> None:
    g = DEFAULT_GOALS.get(goal_id)
    assert g is not None
    spec, d, pd = RACE_CASES[goal_id][0 if case == "met" else 1]
    exps = _cards(spec)
    if exps:  # the last card of the last expedition is played now
        last = exps[-1].pop()
        r = _goal_round(g, [e for e in exps if e], [], (d, 0), (pd, 0), [last], [])
        r.push(Move.play(last))
    else:  # nothing on the table: a discard, drawing from a discard pile
        pile = [Card.parse("r10")]
        r = _goal_round(g, [], [], (max(d - 1, 0), 0), (pd - 1, 0), [], pile)
        filler = next(c for c in r.hands[0] if c.color != pile[0].color)
        r.push(Move.discard(filler, pile[0].color))
    assert r.achievements is not None and r.achievements.pile_draws[0] == pd
    assert r.claims == ((0,) if case == "met" else (None,)), (goal_id, case)
    assert r.goal_points(0) == (10 if case == "met" else 0)
    r.pop()
    assert r.claims == (None,)


@pytest.mark.parametrize("goal_id", sorted(END_CASES))
def test_every_end_goal_won_or_tied_in_a_real_final_position(goal_id: str) -> None:
    g = DEFAULT_GOALS.get(goal_id)
    assert g is not None
    won, tied = END_CASES[goal_id]
    for (a, da, pa), (b, db, pb), want in ((*won, 0), (*tied, None)):
        r = _goal_round(g, _cards(a), _cards(b), (da, db), (pa, pb), [], [], over=True)
        assert r.is_over() and r.claims == (want,), (goal_id, want)
        assert r.goal_points(0) == (10 if want == 0 else 0)
