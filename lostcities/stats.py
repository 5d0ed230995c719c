"""Statistics for rating bots: Elo, confidence intervals, the SPRT and an Elo ladder fit.

Pure functions on plain numbers (no dependencies). Elo here is the logistic Elo of chess
ratings: a player expected to score ``s`` (a win 1, a draw 1/2, a loss 0) is
``-400 log10(1/s - 1)`` points stronger.

>>> round(score_to_elo(0.75), 1)
190.8
>>> elo_to_score(0.0)
0.5
>>> mean, (low, high) = mean_ci([1.0, 0.5, 0.5, 0.0])
>>> mean, round(low, 3), round(high, 3)
(0.5, 0.1, 0.9)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Z95",
    "SprtParams",
    "SprtSpecError",
    "elo_to_score",
    "fit_ladder",
    "mean_ci",
    "pentanomial",
    "score_to_elo",
    "sprt_bounds",
    "sprt_decision",
    "sprt_llr",
    "wilson_ci",
]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

_ELO_PER_NAT = 400.0 / math.log(10.0)


class SprtSpecError(ValueError):
    """An SPRT specification that cannot be used (``'elo0=20,elo1=0'``)."""


def score_to_elo(score: float) -> float:
    """The Elo difference that makes ``score`` the expected score; +-inf at 1 and 0.

    :raises ValueError: for a score outside [0, 1].

    >>> score_to_elo(0.5)
    0.0
    >>> round(score_to_elo(0.25), 1)
    -190.8
    >>> score_to_elo(1.0)
    inf
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"invalid score: {score!r} (expected 0..1)")
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # no -0.0


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger.

    >>> round(elo_to_score(400), 4)
    0.9091
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, tuple[float, float]]:
    """The mean of ``values`` and its normal-approximation confidence interval
    ``mean +- z * sd / sqrt(n)`` (sample standard deviation). With fewer than two values
    the interval is ``(-inf, inf)``.

    :raises ValueError: for no values.

    >>> mean_ci([2.0, 4.0, 6.0, 8.0])[0]
    5.0
    >>> [round(x, 3) for x in mean_ci([2.0, 4.0, 6.0, 8.0])[1]]
    [2.47, 7.53]
    >>> mean_ci([3.0])
    (3.0, (-inf, inf))
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean of no values")
    mean = sum(values) / n
    if n < 2:
        return mean, (-math.inf, math.inf)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return mean, (mean - half, mean + half)


def wilson_ci(points: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a rate of ``points`` out of ``n`` (a draw counting half);
    unlike the normal approximation it stays wide at 0% and 100%.

    :raises ValueError: for ``n < 1``.

    >>> [round(x, 4) for x in wilson_ci(0, 40)]
    [0.0, 0.0876]
    >>> [round(x, 4) for x in wilson_ci(20, 40)]
    [0.352, 0.648]
    """
    if n < 1:
        raise ValueError("interval of no trials")
    p = points / n
    zz = z * z / n
    centre = (p + zz / 2) / (1 + zz)
    half = z / (1 + zz) * math.sqrt(p * (1 - p) / n + zz / (4 * n))
    lo = 0.0 if points <= 0 else max(0.0, centre - half)
    hi = 1.0 if points >= n else min(1.0, centre + half)
    return lo, hi


def pentanomial(pair_scores: Sequence[float]) -> list[int]:
    """Count deal pairs by their total score 0, 0.5, 1, 1.5, 2 (each pair of rounds
    averaged: 0, 0.25, 0.5, 0.75, 1).

    >>> pentanomial([0.0, 0.5, 0.5, 1.0, 0.75])
    [1, 0, 2, 1, 1]
    """
    counts = [0] * 5
    for s in pair_scores:
        counts[round(s * 4)] += 1
    return counts


