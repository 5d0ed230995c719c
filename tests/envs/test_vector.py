"""The native vector env equals the single env, batched (lostcities.envs.vector)."""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import seeding

from lostcities import IllegalMoveError, Move, Round
from lostcities.bots.rollout import rollout_move
from lostcities.envs.encoding import InvalidActionError, get_encoding
from lostcities.envs.gymnasium import ENV_ID, LostCitiesEnv
from lostcities.envs.vector import LostCitiesVectorEnv
from lostcities.fast import kernels as K
from lostcities.fast.rng import mt_next
from lostcities.fast.smart import smart_action
from lostcities.fast.state import state_from_round
from lostcities.fast.vector import (
    NET_FEATURES,
    deal_cpython,
    legal_count,
    legal_nth,
    mt_next32,
    mt_seed,
    mt_seed2,
    net_features,
)

VARIANTS = ["classic", "long"]


def _actions(obs: dict[str, Any], rng: np.random.Generator, step: int, n: int) -> np.ndarray:
    """Uniform legal actions, with now and then an illegal one (a forfeit)."""
    acts = np.array(
        [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in obs["action_mask"]]
    )
    if step % 23 == 7:
        g = step % len(acts)
        acts[g] = (acts[g] + 1) % n
    return acts


def _assert_same(step: int, a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in ("observation", "action_mask"):
        assert a[key].dtype == b[key].dtype, key
        if not np.array_equal(a[key], b[key]):
            g = int(np.flatnonzero((a[key] != b[key]).any(axis=1))[0])
            where = np.flatnonzero(a[key][g] != b[key][g])
            raise AssertionError(f"step {step}: {key} of env {g} differs at {where.tolist()}")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"seat": 1, "reward": "margin"}, {"max_turns": 30, "seat": 0}],
    ids=["default", "seat1-margin", "capped"],
)
def test_equal_to_sync_vector_env_over_the_single_env(variant: str, kwargs: dict[str, Any]) -> None:
    n = 6
    ref = gym.vector.SyncVectorEnv(
        [lambda: LostCitiesEnv(opponent="random", variant=variant, **kwargs) for _ in range(n)]
    )
    vec = LostCitiesVectorEnv(n, opponent="random", variant=variant, **kwargs)
    o1, i1 = ref.reset(seed=100)
    o2, i2 = vec.reset(seed=100)
    rng = np.random.default_rng(0)
    ended = 0
    for step in range(300):
        _assert_same(step, o1, o2)
        assert np.array_equal(i2["seat"], np.array([e.seat for e in ref.envs]))
        acts = _actions(o1, rng, step, vec.encoding.num_actions)
        o1, r1, t1, tr1, i1 = ref.step(acts)
        o2, r2, t2, tr2, i2 = vec.step(acts)
        assert r1.tolist() == r2.tolist(), step
        assert t1.tolist() == t2.tolist() and tr1.tolist() == tr2.tolist(), step
        if "illegal_action" in i1:
            assert i1["_illegal_action"].tolist() == i2["illegal_action"].tolist()
        if "score_margin" in i1:
            assert i1["score_margin"].tolist() == i2["score_margin"].tolist()
        ended += int(t2.sum() + tr2.sum())
    assert ended >= n  # rounds ended and were reset along the way


class _Reference:
    """One env of the vector env, written out in Python on the core: the single env's
    seeding, ``Round.deal``, the encoding, and the opponent policy on the real round."""

    def __init__(self, seed: int, policy: str, variant: str) -> None:
        self.rng = seeding.np_random(seed)[0]
        self.policy = policy
        self.variant = variant
        self.enc = get_encoding(variant)
        self.done = False
        self.reset()

    def reset(self) -> None:
        rng = self.rng
        self.seat = int(rng.integers(2))
        starter = int(rng.integers(2))
        self.round = Round.deal(
            seed=int(rng.integers(2**63)), variant=self.variant, starter=starter
        )
        rng.integers(2**63)  # the bot's seed, drawn as the single env does
        self._replies()

    def _replies(self) -> None:
        r = self.round
        while not r.is_over() and r.to_move != self.seat:
            if self.policy == "rollout":
                r.push(rollout_move(r))
            else:
                r.push(Move.from_index(int(smart_action(state_from_round(r)))))

    def step(self, action: int) -> tuple[float, bool]:
        if self.done:
            self.done = False
            self.reset()
            return 0.0, False
        r = self.round
        r.push(self.enc.action_to_move(action))
        self._replies()
        if r.is_over():
            self.done = True
            s = r.scores()
            d = s[self.seat] - s[self.seat ^ 1]
            return float((d > 0) - (d < 0)), True
        return 0.0, False

    def obs(self) -> tuple[np.ndarray, np.ndarray]:
        view = self.round.view(self.seat)
        return self.enc.observation(view), self.enc.action_mask(view)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("policy", ["rollout", "smart"])
