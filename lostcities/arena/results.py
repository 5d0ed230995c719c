"""The arena's results: one round (:class:`RoundResult`), one whole match of several
rounds (:class:`MatchGame`, ``lostcities match --matches``) and their summary
(:class:`WholeMatches`), a match's summary with its confidence intervals and SPRT state
(:class:`MatchResult`), a round robin's ladder (:class:`TournamentResult`). Plain data,
JSON-ready through ``to_dict``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from lostcities.stats import (
    SprtParams,
    mean_ci,
    pentanomial,
    score_to_elo,
    sprt_bounds,
    sprt_decision,
    sprt_llr,
    wilson_ci,
)

__all__ = [
    "SPRT_MIN_DEALS",
    "MatchGame",
    "MatchResult",
    "PairedFigures",
    "RoundResult",
    "TournamentResult",
    "WholeMatches",
]

SPRT_MIN_DEALS = 10
"""The SPRT is first checked once this many deals are in (tiny samples misjudge the variance)."""


class _FromA:
    """A round or a whole match, from bot A's side: who won and by how much."""

    winner: str | None

    @property
    def margin(self) -> int:
        """A's score (or total) minus B's."""
        raise NotImplementedError

    @property
    def a_points(self) -> float:
        """1 for an A win, 1/2 for a draw, 0 for a loss."""
        return 1.0 if self.winner == "a" else 0.5 if self.winner is None else 0.0


@dataclass(frozen=True)
class RoundResult(_FromA):
    """One round of a match, from bot A's side."""

    deal: int
    """The deal index (0-based)."""
    a_seat: int
    """The seat A played (0 in a deal's first round, 1 in its second)."""
    seed: int
    """The deal's shuffle seed."""
    starter: int
    """The seat that moved first."""
    a_score: int
    """A's points."""
    b_score: int
    """B's points."""
    winner: str | None
    """``'a'``, ``'b'`` or ``None`` for a draw."""
    termination: str
    """``draw_pile_empty``, ``turn_limit`` or ``forfeit``."""
    forfeit: str | None = None
    """``'a'`` or ``'b'`` when that bot forfeited."""
    reason: str = ""
    """Why it forfeited."""
    plies: int = 0
    """Moves made."""
    a_seconds: float = 0.0
    """A's thinking time in the round (wall clock, as the referee measured it)."""
    b_seconds: float = 0.0
    """B's thinking time."""
    record: str | None = None
    """The round's game record, when asked for."""
    match: int | None = None
    """In whole-match play (``--matches``): the match (0-based) the round belongs to, whose
    rounds are numbered ``deal = match * rounds + match_round``; else ``None``."""
    match_round: int | None = None
    """In whole-match play: the round's index in its match (0-based); else ``None``."""

    @property
    def margin(self) -> int:
        """A's score minus B's."""
        return self.a_score - self.b_score

    @property
    def a_moves(self) -> int:
        """Moves A made."""
        return (self.plies + (self.starter == self.a_seat)) // 2


@dataclass(frozen=True)
class MatchGame(_FromA):
    """One whole match of several rounds (``lostcities match --matches``), from bot A's
    side; each match is played twice on the same deals, the bots swapping seats."""

    match: int
    """The match index (0-based)."""
    a_seat: int
    """The seat A played in every round (0 in the first of the pair, 1 in the second)."""
    seed: int
    """The match seed its rounds are dealt from (:func:`lostcities.round_seed`)."""
    rounds: int
    """Rounds played (fewer than the match's when a forfeit ended it)."""
    a_total: int
    """A's total."""
    b_total: int
    """B's total."""
    winner: str | None
    """``'a'``, ``'b'`` or ``None`` for a draw."""
    reason: str = ""
    """Why it ended so (:meth:`lostcities.Match.reason`: ``higher total``, ...)."""
    forfeit: str | None = None
    """``'a'`` or ``'b'`` when that bot forfeited (and so lost the match)."""
    record: str | None = None
    """The match's game record (all its rounds), when asked for."""

    @property
    def margin(self) -> int:
        """A's total minus B's."""
        return self.a_total - self.b_total


