"""The one flat search: the Python twin (``PythonFlatSearch``) against the compiled
``FlatSearch``, bit for bit, and the factory that picks between them."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import random

import pytest

from lostcities import IllegalMoveError, MatchContext, PlayerView, Round
from lostcities.bots.flat import FlatSearcher, PythonFlatSearch, flat_search
from lostcities.bots.matchplay import match_reward


def views(n: int, variant: str = "classic", seed: int = 0) -> list[PlayerView]:
    """Views of positions after random play with a choice to make, from the deal on."""
    rng = random.Random(seed)
    out: list[PlayerView] = []
    k = 0
    while len(out) < n:
        k += 1
        r = Round.deal(seed=seed * 1000 + k, variant=variant, starter=k % 2)
        for _ in range(rng.randrange(0, 100)):
            if r.is_over():
                break
            moves = r.legal_moves()
            r.push(moves[rng.randrange(len(moves))])
        if not r.is_over() and len(r.legal_moves()) > 1:
            out.append(r.view(r.to_move))
    return out


def pair(
    view: PlayerView, cands: list, seed: int, **kw: object
) -> tuple[object, PythonFlatSearch, random.Random, random.Random]:
    """The compiled search and the twin of the same arguments, each with its own generator
    in the same state."""
    from lostcities.fast.search import FlatSearch

    a, b = random.Random(seed), random.Random(seed)
    return FlatSearch(view, cands, rng=a, **kw), PythonFlatSearch(view, cands, rng=b, **kw), a, b  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ["classic", "long"])
@pytest.mark.parametrize("rollout", ["smart", "cheap"])
def test_the_twin_sums_what_the_compiled_search_sums(variant: str, rollout: str) -> None:
    pick = random.Random(7)
    for i, view in enumerate(views(8, variant, seed=3)):
        moves = list(view.legal_moves())
        cands = pick.sample(moves, min(5, len(moves)))
        fast, py, a, b = pair(view, cands, i, rollout=rollout, scale=15.0)
        fast.run(3)
        py.run(3)
        fast.run(4)
        py.run(4)
        assert fast.value_sums.tolist() == py.value_sums
        assert fast.margin_sums.tolist() == py.margin_sums
        assert fast.worlds == py.worlds == 7
        assert fast.values() == py.values()
        assert a.getstate() == b.getstate()  # the same numbers drawn


def test_the_twin_gives_the_compiled_searchs_per_world_margins_and_rewards() -> None:
    for i, view in enumerate(views(6, seed=5)):
        ctx = MatchContext(round=3, rounds=3, totals=(20, 0), player=view.player)
        reward = match_reward(ctx)
        cands = list(view.legal_moves())[:4]
        fast, py, a, b = pair(view, cands, i, rollout="smart", reward=reward)
        assert fast.margins(2).tolist() == py.margins(2)
        fast.run(2)
        py.run(2)
        fast.run(3)
        py.run(3)
        assert fast.value_sums.tolist() == py.value_sums
        assert fast.margin_sums.tolist() == py.margin_sums
        assert a.getstate() == b.getstate()


def test_the_twin_deals_given_hands_as_the_compiled_search() -> None:
    for i, view in enumerate(views(6, seed=9)):
        sampler = view.sampler()
        deal = random.Random(i)
        hands = [deal.sample(sampler.unseen, sampler.hidden) for _ in range(3)]
        cands = list(view.legal_moves())[:3]
        fast, py, a, b = pair(view, cands, i, rollout="smart", hands=hands)
        fast.run(2)
        py.run(2)
        fast.run_until(math.inf, max_worlds=3)
        py.run_until(math.inf, max_worlds=3)
        assert fast.value_sums.tolist() == py.value_sums
        assert fast.margin_sums.tolist() == py.margin_sums
        assert a.getstate() == b.getstate()


def test_the_factory_picks_the_engine() -> None:
    """``flat_search`` runs the engine it names with the arguments it is given (the same
    sums as that engine built directly), and searches a goal game in Python, goals and all,
    even when asked for the compiled engine."""
    view = views(1, seed=11)[0]
    cands = list(view.legal_moves())[:2]

    def sums(search: FlatSearcher) -> tuple[list[float], list[float]]:
        search.run(3)
        return [float(x) for x in search.value_sums], [float(x) for x in search.margin_sums]

    kw: dict[str, object] = {"rollout": "smart", "scale": 9.0}
    made = flat_search(view, cands, engine="python", rng=random.Random(1), **kw)  # type: ignore[arg-type]
    assert isinstance(made, PythonFlatSearch)
    direct = PythonFlatSearch(view, cands, rng=random.Random(1), **kw)  # type: ignore[arg-type]
    assert sums(made) == sums(direct)
    other_scale = flat_search(view, cands, engine="python", rng=random.Random(1), rollout="smart")
    assert sums(other_scale)[0] != sums(direct)[0]  # the scale reached the search
    goals = Round.deal(seed=2, achievements=True).view(0)
    gcands = list(goals.legal_moves())[:2]
    # the compiled engine knows no goals: a goal game searches in Python
    made = flat_search(goals, gcands, engine="fast", rng=random.Random(2), rollout="smart")
    assert isinstance(made, PythonFlatSearch)
    direct = PythonFlatSearch(goals, gcands, rng=random.Random(2), rollout="smart")
    blind = PythonFlatSearch(
        dataclasses.replace(goals, achievements=None), gcands, rng=random.Random(2), rollout="smart"
    )
    assert sums(made) == sums(direct) != sums(blind)  # the goals' points are in the margins
    with pytest.raises(ValueError, match="engine must be"):
        flat_search(view, cands, engine="gpu")
    if importlib.util.find_spec("numba") is not None:
        from lostcities.fast.search import FlatSearch

        made = flat_search(view, cands, engine="fast", rng=random.Random(1), **kw)  # type: ignore[arg-type]
        assert isinstance(made, FlatSearch)
        compiled = FlatSearch(view, cands, rng=random.Random(1), **kw)  # type: ignore[arg-type]
        twin = PythonFlatSearch(view, cands, rng=random.Random(1), **kw)  # type: ignore[arg-type]
        assert sums(made) == sums(compiled) == sums(twin)


def test_the_twin_checks_its_input_as_the_compiled_search() -> None:
    r = Round.deal(seed=1)
    move = r.legal_moves()[0]
    with pytest.raises(IllegalMoveError):
        PythonFlatSearch(r.view(1), [move])  # not player 1's turn
    with pytest.raises(ValueError, match="no candidate"):
        PythonFlatSearch(r.view(0), [])
    with pytest.raises(ValueError, match="scale"):
        PythonFlatSearch(r.view(0), [move], scale=0)
    with pytest.raises(ValueError, match="rollout"):
        PythonFlatSearch(r.view(0), [move], rollout="clever")
    with pytest.raises(ValueError, match="not unseen"):
        PythonFlatSearch(r.view(0), [move], hands=[list(r.view(0).hand)])
    s = PythonFlatSearch(r.view(0), [move], seed=3)
    assert s.values() == [0.0] and s.margins(0) == []
    s.run_until(-1.0)  # a deadline past: still one world
    assert s.worlds == 1
    t = PythonFlatSearch(r.view(0), [move], seed=3)
    t.run(1)
    assert t.value_sums == s.value_sums  # seed: the worlds of random.Random(seed)
