"""The PettingZoo AEC env: PettingZoo's own API and seed tests, and our contract."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import lostcities as lc
from lostcities.envs import lostcities_v0
from lostcities.envs.encoding import InvalidActionError
from lostcities.envs.pettingzoo import env, raw_env


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("kwargs", [{}, {"variant": "long"}, {"max_turns": 25, "starter": 1}])
def test_pettingzoo_api_test(kwargs: dict[str, object]) -> None:
    api_test(env(**kwargs), num_cycles=400)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_seed_test() -> None:
    seed_test(env, num_cycles=400)


def test_metadata_and_wrappers() -> None:
    e = lostcities_v0.env()
    assert e.metadata["name"] == "lostcities_v0"
    assert e.metadata["is_parallelizable"] is False
    assert e.metadata["render_modes"] == ["ansi", "human"]
    names = []
    w = e
    while hasattr(w, "env"):
        names.append(type(w).__name__)
        w = w.env
    assert names == ["OrderEnforcingWrapper", "AssertOutOfBoundsWrapper", "TerminateIllegalWrapper"]
    assert isinstance(w, raw_env)
    assert e.possible_agents == ["player_0", "player_1"]


def _play_out(e: raw_env, rng: np.random.Generator) -> None:
    for agent in e.agent_iter():
        obs, _reward, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        other = "player_1" if agent == "player_0" else "player_0"
        assert not e.observe(other)["action_mask"].any(), "agent not on move has a mask"
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_rewards_and_infos_at_the_end() -> None:
    rng = np.random.default_rng(0)
    for seed in range(5):
        e = raw_env()
        e.reset(seed=seed)
        rounds = e.round
        rewards = {a: 0.0 for a in e.possible_agents}
        infos = {}
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            rewards[agent] += reward
            if term or trunc:
                assert not obs["action_mask"].any()
                infos[agent] = info
                e.step(None)
                continue
            assert reward == 0
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        s = rounds.scores()
        assert rounds.termination is lc.Termination.DRAW_PILE_EMPTY
        want = np.sign(s[0] - s[1])
        assert rewards == {"player_0": want, "player_1": -want}
        assert infos["player_0"]["score_margin"] == s[0] - s[1]
        assert infos["player_1"]["score_margin"] == s[1] - s[0]
        assert infos["player_0"]["scores"] == s
        assert infos["player_1"]["scores"] == (s[1], s[0])
        assert infos["player_1"]["result"] == rounds.outcome().result()  # type: ignore[union-attr]


def test_max_turns_truncates() -> None:
    e = raw_env(max_turns=7)
    e.reset(seed=3)
    for _ in range(7):
        obs = e.observe(e.agent_selection)
        assert not any(e.truncations.values())
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.round.ply == 7 and e.round.truncated
    assert all(e.truncations.values()) and not any(e.terminations.values())
    _play_out(e, np.random.default_rng(1))
    assert e.agents == []


def test_same_seed_same_round_and_deck_option() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    assert a.round.deal_order == b.round.deal_order and a.round.starter == b.round.starter
    deck = lc.CLASSIC.deck()
    a.reset(options={"deck": deck, "starter": 1})
    assert a.round.deal_order == tuple(deck) and a.agent_selection == "player_1"
    with pytest.raises(lc.InvalidDeckError):
        a.reset(options={"deck": deck[:-1]})


def test_illegal_action_raw_raises_wrapped_loses(caplog: pytest.LogCaptureFixture) -> None:
    e = raw_env(starter=0)
    e.reset(seed=2)
    obs = e.observe("player_0")
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.round.ply
    with pytest.raises(lc.IllegalMoveError):
        e.step(illegal)
    assert e.round.ply == before
    with pytest.raises(InvalidActionError):
        e.step(10_000)
    w = env(starter=0)
    w.reset(seed=2)
    w.step(illegal)
    assert "Illegal move" in caplog.text
    assert w.rewards == {"player_0": -1, "player_1": 0}
    assert all(w.terminations.values())


def test_pettingzoo_render_test(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(env)
    assert "draw pile" in capsys.readouterr().out  # human mode printed the table


def test_render_ansi_and_pickle() -> None:
    e = raw_env(render_mode="ansi")
    e.reset(seed=4)
    text = e.render()
    assert isinstance(text, str) and "draw pile 44" in text
    e2 = pickle.loads(pickle.dumps(e))
    e2.reset(seed=4)
    assert e2.round.deal_order == e.round.deal_order
    with pytest.raises(ValueError, match=r"^invalid render_mode: 'rgb_array' \(expected 'ansi'"):
        raw_env(render_mode="rgb_array")
    for bad in (0, True):
        with pytest.raises(ValueError, match=f"^invalid max_turns: {bad} "):
            raw_env(max_turns=bad)


def test_hidden_cards_never_change_observations(worlds) -> None:  # type: ignore[no-untyped-def]
    for seed in range(4):
        w = worlds(seed, plies=30, observer=seed % 2)
        ea, eb = raw_env(), raw_env()
        ea.reset(options={"deck": w.deck_a, "starter": w.starter})
        eb.reset(options={"deck": w.deck_b, "starter": w.starter})
        me = f"player_{w.observer}"
        other = f"player_{w.observer ^ 1}"
        differs = False
        for m in w.moves:
            oa, ob = ea.observe(me), eb.observe(me)
            assert (oa["observation"] == ob["observation"]).all()
            assert (oa["action_mask"] == ob["action_mask"]).all()
            differs |= not (
                ea.observe(other)["observation"] == eb.observe(other)["observation"]
            ).all()
            action = ea.encoding.move_to_action(m)
            ea.step(action)
            eb.step(action)
        assert (ea.observe(me)["observation"] == eb.observe(me)["observation"]).all()
        assert differs