def test_the_compiled_opponents_play_the_reference_policies(variant: str, policy: str) -> None:
    n = 4
    vec = LostCitiesVectorEnv(n, opponent=policy, variant=variant)
    obs, _ = vec.reset(seed=7)
    refs = [_Reference(7 + i, policy, variant) for i in range(n)]
    rng = np.random.default_rng(1)
    for step in range(250):
        for g, ref in enumerate(refs):
            o, m = ref.obs()
            assert np.array_equal(obs["observation"][g], o), (step, g)
            assert np.array_equal(obs["action_mask"][g], m), (step, g)
        acts = _actions(obs, rng, 1, vec.encoding.num_actions)  # legal only
        obs, rewards, term, _, _ = vec.step(acts)
        for g, ref in enumerate(refs):
            assert ref.step(int(acts[g])) == (rewards[g], term[g]), (step, g)


@pytest.mark.parametrize("variant", VARIANTS)
def test_self_play_acts_for_the_player_to_move(variant: str) -> None:
    n = 3
    enc = get_encoding(variant)
    vec = LostCitiesVectorEnv(n, opponent=None, variant=variant, reward="margin")
    obs, info = vec.reset(seed=3)
    rounds = []
    for i in range(n):
        rng = seeding.np_random(3 + i)[0]
        starter = int(rng.integers(2))
        rounds.append(Round.deal(seed=int(rng.integers(2**63)), variant=variant, starter=starter))
    act_rng = np.random.default_rng(2)
    for step in range(400):
        if all(r.is_over() for r in rounds):
            break
        for g, r in enumerate(rounds):
            if r.is_over():
                continue
            assert info["player"][g] == r.to_move
            view = r.view(r.to_move)
            assert np.array_equal(obs["observation"][g], enc.observation(view)), (step, g)
            assert np.array_equal(obs["action_mask"][g], enc.action_mask(view)), (step, g)
        acts = _actions(obs, act_rng, 1, enc.num_actions)
        obs, rewards, term, _, info = vec.step(acts)
        for g, r in enumerate(rounds):
            if r.is_over():
                continue
            mover = r.to_move
            r.push(enc.action_to_move(int(acts[g])))
            assert term[g] == r.is_over()
            if r.is_over():
                s = r.scores()
                assert info["player"][g] == mover
                assert rewards[g] == s[mover] - s[mover ^ 1]
                view = r.view(mover)
                assert np.array_equal(obs["observation"][g], enc.observation(view))
                assert not obs["action_mask"][g].any()
            else:
                assert rewards[g] == 0.0
    assert all(r.is_over() for r in rounds)


def test_same_step_autoreset_returns_the_final_observation() -> None:
    # one env: next-step mode needs one step more per round than same-step mode
    nxt = LostCitiesVectorEnv(1, opponent="random", copy=True)
    same = LostCitiesVectorEnv(1, opponent="random", autoreset_mode="same_step")
    assert same.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    o1, _ = nxt.reset(seed=9)
    o2, _ = same.reset(seed=9)
    rng = np.random.default_rng(3)
    rounds = 0
    for step in range(600):
        _assert_same(step, o1, o2)
        acts = _actions(o1, rng, step, nxt.encoding.num_actions)
        o1, r1, t1, tr1, i1 = nxt.step(acts)
        o2, r2, t2, tr2, i2 = same.step(acts)
        assert (r1.tolist(), t1.tolist(), tr1.tolist()) == (r2.tolist(), t2.tolist(), tr2.tolist())
        if t1[0] or tr1[0]:
            assert i2["_final_obs"].tolist() == [True]
            for key in ("observation", "action_mask"):
                assert np.array_equal(i2["final_obs"][key], o1[key])
            assert i2["final_info"]["score_margin"].tolist() == i1["score_margin"].tolist()
            o1, r1, t1, *_ = nxt.step(acts)  # next-step mode deals the new round now
            assert r1[0] == 0.0 and not t1[0]
            rounds += 1
        else:
            assert "final_obs" not in i2
    assert rounds >= 3


def test_disabled_autoreset_needs_a_reset_mask() -> None:
    vec = LostCitiesVectorEnv(2, opponent="random", autoreset_mode="disabled", seat=0)
    vec.reset(seed=1)
    acts = np.array([0, 0])  # almost surely illegal: both rounds forfeit
    while True:
        _, _, term, trunc, _ = vec.step(vec.sample_legal_actions() if not acts.any() else acts)
        acts = np.array([1, 1])
        if (term | trunc).any():
            break
    done = term | trunc
    with pytest.raises(IllegalMoveError, match="autoreset is disabled"):
        vec.step(vec.sample_legal_actions())
    obs, _ = vec.reset(options={"reset_mask": done})
    assert obs["action_mask"][done].any(axis=1).all()
    vec.step(vec.sample_legal_actions())


