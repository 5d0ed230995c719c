"""The arena: bots play each other on duplicate deals, and the results are rated honestly.

Each deal ``i`` of a match is dealt from a seed derived from the match seed and ``i`` (the
starter too) and played twice, the bots swapping seats, so the luck of the deal cancels.
Deals run in worker processes; bots are made inside the workers from their specs, with
seeds derived from the match seed, the deal and the seat, so the same seed and bots give
the same results whatever the number of workers (bots limited by time excepted).

The referee (:func:`play_round`) gives each bot only its :class:`~lostcities.PlayerView`
and checks every move with :meth:`Round.push <lostcities.Round.push>`. A bot that crashes,
times out, or answers with garbage or an illegal move forfeits the round, with the reason
recorded, and the match goes on.

>>> result = play_match("random", "discard", deals=3, seed=1, jobs=1)
>>> result.rounds, result.a_wins + result.b_wins + result.draws
(6, 6)
>>> sorted(result.to_dict())[:4]
['a', 'a_forfeits', 'a_win_rate', 'a_win_rate_ci95']
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import asdict, dataclass, field
from typing import IO, TYPE_CHECKING, Any

from lostcities.bots import (
    Bot,
    BotError,
    BotSpecError,
    BotTerminatedError,
    BotTimeoutError,
    make,
    parse_spec,
)
from lostcities.errors import IllegalMoveError, InvalidMoveError
from lostcities.protocol import DEFAULT_GRACE
from lostcities.rules import Move, Round, Termination
from lostcities.stats import (
    SprtParams,
    fit_ladder,
    mean_ci,
    pentanomial,
    score_to_elo,
    sprt_bounds,
    sprt_decision,
    sprt_llr,
    wilson_ci,
)

if TYPE_CHECKING:
    import argparse

__all__ = [
    "SPRT_MIN_DEALS",
    "MatchConfig",
    "MatchResult",
    "MissingDependencyError",
    "RoundResult",
    "TournamentResult",
    "check_spec",
    "cli_match",
    "cli_tournament",
    "deal_seed",
    "derive_seed",
    "play_match",
    "play_round",
    "play_tournament",
]


class MissingDependencyError(ValueError):
    """An optional package the command needs is not installed (``pip install
    'lostcities[arena]'``)."""


def _require(module: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(f"this needs {module!r}: pip install 'lostcities[arena]'")


SPRT_MIN_DEALS = 10
"""The SPRT is first checked once this many deals are in (tiny samples misjudge the variance)."""


def derive_seed(*parts: object) -> int:
    """A 63-bit seed derived from ``parts`` by hashing (stable across runs and platforms).

    >>> derive_seed(0, "deal", 1) == derive_seed(0, "deal", 1) != derive_seed(0, "deal", 2)
    True
    """
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def deal_seed(seed: int, deal: int) -> tuple[int, int]:
    """The shuffle seed and the starter of deal ``deal`` of a match seeded ``seed``."""
    return derive_seed(seed, "deal", deal), derive_seed(seed, "starter", deal) & 1


# -- the referee ----------------------------------------------------------------------------


def _forfeit_reason(e: BaseException) -> str:
    if isinstance(e, BotTimeoutError):
        return f"timeout: {e}"
    if isinstance(e, BotTerminatedError):
        return f"crash: {e}"
    if isinstance(e, (BotError, IllegalMoveError, InvalidMoveError)):
        return f"illegal move: {e}"
    return f"crash: {type(e).__name__}: {e}"


def play_round(
    bots: Sequence[Bot],
    rnd: Round,
    *,
    time_limit: float | None = None,
    grace: float = DEFAULT_GRACE,
) -> Round:
    """Referee ``rnd`` to its end between ``bots[0]`` and ``bots[1]`` (by seat); returns it.

    Both bots are restarted; the bot to move chooses from its own view within
    ``time_limit`` seconds (``None`` or 0: no limit; in-process bots that overrun it by
    more than ``grace`` forfeit too); the move is checked by the rules; both bots are
    informed of it. Any failure ends the round with :meth:`Round.forfeit`, the reason
    (``timeout: ...``, ``crash: ...``, ``illegal move: ...``) recorded there.

    >>> from lostcities.bots import make
    >>> r = play_round([make("random", seed=1), make("discard", seed=2)], Round.deal(seed=3))
    >>> r.is_over(), r.outcome().scores[1]
    (True, 0)
    """
    limit = time_limit if time_limit else None
    for seat in (0, 1):
        try:
            bots[seat].restart(rnd.variant, seat)
        except Exception as e:  # any failure to get ready costs the round
            if not rnd.is_over():
                rnd.forfeit(seat, _forfeit_reason(e))
    while not rnd.is_over():
        p = rnd.to_move
        view = rnd.view(p)
        start = time.perf_counter()
        try:
            move = bots[p].choose(view, limit)
            if not isinstance(move, Move):
                raise BotError(f"bot returned {move!r}, not a Move")
            elapsed = time.perf_counter() - start
            if limit is not None and elapsed > limit + grace:
                raise BotTimeoutError(
                    f"bot {bots[p].spec or bots[p].name!r} took {elapsed:.2f} s (limit {limit:g} s)"
                )
            rnd.push(move)
        except Exception as e:
            rnd.forfeit(p, _forfeit_reason(e))
            break
        for seat in (0, 1):
            try:
                bots[seat].inform(move, p)
            except Exception as e:
                if not rnd.is_over():
                    rnd.forfeit(seat, _forfeit_reason(e))
                    break
    return rnd


# -- one deal, in a worker -----------------------------------------------------------------


@dataclass(frozen=True)
class MatchConfig:
    """What a worker needs to play deals of a match (picklable)."""

    a: str
    """Bot A's spec."""
    b: str
    """Bot B's spec."""
    seed: int = 0
    """The match seed: deals and bot seeds derive from it."""
    variant: str = "classic"
    """``classic`` or ``long``."""
    max_turns: int | None = None
    """A turn cap per round (the round is then scored as it stands)."""
    time_limit: float | None = 10.0
    """Seconds per move (``None`` or 0: unlimited)."""
    records: bool = False
    """Whether to keep each round's game record text."""
    verbose: bool = False
    """Whether worker processes print the protocol's warnings (bot misbehaviour)."""