@dataclass(frozen=True)
class SprtParams:
    """The hypotheses and error rates of a sequential probability ratio test."""

    elo0: float = 0.0
    """H0: the Elo difference is ``elo0``."""
    elo1: float = 20.0
    """H1: the Elo difference is ``elo1``."""
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds."""

    @classmethod
    def parse(cls, text: str) -> SprtParams:
        """Parse ``'elo0=0,elo1=20'`` (optionally ``alpha=``, ``beta=``).

        :raises SprtSpecError: for unknown keys, bad numbers, ``elo1 <= elo0`` or error
            rates outside (0, 0.5).

        >>> SprtParams.parse("elo0=0,elo1=10,alpha=0.1")
        SprtParams(elo0=0.0, elo1=10.0, alpha=0.1, beta=0.05)
        """
        values: dict[str, float] = {}
        for part in text.split(","):
            if not part.strip():
                continue
            key, eq, value = part.partition("=")
            key = key.strip().lower()
            if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
                raise SprtSpecError(
                    f"invalid sprt: {text!r} (expected elo0=A,elo1=B[,alpha=X,beta=Y])"
                )
            try:
                number = float(value)
            except ValueError:
                raise SprtSpecError(
                    f"invalid sprt: {text!r} ({value.strip()!r} is not a number)"
                ) from None
            if not math.isfinite(number):
                raise SprtSpecError(f"invalid sprt: {text!r} ({key} must be finite)")
            values[key] = number
        params = cls(**values)
        if params.elo1 <= params.elo0:
            raise SprtSpecError(f"invalid sprt: {text!r} (elo1 must be greater than elo0)")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(params, name) < 0.5:
                raise SprtSpecError(f"invalid sprt: {text!r} ({name} must be between 0 and 0.5)")
        return params

    def __str__(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: accept H0 below the first, H1 above the
    second.

    >>> [round(b, 3) for b in sprt_bounds(0.05, 0.05)]
    [-2.944, 2.944]
    """
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized SPRT's log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``)
    for independent samples of mean score ``scores`` (deal pairs averaged: pentanomial;
    single rounds: trinomial).

    The samples are taken as normal with their observed variance, whose log-likelihood
    ratio between means ``s1`` and ``s0`` is ``n (s1 - s0) (2 mean - s0 - s1) / (2 var)``.
    A variance of zero (all samples equal, a sweep) gives that ratio's limit: ``inf`` or
    ``-inf``, decided either way (``0.0`` for a mean midway between ``s0`` and ``s1``).
    Fewer than two samples give 0.

    >>> round(sprt_llr([1.0, 0.5, 0.75, 0.5] * 25, 0, 20), 3)
    11.584
    >>> sprt_llr([0.5, 0.5, 0.5, 0.0] * 25, 0, 20) < 0
    True
    >>> sprt_llr([1.0] * 10, 0, 20), sprt_llr([0.5] * 10, 0, 20)
    (inf, -inf)
    """
    n = len(scores)
    if n < 2:
        return 0.0
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / n
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    lead = (s1 - s0) * (2.0 * mean - s0 - s1)
    if var <= 1e-12:  # every sample the same (up to rounding)
        return 0.0 if lead == 0 else math.copysign(math.inf, lead)
    return n * lead / (2.0 * var)


def sprt_decision(llr: float, alpha: float = 0.05, beta: float = 0.05) -> str | None:
    """``'H1'`` above the upper bound, ``'H0'`` below the lower one, else ``None``.

    >>> sprt_decision(3.0), sprt_decision(-3.0), sprt_decision(0.1)
    ('H1', 'H0', None)
    """
    lower, upper = sprt_bounds(alpha, beta)
    if llr >= upper:
        return "H1"
    if llr <= lower:
        return "H0"
    return None


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` by Gauss-Jordan elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-300:
            raise ValueError("singular system")
        m[col], m[piv] = m[piv], m[col]
        p = m[col][col]
        m[col] = [v / p for v in m[col]]
        for r in range(n):
            if r != col and m[r][col] != 0.0:
                f = m[r][col]
                m[r] = [v - f * w for v, w in zip(m[r], m[col], strict=True)]
    return [m[i][n] for i in range(n)]


def fit_ladder(
    n: int,
    results: Sequence[tuple[int, int, float, float]],
    *,
    anchor: int = 0,
    prior_draws: float = 1.0,
    z: float = Z95,
) -> list[tuple[float, float]]:
    """Fit Elo ratings to pairwise results by maximum likelihood (Bradley-Terry with the
    logistic Elo curve).

    ``results`` holds ``(i, j, score_i, games)``: player ``i`` scored ``score_i`` points
    (a draw counts half) in ``games`` games against ``j``. Every pairing also gets
    ``prior_draws`` virtual draws (a weak prior that keeps ratings finite when one side
    won everything). Player ``anchor`` is rated 0. Returns ``(elo, half_width)`` per
    player, the half width of the ``z`` confidence interval from the observed Fisher
    information (0 for the anchor).

    :raises ValueError: if a player never played (the ladder is not connected).

    >>> [(round(e), round(h)) for e, h in fit_ladder(2, [(0, 1, 25.0, 100)], prior_draws=0)]
    [(0, 0), (191, 79)]
    """
    if not 0 <= anchor < n:
        raise ValueError(f"invalid anchor: {anchor!r}")
    score = [[0.0] * n for _ in range(n)]
    games = [[0.0] * n for _ in range(n)]
    for i, j, s, g in results:
        score[i][j] += s
        score[j][i] += g - s
        games[i][j] += g
        games[j][i] += g
    for i in range(n):
        for j in range(n):
            if i != j and games[i][j] > 0:
                score[i][j] += prior_draws / 2
                games[i][j] += prior_draws
    free = [i for i in range(n) if i != anchor]
    theta = [0.0] * n

    def hessian_and_gradient() -> tuple[list[list[float]], list[float]]:
        info = [[0.0] * len(free) for _ in free]
        grad = [0.0] * len(free)
        pos = {p: k for k, p in enumerate(free)}
        for i in range(n):
            for j in range(n):
                if i == j or games[i][j] == 0:
                    continue
                p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
                w = games[i][j] * p * (1.0 - p)
                if i in pos:
                    grad[pos[i]] += score[i][j] - games[i][j] * p
                    info[pos[i]][pos[i]] += w
                    if j in pos:
                        info[pos[i]][pos[j]] -= w
        return info, grad

    if free:
        for _ in range(100):
            info, grad = hessian_and_gradient()
            try:
                step = _solve(info, grad)
            except ValueError:
                raise ValueError("cannot fit the ladder: some player has no games") from None
            biggest = max(abs(s) for s in step)
            if biggest > 2.0:  # damp wild first steps
                step = [s * 2.0 / biggest for s in step]
            for k, p in enumerate(free):
                theta[p] += step[k]
            if biggest < 1e-10:
                break
        info, _ = hessian_and_gradient()
    out = [(0.0, 0.0)] * n
    for k, p in enumerate(free):
        unit = [1.0 if r == k else 0.0 for r in range(len(free))]
        var = _solve(info, unit)[k]
        out[p] = (theta[p] * _ELO_PER_NAT, z * math.sqrt(max(var, 0.0)) * _ELO_PER_NAT)
    out[anchor] = (0.0, 0.0)
    return out