@dataclass(kw_only=True)
class PairedFigures:
    """What :class:`MatchResult` (over rounds, paired by deal) and :class:`WholeMatches`
    (over whole matches, paired by match) both report, from A's side: each pair is the
    same cards played twice with the seats swapped."""

    a_wins: int = 0
    """Rounds (matches) A won."""
    b_wins: int = 0
    """Rounds (matches) B won."""
    draws: int = 0
    """Drawn rounds (matches)."""
    a_win_rate: float = 0.5
    """A's score per round (match), a draw counting half."""
    a_win_rate_ci95: tuple[float, float] = (0.0, 1.0)
    """95% confidence interval of :attr:`a_win_rate`."""
    mean_margin: float = 0.0
    """A's score (total) minus B's, per round (match)."""
    mean_margin_ci95: tuple[float, float] = (-math.inf, math.inf)
    """95% confidence interval of :attr:`mean_margin`."""
    elo: float = 0.0
    """The Elo difference of the win rate, A minus B."""
    elo_ci95: tuple[float, float] = (-math.inf, math.inf)
    """95% confidence interval of :attr:`elo`."""
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    """Pairs by A's points over the pair: 0, 1/2, 1, 3/2, 2."""


@dataclass
class WholeMatches(PairedFigures):
    """The whole matches of a :class:`MatchResult` (``--matches``): counts, A's match win
    rate and total margin with 95% confidence intervals over the seat-swapped pairs (as
    the rounds' are over the deals)."""

    rounds: int = 3
    """Rounds per match."""
    matches: int = 0
    """Matches played (each pair: the same deals, seats swapped)."""
    pairs: int = 0
    """Match pairs played."""
    forfeits: int = 0
    """Matches ended by a forfeit."""
    games: list[MatchGame] = field(default_factory=list, repr=False)
    """Every match, pair by pair."""

    @classmethod
    def from_games(cls, games: Sequence[MatchGame], rounds: int) -> WholeMatches:
        """Summarize whole matches (both of each pair).

        >>> g = [MatchGame(0, 0, 1, 3, 90, 40, "a"), MatchGame(0, 1, 1, 3, 50, 70, "b"),
        ...      MatchGame(1, 0, 2, 3, 60, 20, "a"), MatchGame(1, 1, 2, 3, 80, 30, "a")]
        >>> w = WholeMatches.from_games(g, 3)
        >>> w.matches, w.a_wins, w.a_win_rate, w.pentanomial
        (4, 3, 0.75, [0, 0, 1, 0, 1])
        """
        res = cls(rounds=rounds, games=list(games), matches=len(games))
        res.forfeits = sum(g.forfeit is not None for g in games)
        res.pairs = len(_paired(res, games, [g.match for g in games]))
        return res

    def to_dict(self, *, games: bool = False) -> dict[str, Any]:
        """A JSON-ready dict (infinite values as ``None``; ``games`` adds every match)."""
        d: dict[str, Any] = {
            "rounds": self.rounds,
            "matches": self.matches,
            "pairs": self.pairs,
            **_figures(self),
            "forfeits": self.forfeits,
            "pentanomial": list(self.pentanomial),
        }
        if games:
            d["games"] = [{k: v for k, v in asdict(g).items() if k != "record"} for g in self.games]
        return d


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _pair(lo: float, hi: float) -> list[float | None]:
    return [_finite(lo), _finite(hi)]