@dataclass(frozen=True)
class RoundResult:
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
    record: str | None = None
    """The round's game record, when asked for."""

    @property
    def a_points(self) -> float:
        """1 for an A win, 1/2 for a draw, 0 for a loss."""
        return 1.0 if self.winner == "a" else 0.5 if self.winner is None else 0.0

    @property
    def margin(self) -> int:
        """A's score minus B's."""
        return self.a_score - self.b_score


class _Players:
    """The bots of one process. Built-in bots are made afresh for every round from their
    spec and a derived seed; external (``cmd:``) bots are kept running and re-seeded."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.external: dict[str, Bot] = {}

    def get(self, side: str, seed: int) -> Bot:
        spec = self.config.a if side == "a" else self.config.b
        if parse_spec(spec)[0] != "cmd":
            return make(spec, seed=seed)
        bot = self.external.get(side)
        if bot is None:
            bot = self.external[side] = make(spec, seed=seed)
        bot.seed = seed
        return bot

    def release(self, bot: Bot) -> None:
        if bot not in self.external.values():
            bot.close()

    def close(self) -> None:
        for bot in self.external.values():
            with contextlib.suppress(Exception):
                bot.close()
        self.external.clear()

    def kill(self) -> None:
        """Kill the external bots' process groups at once (the worker is being stopped)."""
        for bot in self.external.values():
            kill = getattr(bot, "kill", None)
            if kill is not None:
                kill()


def _play_deal(players: _Players, deal: int) -> list[RoundResult]:
    cfg = players.config
    seed, starter = deal_seed(cfg.seed, deal)
    out = []
    for a_seat in (0, 1):
        seats: list[Bot] = []
        sides = ("a", "b") if a_seat == 0 else ("b", "a")
        try:
            for seat, side in enumerate(sides):
                seats.append(players.get(side, derive_seed(cfg.seed, "bot", deal, seat)))
        except Exception as e:  # a bot that cannot even be made (an external one died)
            rnd = Round.deal(seed, cfg.variant, starter, max_turns=cfg.max_turns)
            bad = len(seats)
            rnd.forfeit(bad, _forfeit_reason(e))
        else:
            rnd = Round.deal(seed, cfg.variant, starter, max_turns=cfg.max_turns)
            try:
                play_round(seats, rnd, time_limit=cfg.time_limit)
            finally:
                for bot in seats:
                    players.release(bot)
        out.append(_round_result(cfg, rnd, deal, a_seat, sides))
    return out


