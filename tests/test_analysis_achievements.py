"""The analysis of an achievements game sees and scores its goal cards (issue 25): the
positions are rebuilt with :meth:`Round.replayed`, and their play-outs claim the goals."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lostcities import Match, Round
from lostcities.bots import make
from lostcities.bots.analysis import evaluate, positions, review
from lostcities.errors import NoSuchPlyError
from lostcities.record import GameRecord
from lostcities.referee import Referee


@pytest.fixture(scope="module")
def match() -> Match:
    """One achievements round of heuristic against heuristic in which the goals split 30-0."""
    m = Match(1, seed=4, achievements=True)
    Referee(m, [make("heuristic", seed=1), make("heuristic", seed=2)]).play_match()
    r = m.rounds[0]
    assert (r.goal_points(0), r.goal_points(1)) == (30, 0)  # what the checks below rely on
    return m


def test_positions_keep_the_goal_cards(match: Match) -> None:
    r = match.rounds[0]
    items = positions(match.rounds)
    assert [p.move for p in items] == list(r.history)
    for p in items:
        assert p.view.achievements is not None and p.view.achievements.goals == r.goals
    # the claims come back move by move: none at the deal, the round's own after the last move
    assert all(c is None for c in items[0].view.achievements.claims)  # type: ignore[union-attr]
    after = r.replayed()
    assert after.claims == r.claims and after.scores() == r.scores()


def test_the_review_counts_the_goal_points(match: Match) -> None:
    r = match.rounds[0]
    last = positions(match.rounds)[-1]  # the move that ends the round: its margin is known
    me = last.view.player
    s = r.scores()
    rv = review(make("ismcts:iters=40", seed=1), last, worlds=4)
    assert rv.margin == s[me] - s[me ^ 1]
    blind = dataclasses.replace(last.view, achievements=None)
    classic = evaluate(blind, [last.move], worlds=4, rng=random.Random(0), engine="python")
    assert abs(rv.margin - classic.moves[0].margin) == 30  # the goals' points, and only them


def test_lostcities_analyse_counts_them_from_a_record(match: Match, tmp_path: Path) -> None:
    path = tmp_path / "goals.lcr"
    path.write_text(str(GameRecord.from_match(match, players=("a", "b"))), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "analyse", str(path), "--worlds", "4", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    last = json.loads(out.stdout.splitlines()[0])["moves"][-1]
    s = match.rounds[0].scores()
    assert last["margin"] == s[last["player"]] - s[last["player"] ^ 1]  # goal points included


def test_a_goal_view_is_played_out_with_its_goals_whatever_the_engine(match: Match) -> None:
    view = positions(match.rounds)[20].view
    cands = list(view.legal_moves())[:4]
    fast = evaluate(view, cands, worlds=30, rng=random.Random(3), engine="fast")
    python = evaluate(view, cands, worlds=30, rng=random.Random(3), engine="python")
    assert fast == python  # the compiled engine knows no goals: the core plays them
    blind = dataclasses.replace(view, achievements=None)
    classic = evaluate(blind, cands, worlds=30, rng=random.Random(3), engine="python")
    assert classic != python


def test_replayed_rebuilds_a_round_up_to_a_ply() -> None:
    r = Round.deal(seed=9, achievements=True, max_turns=30)
    for _ in range(12):
        r.push(r.legal_moves()[0])
    x = r.replayed(7)
    assert x.history == r.history[:7] and x.goals == r.goals and x.max_turns == 30
    assert x.deal_order == r.deal_order and x.starter == r.starter and x.variant == r.variant
    while x.ply < r.ply:
        x.push(r.history[x.ply])
    assert x.hands == r.hands and x.claims == r.claims
    x.pop()  # the rebuilt round can take its moves back to the deal
    classic = Round.deal(seed=9)
    assert classic.replayed().achievements is None
    for bad in (-1, 13):
        with pytest.raises(NoSuchPlyError, match="no ply"):
            r.replayed(bad)
