"""The jittered smart rollouts (``rollout=jitter``): smart exactly without noise, legal and
reproducible with it, and the bots' options."""

from __future__ import annotations

import random

import pytest

from lostcities import Move, Round
from lostcities.bots import make
from lostcities.bots.base import BotSpecError

from .positions import random_positions

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lostcities.fast import kernels as K  # noqa: E402
from lostcities.fast.jitter import (  # noqa: E402
    MAX_LEVEL,
    InvalidJitterError,
    Jitter,
    jitter_action,
    random_card_action,
)
from lostcities.fast.search import FlatSearch  # noqa: E402
from lostcities.fast.smart import smart_action, smart_playout_scores  # noqa: E402
from lostcities.fast.state import state_from_round  # noqa: E402


def _g(seed: int) -> np.ndarray:
    return np.array([seed * 2 + 1, seed + 12345], np.uint64)


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_no_noise_is_smart_move_for_move(variant: str) -> None:
    off = Jitter(0, 0.0)
    for r in random_positions(60, variant, seed=5):
        s = state_from_round(r)
        g = _g(1)
        while s[K.OVER] == 0:
            a = jitter_action(s, off.spread, g, off.eps)
            assert a == smart_action(s)
            K.apply(s, a)
        assert g.tolist() == _g(1).tolist()  # nothing drawn
        assert off.playout_scores(state_from_round(r)) == smart_playout_scores(state_from_round(r))


@pytest.mark.parametrize("variant", ["classic", "long"])
def test_no_noise_searches_exactly_as_smart(variant: str) -> None:
    for i, r in enumerate(random_positions(6, variant, seed=8, views=False)):
        view = r.view(r.to_move)
        cands = list(view.legal_moves())[:6]
        a, b = random.Random(i), random.Random(i)
        smart = FlatSearch(view, cands, rollout="smart", rng=a)
        jit = FlatSearch(view, cands, rollout="jitter", jitter=Jitter(0, 0.0), rng=b)
        smart.run(40)
        jit.run(40)
        assert smart.value_sums.tolist() == jit.value_sums.tolist()
        assert smart.margin_sums.tolist() == jit.margin_sums.tolist()
        assert a.getstate() == b.getstate()


def test_no_noise_with_given_hands_is_smart() -> None:
    r = Round.deal(seed=21)
    for k in (3, 9, 12):
        moves = r.legal_moves()
        r.push(moves[k % len(moves)])
    view = r.view(r.to_move)
    sampler = view.sampler()
    hands = [random.Random(k).sample(sampler.unseen, sampler.hidden) for k in range(5)]
    cands = list(view.legal_moves())[:4]
    sums = []
    for rollout, extra in (("smart", {}), ("jitter", {"jitter": Jitter(0, 0.0)})):
        s = FlatSearch(view, cands, rollout=rollout, rng=random.Random(3), hands=hands, **extra)  # type: ignore[arg-type]
        s.run(12)
        sums.append(s.margin_sums.tolist())
    assert sums[0] == sums[1]


@pytest.mark.parametrize("level, eps", [(1, 0.0), (3, 0.0), (0, 0.2), (2, 0.1)])
def test_noise_is_reproducible_and_changes_the_values(level: int, eps: float) -> None:
    r = Round.deal(seed=33)
    view = r.view(r.to_move)
    cands = list(view.legal_moves())[:5]
    jt = Jitter(level, eps)

    def sums(seed: int, rollout: str = "jitter") -> tuple[list[int], object]:
        rng = random.Random(seed)
        s = FlatSearch(view, cands, rollout=rollout, jitter=jt, rng=rng)
        s.run(60)
        return [int(x) for x in s.margin_sums], rng.getstate()

    assert sums(4) == sums(4)
    noisy, after = sums(4)
    smart, smart_after = sums(4, "smart")
    assert noisy != smart
    assert after == smart_after  # the same worlds were dealt


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    level=st.integers(0, MAX_LEVEL),
    eps=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
    variant=st.sampled_from(["classic", "long"]),
)
def test_the_jittered_policy_only_makes_legal_moves(
    seed: int, level: int, eps: float, variant: str
) -> None:
    jt = Jitter(level, eps)
    for r in random_positions(3, variant, seed=seed):
        s = state_from_round(r)
        g = _g(seed)
        plies = 0
        while s[K.OVER] == 0:
            a = jitter_action(s, jt.spread, g, jt.eps)
            assert K.is_legal(s, a), Move.from_index(a)
            K.apply(s, a)
            plies += 1
            assert plies < 400
        t = state_from_round(r)
        jt.playout(t, seed)
        assert t[K.OVER] != 0


