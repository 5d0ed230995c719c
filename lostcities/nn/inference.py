"""Inference about the opponent's hand: how likely a guessed hand makes the moves the
opponent was seen to make, under the policy network.

A search that deals the opponent's hidden cards at random (:class:`~lostcities.WorldSampler`)
treats a hand that could never have produced the opponent's last discards like any other.
:class:`HandInference` weights a guessed hand by the product, over the opponent's last
``steps`` moves, of the network's probability of the move it made, with the hand it held
then reconstructed from the guess: walking back from now, a move's drawn card leaves the
hand (a discard-pile draw is known; a draw-pile card is one of the cards the viewer does not
know, picked at random, which is an unbiased sample of the draw's hidden identity) and its
played or discarded card returns. ``power`` tempers the product (the opponent is not the
network). The positions come from :meth:`lostcities.PlayerView.earlier_views`, so only
public information and the guess are used.

The features of a view are an affine function of the hand's card counts, so the
network's first layer is folded once per past position into a table of 60 columns, and a
guessed hand costs a sum of eight columns and the rest of the network.

>>> import random
>>> from lostcities import Round
>>> from lostcities.nn import Network
>>> r = Round.deal(seed=4)
>>> for _ in range(6):
...     r.push(r.legal_moves()[0])
>>> view = r.view(0)
>>> inf = HandInference(Network.random(hidden=(16,), seed=1), steps=3)
>>> s = view.sampler()
>>> hands = [random.Random(i).sample(s.unseen, s.hidden) for i in range(4)]
>>> w = inf.log_weights(view, hands, random.Random(1))
>>> w.shape, bool((w <= 0).all())
((4,), True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from lostcities.cards import ALL_CARDS, Card, Variant
from lostcities.netinput import KINDS
from lostcities.nn.features import hand_affine
from lostcities.nn.model import Network, as_float32
from lostcities.rules import NUM_MOVES, Move, PlayerView

__all__ = ["HandInference"]

_KIND_OF_MOVE = np.array([Move.from_index(i).card.index for i in range(NUM_MOVES)], np.int64)


class _Step:
    """One past decision of the opponent, prepared: the first layer folded over the
    hand's counts, the moves legal with each card, the move made."""

    __slots__ = ("bias", "drawn", "head", "kinds", "known", "move", "played", "table")

    def __init__(
        self,
        net: Network,
        head: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        view: PlayerView,
        move: Move,
    ) -> None:
        w1, b1 = net.trunk[0]
        f0, cols = hand_affine(view)
        every = tuple(c for c in ALL_CARDS if c.color < view.variant.num_colors)
        legal = np.zeros(NUM_MOVES, np.bool_)  # a move's legality needs only its own card
        legal[[m.index for m in replace(view, hand=every).legal_moves()]] = True
        self.table = as_float32((w1 @ cols).T)  # (60, hidden): one row per kind
        self.bias = as_float32(w1 @ f0 + b1)
        can = np.flatnonzero(legal)  # the policy head cut to the moves that can be legal
        self.head = (head[0][can], head[1][can])
        self.kinds = _KIND_OF_MOVE[can]
        self.move = int(np.searchsorted(can, move.index))
        """The move made, as a column of :attr:`head`."""
        self.played = move.card.index
        # the kind of the card drawn from a discard pile (its top before the move), else -1
        self.drawn = -1 if move.draw is None else view.discard_piles[move.draw][-1].index
        self.known = [c.index for c in view.own_known]
        """The kinds of the cards the viewer knew the opponent held before the move."""


class HandInference:
    """Weights guessed opponent hands by the network's likelihood of the opponent's last
    ``steps`` moves (module docs). One instance serves a whole game: the prepared past
    positions are kept while the history grows."""

    def __init__(self, network: Network, *, steps: int = 4, power: float = 1.0) -> None:
        if steps < 1 or not power >= 0:
            raise ValueError("hand inference needs steps >= 1 and power >= 0")
        self.network = network
        self.steps = steps
        self.power = power
        self._cache: dict[int, _Step] = {}
        self._history: tuple[Move, ...] = ()
        self._variant: Variant | None = None
        self._net32 = [(as_float32(w), as_float32(b)) for w, b in network.trunk[1:]]
        self._policy32 = (as_float32(network.policy_head[0]), as_float32(network.policy_head[1]))

    def _steps(self, view: PlayerView) -> list[_Step]:
        """The opponent's last decisions, newest first."""
        opp = view.player ^ 1
        history = view.history
        ts = [
            t
            for t in range(len(history) - 1, -1, -1)
            if view.to_move ^ ((len(history) - t) & 1) == opp
        ]
        ts = ts[: self.steps]
        if not ts:
            return []
        earlier: list[PlayerView] | None = None
        # the steps prepared for this round so far, kept while the history grows
        n = len(self._history)
        if not (
            n <= len(history) and history[:n] == self._history and view.variant is self._variant
        ):
            self._cache = {}
        self._history = history
        self._variant = view.variant
        out = []
        for t in ts:
            step = self._cache.get(t)
            if step is None:
                if earlier is None:
                    earlier = view.earlier_views()
                step = _Step(self.network, self._policy32, earlier[t], history[t])
                self._cache[t] = step
            out.append(step)
        for t in [t for t in self._cache if t < ts[-1]]:
            del self._cache[t]
        return out

    def log_weights(
        self, view: PlayerView, hidden_hands: Sequence[Sequence[Card]], rng: random.Random
    ) -> npt.NDArray[np.float64]:
        """``power`` times the log-likelihood of the opponent's last moves for each guess
        of the opponent's unknown cards (``hidden_hands[i]``: the cards besides those it is
        known to hold). ``rng`` picks the unknown identity of draw-pile cards."""
        n = len(hidden_hands)
        out = np.zeros(n, np.float64)
        steps = self._steps(view)
        if not steps or n == 0 or self.power == 0:
            return out
        known_now = [c.index for c in view.opponent_known]
        rows: list[list[list[int]]] = [[] for _ in steps]
        for hidden in hidden_hands:
            hand = known_now + [c.index for c in hidden]
            known = known_now
            for j, step in enumerate(steps):
                if step.drawn >= 0:
                    hand.remove(step.drawn)
                else:  # a draw-pile card: one of the cards not known, at random
                    pool = list(hand)
                    for k in known:
                        pool.remove(k)
                    hand.remove(pool[rng.randrange(len(pool))])
                hand.append(step.played)
                rows[j].append(list(hand))
                known = step.known
        counts = np.zeros((len(steps), n, KINDS), np.float32)
        for j, hands in enumerate(rows):
            idx = np.array(hands, np.int64)  # (n, hand size)
            np.add.at(counts[j], (np.arange(n)[:, None], idx), 1.0)
        h = np.concatenate([counts[j] @ step.table + step.bias for j, step in enumerate(steps)])
        np.maximum(h, 0.0, out=h)
        for w, b in self._net32:
            h = h @ w.T + b
            np.maximum(h, 0.0, out=h)
        for j, step in enumerate(steps):
            logits = h[j * n : (j + 1) * n] @ step.head[0].T + step.head[1]
            logits[counts[j][:, step.kinds] == 0] = -np.inf
            top = logits.max(axis=1, keepdims=True)
            lse = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
            out += logits[:, step.move].astype(np.float64) - lse
        return self.power * out
