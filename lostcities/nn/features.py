"""The network's input: one player's :class:`~lostcities.PlayerView` as a float vector.

Built from the view alone (so it cannot hold a hidden card), from the point of view of the
player to move, for both variants (the long game's sixth colour is zeros in the classic
game, and one input says which variant it is). Cards are counted by *kind*: ``card.index``
(10 per colour: the wager, then 2 .. 10), 60 kinds in all.

======================  =====  ==================================================
block                   size   what
======================  =====  ==================================================
``hand``                60     own hand, count per kind
``own_exp``             60     own expeditions
``opp_exp``             60     opponent's expeditions
``discards``            60     every card in the discard piles
``tops``                60     the top card of each discard pile (one-hot)
``opp_known``           60     cards the opponent is known to hold
``unseen``              60     cards not seen (opponent's hand or draw pile)
``playable``            60     own hand cards playable now (:func:`~lostcities.playable`)
``opp_playable``        60     unseen or top cards the opponent could play now
``colour``              6 x 10 per colour: own/opp score, top, wagers, started, hand and
                               unseen playable sums
``global``              8      deck fraction, turns left, both totals, their margin,
                               own-known count, long variant, ply
======================  =====  ==================================================

>>> from lostcities import Round
>>> x = features(Round.deal(seed=1).view(0))
>>> x.shape, x.dtype, float(x[:60].sum())
((608,), dtype('float64'), 8.0)
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from lostcities.rules import PLAYABLE, PlayerView
from lostcities.scoring import score_expedition

__all__ = ["FEATURES_VERSION", "NUM_FEATURES", "features", "features_batch", "hand_affine"]

FEATURES_VERSION = 1
"""Bumped whenever the layout changes (weights record the version they were trained on)."""

_KINDS = 60
_COLOURS = 6
_PER_COLOUR = 10
_GLOBAL = 8
NUM_FEATURES = 9 * _KINDS + _COLOURS * _PER_COLOUR + _GLOBAL
"""Length of the vector (608)."""

_RANK = [0 if k % 10 == 0 else k % 10 + 1 for k in range(_KINDS)]


def features(
    view: PlayerView, out: npt.NDArray[np.float64] | None = None
) -> npt.NDArray[np.float64]:
    """The input vector of ``view`` (for the viewer, who is normally to move); written
    into ``out`` when given (a row of a batch)."""
    x = np.zeros(NUM_FEATURES, np.float64) if out is None else out
    if out is not None:
        x[:] = 0.0
    me = view.player
    opp = me ^ 1
    ncol = view.variant.num_colors
    hand = [0] * _KINDS
    for c in view.hand:
        hand[c.index] += 1
    unseen = [0] * _KINDS
    for c in view.unseen_cards():
        unseen[c.index] += 1
    tops = [[0] * _COLOURS, [0] * _COLOURS]
    wagers = [[0] * _COLOURS, [0] * _COLOURS]
    started = [[0] * _COLOURS, [0] * _COLOURS]
    exp_score = [[0] * _COLOURS, [0] * _COLOURS]
    for side, base in ((me, 60), (opp, 120)):
        for col in range(ncol):
            e = view.expeditions[side][col]
            if not e:
                continue
            started[side][col] = 1
            exp_score[side][col] = score_expedition(e, check=False).score
            for c in e:
                x[base + c.index] += 1.0
                if c.rank:
                    tops[side][col] = max(tops[side][col], c.rank)
                else:
                    wagers[side][col] += 1
    for col in range(ncol):
        pile = view.discard_piles[col]
        for c in pile:
            x[180 + c.index] += 1.0
        if pile:
            x[240 + pile[-1].index] = 1.0
    for c in view.opponent_known:
        x[300 + c.index] += 1.0
    hand_play_sum = [0] * _COLOURS
    unseen_play_sum = [0] * _COLOURS
    for k in range(_KINDS):
        col = k // 10
        if col >= ncol:
            break
        r = _RANK[k]
        if hand[k]:
            x[k] = hand[k]
            if PLAYABLE[r][tops[me][col]]:
                x[420 + k] = hand[k]
                hand_play_sum[col] += r * hand[k]
        if unseen[k]:
            x[360 + k] = unseen[k]
            if PLAYABLE[r][tops[me][col]]:
                unseen_play_sum[col] += r * unseen[k]
            if PLAYABLE[r][tops[opp][col]]:
                x[480 + k] = unseen[k]
    for col in range(ncol):
        pile = view.discard_piles[col]
        if pile:
            top = pile[-1]
            if PLAYABLE[top.rank][tops[opp][col]]:
                x[480 + top.index] += 1.0
    base = 9 * _KINDS
    for col in range(ncol):
        b = base + col * _PER_COLOUR
        x[b + 0] = exp_score[me][col] / 50.0
        x[b + 1] = exp_score[opp][col] / 50.0
        x[b + 2] = tops[me][col] / 10.0
        x[b + 3] = tops[opp][col] / 10.0
        x[b + 4] = wagers[me][col] / 3.0
        x[b + 5] = wagers[opp][col] / 3.0
        x[b + 6] = started[me][col]
        x[b + 7] = started[opp][col]
        x[b + 8] = hand_play_sum[col] / 50.0
        x[b + 9] = unseen_play_sum[col] / 50.0
    g = base + _COLOURS * _PER_COLOUR
    own = sum(exp_score[me])
    theirs = sum(exp_score[opp])
    x[g + 0] = view.deck_size / 50.0
    x[g + 1] = ((view.deck_size + 1) // 2) / 25.0
    x[g + 2] = own / 100.0
    x[g + 3] = theirs / 100.0
    x[g + 4] = (own - theirs) / 100.0
    x[g + 5] = len(view.own_known) / 8.0
    x[g + 6] = 1.0 if ncol == 6 else 0.0
    x[g + 7] = view.ply / 100.0
    return x


def features_batch(views: list[PlayerView]) -> npt.NDArray[np.float64]:
    """:func:`features` of several views, one row each."""
    out = np.zeros((len(views), NUM_FEATURES), np.float64)
    for i, v in enumerate(views):
        features(v, out[i])
    return out


def hand_affine(view: PlayerView) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The features as a function of the viewer's hand: ``f0`` (``(608,)``) and ``A``
    (``(608, 60)``) with ``features(replace(view, hand=h)) == f0 + A @ counts(h)`` for any
    hand ``h`` of the view's unseen cards (``counts``: cards per kind), the rest of the view
    unchanged. Inference about a hidden hand evaluates many guesses this way.

    >>> from dataclasses import replace
    >>> from lostcities import Round
    >>> v = Round.deal(seed=1).view(0)
    >>> f0, a = hand_affine(replace(v, hand=()))
    >>> counts = np.zeros(60); _ = [np.add.at(counts, c.index, 1) for c in v.hand]
    >>> bool(np.allclose(f0 + a @ counts, features(v)))
    True
    """
    f0 = features(replace(view, hand=()))
    a = np.zeros((NUM_FEATURES, _KINDS), np.float64)
    me = view.player
    ncol = view.variant.num_colors
    tops = [
        [max((c.rank for c in e), default=0) for e in view.expeditions[side]] for side in (0, 1)
    ]
    base = 9 * _KINDS
    for k in range(ncol * 10):
        col = k // 10
        r = _RANK[k]
        a[k, k] = 1.0  # hand
        a[360 + k, k] = -1.0  # no longer unseen
        if PLAYABLE[r][tops[me][col]]:
            a[420 + k, k] = 1.0
            a[base + col * _PER_COLOUR + 8, k] = r / 50.0
            a[base + col * _PER_COLOUR + 9, k] = -r / 50.0
        if PLAYABLE[r][tops[me ^ 1][col]]:
            a[480 + k, k] = -1.0
    return f0, a