def test_bad_input_is_refused_and_changes_nothing() -> None:
    with pytest.raises(ValueError, match="invalid opponent for the vector env: 'heuristic'"):
        LostCitiesVectorEnv(2, opponent="heuristic")
    with pytest.raises(ValueError, match="invalid num_envs"):
        LostCitiesVectorEnv(0)
    with pytest.raises(ValueError, match="invalid autoreset_mode"):
        LostCitiesVectorEnv(2, autoreset_mode="sometimes")
    vec = LostCitiesVectorEnv(3, opponent="random", illegal="raise", copy=True)
    with pytest.raises(IllegalMoveError, match="call reset"):
        vec.step(np.zeros(3, np.int64))
    vec.reset(seed=2)
    with pytest.raises(ValueError, match="invalid reset options: 'deck'"):
        vec.reset(options={"deck": []})
    obs, *_ = vec.step(vec.sample_legal_actions())
    before = vec.states.copy()
    for bad in (np.zeros(2, np.int64), np.zeros(3), np.array([600, 0, 0])):
        with pytest.raises(InvalidActionError):
            vec.step(bad)
    acts = vec.sample_legal_actions()
    illegal = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    acts[1] = illegal
    with pytest.raises(IllegalMoveError, match=f"illegal action {illegal} .* in env 1"):
        vec.step(acts)
    assert np.array_equal(vec.states, before)
    again, *_ = vec.step(vec.sample_legal_actions())  # and it goes on
    assert again["action_mask"].any(axis=1).all()


def test_registered_as_the_vector_entry_point() -> None:
    envs = gym.make_vec(
        ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", opponent="smart"
    )
    assert isinstance(envs, LostCitiesVectorEnv) and envs.opponent == "smart"
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert envs.action_space.shape == (4,)
    assert isinstance(
        gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync"), gym.vector.SyncVectorEnv
    )


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_deal_is_round_deal(variant: str) -> None:
    s = np.empty(K.STATE_SIZE, np.int32)
    mt = np.empty(624, np.int64)
    pos = np.empty(2, np.int64)
    cards = np.empty(72, np.int64)
    rng = random.Random(5)
    ncol = 5 if variant == "classic" else 6
    for seed in [0, 1, 2**32 - 1, 2**32, 2**63 - 1, *(rng.randrange(2**63) for _ in range(300))]:
        starter = seed % 2
        deal_cpython(s, ncol, seed, starter, 40, mt, pos, cards)
        r = Round.deal(seed=seed, variant=variant, starter=starter, max_turns=40)
        assert np.array_equal(s, state_from_round(r)), seed
        mt_seed(mt, pos, seed)
        py = random.Random(seed)
        assert [mt_next(mt, pos) for _ in range(700)] == [py.getrandbits(32) for _ in range(700)]
        # two at once (the deal's and the random bot's), the bot's in 32-bit words
        other = seed ^ 0x5DEECE66D
        words = np.empty(624, np.uint32)
        wpos = np.empty(2, np.int64)
        mt_seed2(mt, pos, seed, words, wpos, other)
        py, py2 = random.Random(seed), random.Random(other)
        assert [mt_next32(mt, pos) for _ in range(700)] == [py.getrandbits(32) for _ in range(700)]
        assert [mt_next32(words, wpos) for _ in range(1300)] == [
            py2.getrandbits(32) for _ in range(1300)
        ]


def test_memory_and_buffers() -> None:
    vec = LostCitiesVectorEnv(8, opponent="random")
    obs, _ = vec.reset(seed=0)
    assert 4_000 < vec.nbytes / 8 < 16_000  # docs/performance.md states the figure
    again, *_ = vec.step(vec.sample_legal_actions())
    assert again["observation"] is obs["observation"]  # the env's own buffer
    copying = LostCitiesVectorEnv(8, opponent="random", copy=True)
    first, _ = copying.reset(seed=0)
    second, *_ = copying.step(copying.sample_legal_actions())
    assert first["observation"] is not second["observation"]