def _round_result(
    cfg: MatchConfig, rnd: Round, deal: int, a_seat: int, sides: tuple[str, str]
) -> RoundResult:
    outcome = rnd.outcome()
    assert outcome is not None
    scores = outcome.scores
    winner = None if outcome.winner is None else sides[outcome.winner]
    forfeit = None
    if outcome.termination is Termination.FORFEIT:
        assert outcome.winner is not None
        forfeit = sides[outcome.winner ^ 1]
    record = None
    if cfg.records:
        from lostcities.record import GameRecord

        names = tuple(cfg.a if s == "a" else cfg.b for s in sides)
        rec = GameRecord.from_round(
            rnd,
            players=names,
            Event="lostcities match",
            Deal=str(deal + 1),
            Swapped="no" if a_seat == 0 else "yes",
        )
        record = str(rec)
    return RoundResult(
        deal=deal,
        a_seat=a_seat,
        seed=rnd.seed if rnd.seed is not None else 0,
        starter=rnd.starter,
        a_score=scores[a_seat],
        b_score=scores[a_seat ^ 1],
        winner=winner,
        termination=outcome.termination.name.lower(),
        forfeit=forfeit,
        reason=outcome.reason,
        plies=rnd.ply,
        record=record,
    )


_WORKER_PLAYERS: _Players | None = None


def _worker_init(config: MatchConfig) -> None:
    global _WORKER_PLAYERS
    players = _WORKER_PLAYERS = _Players(config)

    def terminated(signum: int, frame: object) -> None:
        players.kill()
        os._exit(1)

    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        signal.signal(signal.SIGTERM, terminated)  # the parent stops the pool this way
    _configure_logging(config.verbose)
    from multiprocessing import util

    util.Finalize(_WORKER_PLAYERS, _WORKER_PLAYERS.close, exitpriority=10)


def _configure_logging(verbose: bool) -> None:
    import logging

    if verbose:
        logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
        logging.getLogger("lostcities.protocol").setLevel(logging.WARNING)
    else:
        logging.getLogger("lostcities.protocol").setLevel(logging.ERROR)


def _worker_deal(deal: int) -> list[RoundResult]:
    assert _WORKER_PLAYERS is not None
    return _play_deal(_WORKER_PLAYERS, deal)


# -- results ---------------------------------------------------------------------------------


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _pair(lo: float, hi: float) -> list[float | None]:
    return [_finite(lo), _finite(hi)]


