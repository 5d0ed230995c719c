"""The network's input: one player's :class:`~lostcities.PlayerView` as a float vector.

Built from the view alone (so it cannot hold a hidden card), from the point of view of the
player to move, for both variants (the long game's sixth colour is zeros in the classic
game, and one input says which variant it is). Cards are counted by *kind*: ``card.index``
(10 per colour: the wager, then 2 .. 10), 60 kinds in all.

(the named offsets of each block and cell: :mod:`lostcities.netinput`)

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

import lostcities.netinput as L
from lostcities.cards import ALL_CARDS
from lostcities.rules import PLAYABLE, PlayerView
from lostcities.scoring import score_expedition

__all__ = ["FEATURES_VERSION", "NUM_FEATURES", "features", "features_batch", "hand_affine"]

FEATURES_VERSION = 1
"""Bumped whenever the layout changes (weights record the version they were trained on)."""

_KINDS = L.KINDS
_COLOURS = L.COLOURS
_PER_COLOUR = L.PER_COLOUR
NUM_FEATURES = L.NUM_FEATURES
"""Length of the vector (608; the layout's named offsets: :mod:`lostcities.netinput`)."""

_RANK = [c.rank for c in ALL_CARDS]


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
    for side, base in ((me, L.OWN_EXPEDITIONS), (opp, L.OPP_EXPEDITIONS)):
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
            x[L.DISCARDS + c.index] += 1.0
        if pile:
            x[L.DISCARD_TOPS + pile[-1].index] = 1.0
    for c in view.opponent_known:
        x[L.OPP_KNOWN + c.index] += 1.0
    hand_play_sum = [0] * _COLOURS
    unseen_play_sum = [0] * _COLOURS
    for k in range(_KINDS):
        col = k // 10
        if col >= ncol:
            break
        r = _RANK[k]
        if hand[k]:
            x[L.HAND + k] = hand[k]
            if PLAYABLE[r][tops[me][col]]:
                x[L.PLAYABLE + k] = hand[k]
                hand_play_sum[col] += r * hand[k]
        if unseen[k]:
            x[L.UNSEEN + k] = unseen[k]
            if PLAYABLE[r][tops[me][col]]:
                unseen_play_sum[col] += r * unseen[k]
            if PLAYABLE[r][tops[opp][col]]:
                x[L.OPP_PLAYABLE + k] = unseen[k]
    for col in range(ncol):
        pile = view.discard_piles[col]
        if pile:
            top = pile[-1]
            if PLAYABLE[top.rank][tops[opp][col]]:
                x[L.OPP_PLAYABLE + top.index] += 1.0
    for col in range(ncol):
        b = L.COLOUR + col * _PER_COLOUR
        for side, d in ((me, 0), (opp, 1)):
            x[b + L.COLOUR_SCORE + d] = exp_score[side][col] / 50.0
            x[b + L.COLOUR_TOP + d] = tops[side][col] / 10.0
            x[b + L.COLOUR_WAGERS + d] = wagers[side][col] / 3.0
            x[b + L.COLOUR_STARTED + d] = started[side][col]
        x[b + L.COLOUR_HAND_SUM] = hand_play_sum[col] / 50.0
        x[b + L.COLOUR_UNSEEN_SUM] = unseen_play_sum[col] / 50.0
    g = L.GLOBAL
    own = sum(exp_score[me])
    theirs = sum(exp_score[opp])
    x[g + L.GLOBAL_DECK] = view.deck_size / 50.0
    x[g + L.GLOBAL_TURNS_LEFT] = ((view.deck_size + 1) // 2) / 25.0
    x[g + L.GLOBAL_OWN_TOTAL] = own / 100.0
    x[g + L.GLOBAL_OPP_TOTAL] = theirs / 100.0
    x[g + L.GLOBAL_MARGIN] = (own - theirs) / 100.0
    x[g + L.GLOBAL_OWN_KNOWN] = len(view.own_known) / 8.0
    x[g + L.GLOBAL_LONG] = 1.0 if ncol == 6 else 0.0
    x[g + L.GLOBAL_PLY] = view.ply / 100.0
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
    for k in range(ncol * 10):
        col = k // 10
        r = _RANK[k]
        b = L.COLOUR + col * _PER_COLOUR
        a[L.HAND + k, k] = 1.0
        a[L.UNSEEN + k, k] = -1.0  # no longer unseen
        if PLAYABLE[r][tops[me][col]]:
            a[L.PLAYABLE + k, k] = 1.0
            a[b + L.COLOUR_HAND_SUM, k] = r / 50.0
            a[b + L.COLOUR_UNSEEN_SUM, k] = -r / 50.0
        if PLAYABLE[r][tops[me ^ 1][col]]:
            a[L.OPP_PLAYABLE + k, k] = -1.0
    return f0, a
