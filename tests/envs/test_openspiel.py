"""The OpenSpiel game: OpenSpiel's random-simulation test, its ISMCTS bot, chance nodes,
resampling and hidden information."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import lostcities as lc
from lostcities.envs.encoding import get_encoding
from lostcities.envs.openspiel import GAME_NAME, LostCitiesState, load


def _random_state(game: pyspiel.Game, seed: int, plies: int) -> LostCitiesState:
    rng = random.Random(seed)
    s = game.new_initial_state()
    moves = 0
    while not s.is_terminal() and moves < plies:
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes(), strict=False)
            s.apply_action(rng.choices(acts, probs)[0])
        else:
            s.apply_action(rng.choice(s.legal_actions()))
            moves += 1
    return s


def test_game_type_and_info() -> None:
    game = pyspiel.load_game(GAME_NAME)
    t = game.get_type()
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_distinct_actions() == 600 and game.max_chance_outcomes() == 50
    assert game.max_game_length() == 400
    long = pyspiel.load_game("lost_cities(variant=long,max_turns=90)")
    assert long.num_distinct_actions() == 840 and long.max_game_length() == 90
    with pytest.raises(lc.UnknownVariantError):
        load(variant="short")
    with pytest.raises(ValueError):
        load(max_turns=0)


@pytest.mark.parametrize(
    "params", [{"max_turns": 200}, {"variant": "long", "max_turns": 120, "starter": 1}]
)
def test_openspiel_random_sim_test(params: dict[str, object]) -> None:
    game = pyspiel.load_game(GAME_NAME, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_chance_nodes_deal_then_draws() -> None:
    game = load()
    s = game.new_initial_state()
    left = Counter(lc.CLASSIC.deck())
    for i in range(16):
        assert s.is_chance_node()
        outcomes = s.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        # each card kind with its share of the undealt cards (a wager kind has 3 copies)
        want = {c.index: n / (60 - i) for c, n in left.items() if n}
        assert dict(outcomes) == pytest.approx(want)
        a = outcomes[-1][0] if i % 2 else outcomes[0][0]
        left[lc.ALL_CARDS[a]] -= 1
        s.apply_action(a)
    assert s.current_player() == 0
    r = s.round
    assert r is not None and r.deck_size == 44
    # a draw-pile move is followed by a chance node over the 44 unseen cards
    move = next(m for m in r.legal_moves() if m.draw is None)
    s.apply_action(get_encoding("classic").move_to_action(move))
    assert s.is_chance_node() and s.pending == move
    outcomes = s.chance_outcomes()
    assert sum(n for _, n in outcomes) == pytest.approx(1.0)
    assert len(outcomes) == len(set(r.draw_pile))
    card = r.draw_pile[-1]  # the bottom card: the chance node decides, not the pile order
    assert card is not r.draw_pile[0]
    assert card.index in dict(outcomes)
    s.apply_action(card.index)
    assert card in s.round.hands[0] and s.current_player() == 1  # type: ignore[union-attr]
    assert s.round.history == (move,)  # type: ignore[union-attr]


def test_legal_actions_and_returns_follow_the_round() -> None:
    game = load(max_turns=400)
    enc = get_encoding("classic")
    for seed in range(3):
        s = _random_state(game, seed, plies=10_000)
        assert s.is_terminal()
        r = s.round
        assert r is not None and r.is_over()
        s0, s1 = r.scores()
        assert s.returns() == [s0 - s1, s1 - s0]
    s = _random_state(game, 9, plies=25)
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.legal_actions() == enc.legal_actions(s.round.legal_moves())  # type: ignore[union-attr]
    with pytest.raises(lc.IllegalMoveError):
        illegal = next(a for a in range(600) if a not in s.legal_actions())
        s.apply_action(illegal)


def test_max_turns_caps_the_game() -> None:
    game = load(max_turns=15)
    s = _random_state(game, 1, plies=10_000)
    assert s.is_terminal() and s.round is not None and s.round.ply == 15 and s.round.truncated
    assert sum(s.returns()) == 0


def test_clone_is_independent() -> None:
    game = load()
    s = _random_state(game, 4, plies=12)
    c = s.clone()
    assert str(c) == str(s) and c.history() == s.history()
    while not c.is_terminal():
        c.apply_action(c.chance_outcomes()[0][0] if c.is_chance_node() else c.legal_actions()[0])
    assert not s.is_terminal() and s.round.ply == 12  # type: ignore[union-attr]


def test_resample_from_infostate_keeps_the_information_state() -> None:
    game = load(max_turns=200)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seed in range(6):
        s = _random_state(game, seed, plies=5 + 9 * seed)
        while s.is_chance_node():
            s.apply_action(s.chance_outcomes()[0][0])
        if s.is_terminal():
            continue
        p = s.current_player()
        opp_hands = set()
        for _ in range(8):
            t = s.resample_from_infostate(p, sampler)
            assert t.information_state_string(p) == s.information_state_string(p)
            assert t.information_state_tensor(p) == s.information_state_tensor(p)
            assert t.observation_tensor(p) == s.observation_tensor(p)
            assert t.legal_actions() == s.legal_actions()
            opp_hands.add(t.round.hands[p ^ 1])  # type: ignore[union-attr]
            # the resampled world is a real state: it plays on to the end
            u = t.clone()
            while not u.is_terminal():
                u.apply_action(
                    u.chance_outcomes()[-1][0] if u.is_chance_node() else u.legal_actions()[-1]
                )
        assert len(opp_hands) > 1
        # for the player not on move too, and at a chance node (a draw-pile move pending)
        t = s.resample_from_infostate(p ^ 1, sampler)
        assert t.information_state_string(p ^ 1) == s.information_state_string(p ^ 1)
        c = s.clone()
        draw = next(
            (
                a
                for a in c.legal_actions()
                if get_encoding("classic").action_to_move(a).draw is None
            ),
            None,
        )
        if draw is not None and c.round is not None and c.round.deck_size > 1:
            c.apply_action(draw)
            assert c.is_chance_node()
            for q in (0, 1):
                t = c.resample_from_infostate(q, sampler)
                assert t.is_chance_node()
                assert t.information_state_string(q) == c.information_state_string(q)


def test_ismcts_bot_plays_rounds() -> None:
    game = load(max_turns=24)
    for seed in range(2):
        rs = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        bots = [
            ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rs),
            ismcts.ISMCTSBot(
                game,
                evaluator,
                uct_c=2.0,
                max_simulations=8,
                random_state=rs,
                max_world_samples=4,
            ),
        ]
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                acts, probs = zip(*s.chance_outcomes(), strict=False)
                s.apply_action(int(rs.choice(acts, p=probs)))
            else:
                a = bots[s.current_player()].step(s)
                assert a in s.legal_actions()
                s.apply_action(a)
        assert s.round is not None and s.round.ply == 24
        assert sum(s.returns()) == 0


def _states_for(
    game: pyspiel.Game, deck: list[lc.Card], moves: list[lc.Move]
) -> list[LostCitiesState]:
    """Play ``moves`` from the deal ``deck``, chance outcomes in dealing order; every state."""
    enc = get_encoding("classic")
    s = game.new_initial_state()
    out = []
    pos = 0
    for card in deck[:16]:
        out.append(s.clone())
        s.apply_action(card.index)
        pos += 1
    for m in moves:
        out.append(s.clone())
        s.apply_action(enc.move_to_action(m))
        if s.is_chance_node():
            out.append(s.clone())
            s.apply_action(deck[pos].index)
            pos += 1
    out.append(s)
    return out


def test_hidden_cards_never_change_observations(worlds) -> None:  # type: ignore[no-untyped-def]
    for seed in range(4):
        w = worlds(seed, plies=30, observer=seed % 2)
        game = load(starter=w.starter)
        sa = _states_for(game, w.deck_a, w.moves)
        sb = _states_for(game, w.deck_b, w.moves)
        assert len(sa) == len(sb)
        p = w.observer
        differs = False
        for a, b in zip(sa, sb, strict=True):
            assert a.observation_string(p) == b.observation_string(p)
            assert a.observation_tensor(p) == b.observation_tensor(p)
            assert a.information_state_string(p) == b.information_state_string(p)
            assert a.information_state_tensor(p) == b.information_state_tensor(p)
            differs |= a.information_state_string(p ^ 1) != b.information_state_string(p ^ 1)
        assert differs


def test_draw_pile_shortcut_equals_the_public_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chance card is put on top of the round's draw pile by a swap
    (``Round.set_next_draw``); the fallback rebuilds the round. Both must give the same game."""
    import lostcities.envs.openspiel as los

    game = load()
    for seed in range(4):
        s = _random_state(game, seed, plies=6 + 5 * seed)
        while not s.is_chance_node() or s.round is None:
            s.apply_action(
                s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[0]
            )
        fast, slow = s.clone(), s.clone()
        card = fast.chance_outcomes()[-1][0]
        fast.apply_action(card)
        with monkeypatch.context() as m:
            m.setattr(los, "_put_on_top", lambda r, c: False)
            slow.apply_action(card)
        a, b = fast.round, slow.round
        assert a is not None and b is not None
        assert a.hands == b.hands and a.history == b.history and a.deck_size == b.deck_size
        assert str(a) == str(b) and a.discard_piles == b.discard_piles
        assert sorted(a.draw_pile) == sorted(b.draw_pile)
        for p in (0, 1):
            assert fast.information_state_string(p) == slow.information_state_string(p)
        assert fast.legal_actions() == slow.legal_actions()