@dataclass
class MatchResult:
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
    deals: int = 0
    """Deals played (each twice)."""
    rounds: int = 0
    """Rounds played."""
    a_wins: int = 0
    """Rounds A won."""
    b_wins: int = 0
    """Rounds B won."""
    draws: int = 0
    """Drawn rounds."""
    a_win_rate: float = 0.5
    """A's score per round, a draw counting half."""
    a_win_rate_ci95: tuple[float, float] = (0.0, 1.0)
    """95% confidence interval of :attr:`a_win_rate`."""
    mean_margin: float = 0.0
    """A's score minus B's, per round."""
    mean_margin_ci95: tuple[float, float] = (-math.inf, math.inf)
    """95% confidence interval of :attr:`mean_margin`."""
    elo: float = 0.0
    """Elo difference, A minus B."""
    elo_ci95: tuple[float, float] = (-math.inf, math.inf)
    """95% confidence interval of :attr:`elo`."""
    forfeits: int = 0
    """Rounds ended by a forfeit (either bot)."""
    a_forfeits: int = 0
    """Rounds A forfeited."""
    b_forfeits: int = 0
    """Rounds B forfeited."""
    truncated: int = 0
    """Rounds cut by the turn cap."""
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    """Deals by A's total over the pair: 0, 1/2, 1, 3/2, 2 points."""
    sprt: dict[str, Any] | None = None
    """The SPRT's parameters, log-likelihood ratio, bounds and result (``H0``/``H1``/``None``)."""
    stopped_early: bool = False
    """Whether the SPRT ended the match before all deals were played."""
    seconds: float = 0.0
    """Wall-clock time."""
    games: list[RoundResult] = field(default_factory=list, repr=False)
    """Every round, deal by deal."""

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
        res.a_wins = sum(g.winner == "a" for g in games)
        res.b_wins = sum(g.winner == "b" for g in games)
        res.draws = res.rounds - res.a_wins - res.b_wins
        res.a_forfeits = sum(g.forfeit == "a" for g in games)
        res.b_forfeits = sum(g.forfeit == "b" for g in games)
        res.forfeits = res.a_forfeits + res.b_forfeits
        res.truncated = sum(g.termination == "turn_limit" for g in games)
        by_deal: dict[int, list[RoundResult]] = {}
        for g in games:
            by_deal.setdefault(g.deal, []).append(g)
        res.deals = len(by_deal)
        pair_points = [sum(g.a_points for g in gs) / len(gs) for gs in by_deal.values()]
        pair_margins = [sum(g.margin for g in gs) / len(gs) for gs in by_deal.values()]
        res.pentanomial = pentanomial(
            [p for p, gs in zip(pair_points, by_deal.values(), strict=True) if len(gs) == 2]
        )
        if games:
            points = sum(g.a_points for g in games)
            res.a_win_rate = points / len(games)
            _, (lo, hi) = mean_ci(pair_points)
            if len(set(pair_points)) == 1:  # no spread to estimate from (e.g. a sweep)
                lo, hi = wilson_ci(points, len(games))
            lo, hi = max(0.0, lo), min(1.0, hi)
            res.a_win_rate_ci95 = (lo, hi)
            res.mean_margin, res.mean_margin_ci95 = mean_ci(pair_margins)
            res.mean_margin = sum(g.margin for g in games) / len(games)
            res.elo = score_to_elo(res.a_win_rate)
            res.elo_ci95 = (score_to_elo(lo), score_to_elo(hi))
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
            "seed": self.seed,
            "deals": self.deals,
            "rounds": self.rounds,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "draws": self.draws,
            "a_win_rate": self.a_win_rate,
            "a_win_rate_ci95": _pair(*self.a_win_rate_ci95),
            "mean_margin": self.mean_margin,
            "mean_margin_ci95": _pair(*self.mean_margin_ci95),
            "elo": _finite(self.elo),
            "elo_ci95": _pair(*self.elo_ci95),
            "forfeits": self.forfeits,
            "a_forfeits": self.a_forfeits,
            "b_forfeits": self.b_forfeits,
            "forfeit_reasons": [
                {"deal": g.deal, "a_seat": g.a_seat, "by": g.forfeit, "reason": g.reason}
                for g in self.games
                if g.forfeit
            ],
            "truncated": self.truncated,
            "pentanomial": list(self.pentanomial),
            "sprt": dict(self.sprt) if self.sprt is not None else None,
            "stopped_early": self.stopped_early,
            "seconds": round(self.seconds, 3),
        }
        if games:
            d["games"] = [{k: v for k, v in asdict(g).items() if k != "record"} for g in self.games]
        return d


# -- running a match ---------------------------------------------------------------------------


def check_spec(spec: str) -> None:
    """Make the bot once (an external program is started and shaken hands with) and
    close it, so a bad spec fails before any work.

    :raises BotSpecError: for a bad spec or a program that cannot be started.
    :raises BotError: for a program that fails the handshake.
    """
    make(spec, seed=0).close()


def _deal_results(
    config: MatchConfig, deals: int, jobs: int
) -> Generator[list[RoundResult], None, None]:
    """Yield each deal's results in deal order; closing the iterator stops the work."""
    if jobs <= 1:
        players = _Players(config)
        try:
            for deal in range(deals):
                yield _play_deal(players, deal)
        finally:
            players.close()
        return
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(config,))
    pending: dict[int, multiprocessing.pool.AsyncResult[list[RoundResult]]] = {}
    next_submit = 0
    finished = False
    try:
        for deal in range(deals):
            while next_submit < deals and len(pending) < 2 * jobs:
                pending[next_submit] = pool.apply_async(_worker_deal, (next_submit,))
                next_submit += 1
            yield pending.pop(deal).get()
        finished = True
    finally:
        if finished:  # let the workers exit and close their bots
            pool.close()
        else:  # stopped early or interrupted: the deals in flight are not wanted
            pool.terminate()
        pool.join()