def _paired(res: PairedFigures, games: Sequence[_FromA], pairs: Sequence[int]) -> list[float]:
    """Fill ``res``'s figures from ``games``, ``pairs[i]`` naming the pair (deal or match)
    of ``games[i]``; return A's points per pair, in order (the SPRT's input)."""
    res.a_wins = sum(g.winner == "a" for g in games)
    res.b_wins = sum(g.winner == "b" for g in games)
    res.draws = len(games) - res.a_wins - res.b_wins
    by_pair: dict[int, list[_FromA]] = {}
    for g, key in zip(games, pairs, strict=True):
        by_pair.setdefault(key, []).append(g)
    pair_points = [sum(g.a_points for g in gs) / len(gs) for gs in by_pair.values()]
    pair_margins = [sum(g.margin for g in gs) / len(gs) for gs in by_pair.values()]
    res.pentanomial = pentanomial(
        [p for p, gs in zip(pair_points, by_pair.values(), strict=True) if len(gs) == 2]
    )
    if games:
        points = sum(g.a_points for g in games)
        res.a_win_rate = points / len(games)
        _, (lo, hi) = mean_ci(pair_points)
        if len(set(pair_points)) == 1:  # no spread to estimate from (e.g. a sweep)
            lo, hi = wilson_ci(points, len(games))
        lo, hi = max(0.0, lo), min(1.0, hi)
        res.a_win_rate_ci95 = (lo, hi)
        _, res.mean_margin_ci95 = mean_ci(pair_margins)
        res.mean_margin = sum(g.margin for g in games) / len(games)
        res.elo = score_to_elo(res.a_win_rate)
        res.elo_ci95 = (score_to_elo(lo), score_to_elo(hi))
    return pair_points


def _figures(res: PairedFigures) -> dict[str, Any]:
    """The shared figures of :meth:`MatchResult.to_dict` and :meth:`WholeMatches.to_dict`."""
    return {
        "a_wins": res.a_wins,
        "b_wins": res.b_wins,
        "draws": res.draws,
        "a_win_rate": res.a_win_rate,
        "a_win_rate_ci95": _pair(*res.a_win_rate_ci95),
        "mean_margin": res.mean_margin,
        "mean_margin_ci95": _pair(*res.mean_margin_ci95),
        "elo": _finite(res.elo),
        "elo_ci95": _pair(*res.elo_ci95),
    }


