"""The network bots: ``net`` (the policy alone) and ``expert`` (network-guided search)."""

from __future__ import annotations

import itertools
import random
import time
from pathlib import Path

import numpy as np
import pytest

from lostcities import Move, Round
from lostcities.bots import BotSpecError, make
from lostcities.bots.expert import ExpertBot
from lostcities.bots.ismcts import fast_engine_available
from lostcities.bots.net import NetBot
from lostcities.nn import Network, default_network, features


def _positions(variant: str, n: int = 6) -> list[Round]:
    out = []
    for s in range(n):
        r = Round.deal(seed=s, variant=variant)
        rng = random.Random(s)
        for _ in range(rng.randrange(60)):
            m = r.legal_moves()
            r.push(m[rng.randrange(len(m))])
        if not r.is_over():
            out.append(r)
    return out


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_net_plays_the_policys_favourite_legal_move(variant: str) -> None:
    bot = make("net", seed=1)
    net = default_network()
    for r in _positions(variant):
        view = r.view(r.to_move)
        move = bot.choose(view)
        assert move in r.legal_moves()
        logits, _ = net.forward(features(view)[None, :])
        legal = list(view.legal_moves())
        assert move == legal[int(np.argmax([logits[0, m.index] for m in legal]))]


def test_net_samples_with_a_temperature_reproducibly() -> None:
    r = _positions("classic")[0]
    view = r.view(r.to_move)
    a = [make("net:temperature=1", seed=3).choose(view) for _ in range(3)]
    b = [make("net:temperature=1", seed=3).choose(view) for _ in range(3)]
    assert a == b and all(m in r.legal_moves() for m in a)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("net:speed=1", "net has no option 'speed'"),
        ("net:temperature=-1", "temperature must be at least 0"),
        ("net:weights=/nonexistent/w.npz", "invalid weights file '/nonexistent/w.npz'"),
        ("expert:top=0", "expert top must be at least 1"),
        ("expert:time=abc", "expert time='abc' is not a number"),
        ("expert:iters=0", "expert iters must be positive"),
        ("expert:prior=-1", "expert prior must be at least 0"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message.replace("(", r"\(")) as e:
        make(spec)
    assert "\n" not in str(e.value)


def test_a_weights_file_of_another_layout_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros(3))
    with pytest.raises(BotSpecError, match="no array"):
        make(f"net:weights={bad}")
    good = tmp_path / "good.npz"
    Network.random(hidden=(8,), seed=2).save(good)
    assert (
        make(f"net:weights={good}").choose(Round.deal(seed=1).view(0))
        in Round.deal(seed=1).legal_moves()
    )


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_expert_is_deterministic_with_iters_and_searches_the_networks_moves(variant: str) -> None:
    for r in _positions(variant, 4):
        view = r.view(r.to_move)
        bot = ExpertBot(iters=300, seed=5)
        move = bot.choose(view)
        assert move == ExpertBot(iters=300, seed=5).choose(view)
        cands, probs = bot.candidates(view)
        moves, all_probs = bot.network.policy(view)
        top = [moves[i] for i in np.argsort(-all_probs, kind="stable")[:4]]
        # the network's 4 best, then the draw-pile variant of each that draws from a pile
        assert move in cands and cands[:4] == top
        assert cands[4:] == [
            d for m in top if m.draw is not None and (d := Move(m.action, m.card, None)) not in top
        ]
        assert probs[:4] == sorted(probs[:4], reverse=True)
        smart = ExpertBot(iters=300, seed=5, rollout="smart")
        cands, probs = smart.candidates(view)
        assert len(cands) == min(5, len(view.legal_moves()))
        assert probs == sorted(probs, reverse=True)


@pytest.mark.parametrize("rollout", ["smart", "net"])
def test_expert_honours_its_time(monkeypatch: pytest.MonkeyPatch, rollout: str) -> None:
    from lostcities.bots.expert import NET_CHUNK

    r = _positions("classic")[1]
    view = r.view(r.to_move)
    bot = ExpertBot(time=0.2, seed=1, rollout=rollout)
    bot.choose(view)  # loads the network and the compiled search
    k = len(bot.candidates(view)[0])
    # the bot's clock made one that reads 10 ms later each time (the compiled search reads it
    # twice a world at that pace, the network's rollouts once a batch of worlds): the budget
    # is a number of worlds, however fast or loaded the machine
    ticks = itertools.count()
    monkeypatch.setattr(time, "perf_counter", lambda: next(ticks) * 0.01)
    bot.choose(view)
    full = bot.last_iterations
    assert 0 < full <= (10 if rollout == "smart" else 20 * NET_CHUNK) * k  # stopped at 0.2 s
    bot.choose(view, time_limit=0.1)  # the protocol's limit cuts the search shorter
    assert 0 < bot.last_iterations < full


@pytest.mark.skipif(not fast_engine_available(), reason="needs numba for the comparison")
def test_expert_without_the_compiled_engine_still_plays(monkeypatch: pytest.MonkeyPatch) -> None:
    import lostcities.bots.expert as expert

    monkeypatch.setattr(expert, "fast_engine_available", lambda: False)
    r = _positions("classic")[2]
    view = r.view(r.to_move)
    assert ExpertBot(iters=80, seed=1).choose(view) in r.legal_moves()
    assert isinstance(make("net"), NetBot)


