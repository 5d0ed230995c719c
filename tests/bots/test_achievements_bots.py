"""The heuristic and search bots in the achievements variant: they value goals; goals=off
and the classic game play as before."""

from __future__ import annotations

import dataclasses
import random

import pytest

from lostcities import Round
from lostcities.achievements import Goal
from lostcities.bots import BotSpecError, make
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import IsmctsBot
from tests.core_helpers import deck_with

GRAB = Goal.parse("grab | race | Grab | pile_draws >= 1 | Draw one card from a discard pile.")
DECK = deck_with("y2 y3 y5 b7 w4 g6 r2 r3", "y4 b4 w5 g4 r4 y6 b5 w2")


def _view(goals: list[Goal] | None) -> object:
    r = Round.from_deck(DECK, starter=1, achievements=goals)
    r.push("-w2.")  # the opponent's junk on the white pile
    return r.view(0)


def test_the_heuristic_takes_a_race_goal_the_blind_one_ignores() -> None:
    view = _view([GRAB])
    aware = make("heuristic", seed=1).choose(view)  # type: ignore[arg-type]
    blind = make("heuristic:goals=off", seed=1).choose(view)  # type: ignore[arg-type]
    assert str(aware) == "+y2w" and str(blind) == "+y2."
    # without goals both play the classic move
    classic = _view(None)
    assert str(make("heuristic", seed=1).choose(classic)) == "+y2."  # type: ignore[arg-type]


def test_goals_off_plays_as_if_there_were_no_goals() -> None:
    rng = random.Random(5)
    r = Round.deal(seed=5, achievements=True)
    blind = HeuristicBot(seed=2)
    blind.goals = False
    plain = HeuristicBot(seed=2)
    aware = HeuristicBot(seed=2)
    differ = 0
    while not r.is_over():
        v = r.view(r.to_move)
        stripped = dataclasses.replace(v, achievements=None)
        pm = plain.choose(stripped)
        assert blind.choose(v) == pm
        differ += aware.choose(v) != pm
        r.push(rng.choice(list(r.legal_moves())))
    assert differ > 0  # the goals change some decisions


def test_the_search_bot_searches_goal_games_in_python() -> None:
    r = Round.deal(seed=8, achievements=True)
    for m in ["+" + str(r.hands[0][0]) + "."]:
        if r.is_legal(m):
            r.push(m)
    view = r.view(r.to_move)
    a = IsmctsBot(iters=60, seed=3)
    b = IsmctsBot(iters=60, seed=3, engine="python")
    assert a.choose(view) == b.choose(view)
    assert a.last_iterations == b.last_iterations
    # goals=off searches the classic round (the compiled engine when it is there)
    c = make("ismcts:iters=60,goals=off", seed=3)
    d = IsmctsBot(iters=60, seed=3)
    assert c.choose(view) == d.choose(dataclasses.replace(view, achievements=None))


def test_the_search_values_a_free_goal() -> None:
    """The one discard pile (the opponent's w2) is a free goal: the search plays the card it
    plays without goals and draws from that pile, which wins the goal."""
    view = _view([GRAB])
    move = IsmctsBot(iters=120, seed=1, engine="python").choose(view)  # type: ignore[arg-type]
    classic = IsmctsBot(iters=120, seed=1, engine="python").choose(_view(None))  # type: ignore[arg-type]
    assert str(classic) == "+y2." and str(move) == "+y2w"
    r = Round.from_deck(DECK, starter=1, achievements=[GRAB])
    r.push("-w2.")
    r.push(move)
    assert r.claims == (0,) and r.goal_points(0) == 10


@pytest.mark.parametrize("spec", ["heuristic:goals=maybe", "ismcts:goals=1", "heuristic:depth=2"])
def test_bad_goal_options_are_spec_errors(spec: str) -> None:
    with pytest.raises(BotSpecError):
        make(spec)


def test_the_expert_plays_goal_games_out_in_python() -> None:
    from lostcities.bots.expert import ExpertBot

    view = _view([GRAB])
    a = ExpertBot(iters=60, seed=1).choose(view)  # type: ignore[arg-type]
    assert a == ExpertBot(iters=60, seed=1).choose(view)  # type: ignore[arg-type]
    assert a in view.legal_moves()  # type: ignore[attr-defined]


def test_the_expert_searches_the_goal_aware_candidates_too() -> None:
    """The network knows no goals (here it does not propose the free goal's pile draw):
    in goal games the heuristic's goal-aware candidates are searched beside its own."""
    from lostcities.bots.expert import ExpertBot

    view = _view([GRAB])
    classic = dataclasses.replace(view, achievements=None)
    bot = ExpertBot(iters=120, seed=1)
    net_only, _ = bot.candidates(classic)  # type: ignore[arg-type]
    with_goals, _ = bot.candidates(view)  # type: ignore[arg-type]
    assert with_goals[: len(net_only)] == net_only
    assert any(m.draw is not None and m not in net_only for m in with_goals)
    assert bot.choose(view).draw is not None  # type: ignore[arg-type]  # it takes the goal
