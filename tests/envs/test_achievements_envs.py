"""The RL environments in the achievements variant: goal slots in the observation."""

from __future__ import annotations

import random

import numpy as np
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from lostcities import Round
from lostcities.achievements import DEFAULT_GOALS, GOALS_PER_ROUND
from lostcities.envs import lostcities_v0
from lostcities.envs.encoding import GOAL_FEATURES, get_encoding
from lostcities.envs.gymnasium import LostCitiesEnv


def test_the_classic_layout_is_unchanged_and_the_goal_layout_extends_it() -> None:
    for variant, size in (("classic", 466), ("long", 557)):
        classic = get_encoding(variant)
        goals = get_encoding(variant, achievements=True)
        assert classic.observation_size == size and not classic.achievements
        assert goals.observation_size == size + GOALS_PER_ROUND * len(GOAL_FEATURES)
        assert goals.sections[: len(classic.sections)] == classic.sections
        assert goals.section("goal_0").start == size


def test_goal_slots_show_the_goals_claims_and_leads() -> None:
    trail = DEFAULT_GOALS.get("trailblazer")
    carto = DEFAULT_GOALS.get("cartographer")
    assert trail is not None and carto is not None
    from tests.core_helpers import deck_with

    r = Round.from_deck(
        deck_with("y2 b2 w2 g2 r2 y3 b3 w3", "y4 b4 w4 g4 r4 y5 b5 w5"), achievements=[trail, carto]
    )
    enc = get_encoding("classic", achievements=True)
    n = len(GOAL_FEATURES)
    start = enc.section("goal_0").start
    for m in ["+y2.", "+y4.", "+b2."]:
        r.push(m)
    o1 = enc.observation(r.view(1))[start : start + 3 * n].reshape(3, n)
    # slot 0: race, nobody holds it, player 0 at 2/3, player 1 at 1/3 (seen by player 1)
    assert list(o1[0][:4]) == [1, 1, 0, 0]
    assert np.allclose(o1[0][4:6], [1 / 3, 2 / 3])
    # slot 1: an end goal that player 0 (the opponent of the observer) leads
    assert list(o1[1]) == [1, 0, 0, 0, 0, 0, 0, 1]
    assert not o1[2].any()  # no third goal
    r.push("+b4.")
    r.push("+w2.")  # player 0 claims the race goal
    o0 = enc.observation(r.view(0))[start : start + n]
    assert list(o0[:4]) == [1, 1, 1, 0]
    # the classic encoding of the same view is the first part
    assert np.array_equal(
        get_encoding("classic").observation(r.view(0)), enc.observation(r.view(0))[:start]
    )


def test_goal_observations_hold_no_hidden_information() -> None:
    enc = get_encoding("classic", achievements=True)
    rng = random.Random(3)
    r = Round.deal(seed=3, achievements=True)
    while not r.is_over():
        v = r.view(r.to_move)
        w = v.sample_round(rng)  # another world with the same public information
        assert np.array_equal(enc.observation(v), enc.observation(w.view(v.player)))
        r.push(rng.choice(list(r.legal_moves())))


def test_pettingzoo_passes_its_tests_with_goals() -> None:
    api_test(lostcities_v0.env(achievements=True), num_cycles=200)
    seed_test(lambda: lostcities_v0.env(achievements=True), num_cycles=50)
    e = lostcities_v0.raw_env(achievements=True)
    e.reset(seed=1)
    assert len(e.round.goals) == 5
    assert e.observe("player_0")["observation"].shape == (506,)


def test_gymnasium_passes_check_env_with_goals() -> None:
    env = LostCitiesEnv(achievements=True, max_turns=60)
    check_env(env)
    obs, _ = env.reset(seed=2)
    assert obs["observation"].shape == (506,)
    assert env.round is not None and len(env.round.goals) == 5


def test_openspiel_plays_the_variant_with_the_goals_in_its_returns() -> None:
    import pyspiel

    import lostcities.envs.openspiel  # noqa: F401  (registers the game)

    classic = pyspiel.load_game("lost_cities")
    assert classic.observation_tensor_size() == 466 and classic.max_utility() == 1180
    game = pyspiel.load_game("lost_cities", {"achievements": True, "max_turns": 200})
    assert game.observation_tensor_size() == 506 and game.max_utility() == 1230
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    rng = random.Random(4)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    r = state.round
    assert r is not None and len(r.goals) == 5
    s0, s1 = r.scores()
    assert state.returns() == [s0 - s1, s1 - s0]
    assert r.goal_points(0) + r.goal_points(1) > 0  # goals were taken and count