def test_search_time_control_saves_on_clear_moves_and_spends_on_close_ones() -> None:
    from lostcities.bots.expert import CONTROL_CHUNK

    r = Round.deal(seed=5)
    bot = ExpertBot(iters=3000, seed=1, control=2.0, rollout="smart")
    base = -(-3000 // 5)  # worlds per move without control (5 candidates)
    spent = []
    while not r.is_over():
        view = r.view(r.to_move)
        if r.to_move == 0:
            bank = bot.bank
            move = bot.choose(view)
            k = len(bot.candidates(view)[0])
            if bot.last_iterations:
                worlds = bot.last_iterations // k
                spent.append(worlds)
                # never past its budget plus what the bank allows, in whole batches
                assert worlds <= base + min(bank, 2 * base) + CONTROL_CHUNK
                assert bot.bank == pytest.approx(max(0.0, bank + base - worlds))
        else:
            move = r.legal_moves()[0]
        r.push(move)
    assert min(spent) < base  # a clear move stopped early ...
    assert sum(spent) <= base * len(spent)  # ... and the round stayed within its budget
    bot.restart(r.variant, 0)
    assert bot.bank == 0.0


def test_search_time_control_off_plays_exactly_as_before() -> None:
    for r in _positions("classic", 3):
        view = r.view(r.to_move)
        a = ExpertBot(iters=400, seed=3, rollout="smart").choose(view)
        assert a == ExpertBot(iters=400, seed=3, control=0, rollout="smart").choose(view)


def test_endgame_searches_every_legal_move_when_the_draw_pile_is_small() -> None:
    r = Round.deal(seed=2)
    rng = random.Random(2)
    while r.deck_size > 3:
        m = r.legal_moves()
        r.push(m[rng.randrange(len(m))])
    view = r.view(r.to_move)
    assert len(ExpertBot(iters=10, endgame=3).candidates(view)[0]) == len(view.legal_moves())
    assert len(ExpertBot(iters=10, endgame=2, rollout="smart").candidates(view)[0]) == 5
    with pytest.raises(BotSpecError):
        make("expert:control=-1")
    assert make("expert:endgame=4,control=1.5,spend=1,rollout=smart").endgame == 4  # type: ignore[attr-defined]
    with pytest.raises(BotSpecError, match="control and infer work with rollout=smart only"):
        make("expert:control=1.5")
    with pytest.raises(BotSpecError, match="control and infer work with rollout=smart only"):
        make("expert:infer=4")


def test_value_mix_scores_candidates_by_the_networks_value_after_them() -> None:
    import math

    from lostcities.nn.model import VALUE_SCALE

    r = _positions("classic")[1]
    view = r.view(r.to_move)
    bot = ExpertBot(iters=200, seed=4, mix=1.0, vworlds=3)
    cands, _ = bot.candidates(view)
    rng = random.Random()
    rng.setstate(bot.rng.getstate())
    values = bot.values_after(view, cands)
    # by hand: the same worlds, the opponent's value after each candidate, negated,
    # moved from the network's scale (30 points) to the rollouts' (15)
    net = default_network()
    want = np.zeros(len(cands))
    sampler = view.sampler()
    for _ in range(3):
        world = sampler.sample(rng)
        for j, m in enumerate(cands):
            after = world.copy()
            after.push(m)
            assert after.to_move != view.player and not after.is_over()
            v = float(net.forward(features(after.view(after.to_move))[None, :])[1][0])
            want[j] -= math.tanh(VALUE_SCALE * math.atanh(v) / 15.0) / 3
    assert values == pytest.approx(list(want))
    # mix=1: no rollouts, the best value (plus the prior), reproducibly
    move = ExpertBot(iters=200, seed=4, mix=1.0, vworlds=8).choose(view)
    assert move in cands and move == ExpertBot(iters=200, seed=4, mix=1.0, vworlds=8).choose(view)
    with pytest.raises(BotSpecError):
        make("expert:mix=2")


def test_union_adds_the_ismcts_candidates_weighed_no_lower_than_the_networks_last() -> None:
    from lostcities.bots.ismcts import IsmctsBot

    grown = 0
    for r in _positions("classic", 6):
        view = r.view(r.to_move)
        plain, plain_p = ExpertBot(iters=10, rollout="smart").candidates(view)
        both, both_p = make("expert:iters=10,union=1,rollout=smart").candidates(view)  # type: ignore[attr-defined]
        heur = IsmctsBot(iters=1, seed=0).search_candidates(view)
        assert both[: len(plain)] == plain and both_p[: len(plain)] == plain_p
        assert set(both) == set(plain) | set(heur) and len(set(both)) == len(both)
        assert all(p >= min(plain_p) for p in both_p[len(plain) :])
        grown += len(both) > len(plain)
    assert grown  # some positions where the heuristic proposes a move the network does not
