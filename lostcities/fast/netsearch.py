"""Flat search whose rollouts the policy network plays, batched over worlds and candidates.

:class:`NetRollouts` values candidate moves for the player of a
:class:`~lostcities.PlayerView`: it deals the hidden cards ``worlds`` times, consistently
with the view (:meth:`lostcities.PlayerView.sampler`, the one world sampler), makes every
candidate in every world (the same worlds for every candidate: common random numbers) and
plays each of those rounds on, **the network on both sides** (its most probable legal
move; from ply :data:`FORCE_PLY` on it draws from the draw pile, so that two greedy players
cannot pass a card back and forth for ever). All ``worlds x candidates`` rounds step together: the network inputs and legal
masks are written in compiled code (:mod:`lostcities.fast.netplay`) and the network runs
once per ply over the whole batch, in NumPy (float32, BLAS). With ``depth`` > 0 a rollout
stops after ``depth`` more moves and the network's value head judges the position instead
(its value, ``tanh(margin / 30)``, read back as a margin).

A candidate's value is its mean final margin (points, from the searcher's side);
:meth:`NetRollouts.values` gives them.

>>> from lostcities import Round
>>> from lostcities.nn import Network
>>> net = Network.random(hidden=(16,), seed=1)
>>> view = Round.deal(seed=4).view(0)
>>> moves = list(view.legal_moves())[:3]
>>> search = NetRollouts(net, view, moves, seed=1)
>>> search.run(8).shape
(3, 8)
>>> len(search.values()), search.worlds
(3, 8)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from lostcities.errors import IllegalMoveError
from lostcities.fast import kernels as K
from lostcities.fast.netplay import NET_FEATURES, apply_rows, batch_features, greedy_rows
from lostcities.fast.rng import xorshift_below, xorshift_state
from lostcities.fast.state import state_from_round
from lostcities.nn import VALUE_SCALE, Network, as_float32
from lostcities.rules import Move, PlayerView

__all__ = ["FORCE_PLY", "NetRollouts", "PackedNetwork"]

FORCE_PLY = 140
"""From this ply of the round on, rollouts draw only from the draw pile: two greedy
players could otherwise pass a card back and forth through a discard pile for ever."""

F32 = npt.NDArray[np.float32]


class PackedNetwork:
    """A :class:`~lostcities.nn.Network`'s weights as float32 matrices for batched play
    (:func:`~lostcities.nn.as_float32`: no subnormal products)."""

    def __init__(self, net: Network) -> None:
        self.trunk = [(as_float32(w.T), as_float32(b)) for w, b in net.trunk]
        self.policy = (as_float32(net.policy_head[0]), as_float32(net.policy_head[1]))
        """The policy head: its weights a row per move (for :func:`greedy_rows`), its bias."""
        self.value = (as_float32(net.value_head[0].T), as_float32(net.value_head[1]))

    def hidden(self, x: F32) -> F32:
        """The last hidden layer of input rows ``x``."""
        h = x
        for w, b in self.trunk:
            h = h @ w
            h += b
            np.maximum(h, 0.0, out=h)
        return h

    def values(self, h: F32) -> F32:
        out: F32 = np.tanh(h @ self.value[0] + self.value[1])[:, 0]
        return out


@njit(cache=True)
def _deal_worlds(
    template: np.ndarray,
    opp: int,
    first: int,
    unseen: np.ndarray,
    actions: np.ndarray,
    worlds: int,
    rng: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[j * worlds + w]`` = world ``w`` (the unseen cards shuffled into the opponent's
    hidden slots and the draw pile) after candidate ``j``."""
    cards = unseen.copy()
    n = cards.shape[0]
    for w in range(worlds):
        for i in range(n - 1, 0, -1):
            k = xorshift_below(rng, i + 1)
            t = cards[i]
            cards[i] = cards[k]
            cards[k] = t
        for j in range(actions.shape[0]):
            s = out[j * worlds + w]
            K.deal_world(s, template, opp, first, cards)
            K.apply(s, actions[j])


