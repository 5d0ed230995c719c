"""The compiled flat Monte Carlo search against the same search on the pure-Python core."""

from __future__ import annotations

import math
import random

import pytest

from lostcities import IllegalMoveError, Round
from lostcities.bots.rollout import playout_python

from .positions import random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.search import FlatSearch, flat_values  # noqa: E402


def flat_given(fs: FlatSearch, deals: list[list[int]]) -> tuple[list[float], list[int]]:
    """The cheap flat search's sums over given deals (a row of unseen card kinds per world,
    dealt as the compiled search deals them, :func:`lostcities.fast.kernels.deal_world`)."""
    value = [0.0] * len(fs.candidates)
    margin = [0] * len(fs.candidates)
    world = np.empty_like(fs.template)
    t = np.empty_like(fs.template)
    for deal in deals:
        K.deal_world(world, fs.template, fs.opp, fs.first, np.array(deal, np.int64))
        for j, a in enumerate(fs.actions.tolist()):
            t[:] = world
            K.apply(t, a)
            K.playout(t)
            m = int(K.score(t, fs.me)) - int(K.score(t, fs.opp))
            margin[j] += m
            value[j] += float(np.tanh(m / fs.scale))
    return value, margin


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_given_deals_score_like_python_playouts(variant: str) -> None:
    rng = random.Random(2)
    for r in random_positions(25, variant, seed=12):
        view = r.view(r.to_move)
        moves = list(view.legal_moves())
        cands = rng.sample(moves, min(4, len(moves)))
        fs = FlatSearch(view, cands, scale=25.0)
        sampler = view.sampler()
        unseen = list(sampler.unseen)
        hidden = sampler.hidden
        deals = []
        want_margin = [0] * len(cands)
        want_value = [0.0] * len(cands)
        opp = view.player ^ 1
        for _ in range(6):
            rng.shuffle(unseen)
            deals.append([c.index for c in unseen])
            # the compiled deal: the draw pile's next card is the last of the row
            world = sampler.deal(unseen[:hidden] + unseen[hidden:][::-1])
            for j, m in enumerate(cands):
                w = world.copy(stack=False)
                w.push(m)
                s = playout_python(w)
                margin = s[view.player] - s[opp]
                want_margin[j] += margin
                want_value[j] += math.tanh(margin / 25.0)
        v, mg = flat_given(fs, deals)
        assert mg == want_margin
        assert v == pytest.approx(want_value, abs=1e-9)


def test_flat_values_are_reproducible_and_chunkable() -> None:
    r = Round.deal(seed=21)
    for _ in range(14):
        r.push(r.legal_moves()[0])
    view = r.view(r.to_move)
    cands = list(view.legal_moves())[:5]
    a = flat_values(view, cands, 200, seed=3)
    assert a == flat_values(view, cands, 200, seed=3)
    assert a != flat_values(view, cands, 200, seed=4)
    fs = FlatSearch(view, cands, seed=3)
    fs.run(120)
    fs.run(80)
    assert fs.worlds == 200 and fs.values() == pytest.approx(a)
    assert len(set(a)) > 1  # the candidates are told apart


def test_flat_search_checks_its_input() -> None:
    r = Round.deal(seed=1)
    view = r.view(1)  # not player 1's turn
    with pytest.raises(IllegalMoveError):
        FlatSearch(view, [r.legal_moves()[0]])
    with pytest.raises(ValueError, match="no candidate"):
        FlatSearch(r.view(0), [])
    with pytest.raises(ValueError, match="scale"):
        FlatSearch(r.view(0), [r.legal_moves()[0]], scale=0)
    assert FlatSearch(r.view(0), [r.legal_moves()[0]]).values() == [0.0]
