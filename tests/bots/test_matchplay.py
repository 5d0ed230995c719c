"""Playing for the match: the match value of a margin, the compiled search's per-world
margins, and the search bots that use them (``match=1``) or not (``match=0``)."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lostcities import MatchContext, PlayerView, Round
from lostcities.bots import BotSpecError, make
from lostcities.bots.heuristic import HeuristicBot
from lostcities.bots.ismcts import IsmctsBot, flat_totals, smart_playout
from lostcities.bots.matchplay import flat_match_totals, match_reward, match_utility

contexts = st.builds(
    MatchContext,
    round=st.integers(1, 3),
    rounds=st.just(3),
    totals=st.tuples(st.integers(-150, 250), st.integers(-150, 250)),
    player=st.integers(0, 1),
)


def views(n: int, seed: int = 0) -> list[PlayerView]:
    """Views of heuristic self-play positions with a choice to make, from the deal on."""
    out: list[PlayerView] = []
    while len(out) < n:
        seed += 1
        r = Round.deal(seed=seed, starter=seed % 2)
        bot = HeuristicBot(seed=seed)
        for _ in range(random.Random(seed).randrange(0, 70)):
            if r.is_over():
                break
            r.push(bot.choose(r.view(r.to_move)))
        if not r.is_over() and len(r.legal_moves()) > 1:
            out.append(r.view(r.to_move))
    return out


def in_match(view: PlayerView, round_no: int, lead: int, rounds: int = 3) -> PlayerView:
    """``view`` as round ``round_no`` of a match, the viewer ``lead`` points ahead."""
    totals = (lead, 0) if view.player == 0 else (0, lead)
    ctx = MatchContext(round=round_no, rounds=rounds, totals=totals, player=view.player)
    return dataclasses.replace(view, match=ctx)


# -- the match value ---------------------------------------------------------------------------


@given(contexts, st.integers(-200, 200), st.integers(1, 60))
def test_the_match_value_rises_with_the_margin_and_is_zero_sum(
    ctx: MatchContext, margin: int, more: int
) -> None:
    u = match_utility(margin, ctx)
    assert -1 <= u <= 1
    assert match_utility(margin + more, ctx) > u
    other = dataclasses.replace(ctx, player=ctx.player ^ 1)
    assert match_utility(-margin, other) == pytest.approx(-u, abs=1e-12)


def test_a_leader_in_the_last_round_values_safety_and_a_trailer_risk() -> None:
    ahead = MatchContext(round=3, rounds=3, totals=(60, 0), player=0)
    behind = MatchContext(round=3, rounds=3, totals=(0, 60), player=0)
    # ahead by 60: losing the round by 20 is nearly as good as winning it by 40
    assert (
        match_utility(-20, ahead) > 0.9
        and match_utility(40, ahead) - match_utility(-20, ahead) < 0.1
    )
    # behind by 60: a round won by 40 is still a lost match; by 80 a won one
    assert match_utility(40, behind) < -0.8 < 0.8 < match_utility(80, behind)
    # in the first round the value is nearly linear in the margin
    first = MatchContext(round=1, rounds=3, totals=(0, 0), player=0)
    steps = [match_utility(m + 10, first) - match_utility(m, first) for m in (-40, -10, 20)]
    assert max(steps) / min(steps) < 1.6


def test_a_tie_break_for_the_viewer_counts_half_a_point() -> None:
    mine = MatchContext(3, 3, (10, 10), 0, tie_break="youngest", younger=0)
    theirs = MatchContext(3, 3, (10, 10), 0, tie_break="youngest", younger=1)
    draw = MatchContext(3, 3, (10, 10), 0)
    assert match_utility(0, mine) > match_utility(0, draw) > match_utility(0, theirs)
    assert match_utility(0, draw) == pytest.approx(0.0)


def test_no_context_no_match_reward() -> None:
    assert match_reward(None) is None
    ctx = MatchContext(2, 3, (5, 0), 1)
    reward = match_reward(ctx, sd=20.0)
    assert reward is not None and reward(7) == match_utility(7, ctx, sd=20.0)


def test_the_python_flat_search_with_tanh_as_its_reward_is_flat_totals() -> None:
    view = views(1, seed=40)[0]
    cands = list(view.legal_moves())[:3]
    a = flat_totals(view, cands, 6, random.Random(3))
    b = flat_match_totals(
        view, cands, 6, random.Random(3), lambda m: math.tanh(m / 15.0), smart_playout
    )
    assert a == b


# -- the bots ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["ismcts:iters=60,engine=python", "ismcts:iters=24,mode=tree,engine=python"]
)
def test_without_a_match_or_with_match_off_ismcts_plays_as_before(spec: str) -> None:
    for i, view in enumerate(views(6)):
        base = make(f"{spec}", seed=i).choose(view)
        assert make(f"{spec},match=1", seed=i).choose(view) == base  # a lone round: no context
        blind = make(f"{spec},match=0", seed=i).choose(in_match(view, 3, -30))
        assert blind == base


def test_match_aware_ismcts_maximises_the_mean_match_value_of_its_worlds() -> None:
    for i, view in enumerate(views(5, seed=10)):
        v = in_match(view, 3, [-25, 0, 25, -60, 10][i])
        bot = IsmctsBot(iters=40, seed=i, engine="python")
        cands = bot.search_candidates(v)
        rng = random.Random()
        rng.setstate(IsmctsBot(iters=40, seed=i, engine="python").rng.getstate())
        reward = match_reward(v.match)
        assert reward is not None
        k = len(cands)
        totals = flat_match_totals(v, cands, -(-40 // k), rng, reward, smart_playout)
        want = cands[max(range(k), key=lambda j: (totals[j], -j))]
        assert bot.choose(v) == want


def test_match_aware_and_blind_choices_differ_somewhere_in_a_close_last_round() -> None:
    differ = 0
    for i, view in enumerate(views(24, seed=20)):
        v = in_match(view, 3, -15)
        aware = make("ismcts:iters=60,engine=python", seed=i).choose(v)
        blind = make("ismcts:iters=60,engine=python,match=0", seed=i).choose(v)
        differ += aware != blind
    assert differ > 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:msd=0", "msd must be positive"),
        ("ismcts:match=-1", "match"),
        ("ismcts:msd=x", "msd"),
    ],
)
def test_bad_match_options_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        make(spec)


# -- the compiled search and expert --------------------------------------------------------------


def test_compiled_per_world_margins_are_the_bulk_searchs_worlds() -> None:
    np = pytest.importorskip("numpy")
    pytest.importorskip("numba")
    from lostcities.fast.search import FlatSearch

    for i, view in enumerate(views(6, seed=30)):
        cands = list(view.legal_moves())[:4]
        for kw in ({"rollout": "smart", "rng": random.Random(i)}, {"rollout": "cheap", "seed": i}):
            bulk = FlatSearch(view, cands, **kw)  # type: ignore[arg-type]
            bulk.run(7)
            kw2 = dict(kw, rng=random.Random(i)) if "rng" in kw else kw
            each = FlatSearch(view, cands, **kw2)  # type: ignore[arg-type]
            block = np.concatenate([each.margins(3), each.margins(4)])
            assert block.shape == (7, len(cands))
            assert (block.sum(axis=0) == bulk.margin_sums).all() and (
                each.margin_sums == bulk.margin_sums
            ).all()
            assert each.value_sums.tolist() == pytest.approx(bulk.value_sums.tolist(), abs=1e-12)
            assert each.worlds == bulk.worlds == 7
            if "rng" in kw:
                assert kw2["rng"].getstate() == kw["rng"].getstate()  # type: ignore[union-attr]
                assert each.value_sums.tolist() == bulk.value_sums.tolist()  # bit for bit


def test_compiled_rewarded_search_equals_the_python_engines() -> None:
    pytest.importorskip("numba")
    from lostcities.fast.search import FlatSearch

    for i, view in enumerate(views(6, seed=50)):
        v = in_match(view, 2 + i % 2, [-40, 5, 30][i % 3])
        reward = match_reward(v.match)
        assert reward is not None
        cands = list(v.legal_moves())[:4]
        fs = FlatSearch(v, cands, rollout="smart", rng=random.Random(i), reward=reward)
        fs.run(2)
        fs.run(3)
        want = flat_match_totals(v, cands, 5, random.Random(i), reward, smart_playout)
        assert fs.value_sums.tolist() == pytest.approx(want, abs=1e-9)


def test_ismcts_chooses_the_same_match_aware_move_on_both_engines() -> None:
    pytest.importorskip("numba")
    for i, view in enumerate(views(6, seed=60)):
        v = in_match(view, 3, [-20, 20, 0][i % 3])
        fast = make("ismcts:iters=80,engine=fast", seed=i).choose(v)
        assert make("ismcts:iters=80,engine=python", seed=i).choose(v) == fast


def test_expert_without_a_match_or_with_match_off_plays_as_before() -> None:
    pytest.importorskip("numba")
    pytest.importorskip("numpy")
    for i, view in enumerate(views(5, seed=70)):
        base = make("expert:iters=150", seed=i).choose(view)
        assert make("expert:iters=150,match=0", seed=i).choose(in_match(view, 3, 25)) == base


def test_expert_match_aware_maximises_the_mean_match_value_plus_its_prior() -> None:
    pytest.importorskip("numba")
    from lostcities.bots.expert import ExpertBot
    from lostcities.fast.search import FlatSearch

    differ = 0
    for i, view in enumerate(views(8, seed=80)):
        v = in_match(view, 3, [-30, 15, -10, 40][i % 4])
        bot = ExpertBot(iters=100, seed=i, rollout="smart")
        cands, probs = bot.candidates(v)
        ref = ExpertBot(iters=100, seed=i, rollout="smart")
        reward = ref.reward(v)
        assert reward is not None
        if len(cands) == 1:
            continue
        fs = FlatSearch(v, cands, rollout="smart", rng=ref.rng, reward=reward)
        fs.run(-(-100 // len(cands)))
        score = [
            s / fs.worlds + 0.05 * math.log(max(p, 1e-12))
            for s, p in zip(fs.value_sums, probs, strict=True)
        ]
        want = cands[max(range(len(cands)), key=lambda j: (score[j], -j))]
        assert bot.choose(v) == want
        differ += want != ExpertBot(iters=100, seed=i, match=False, rollout="smart").choose(v)
    assert differ > 0


def test_expert_with_network_rollouts_scores_the_match_value_in_points() -> None:
    pytest.importorskip("numba")
    import numpy as np

    from lostcities.bots.expert import NET_DEPTH, NET_PRIOR, ExpertBot
    from lostcities.bots.matchplay import points_per_utility
    from lostcities.fast.netsearch import NetRollouts

    differ = 0
    for i, view in enumerate(views(8, seed=80)):
        v = in_match(view, 3, [-30, 15, -10, 40][i % 4])
        bot = ExpertBot(iters=64, seed=i)
        cands, probs = bot.candidates(v)
        if len(cands) == 1:
            continue
        ref = ExpertBot(iters=64, seed=i)
        reward = ref.reward(v)
        assert reward is not None and v.match is not None
        unit = points_per_utility(v.match)
        search = NetRollouts(ref.network, v, cands, seed=ref.rng.getrandbits(63), depth=NET_DEPTH)
        margins = np.rint(search.run(-(-64 // len(cands))))
        score = [
            np.mean([reward(int(m)) * unit for m in row]) + NET_PRIOR * math.log(max(p, 1e-12))
            for row, p in zip(margins, probs, strict=True)
        ]
        want = cands[max(range(len(cands)), key=lambda j: (score[j], -j))]
        assert bot.choose(v) == want
        # the match value is not the margin: a leader's and a trailer's worlds weigh apart
        blind = [float(np.mean(row)) for row in margins]
        differ += any(
            abs(float(np.mean([reward(int(m)) * unit for m in row])) - b) > 0.5
            for row, b in zip(margins, blind, strict=True)
        )
    assert differ > 0


def test_expert_spec_takes_the_match_options() -> None:
    pytest.importorskip("numpy")
    bot = make("expert:iters=10,match=0,msd=20")
    assert bot.match is False and bot.msd == 20.0  # type: ignore[attr-defined]
    with pytest.raises(BotSpecError, match="msd"):
        make("expert:msd=-3")