class NetRollouts:
    """Network-played rollouts of ``candidates`` from ``view`` (see the module docs).

    :param depth: moves played by the network after the candidate before its value head
        judges the position (0: to the end of the round).
    :param force_ply: from this ply on, only draw-pile draws (:data:`FORCE_PLY`).
    :raises IllegalMoveError: if a candidate is not legal for the viewer now.
    :raises ValueError: for no candidates or a negative depth.
    """

    def __init__(
        self,
        network: Network | PackedNetwork,
        view: PlayerView,
        candidates: Sequence[Move],
        *,
        seed: int | None = None,
        depth: int = 0,
        force_ply: int = FORCE_PLY,
    ) -> None:
        if not candidates:
            raise ValueError("network rollouts: no candidate moves")
        if depth < 0:
            raise ValueError(f"network rollouts: depth must be >= 0, not {depth}")
        if view.over or view.to_move != view.player:
            raise IllegalMoveError(
                f"illegal move: {str(candidates[0])!r} (not legal for player {view.player} now)"
            )
        self.net = network if isinstance(network, PackedNetwork) else PackedNetwork(network)
        self.candidates = list(candidates)
        self.me = view.player
        sampler = view.sampler()
        self.template = state_from_round(sampler.deal(sampler.unseen))
        self.first = len(sampler.known)
        self.unseen = np.array([c.index for c in sampler.unseen], np.int64)
        self.actions = np.array([m.index for m in self.candidates], np.int64)
        for m, a in zip(self.candidates, self.actions.tolist(), strict=True):
            if not K.is_legal(self.template, a):
                raise IllegalMoveError(
                    f"illegal move: {str(m)!r} (not legal for player {view.player} now)"
                )
        self.depth = depth
        self.force_ply = force_ply
        self.rng = xorshift_state(seed)
        self.worlds = 0
        """Worlds played so far (each candidate once in each)."""
        self.margin_sums = np.zeros(len(self.candidates), np.float64)
        """Per candidate: the sum of its (final or judged) margins so far."""
        self.moves = 0
        """Rollout moves the network has made so far (for benchmarks)."""

    def run(self, worlds: int) -> npt.NDArray[np.float64]:
        """Play ``worlds`` more worlds; their margins (row ``j``: candidate ``j``'s in each)."""
        k = len(self.candidates)
        if worlds <= 0:
            return np.zeros((k, 0), np.float64)
        states = np.empty((k * worlds, K.STATE_SIZE), np.int32)
        _deal_worlds(
            self.template,
            self.me ^ 1,
            self.first,
            self.unseen,
            self.actions,
            worlds,
            self.rng,
            states,
        )
        margins = self.play(states).reshape(k, worlds)
        self.margin_sums += margins.sum(axis=1)
        self.worlds += worlds
        return margins

    def play(self, states: npt.NDArray[np.int32]) -> npt.NDArray[np.float64]:
        """Play the rounds ``states`` on with the network (in place); each one's final
        margin, or judged margin at ``depth``, from the searcher's side."""
        n = states.shape[0]
        out = np.zeros(n, np.float64)
        running = np.flatnonzero(states[:, K.OVER] == 0).astype(np.int64)
        x = np.empty((n, NET_FEATURES), np.float32)
        act = np.empty(n, np.int64)
        moves = 0
        while running.size:
            m = running.size
            batch_features(states, running, x[:m])
            h = self.net.hidden(x[:m])
            if self.depth and moves >= self.depth:
                v = np.clip(self.net.values(h).astype(np.float64), -0.999, 0.999)
                judged = VALUE_SCALE * np.arctanh(v)
                movers = states[running, K.TURN]
                out[running] = np.where(movers == self.me, judged, -judged)
                break
            w, b = self.net.policy
            greedy_rows(states, running, h, w, b, self.force_ply, act[:m])
            apply_rows(states, running, act[:m])
            self.moves += m
            moves += 1
            running = running[states[running, K.OVER] == 0]
        done = np.flatnonzero(states[:, K.OVER] != 0)
        if done.size:
            sc = np.empty((n, 2), np.int64)
            K.batch_scores(states, sc)
            mine = sc[done, self.me] - sc[done, self.me ^ 1]
            out[done] = mine
        return out

    def values(self) -> list[float]:
        """Each candidate's mean margin so far (0 before any world)."""
        if self.worlds == 0:
            return [0.0] * len(self.candidates)
        return [float(x) / self.worlds for x in self.margin_sums]