def play_match(
    a: str,
    b: str,
    *,
    deals: int = 100,
    seed: int = 0,
    jobs: int | None = None,
    variant: str = "classic",
    max_turns: int | None = None,
    time_limit: float | None = 10.0,
    sprt: SprtParams | str | None = None,
    records: IO[str] | None = None,
    progress: Callable[[MatchResult], None] | None = None,
    verbose: bool = False,
) -> MatchResult:
    """Play bots ``a`` and ``b`` (specs) on ``deals`` duplicate deals.

    Args:
        a, b: bot specs (``random``, ``ismcts:time=0.5``, ``cmd:./mybot``).
        deals: deals to play, each twice with the seats swapped.
        seed: the match seed (deals, starters and bot seeds derive from it).
        jobs: worker processes (default: all cores; 1 plays in this process).
        variant: ``classic`` or ``long``.
        max_turns: a turn cap per round; a capped round is scored as it stands.
        time_limit: seconds per move; a bot over it forfeits the round (``None``: none).
        sprt: stop early once an SPRT (``'elo0=0,elo1=20'``) decides; checked after each
            deal in deal order, from :data:`SPRT_MIN_DEALS` deals on.
        records: a text file to write every round's game record to, in deal order.
        progress: called with the result so far (after a deal, at most ten times a second,
            and after the last one).
        verbose: let worker processes log bot misbehaviour (unknown lines, undecodable
            bytes) to stderr; in this process logging is the caller's to configure.

    :raises BotSpecError: for a bad spec (before anything is played).
    :raises BotError: if an external bot fails its handshake.
    :raises ValueError: for a bad variant, deal count or SPRT.
    """
    from lostcities.cards import get_variant

    var = get_variant(variant).name
    if deals < 1:
        raise ValueError(f"invalid deals: {deals!r} (must be at least 1)")
    params = SprtParams.parse(sprt) if isinstance(sprt, str) else sprt
    for spec in (a, b):
        check_spec(spec)
    workers = min(jobs or os.cpu_count() or 1, deals)
    config = MatchConfig(
        a=a,
        b=b,
        seed=seed,
        variant=var,
        max_turns=max_turns,
        time_limit=time_limit or None,
        records=records is not None,
        verbose=verbose,
    )
    start = time.perf_counter()
    games: list[RoundResult] = []
    pair_points: list[float] = []
    shown = 0.0
    stopped = False
    stream = _deal_results(config, deals, workers)
    try:
        for done, pair in enumerate(stream, 1):
            games.extend(pair)
            pair_points.append(sum(g.a_points for g in pair) / len(pair))
            if records is not None:
                for g in pair:
                    assert g.record is not None
                    records.write(g.record)
                    records.write("\n")
                records.flush()
            if params is not None and done >= SPRT_MIN_DEALS:
                llr = sprt_llr(pair_points, params.elo0, params.elo1)
                stopped = sprt_decision(llr, params.alpha, params.beta) is not None
            now = time.perf_counter()
            if progress is not None and (stopped or done == deals or now - shown >= 0.1):
                shown = now
                partial = MatchResult.from_rounds(a, b, games, variant=var, seed=seed, sprt=params)
                partial.seconds = now - start
                progress(partial)
            if stopped:
                break
    finally:
        stream.close()
    result = MatchResult.from_rounds(a, b, games, variant=var, seed=seed, sprt=params)
    result.stopped_early = stopped and result.deals < deals
    result.seconds = time.perf_counter() - start
    return result


# -- tournaments ---------------------------------------------------------------------------------


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


def _labels(specs: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s} #{seen[s]}")
    return out


def _strip_label(label: str) -> str:
    base, sep, n = label.rpartition(" #")
    return base if sep and n.isdigit() else label


