"""Network rollouts: the batched play equals the network playing each round in the core."""

from __future__ import annotations

import numpy as np
import pytest

from lostcities import IllegalMoveError, Round
from lostcities.fast.netsearch import NetRollouts, PackedNetwork
from lostcities.fast.state import state_from_round
from lostcities.nn import Network


def _greedy_margin(net: Network, r: Round, me: int, force_ply: int) -> int:
    while not r.is_over():
        moves, probs = net.policy(r.view(r.to_move))
        if r.ply >= force_ply:
            probs = np.where([m.draw is None for m in moves], probs, -1.0)
        r.push(moves[int(np.argmax(probs))])
    s = r.scores()
    return s[me] - s[1 - me]


def test_batched_play_is_the_networks_own_play() -> None:
    net = Network.random(hidden=(32,), seed=3)
    rounds = []
    for seed in range(6):
        r = Round.deal(seed=seed, variant="long" if seed % 2 else "classic")
        for m in list(r.legal_moves())[:1]:
            r.push(m)
        rounds.append(r)
    view = Round.deal(seed=0).view(0)
    search = NetRollouts(net, view, list(view.legal_moves())[:1], force_ply=60)
    states = np.stack([state_from_round(r) for r in rounds])
    got = search.play(states)
    want = [_greedy_margin(net, r.copy(), 0, 60) for r in rounds]
    assert got.tolist() == want


def test_values_are_reproducible_and_depth_judges_by_the_value_head() -> None:
    net = Network.random(hidden=(16,), seed=1)
    view = Round.deal(seed=4).view(0)
    moves = list(view.legal_moves())[:3]
    a = NetRollouts(net, view, moves, seed=7)
    a.run(6)
    b = NetRollouts(net, view, moves, seed=7)
    b.run(3)
    b.run(3)
    assert a.worlds == b.worlds == 6
    assert a.values() != [0.0, 0.0, 0.0]
    c = NetRollouts(net, view, moves, seed=7, depth=1)
    c.run(6)
    assert c.values() != a.values()
    assert all(abs(v) < 30 * 4 for v in c.values())


def test_bad_candidates_are_refused() -> None:
    net = Network.random(hidden=(8,), seed=1)
    r = Round.deal(seed=4)
    with pytest.raises(IllegalMoveError):
        NetRollouts(net, r.view(1), list(r.legal_moves())[:1])
    with pytest.raises(ValueError, match="no candidate"):
        NetRollouts(net, r.view(0), [])
    with pytest.raises(ValueError, match="depth"):
        NetRollouts(net, r.view(0), list(r.legal_moves())[:1], depth=-1)


def test_tiny_weights_are_zero_in_float32_and_play_the_same() -> None:
    # Dead weights that training leaves at ~1e-30 make float32 products subnormal (a CPU's
    # matrix products slow down 10-50 x): the packed network holds them as 0, and the
    # rollouts are those of the same network without them.
    net = Network.random(hidden=(32,), seed=5)
    w, b = net.trunk[0]
    tiny = w.copy()
    tiny[:, ::3] = 1e-30
    dirty = Network([(tiny, b)], net.policy_head, net.value_head)
    clean = Network([(np.where(tiny == 1e-30, 0.0, tiny), b)], net.policy_head, net.value_head)
    packed = PackedNetwork(dirty)
    assert np.count_nonzero(packed.trunk[0][0]) == np.count_nonzero(clean.trunk[0][0])
    assert not np.any((packed.trunk[0][0] != 0) & (np.abs(packed.trunk[0][0]) < 1e-20))
    view = Round.deal(seed=9).view(0)
    moves = list(view.legal_moves())[:3]
    a = NetRollouts(dirty, view, moves, seed=2)
    b2 = NetRollouts(clean, view, moves, seed=2)
    assert a.run(8).tolist() == b2.run(8).tolist()