@dataclass
class MatchResult(PairedFigures):
    """The outcome of a match between bots A and B: counts, rates with 95% confidence
    intervals, the Elo difference (A minus B), forfeits and the SPRT state.

    Confidence intervals are normal approximations over the deals (each deal's two
    rounds averaged, so the pairing is accounted for); with fewer than two deals they are
    unbounded, except the win rate's: when every deal scored the same (a sweep), it is
    Wilson's interval over the rounds. The Elo interval maps the win-rate interval
    through the Elo curve.
    Infinite values (a clean sweep) appear as ``None`` in :meth:`to_dict`.
    """

    a: str
    """Bot A's spec."""
    b: str
    """Bot B's spec."""
    variant: str = "classic"
    """The variant."""
    seed: int = 0
    """The match seed."""
    achievements: str | None = None
    """The goal pool's name when the achievements variant was played, else ``None``."""
    deals: int = 0
    """Deals played (each twice)."""
    rounds: int = 0
    """Rounds played."""
    forfeits: int = 0
    """Rounds ended by a forfeit (either bot)."""
    a_forfeits: int = 0
    """Rounds A forfeited."""
    b_forfeits: int = 0
    """Rounds B forfeited."""
    truncated: int = 0
    """Rounds cut by the turn cap."""
    sprt: dict[str, Any] | None = None
    """The SPRT's parameters, log-likelihood ratio, bounds and result (``H0``/``H1``/``None``)."""
    stopped_early: bool = False
    """Whether the SPRT ended the match before all deals were played."""
    seconds: float = 0.0
    """Wall-clock time."""
    games: list[RoundResult] = field(default_factory=list, repr=False)
    """Every round, deal by deal."""
    whole: WholeMatches | None = None
    """The whole matches, in whole-match play (``--matches``: the rounds above are theirs,
    each round of a match a deal); ``None`` for duplicate single rounds."""

    @classmethod
    def from_rounds(
        cls,
        a: str,
        b: str,
        games: Sequence[RoundResult],
        *,
        variant: str = "classic",
        seed: int = 0,
        sprt: SprtParams | None = None,
    ) -> MatchResult:
        """Summarize rounds (whole deals: both rounds of each)."""
        res = cls(a=a, b=b, variant=variant, seed=seed, games=list(games))
        res.rounds = len(games)
        res.a_forfeits = sum(g.forfeit == "a" for g in games)
        res.b_forfeits = sum(g.forfeit == "b" for g in games)
        res.forfeits = res.a_forfeits + res.b_forfeits
        res.truncated = sum(g.termination == "turn_limit" for g in games)
        pair_points = _paired(res, games, [g.deal for g in games])
        res.deals = len(pair_points)
        if sprt is not None:
            llr = sprt_llr(pair_points, sprt.elo0, sprt.elo1)
            lower, upper = sprt_bounds(sprt.alpha, sprt.beta)
            decided = (
                sprt_decision(llr, sprt.alpha, sprt.beta) if res.deals >= SPRT_MIN_DEALS else None
            )
            res.sprt = {
                "elo0": sprt.elo0,
                "elo1": sprt.elo1,
                "alpha": sprt.alpha,
                "beta": sprt.beta,
                "llr": llr,
                "lower": lower,
                "upper": upper,
                "result": decided,
            }
        return res

    def to_dict(self, *, games: bool = False) -> dict[str, Any]:
        """A JSON-ready dict (infinite values as ``None``; ``games`` adds every round)."""
        d: dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "variant": self.variant,
            "achievements": self.achievements,
            "seed": self.seed,
            "deals": self.deals,
            "rounds": self.rounds,
            **_figures(self),
            "forfeits": self.forfeits,
            "a_forfeits": self.a_forfeits,
            "b_forfeits": self.b_forfeits,
            "forfeit_reasons": [
                {"deal": g.deal + 1, "a_seat": g.a_seat, "by": g.forfeit, "reason": g.reason}
                for g in self.games
                if g.forfeit
            ],
            "truncated": self.truncated,
            "pentanomial": list(self.pentanomial),
            "sprt": {k: _finite(v) if isinstance(v, float) else v for k, v in self.sprt.items()}
            if self.sprt is not None
            else None,
            "stopped_early": self.stopped_early,
            "seconds": round(self.seconds, 3),
        }
        if games:
            d["games"] = [{k: v for k, v in asdict(g).items() if k != "record"} for g in self.games]
        if self.whole is not None:
            d["matches"] = self.whole.to_dict(games=games)
        return d


@dataclass
class TournamentResult:
    """A round robin: every pairing's match and an Elo ladder fitted to all of them.

    The ladder is the maximum-likelihood fit of logistic Elo ratings to every pairing's
    score (:func:`lostcities.stats.fit_ladder`, one virtual draw per pairing as a weak
    prior), the first bot anchored at 0; intervals are 95% from the Fisher information.
    """

    bots: list[str]
    """The bot specs (labels made unique)."""
    matches: list[MatchResult]
    """One match per pairing (``a`` listed before ``b``)."""
    ratings: list[tuple[float, float]]
    """``(elo, half width of the 95% interval)`` per bot, the first at 0."""

    def score(self, i: int, j: int) -> tuple[float, int] | None:
        """Bot ``i``'s points and rounds against bot ``j``."""
        for m in self.matches:
            if (m.a, m.b) == (self.bots[i], self.bots[j]):
                return m.a_wins + m.draws / 2, m.rounds
            if (m.b, m.a) == (self.bots[i], self.bots[j]):
                return m.b_wins + m.draws / 2, m.rounds
        return None

    def ladder(self) -> list[tuple[str, float, float]]:
        """``(bot, elo, half width)``, strongest first."""
        rows = [(b, e, h) for b, (e, h) in zip(self.bots, self.ratings, strict=True)]
        return sorted(rows, key=lambda r: -r[1])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "bots": list(self.bots),
            "ladder": [
                {"bot": b, "elo": e, "elo_ci95": [e - h, e + h]} for b, e, h in self.ladder()
            ],
            "matches": [m.to_dict() for m in self.matches],
        }
