"""The Gymnasium env: Gymnasium's env checker, determinism, the vector version, our contract."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import lostcities as lc
from lostcities.bots import Bot, register
from lostcities.bots.base import BotSpecError
from lostcities.envs.encoding import InvalidActionError
from lostcities.envs.gymnasium import ENV_ID, LostCitiesEnv, make_vec


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"opponent": "discard", "variant": "long", "seat": 1},
        {"max_turns": 12, "reward": "margin", "render_mode": "ansi"},
    ],
)
def test_gymnasium_check_env(kwargs: dict[str, Any]) -> None:
    check_env(LostCitiesEnv(**kwargs))
    check_env(gym.make(ENV_ID, **kwargs).unwrapped)


def test_registered_id_and_module_prefix() -> None:
    assert ENV_ID == "lostcities/LostCities-v0"
    env = gym.make("lostcities.envs.gymnasium:lostcities/LostCities-v0", opponent="discard")
    assert isinstance(env.unwrapped, LostCitiesEnv)
    assert env.unwrapped.opponent_spec == "discard"


def _masked_random(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


@pytest.mark.parametrize("opponent", ["random", "heuristic", "ismcts:iters=20"])
def test_determinism_two_envs_same_seed_every_step(opponent: str) -> None:
    for seed in (0, 1):
        a, b = LostCitiesEnv(opponent=opponent), LostCitiesEnv(opponent=opponent)
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        ra, rb = np.random.default_rng(seed), np.random.default_rng(seed)
        steps = 0
        while True:
            assert (oa["observation"] == ob["observation"]).all()
            assert (oa["action_mask"] == ob["action_mask"]).all()
            assert ia["score_margin"] == ib["score_margin"] and ia["seat"] == ib["seat"]
            act_a, act_b = _masked_random(oa, ra), _masked_random(ob, rb)
            assert act_a == act_b
            oa, rwa, ta, tra, ia = a.step(act_a)
            ob, rwb, tb, trb, ib = b.step(act_b)
            steps += 1
            assert (rwa, ta, tra) == (rwb, tb, trb)
            if ta or tra:
                break
        assert a.round is not None and b.round is not None
        assert a.round.history == b.round.history
        assert steps > 10


def test_a_full_round_rewards_and_mask_at_the_end() -> None:
    rng = np.random.default_rng(5)
    results = set()
    for seed in range(6):
        env = LostCitiesEnv(opponent="random")
        obs, info = env.reset(seed=seed)
        total = 0.0
        done = False
        while not done:
            assert obs["action_mask"].any()
            obs, reward, term, trunc, info = env.step(_masked_random(obs, rng))
            total += reward
            done = term or trunc
            if not done:
                assert reward == 0
        r = env.round
        assert r is not None and r.is_over()
        me = info["seat"]
        s = r.scores()
        assert info["score_margin"] == s[me] - s[me ^ 1]
        assert total == np.sign(s[me] - s[me ^ 1])
        assert not obs["action_mask"].any()
        results.add(total)
        with pytest.raises(lc.IllegalMoveError):
            env.step(0)
    assert len(results) > 1


def test_seat_options_and_bot_moves_first() -> None:
    env = LostCitiesEnv(seat=1)
    _, info = env.reset(seed=3, options={"starter": 0})
    assert info["seat"] == 1
    assert env.round is not None and env.round.ply == 1 and env.round.to_move == 1
    _obs, info = env.reset(seed=3, options={"starter": 1, "seat": 0})
    assert env.round.ply == 1 and info["seat"] == 0


def test_illegal_action_forfeits_or_raises() -> None:
    env = LostCitiesEnv(seat=0)
    obs, _ = env.reset(seed=1, options={"starter": 0})
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, term, trunc, info = env.step(illegal)
    assert (reward, term, trunc) == (-1.0, True, False) and info["illegal_action"]
    assert env.round is not None and env.round.termination is lc.Termination.FORFEIT
    env = LostCitiesEnv(seat=0, illegal="raise")
    env.reset(seed=1, options={"starter": 0})
    with pytest.raises(lc.IllegalMoveError):
        env.step(illegal)
    assert env.round is not None and env.round.ply == 0
    with pytest.raises(InvalidActionError):
        env.step(600)


def test_margin_reward_and_truncation() -> None:
    env = LostCitiesEnv(max_turns=10, reward="margin", seat=0)
    obs, _ = env.reset(seed=7, options={"starter": 0})
    rng = np.random.default_rng(0)
    while True:
        obs, reward, term, trunc, info = env.step(_masked_random(obs, rng))
        if term or trunc:
            break
    assert trunc and not term
    assert reward == info["score_margin"]


def test_bad_arguments() -> None:
    with pytest.raises(BotSpecError):
        LostCitiesEnv(opponent="nosuchbot")
    with pytest.raises(lc.UnknownVariantError):
        LostCitiesEnv(variant="short")
    for kwargs, words in (
        ({"seat": 2}, "invalid seat: 2 (expected 0, 1 or None)"),
        ({"max_turns": 0}, "invalid max_turns: 0 (expected a positive number)"),
        ({"max_turns": True}, "invalid max_turns: True (expected a positive number)"),
        ({"reward": "x"}, "invalid reward: 'x' (expected 'result' or 'margin')"),
        ({"illegal": "x"}, "invalid illegal: 'x' (expected 'forfeit' or 'raise')"),
        (
            {"render_mode": "rgb_array"},
            "invalid render_mode: 'rgb_array' (expected 'ansi', 'human' or None)",
        ),
    ):
        with pytest.raises(ValueError) as err:
            LostCitiesEnv(**kwargs)  # type: ignore[arg-type]
        assert str(err.value) == words


def test_render_hides_the_bot_hand() -> None:
    env = LostCitiesEnv(render_mode="ansi", seat=0)
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "(hidden)" in text


def test_vector_env() -> None:
    for envs in (
        make_vec(3, opponent="random"),
        gym.make_vec(ENV_ID, num_envs=3, vectorization_mode="sync"),
    ):
        obs, _ = envs.reset(seed=4)
        assert obs["observation"].shape == (3, 466)
        assert obs["action_mask"].shape == (3, 600)
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(200):
            acts = np.array(
                [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in obs["action_mask"]]
            )
            obs, _reward, term, trunc, _info = envs.step(acts)
            finished += int(term.sum() + trunc.sum())
        assert finished >= 3
        envs.close()


class _ScriptBot(Bot):
    """Plays the moves of a fixed list, by ply (for the hidden-information test)."""

    name = "script"
    moves: list[lc.Move] = []

    def choose(self, view: lc.PlayerView, time_limit: float | None = None) -> lc.Move:
        return self.moves[view.ply]


register("test-script", lambda options, seed: _ScriptBot(seed))


def test_hidden_cards_never_change_observations(worlds) -> None:  # type: ignore[no-untyped-def]
    from lostcities.envs.encoding import get_encoding

    enc = get_encoding("classic")
    for seed in range(4):
        w = worlds(seed, plies=30, observer=seed % 2)
        if len(w.moves) % 2 == (w.starter == w.observer):
            w.moves.pop()  # end the script on a bot move: the agent is then to move
        _ScriptBot.moves = w.moves
        a = LostCitiesEnv(opponent="test-script", seat=w.observer)
        b = LostCitiesEnv(opponent="test-script", seat=w.observer)
        oa, _ = a.reset(options={"deck": w.deck_a, "starter": w.starter})
        ob, _ = b.reset(options={"deck": w.deck_b, "starter": w.starter})
        assert a.round is not None and b.round is not None
        while a.round.ply < len(w.moves):
            assert (oa["observation"] == ob["observation"]).all()
            assert (oa["action_mask"] == ob["action_mask"]).all()
            action = enc.move_to_action(w.moves[a.round.ply])
            oa, *_ = a.step(action)
            ob, *_ = b.step(action)
        assert (oa["observation"] == ob["observation"]).all()
        assert a.round.hands[w.observer ^ 1] != b.round.hands[w.observer ^ 1]


class _CrashBot(Bot):
    """Fails on its first move (an opponent with a bug)."""

    name = "crash"

    def choose(self, view: lc.PlayerView, time_limit: float | None = None) -> lc.Move:
        raise ZeroDivisionError("bug in the bot")


register("test-crash", lambda options, seed: _CrashBot(seed))


def test_a_failing_opponent_raises_rather_than_losing_the_round() -> None:
    env = LostCitiesEnv(opponent="test-crash", seat=0)
    with pytest.raises(ZeroDivisionError, match="bug in the bot"):
        env.reset(seed=1, options={"starter": 1})
    obs, _ = env.reset(seed=1, options={"starter": 0})
    with pytest.raises(ZeroDivisionError, match="bug in the bot"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