def play_tournament(
    specs: Sequence[str],
    *,
    deals: int = 50,
    seed: int = 0,
    jobs: int | None = None,
    variant: str = "classic",
    max_turns: int | None = None,
    time_limit: float | None = 10.0,
    progress: Callable[[int, MatchResult], None] | None = None,
) -> TournamentResult:
    """Play every pairing of ``specs`` on the same ``deals`` duplicate deals and fit the
    Elo ladder. ``progress(pairing index, result so far)`` is called after every deal.

    :raises ValueError: for fewer than two bots, or as :func:`play_match` does.
    """
    if len(specs) < 2:
        raise ValueError("a tournament needs at least two bots")
    bots = _labels(specs)
    matches = []
    results = []
    pairs = [(i, j) for i in range(len(bots)) for j in range(i + 1, len(bots))]
    for k, (i, j) in enumerate(pairs):
        cb = None if progress is None else (lambda r, k=k: progress(k, r))
        m = play_match(
            _strip_label(bots[i]),
            _strip_label(bots[j]),
            deals=deals,
            seed=seed,
            jobs=jobs,
            variant=variant,
            max_turns=max_turns,
            time_limit=time_limit,
            progress=cb,
        )
        m.a, m.b = bots[i], bots[j]
        matches.append(m)
        results.append((i, j, m.a_wins + m.draws / 2, float(m.rounds)))
    ratings = fit_ladder(len(bots), results, anchor=0)
    return TournamentResult(bots=bots, matches=matches, ratings=ratings)


def plot_ladder(result: TournamentResult, path: str) -> None:
    """Draw the Elo ladder with its 95% intervals as a horizontal error-bar chart
    (SVG, PNG or PDF by ``path``'s extension; matplotlib's Agg backend).

    :raises ValueError: for another extension.
    :raises MissingDependencyError: without matplotlib.
    """
    _check_plot_path(path)
    _require("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result.ladder()[::-1]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rows)))
    ys = list(range(len(rows)))
    ax.errorbar(
        [e for _, e, _ in rows],
        ys,
        xerr=[h for _, _, h in rows],
        fmt="o",
        capsize=4,
        color="#1f5fa8",
    )
    ax.set_yticks(ys, [b for b, _, _ in rows])
    ax.axvline(0.0, color="#999999", linewidth=0.8, linestyle="--")
    ax.set_xlabel(f"Elo (95% interval), {result.bots[0]} = 0")
    ax.set_title("Lost Cities bot ladder")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _check_plot_path(path: str) -> None:
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".svg", ".png", ".pdf"):
        raise ValueError(f"invalid plot file: {path!r} (use .svg, .png or .pdf)")


# -- the command line ------------------------------------------------------------------------------


def _fmt(x: float, digits: int = 1, sign: bool = False) -> str:
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _fmt_ci(
    ci: tuple[float, float], digits: int = 1, sign: bool = False, scale: float = 1.0
) -> str:
    return f"[{_fmt(ci[0] * scale, digits, sign)}, {_fmt(ci[1] * scale, digits, sign)}]"


def _live(result: MatchResult) -> str:
    pts = result.a_wins + result.draws / 2
    lo, hi = result.elo_ci95
    half = (hi - lo) / 2 if math.isfinite(lo) and math.isfinite(hi) else math.inf
    return f"{pts:g}-{result.rounds - pts:g}  Elo {_fmt(result.elo, 0, True)} ± {_fmt(half, 0)}"


def _match_table(result: MatchResult) -> Any:
    from rich.table import Table

    t = Table(title=f"{result.a} vs {result.b}", title_justify="left")
    t.add_column("")
    t.add_column("value", justify="right")
    t.add_column("95% CI", justify="right")
    t.add_row("deals / rounds", f"{result.deals} / {result.rounds}", "")
    t.add_row("A wins / draws / B wins", f"{result.a_wins} / {result.draws} / {result.b_wins}", "")
    t.add_row(
        "A win rate",
        f"{100 * result.a_win_rate:.1f}%",
        _fmt_ci(result.a_win_rate_ci95, scale=100.0),
    )
    t.add_row(
        "mean margin (A - B)",
        _fmt(result.mean_margin, 1, True),
        _fmt_ci(result.mean_margin_ci95, sign=True),
    )
    t.add_row("Elo (A - B)", _fmt(result.elo, 1, True), _fmt_ci(result.elo_ci95, sign=True))
    t.add_row("forfeits (A / B)", f"{result.a_forfeits} / {result.b_forfeits}", "")
    if result.truncated:
        t.add_row("turn-capped rounds", str(result.truncated), "")
    if result.sprt is not None:
        s = result.sprt
        verdict = s["result"] or "undecided"
        t.add_row(
            f"SPRT elo0={s['elo0']:g} elo1={s['elo1']:g}",
            f"LLR {s['llr']:.2f} ({verdict})",
            f"[{s['lower']:.2f}, {s['upper']:.2f}]",
        )
    return t


def _progress(total: int, enabled: bool) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not (enabled and console.is_terminal),
    )