def test_random_card_actions_are_plausible_and_cover_both_kinds() -> None:
    kinds = {"play": 0, "discard": 0}
    for r in random_positions(40, "classic", seed=2):
        s = state_from_round(r)
        g = _g(7)
        for _ in range(10):
            ca = random_card_action(s, g)
            assert K.is_legal(s, ca * 7)  # with a draw from the draw pile
            if ca < 60:
                kinds["play"] += 1
                p = r.to_move
                assert r.expeditions[p][Move.from_index(ca * 7).card.color], "a started one"
            else:
                kinds["discard"] += 1
    assert kinds["play"] > 50 and kinds["discard"] > 50


def test_bad_jitter_values_are_refused() -> None:
    for bad in (-1, MAX_LEVEL + 1, 1.5, True):
        with pytest.raises(InvalidJitterError):
            Jitter(bad)  # type: ignore[arg-type]
    for eps in (-0.1, 1.5, float("nan")):
        with pytest.raises(InvalidJitterError):
            Jitter(1, eps)


@pytest.mark.parametrize("bot", ["expert", "ismcts"])
def test_the_bots_take_the_jitter_options(bot: str) -> None:
    b = make(f"{bot}:iters=50,rollout=jitter,jitter=2,eps=0.05", seed=1)
    assert b.jitter is not None and (b.jitter.level, b.jitter.eps) == (2, 0.05)  # type: ignore[attr-defined]
    d = make(f"{bot}:iters=50,rollout=jitter", seed=1)
    assert (d.jitter.level, d.jitter.eps) == (1, 0.0)  # type: ignore[attr-defined]
    assert make(f"{bot}:iters=50", seed=1).jitter is None  # type: ignore[attr-defined]
    for spec, words in [
        (f"{bot}:jitter=2", "need rollout=jitter"),
        (f"{bot}:eps=0.1", "need rollout=jitter"),
        (f"{bot}:rollout=jitter,jitter=9", "jitter level must be a whole number 0 .. 5"),
        (f"{bot}:rollout=jitter,jitter=-1", "jitter level must be"),
        (f"{bot}:rollout=jitter,jitter=x", "jitter"),
        (f"{bot}:rollout=jitter,eps=1.5", "jitter eps must be a number 0 .. 1"),
        (f"{bot}:rollout=jitter,eps=-1", "eps"),
        (f"{bot}:rollout=wobble", "rollout must be"),
    ]:
        with pytest.raises(BotSpecError, match=words):
            make(spec)
    if bot == "ismcts":
        with pytest.raises(BotSpecError, match="rollout=jitter needs mode=flat"):
            make("ismcts:rollout=jitter,mode=tree")


@pytest.mark.parametrize("bot", ["expert", "ismcts"])
def test_a_jittered_bot_is_reproducible_and_without_noise_plays_as_smart(bot: str) -> None:
    for k in range(4):
        r = Round.deal(seed=90 + k, variant="long" if k % 2 else "classic")
        for m in r.legal_moves()[::37][:3]:
            if not r.is_over():
                r.push(m)
        view = r.view(r.to_move)
        noisy = [make(f"{bot}:iters=300,rollout=jitter,jitter=2,eps=0.1", seed=k) for _ in "ab"]
        a, b = (x.choose(view) for x in noisy)
        assert a == b and a in view.legal_moves()
        smart = make(f"{bot}:iters=300", seed=k)
        off = make(f"{bot}:iters=300,rollout=jitter,jitter=0,eps=0", seed=k)
        assert smart.choose(view) == off.choose(view)
        assert smart.rng.getstate() == off.rng.getstate()