def test_the_vector_env_refuses_the_achievements_variant_in_one_line() -> None:
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        LostCitiesVectorEnv(2, achievements=True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_net_opponent_equals_the_single_env_against_the_net_bot(variant: str) -> None:
    n = 4
    ref = gym.vector.SyncVectorEnv(
        [lambda: LostCitiesEnv(opponent="net", variant=variant) for _ in range(n)]
    )
    vec = LostCitiesVectorEnv(n, opponent="net", variant=variant)
    o1, _ = ref.reset(seed=40)
    o2, _ = vec.reset(seed=40)
    rng = np.random.default_rng(4)
    ended = 0
    for step in range(150):
        _assert_same(step, o1, o2)
        acts = _actions(o1, rng, step, vec.encoding.num_actions)
        o1, r1, t1, tr1, _ = ref.step(acts)
        o2, r2, t2, tr2, _ = vec.step(acts)
        assert r1.tolist() == r2.tolist(), step
        assert t1.tolist() == t2.tolist() and tr1.tolist() == tr2.tolist(), step
        ended += int(t2.sum())
    assert ended >= 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_network_input_is_features(variant: str) -> None:
    from lostcities.nn.features import NUM_FEATURES, features

    assert NUM_FEATURES == NET_FEATURES
    rng = random.Random(8)
    x = np.empty(NET_FEATURES, np.float64)
    buf = np.empty(200, np.int64)
    checked = 0
    for seed in range(12):
        r = Round.deal(seed=seed, variant=variant, starter=seed % 2)
        while not r.is_over():
            moves = r.legal_moves()
            # discard-pile draws now and then, so piles, known cards and tops vary
            draws = [m for m in moves if m.draw is not None]
            r.push(rng.choice(draws if draws and rng.random() < 0.3 else moves))
            for p in (0, 1):
                net_features(state_from_round(r), p, x, buf)
                want = features(r.view(p))
                assert np.array_equal(x, want), (seed, r.ply, p, np.flatnonzero(x != want).tolist())
                checked += 1
    assert checked > 1000


def test_the_bitset_move_count_and_pick_follow_gen_legal() -> None:
    rng = random.Random(3)
    buf = np.empty(K.MAX_LEGAL, np.int64)
    for seed in range(20):
        r = Round.deal(seed=seed, variant="long" if seed % 2 else "classic")
        while not r.is_over():
            s = state_from_round(r)
            n = K.gen_legal(s, buf, False)
            assert legal_count(s) == n == len(r.legal_moves())
            assert [legal_nth(s, i) for i in range(n)] == buf[:n].tolist()
            r.push(rng.choice(r.legal_moves()))


@pytest.mark.parametrize("variant", VARIANTS)
def test_self_play_rows_stay_equal_over_many_rounds(variant: str) -> None:
    # the self-play rows are kept per player, incrementally, across autoresets
    n = 3
    enc = get_encoding(variant)
    vec = LostCitiesVectorEnv(n, opponent=None, variant=variant)
    obs, info = vec.reset(seed=11)
    rngs = [seeding.np_random(11 + i)[0] for i in range(n)]

    def deal(g: int) -> Round:
        starter = int(rngs[g].integers(2))
        return Round.deal(seed=int(rngs[g].integers(2**63)), variant=variant, starter=starter)

    rounds: list[Round | None] = [deal(g) for g in range(n)]
    act_rng = np.random.default_rng(5)
    finished = 0
    for step in range(900):
        for g, r in enumerate(rounds):
            view = r.view(r.to_move) if r is not None else None
            if view is not None and not r.is_over():
                assert info["player"][g] == r.to_move
                assert np.array_equal(obs["observation"][g], enc.observation(view)), (step, g)
                assert np.array_equal(obs["action_mask"][g], enc.action_mask(view)), (step, g)
        acts = _actions(obs, act_rng, 1, enc.num_actions)
        obs, _, term, _, info = vec.step(acts)
        for g, r in enumerate(rounds):
            if r is None or r.is_over():  # next-step autoreset: this step dealt a new one
                rounds[g] = deal(g)
                continue
            r.push(enc.action_to_move(int(acts[g])))
            assert term[g] == r.is_over()
            finished += int(r.is_over())
    assert finished >= 2 * n


@pytest.mark.parametrize("opponent", ["random", None])
def test_numba_threads_step_as_one_thread_does(opponent: str | None) -> None:
    envs = [LostCitiesVectorEnv(600, opponent=opponent, parallel=p) for p in (False, True)]
    outs = [e.reset(seed=5)[0] for e in envs]
    acts = [e.sample_legal_actions(seed=9) for e in envs]
    for step in range(60):
        for key in ("observation", "action_mask"):
            assert np.array_equal(outs[0][key], outs[1][key]), (step, key)
        assert np.array_equal(acts[0], acts[1]), step
        results = [e.step(a) for e, a in zip(envs, acts, strict=True)]
        outs = [r[0] for r in results]
        assert np.array_equal(results[0][1], results[1][1])
        acts = [e.sample_legal_actions() for e in envs]