def _open_records(path: str | None) -> contextlib.AbstractContextManager[IO[str] | None]:
    if path is None:
        return contextlib.nullcontext()
    if path == "-":
        return contextlib.nullcontext(sys.stdout)
    return open(path, "w", encoding="utf-8")


def _check_specs(specs: Sequence[str]) -> None:
    for spec in specs:
        try:
            check_spec(spec)
        except BotError as e:
            raise BotSpecError(f"bot {spec!r} failed to start: {e}") from None


def cli_match(args: argparse.Namespace) -> int:
    """``lostcities match A B ...``: play, show progress, print the table (or JSON)."""
    from rich.console import Console

    _require("rich")
    params = SprtParams.parse(args.sprt) if args.sprt else None
    verbose = bool(getattr(args, "verbose", False))
    _configure_logging(verbose)
    _check_specs([args.a, args.b])
    if args.records == "-" and args.json:
        raise ValueError("--records - and --json both want stdout; give --records a file")
    total = args.deals * 2
    with _progress(total, True) as bar, _open_records(args.records) as records:
        task = bar.add_task(f"{args.a} vs {args.b}", total=total)

        def update(r: MatchResult) -> None:
            bar.update(task, completed=r.rounds, description=f"{args.a} vs {args.b}  {_live(r)}")

        result = play_match(
            args.a,
            args.b,
            deals=args.deals,
            seed=args.seed,
            jobs=args.jobs,
            variant=args.variant,
            max_turns=args.max_turns,
            time_limit=args.time_limit or None,
            sprt=params,
            records=records,
            progress=update,
            verbose=verbose,
        )
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    console = Console()
    console.print(_match_table(result))
    reasons: dict[str, int] = {}
    for g in result.games:
        if g.forfeit:
            key = f"{g.forfeit.upper()}: {g.reason}"
            reasons[key] = reasons.get(key, 0) + 1
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1])[:10]:
        console.print(f"forfeit x{n}  {reason}", markup=False, highlight=False)
    return 0


def _cross_table(result: TournamentResult) -> Any:
    from rich.table import Table

    t = Table(title="cross table: row's score vs column (points / rounds)", title_justify="left")
    t.add_column("bot")
    t.add_column("Elo", justify="right")
    t.add_column("95% CI", justify="right")
    order = sorted(range(len(result.bots)), key=lambda i: -result.ratings[i][0])
    for k, _ in enumerate(order, 1):
        t.add_column(str(k), justify="right")
    for k, i in enumerate(order, 1):
        elo, half = result.ratings[i]
        cells = []
        for j in order:
            s = result.score(i, j)
            cells.append("-" if s is None else f"{s[0]:g}/{s[1]}")
        ci = f"±{half:.0f}" if i != 0 else "anchor"
        t.add_row(f"{k}. {result.bots[i]}", f"{elo:+.0f}", ci, *cells)
    return t


def cli_tournament(args: argparse.Namespace) -> int:
    """``lostcities tournament A B C ...``: round robin, cross table, ladder, plot."""
    from rich.console import Console

    if len(args.bots) < 2:
        raise ValueError("a tournament needs at least two bots")
    _require("rich")
    plot = getattr(args, "plot", None)
    if plot:
        _check_plot_path(plot)
        _require("matplotlib")
    _check_specs(list(dict.fromkeys(args.bots)))
    n = len(args.bots)
    pairs = n * (n - 1) // 2
    total = pairs * args.deals * 2
    with _progress(total, True) as bar:
        task = bar.add_task("tournament", total=total)
        labels = _labels(args.bots)
        names = [(labels[i], labels[j]) for i in range(n) for j in range(i + 1, n)]

        def update(k: int, r: MatchResult) -> None:
            done = k * args.deals * 2 + r.rounds
            a, b = names[k]
            bar.update(task, completed=done, description=f"{a} vs {b}  {_live(r)}")

        result = play_tournament(
            args.bots,
            deals=args.deals,
            seed=args.seed,
            jobs=args.jobs,
            variant=args.variant,
            max_turns=args.max_turns,
            time_limit=getattr(args, "time_limit", 10.0) or None,
            progress=update,
        )
    if plot:
        plot_ladder(result, plot)
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    console = Console()
    console.print(_cross_table(result))
    if plot:
        console.print(f"ladder plot: {plot}", markup=False, highlight=False)
    return 0