def test_openspiel_rl_environment_runs_it() -> None:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(GAME_NAME, max_turns=30)
    ts = env.reset()
    moves = 0
    while not ts.last():
        p = ts.observations["current_player"]
        legal = ts.observations["legal_actions"][p]
        assert legal
        ts = env.step([legal[-1]])
        moves += 1
    assert 0 < moves <= 30
    assert sum(ts.rewards) == 0
    assert len(ts.observations["info_state"][0]) == 466 + 50 + 30 * 109


def test_resample_during_the_deal() -> None:
    game = load()
    s = game.new_initial_state()
    for i in range(11):
        s.apply_action(s.chance_outcomes()[i % 3][0])
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for q in (0, 1):
        t = s.resample_from_infostate(q, sampler)
        assert t.information_state_string(q) == s.information_state_string(q)
        assert t.own_dealt(q) == s.own_dealt(q)
        assert len(t.dealt) == 11 and t.is_chance_node()


def test_resample_at_the_end_of_the_round() -> None:
    """The move that takes the last card has no chance node: the core's sampler deals that
    card from the mover's hand, and both information states survive a terminal resample."""
    game = load()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seed in range(3):
        s = _random_state(game, seed, plies=10_000)
        assert s.is_terminal() and s.round is not None and s.round.deck_size == 0
        for q in (0, 1):
            t = s.resample_from_infostate(q, sampler)
            assert t.is_terminal()
            assert t.information_state_string(q) == s.information_state_string(q)
            assert t.information_state_tensor(q) == s.information_state_tensor(q)
            assert t.returns() == s.returns()
