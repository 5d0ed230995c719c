"""Statistics checked against known values and against each other."""

from __future__ import annotations

import json
import math
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lostcities.cli import main
from lostcities.stats import (
    SprtParams,
    SprtSpecError,
    elo_to_score,
    fit_ladder,
    mean_ci,
    pentanomial,
    score_to_elo,
    sprt_bounds,
    sprt_decision,
    sprt_llr,
    wilson_ci,
)


@pytest.mark.parametrize(
    ("score", "elo"),
    [
        (0.5, 0.0),
        (0.75, 400 * math.log10(3)),  # 190.85
        (0.9, 400 * math.log10(9)),  # 381.70
        (10 / 11, 400.0),
        (0.64, 99.95),  # the familiar "64% is about 100 Elo"
    ],
)
def test_score_to_elo_known_values(score: float, elo: float) -> None:
    assert score_to_elo(score) == pytest.approx(elo, abs=0.01)
    assert score_to_elo(1 - score) == pytest.approx(-elo, abs=0.01)


@given(st.floats(-1500, 1500))
def test_elo_and_score_are_inverse(elo: float) -> None:
    assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo, abs=1e-6)


def test_score_to_elo_edges() -> None:
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf
    with pytest.raises(ValueError):
        score_to_elo(1.5)


def test_mean_ci_known_values() -> None:
    mean, (lo, hi) = mean_ci([2.0, 4.0, 6.0, 8.0])
    # sd = 2.582, se = 1.291, 1.96 * se = 2.530
    assert mean == 5.0
    assert (lo, hi) == pytest.approx((2.4697, 7.5303), abs=1e-4)
    with pytest.raises(ValueError):
        mean_ci([])


def test_mean_ci_covers_the_truth_about_95_percent_of_the_time() -> None:
    rng = random.Random(1)
    hits = 0
    for _ in range(2000):
        xs = [rng.gauss(3.0, 2.0) for _ in range(50)]
        _, (lo, hi) = mean_ci(xs)
        hits += lo <= 3.0 <= hi
    assert 0.93 <= hits / 2000 <= 0.965


