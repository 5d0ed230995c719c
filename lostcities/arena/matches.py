"""Whole matches in the arena (``lostcities match --matches N``): bots play matches of
several rounds whose scores add up, each match twice on the same deals with the seats
swapped, and the match win rate is reported beside the round figures.

Match ``i`` of an arena run seeded ``seed`` is a :class:`~lostcities.Match` seeded
:func:`match_seed` ``(seed, i)``, its first starter drawn from the same; its round ``r`` is
dealt from :func:`lostcities.round_seed` ``(match seed, r)``, so both plays of a pair get
the same deals in the same order, and the later starters follow the rules (the higher
total starts), so they may differ between the two. A :class:`~lostcities.referee.Referee`
plays the match: every bot's view carries the match's context (built-in bots through
the referee, ``cmd:`` bots through the protocol's ``match`` line) and a forfeit ends the
match, lost by the bot that forfeited. Each bot plays a whole match as one player (made
once per match from its spec and a seed derived from the arena seed, the match and its
seat).

The round figures are those of every round played, each round of a match being a deal
(``deal = match * rounds + round``) whose two plays are paired; the match figures pair
the two plays of each match. Units of work are match pairs, on local worker processes or
a Ray cluster, as the deal pairs of :func:`~lostcities.arena.play_match` are.

>>> result = play_matches("heuristic", "random", matches=2, rounds=2, seed=1, jobs=1)
>>> result.whole.matches, result.whole.a_wins, result.rounds
(4, 4, 8)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import IO

from lostcities.achievements import GoalSet
from lostcities.arena.cluster import LOCAL, Backend, ray_session
from lostcities.arena.engine import (
    MatchConfig,
    Players,
    Ticker,
    arena_record,
    derive_seed,
    round_result,
    seat_sides,
    unit_results,
    write_records,
)
from lostcities.arena.results import MatchGame, MatchResult, RoundResult, WholeMatches
from lostcities.match import Match
from lostcities.referee import Referee, forfeit_reason

__all__ = ["MatchesConfig", "MatchPair", "match_pair", "match_seed", "play_matches"]


def match_seed(seed: int, match: int) -> tuple[int, int]:
    """The seed and first starter of whole match ``match`` of an arena run seeded ``seed``.

    >>> match_seed(0, 1) == match_seed(0, 1) != match_seed(0, 2)
    True
    """
    return derive_seed(seed, "match", match), derive_seed(seed, "match starter", match) & 1


@dataclass(frozen=True)
class MatchesConfig(MatchConfig):
    """What a worker needs to play match pairs (picklable): a :class:`MatchConfig` and
    the rounds of each match."""

    rounds: int = 3
    """Rounds per match."""


@dataclass(frozen=True)
class MatchPair:
    """Both plays of one match (seats swapped), the unit of work."""

    matches: tuple[MatchGame, MatchGame]
    """A in seat 0, then A in seat 1."""
    rounds: list[RoundResult]
    """Every round played, in order (the first play's, then the second's)."""


def _one_match(
    players: Players, cfg: MatchesConfig, index: int, a_seat: int
) -> tuple[MatchGame, list[RoundResult]]:
    seed, starter = match_seed(cfg.seed, index)
    sides = seat_sides(a_seat)
    m = Match(
        cfg.rounds,
        variant=cfg.variant,
        seed=seed,
        starter=starter,
        max_turns=cfg.max_turns,
        achievements=cfg.achievements,
    )
    out: list[RoundResult] = []
    no_records = replace(cfg, records=False)  # the match's record holds its rounds

    def add(ref: Referee | None) -> None:
        rnd = m.rounds[-1]
        r = len(m.rounds) - 1
        thinking = ref.thinking if ref is not None else [0.0, 0.0]
        res = round_result(no_records, rnd, index * cfg.rounds + r, a_seat, sides, thinking)
        out.append(replace(res, match=index, match_round=r))

    seats, error = players.seat(sides, "match bot", index)
    if error is not None:
        m.new_round().forfeit(len(seats), forfeit_reason(error))
        add(None)
    else:
        with players.released(seats):
            ref = Referee(m, seats, time_limit=cfg.time_limit)
            while not m.is_over():
                ref.start_round()
                ref.play()
                add(ref)
    a, b = m.totals()[a_seat], m.totals()[a_seat ^ 1]
    w = m.winner()
    f = m.forfeited_by()
    record = arena_record(cfg, m, sides, Match=str(index + 1), ArenaSeed=str(cfg.seed))
    game = MatchGame(
        match=index,
        a_seat=a_seat,
        seed=seed,
        rounds=len(m.rounds),
        a_total=a,
        b_total=b,
        winner=None if w is None else sides[w],
        reason=m.reason(),
        forfeit=None if f is None else sides[f],
        record=record,
    )
    return game, out


def match_pair(players: Players, index: int) -> MatchPair:
    """Both plays of match ``index`` (A in seat 0, then in seat 1) with ``players``'
    bots, whose config is a :class:`MatchesConfig`: the unit a worker plays."""
    cfg = players.config
    assert isinstance(cfg, MatchesConfig)
    first, r0 = _one_match(players, cfg, index, 0)
    second, r1 = _one_match(players, cfg, index, 1)
    return MatchPair((first, second), r0 + r1)


def play_matches(
    a: str,
    b: str,
    *,
    matches: int = 50,
    rounds: int = 3,
    seed: int = 0,
    jobs: int | None = None,
    variant: str = "classic",
    max_turns: int | None = None,
    time_limit: float | None = 10.0,
    records: IO[str] | None = None,
    progress: Callable[[MatchResult], None] | None = None,
    verbose: bool = False,
    achievements: bool | str | GoalSet | None = None,
    backend: Backend = LOCAL,
) -> MatchResult:
    """Play bots ``a`` and ``b`` (specs) ``matches`` whole matches of ``rounds`` rounds,
    each twice on the same deals with the seats swapped (``2 * matches`` matches in all).

    The result's round figures are every round played; :attr:`MatchResult.whole` holds the
    match figures (A's match win rate with its 95% interval over the pairs). The options
    are :func:`~lostcities.arena.play_match`'s; ``records`` gets one record per match
    (all its rounds), in order; ``progress`` is called after each pair (at most ten times a
    second, and after the last).

    :raises BotSpecError: for a bad spec (before anything is played).
    :raises BotError: if an external bot fails its handshake.
    :raises ValueError: for a bad variant, match or round count.
    :raises ClusterError: when the Ray cluster cannot be used or loses a match pair.
    """
    if matches < 1:
        raise ValueError(f"invalid matches: {matches!r} (must be at least 1)")
    if rounds < 1:
        raise ValueError(f"invalid rounds: {rounds!r} (must be at least 1)")
    config = MatchesConfig.checked(
        a,
        b,
        seed=seed,
        variant=variant,
        max_turns=max_turns,
        time_limit=time_limit,
        records=records is not None,
        verbose=verbose,
        achievements=achievements,
        rounds=rounds,
    )
    ticker = Ticker(progress)
    games: list[RoundResult] = []
    whole: list[MatchGame] = []

    def summary() -> MatchResult:
        res = MatchResult.from_rounds(a, b, games, variant=config.variant, seed=seed)
        res.whole = WholeMatches.from_games(whole, rounds)
        pool = config.achievements
        res.achievements = None if pool is None else pool.name
        return res

    with ray_session(backend, verbose=verbose):
        stream = unit_results(config, matches, jobs, backend, match_pair, "match")
        try:
            for done, pair in enumerate(stream, 1):
                games.extend(pair.rounds)
                whole.extend(pair.matches)
                write_records(records, pair.matches)
                ticker(summary, done == matches)
        finally:
            stream.close()
    result = summary()
    result.seconds = time.perf_counter() - ticker.start
    return result