def test_wilson_known_values() -> None:
    # 8 of 10: the textbook Wilson interval (0.490, 0.943)
    assert wilson_ci(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_ci(10, 10)[1] == 1.0 and wilson_ci(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_ci(0, 0)


def test_pentanomial_counts() -> None:
    assert pentanomial([0.0, 0.25, 0.25, 1.0]) == [1, 2, 0, 0, 1]


def test_sprt_bounds_are_walds() -> None:
    lo, hi = sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) and hi == pytest.approx(math.log(0.95 / 0.05))
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_sprt_llr_matches_the_normal_likelihood_ratio() -> None:
    # With the variance fixed, the GSPRT statistic is the exact log ratio of two normal
    # likelihoods; compute that directly.
    xs = [1.0, 0.5, 0.75, 0.5, 0.25, 1.0, 0.5]
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / n
    s0, s1 = elo_to_score(0), elo_to_score(50)

    def loglik(mu: float) -> float:
        return sum(-((x - mu) ** 2) / (2 * var) for x in xs)

    assert sprt_llr(xs, 0, 50) == pytest.approx(loglik(s1) - loglik(s0))
    assert sprt_llr([0.5], 0, 50) == 0.0


def test_sprt_without_spread_is_decided_without_an_absurd_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 26: all samples equal printed "LLR 139619.84" (a variance floor of 1e-6)
    assert sprt_llr([1.0] * 10, 0, 20) == math.inf
    assert sprt_llr([0.25] * 10, 0, 20) == -math.inf
    assert sprt_llr([0.5] * 10, -20, 20) == 0.0  # midway: no evidence either way
    assert sprt_decision(math.inf) == "H1" and sprt_decision(-math.inf) == "H0"
    argv = ["match", "discard", "random", "--deals", "200", "--seed", "1", "--jobs", "1"]
    assert main([*argv, "--sprt", "elo0=0,elo1=20"]) == 0
    out = capsys.readouterr().out
    assert "H1: no spread (LLR +∞)" in out and not re.search(r"LLR \d{4,}", out)
    assert main([*argv, "--sprt", "elo0=0,elo1=20", "--json"]) == 0

    def strict(constant: str) -> None:
        raise AssertionError(f"not JSON: {constant}")

    sprt = json.loads(capsys.readouterr().out, parse_constant=strict)["sprt"]
    assert sprt["result"] == "H1" and sprt["llr"] is None


def test_sprt_decides_the_right_way_on_simulated_pairs() -> None:
    rng = random.Random(5)
    for true_elo, want in ((0.0, "H0"), (40.0, "H1")):
        p = elo_to_score(true_elo)
        decided = []
        for _ in range(20):
            xs: list[float] = []
            result = None
            while result is None and len(xs) < 20000:
                xs.append(((rng.random() < p) + (rng.random() < p)) / 2)
                if len(xs) % 50 == 0:
                    result = sprt_decision(sprt_llr(xs, 0, 20))
            decided.append(result)
        assert decided.count(want) >= 17, decided


def test_sprt_params_parse() -> None:
    assert SprtParams.parse("elo0=0,elo1=20") == SprtParams(0.0, 20.0, 0.05, 0.05)
    assert (
        str(SprtParams.parse(" elo1=5, elo0=-5 ,beta=0.1")) == "elo0=-5,elo1=5,alpha=0.05,beta=0.1"
    )
    for bad in (
        "elo0=20,elo1=0",
        "elo0=0,elo1=x",
        "elo=3",
        "alpha=0.7",
        "elo0=0,elo1=inf",
        "nonsense",
    ):
        with pytest.raises(SprtSpecError):
            SprtParams.parse(bad)


def test_fit_ladder_recovers_consistent_ratings() -> None:
    # A scores 75% against B and 90% against C, B 75% against C: exactly 0, -190.8, -381.7.
    results = [(0, 1, 75.0, 100.0), (0, 2, 90.0, 100.0), (1, 2, 75.0, 100.0)]
    ladder = fit_ladder(3, results, prior_draws=0)
    d = 400 * math.log10(3)
    # consistent: 90% is 381.7 Elo = 2 x 190.8, so the maximum-likelihood fit is exact
    assert [e for e, _ in ladder] == pytest.approx([0.0, -d, -2 * d], abs=1e-6)
    assert ladder[0][1] == 0.0 and all(h > 0 for _, h in ladder[1:])


def test_fit_ladder_anchor_and_prior() -> None:
    sweep = [(0, 1, 0.0, 40.0)]
    e, h = fit_ladder(2, sweep)[1]
    assert math.isfinite(e) and e > 300 and h > 0  # finite thanks to the prior draw
    moved = fit_ladder(2, [(0, 1, 30.0, 40.0)], anchor=1, prior_draws=0)
    assert moved[1] == (0.0, 0.0) and moved[0][0] == pytest.approx(400 * math.log10(3))
    shrunk = fit_ladder(2, [(0, 1, 30.0, 40.0)], anchor=1)[0][0]
    assert 0 < shrunk < moved[0][0]  # the prior draw pulls towards equality
    with pytest.raises(ValueError, match="no games"):
        fit_ladder(3, [(0, 1, 1.0, 2.0)])


def test_fit_ladder_interval_matches_the_binomial_formula() -> None:
    (_, _), (e, h) = fit_ladder(2, [(0, 1, 250.0, 1000.0)], prior_draws=0)
    p = 0.25
    se_nats = 1 / math.sqrt(1000 * p * (1 - p))
    assert e == pytest.approx(400 * math.log10(3))
    assert h == pytest.approx(1.959964 * se_nats * 400 / math.log(10), rel=1e-4)
