"""The arena's engine: duplicate deals from derived seeds, the referee of one round
(:func:`play_round`, a call of :class:`lostcities.referee.Referee`), worker processes,
SPRT stops, matches and round robins. Nothing here prints: :mod:`lostcities.arena.report`
shows the results."""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import multiprocessing.pool
import os
import signal
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Self, TypeVar

from lostcities.achievements import GoalSet, goal_pool
from lostcities.arena.cluster import LOCAL, Backend, ray_ordered, ray_session
from lostcities.arena.results import (
    SPRT_MIN_DEALS,
    MatchGame,
    MatchResult,
    RoundResult,
    TournamentResult,
)
from lostcities.bots import Bot, make, parse_spec
from lostcities.bots.base import one_core_per_bot, workers_without_ctrl_c
from lostcities.cards import get_variant
from lostcities.match import Match
from lostcities.referee import DEFAULT_GRACE, Referee, forfeit_reason
from lostcities.rules import Round, Termination
from lostcities.stats import SprtParams, fit_ladder, sprt_decision, sprt_llr

__all__ = [
    "MatchConfig",
    "Players",
    "arena_record",
    "check_spec",
    "configure_logging",
    "deal_pair",
    "deal_seed",
    "derive_seed",
    "goal_pool",
    "play_match",
    "play_round",
    "play_tournament",
    "round_result",
    "seat_sides",
    "unit_results",
    "unique_labels",
]

T = TypeVar("T")


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
    (``timeout: ...``, ``crash: ...``, ``illegal move: ...``) recorded there. This is
    :meth:`lostcities.referee.Referee.play` on the round.

    >>> from lostcities.bots import make
    >>> r = play_round([make("random", seed=1), make("discard", seed=2)], Round.deal(seed=3))
    >>> r.is_over(), r.outcome().scores[1]
    (True, 0)
    """
    return Referee(rnd, bots, time_limit=time_limit, grace=grace).play()


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
    achievements: GoalSet | None = None
    """The achievements variant's goal pool (each deal draws 5 by its seed), or ``None``."""

    @classmethod
    def checked(
        cls,
        a: str,
        b: str,
        *,
        seed: int,
        variant: str,
        max_turns: int | None,
        time_limit: float | None,
        records: bool,
        verbose: bool,
        achievements: bool | str | GoalSet | None,
        **more: Any,
    ) -> Self:
        """The config of a match of ``a`` against ``b`` (``more``: a subclass's fields),
        checked before anything is played: the goal pool, the variant and both specs.

        :raises InvalidGoalError: for a goal file that cannot be read.
        :raises UnknownVariantError: for an unknown variant.
        :raises BotSpecError: for a bad spec.
        :raises BotError: if an external bot fails its handshake.
        """
        pool = goal_pool(achievements)
        var = get_variant(variant).name
        for spec in (a, b):
            check_spec(spec)
        return cls(
            a=a,
            b=b,
            seed=seed,
            variant=var,
            max_turns=max_turns,
            time_limit=time_limit or None,
            records=records,
            verbose=verbose,
            achievements=pool,
            **more,
        )


def write_records(out: IO[str] | None, played: Sequence[RoundResult | MatchGame]) -> None:
    """Write the game record of each of ``played`` to ``out``, one after another in order,
    and flush (nothing without ``out``)."""
    if out is None:
        return
    for g in played:
        assert g.record is not None
        out.write(g.record)
        out.write("\n")
    out.flush()


class Ticker:
    """Calls ``progress`` with the result so far at most ten times a second, and after the
    last unit: the arena's progress reports."""

    def __init__(self, progress: Callable[[MatchResult], None] | None) -> None:
        self.progress = progress
        self.start = time.perf_counter()
        self.shown = 0.0

    def __call__(self, summary: Callable[[], MatchResult], last: bool) -> None:
        """Report ``summary()`` (made only when reported), its seconds set, if it is time."""
        now = time.perf_counter()
        if self.progress is not None and (last or now - self.shown >= 0.1):
            self.shown = now
            partial = summary()
            partial.seconds = now - self.start
            self.progress(partial)


class Players:
    """The bots of one process (a worker's, for the units it plays). Built-in bots are
    made afresh for every :meth:`get` from their spec and a derived seed; external
    (``cmd:``) bots are kept running and re-seeded."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.external: dict[str, Bot] = {}

    def get(self, side: str, seed: int) -> Bot:
        """Bot ``side``'s (``'a'`` or ``'b'``) player, seeded ``seed``."""
        spec = self.config.a if side == "a" else self.config.b
        if parse_spec(spec)[0] != "cmd":
            return make(spec, seed=seed)
        bot = self.external.get(side)
        if bot is None:
            bot = self.external[side] = make(spec, seed=seed)
        bot.seed = seed
        return bot

    def release(self, bot: Bot) -> None:
        """Done with ``bot``: a built-in one is closed, an external one kept."""
        if bot not in self.external.values():
            bot.close()

    def seat(self, sides: tuple[str, str], *key: object) -> tuple[list[Bot], Exception | None]:
        """The bots of ``sides`` in seat order, each seeded ``derive_seed(config seed, *key,
        seat)``, and ``None``; or, when one cannot be made (an external one died), those
        made before it (their number is its seat) and the error."""
        seats: list[Bot] = []
        try:
            for seat, side in enumerate(sides):
                seats.append(self.get(side, derive_seed(self.config.seed, *key, seat)))
        except Exception as e:  # a bot that cannot even be made
            return seats, e
        return seats, None

    @contextlib.contextmanager
    def released(self, seats: list[Bot]) -> Iterator[list[Bot]]:
        """``seats``, each :meth:`release`-d when the block ends, however it ends."""
        try:
            yield seats
        finally:
            for bot in seats:
                self.release(bot)

    def close(self) -> None:
        """Close the external bots."""
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


def _play_deal(players: Players, deal: int) -> list[RoundResult]:
    cfg = players.config
    seed, starter = deal_seed(cfg.seed, deal)
    out = []
    for a_seat in (0, 1):
        sides = seat_sides(a_seat)
        thinking: Sequence[float] = [0.0, 0.0]
        rnd = Round.deal(
            seed, cfg.variant, starter, max_turns=cfg.max_turns, achievements=cfg.achievements
        )
        seats, error = players.seat(sides, "bot", deal)
        if error is not None:
            rnd.forfeit(len(seats), forfeit_reason(error))
        else:
            with players.released(seats):
                referee = Referee(rnd, seats, time_limit=cfg.time_limit)
                referee.play()
                thinking = referee.thinking
        out.append(round_result(cfg, rnd, deal, a_seat, sides, thinking))
    return out


def seat_sides(a_seat: int) -> tuple[str, str]:
    """Which bot sits in each seat when A sits in ``a_seat``.

    >>> seat_sides(0), seat_sides(1)
    (('a', 'b'), ('b', 'a'))
    """
    return ("a", "b") if a_seat == 0 else ("b", "a")


def arena_record(
    cfg: MatchConfig, game: Round | Match, sides: tuple[str, str], **tags: str
) -> str | None:
    """The game record of ``game``, a round or a whole match played with ``sides`` in
    the seats, when ``cfg.records`` (else ``None``): the bots' specs as the players, the
    tags ``Event``, then ``tags``, then ``Swapped`` (whether A sat second)."""
    if not cfg.records:
        return None
    from lostcities.record import GameRecord

    names = tuple(cfg.a if s == "a" else cfg.b for s in sides)
    tags = {"Event": "lostcities match", **tags, "Swapped": "no" if sides[0] == "a" else "yes"}
    if isinstance(game, Match):
        return str(GameRecord.from_match(game, players=names, **tags))
    return str(GameRecord.from_round(game, players=names, **tags))


def round_result(
    cfg: MatchConfig,
    rnd: Round,
    deal: int,
    a_seat: int,
    sides: tuple[str, str],
    thinking: Sequence[float],
) -> RoundResult:
    """The result of the finished round ``rnd`` of deal ``deal`` from A's side (A in
    ``a_seat``; ``sides`` names each seat's bot, ``thinking`` its seconds), with its game
    record when ``cfg.records``."""
    outcome = rnd.outcome()
    assert outcome is not None
    scores = outcome.scores
    winner = None if outcome.winner is None else sides[outcome.winner]
    forfeit = None
    if outcome.termination is Termination.FORFEIT:
        assert outcome.winner is not None
        forfeit = sides[outcome.winner ^ 1]
    record = arena_record(
        cfg,
        rnd,
        sides,
        Seed=str(cfg.seed),  # the match seed (docs/records.md); DealSeed the shuffle's
        Deal=str(deal + 1),
        DealSeed=str(rnd.seed if rnd.seed is not None else "?"),
    )
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
        a_seconds=thinking[a_seat],
        b_seconds=thinking[a_seat ^ 1],
        record=record,
    )


_WORKER_PLAYERS: Players | None = None


def _kill_child_groups() -> None:
    """Kill the process group of every child of this process: the bots a worker started,
    each in a session of its own, even one still starting (Linux; elsewhere nothing)."""
    if not Path("/proc/self/stat").exists():
        return
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and len(fields) > 1 and fields[1] == me:
            with contextlib.suppress(OSError):
                os.killpg(int(entry.name), signal.SIGKILL)


def _worker_init(config: MatchConfig) -> None:
    global _WORKER_PLAYERS

    def terminated(signum: int, frame: object) -> None:
        if _WORKER_PLAYERS is not None:
            _WORKER_PLAYERS.kill()
        _kill_child_groups()  # a bot whose start the signal cut short too
        os._exit(1)

    with contextlib.suppress(ValueError):  # before any bot starts: none may outlive us
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        signal.signal(signal.SIGTERM, terminated)  # the parent stops the pool this way
    _WORKER_PLAYERS = Players(config)
    configure_logging(config.verbose)
    from multiprocessing import util

    util.Finalize(_WORKER_PLAYERS, _WORKER_PLAYERS.close, exitpriority=10)


def configure_logging(verbose: bool) -> None:
    """Show the bot protocol's warnings about external bots' output (``verbose``) or only
    its errors; what the arena's worker processes do, and the ``-v`` flag of the CLI."""
    import logging

    if verbose:
        logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
        logging.getLogger("lostcities.protocol").setLevel(logging.WARNING)
    else:
        logging.getLogger("lostcities.protocol").setLevel(logging.ERROR)


def _worker_unit(play: Callable[[Players, int], T], unit: int) -> T:
    assert _WORKER_PLAYERS is not None
    return play(_WORKER_PLAYERS, unit)


def deal_pair(config: MatchConfig, deal: int) -> list[RoundResult]:
    """Both rounds of deal ``deal`` of a match, with bots of their own (closed after, or
    killed if the pair is interrupted): the unit a Ray worker plays."""
    return play_unit((config, _play_deal), deal)


def play_unit(shared: tuple[MatchConfig, Callable[[Players, int], T]], unit: int) -> T:
    """``play(players, unit)`` for ``shared = (config, play)`` with bots of its own
    (closed after, or killed if the unit is interrupted): what a Ray worker runs."""
    config, play = shared
    one_core_per_bot()
    configure_logging(config.verbose)
    players = Players(config)
    try:
        return play(players, unit)
    except BaseException:  # cancelled (KeyboardInterrupt in the worker): no bot outlives it
        players.kill()
        raise
    finally:
        players.close()


# -- running a match ---------------------------------------------------------------------------


def check_spec(spec: str) -> None:
    """Make the bot once (an external program is started and shaken hands with) and
    close it, so a bad spec fails before any work.

    :raises BotSpecError: for a bad spec or a program that cannot be started.
    :raises BotError: for a program that fails the handshake.
    """
    make(spec, seed=0).close()


def _deal_results(
    config: MatchConfig, deals: int, jobs: int | None, backend: Backend = LOCAL
) -> Generator[list[RoundResult], None, None]:
    """Yield each deal's results in deal order; closing the iterator stops the work."""
    return unit_results(config, deals, jobs, backend, _play_deal, "deal")


def unit_results(
    config: MatchConfig,
    units: int,
    jobs: int | None,
    backend: Backend,
    play: Callable[[Players, int], T],
    what: str = "unit",
) -> Generator[T, None, None]:
    """Yield ``play(players, i)`` for ``i`` in ``range(units)``, in that order, played in
    this process (``jobs`` 1), local worker processes or on Ray; closing the iterator stops
    the work. ``play`` is a module-level function (the workers import it by name); ``what``
    names a unit in errors (``deal 3``)."""
    if backend.kind == "ray":
        yield from ray_ordered(
            play_unit,
            (config, play),
            range(units),
            jobs=jobs,
            describe=lambda d: f"{what} {d + 1}",
        )
        return
    jobs = min(jobs or os.cpu_count() or 1, units)
    deals = units
    if jobs <= 1:
        players = Players(config)
        try:
            for deal in range(deals):
                yield play(players, deal)
        finally:
            players.close()
        return
    one_core_per_bot()
    ctx = multiprocessing.get_context("spawn")
    with workers_without_ctrl_c():
        pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(config,))
    pending: dict[int, multiprocessing.pool.AsyncResult[T]] = {}
    next_submit = 0
    finished = False
    try:
        for deal in range(deals):
            while next_submit < deals and len(pending) < 2 * jobs:
                pending[next_submit] = pool.apply_async(_worker_unit, (play, next_submit))
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
    achievements: bool | str | GoalSet | None = None,
    backend: Backend = LOCAL,
) -> MatchResult:
    """Play bots ``a`` and ``b`` (specs) on ``deals`` duplicate deals.

    Args:
        a: the first bot's spec (``random``, ``ismcts:time=0.5``, ``cmd:./mybot``).
        b: the second bot's spec.
        deals: deals to play, each twice with the seats swapped.
        seed: the match seed (deals, starters and bot seeds derive from it).
        jobs: worker processes (default: all cores; 1 plays in this process); on Ray,
            the deal pairs in flight, so the workers busy (default: all the cluster's CPUs).
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
        achievements: play the achievements variant: ``True`` or ``"default"`` for the
            default goal pool, a goal file's path, or a ``GoalSet``; each deal lays out
            5 goals drawn by its seed (the same for both seatings).
        backend: where the deal pairs are played (:class:`~lostcities.arena.cluster.Backend`:
            local worker processes, or a Ray cluster); the results are the same on both.

    :raises BotSpecError: for a bad spec (before anything is played).
    :raises BotError: if an external bot fails its handshake.
    :raises ValueError: for a bad variant, deal count or SPRT.
    :raises InvalidGoalError: for a goal file that cannot be read.
    :raises ClusterError: when the Ray cluster cannot be used or loses a deal pair.
    """
    if deals < 1:
        raise ValueError(f"invalid deals: {deals!r} (must be at least 1)")
    params = SprtParams.parse(sprt) if isinstance(sprt, str) else sprt
    config = MatchConfig.checked(
        a,
        b,
        seed=seed,
        variant=variant,
        max_turns=max_turns,
        time_limit=time_limit,
        records=records is not None,
        verbose=verbose,
        achievements=achievements,
    )
    var, pool = config.variant, config.achievements
    ticker = Ticker(progress)
    games: list[RoundResult] = []
    pair_points: list[float] = []
    stopped = False
    with ray_session(backend, verbose=verbose):
        stream = _deal_results(config, deals, jobs, backend)
        try:  # the one reduction, in deal order, whatever the backend
            for done, pair in enumerate(stream, 1):
                games.extend(pair)
                pair_points.append(sum(g.a_points for g in pair) / len(pair))
                write_records(records, pair)
                if params is not None and done >= SPRT_MIN_DEALS:
                    llr = sprt_llr(pair_points, params.elo0, params.elo1)
                    stopped = sprt_decision(llr, params.alpha, params.beta) is not None
                ticker(
                    lambda: MatchResult.from_rounds(
                        a, b, games, variant=var, seed=seed, sprt=params
                    ),
                    stopped or done == deals,
                )
                if stopped:
                    break
        finally:
            stream.close()
    result = MatchResult.from_rounds(a, b, games, variant=var, seed=seed, sprt=params)
    result.achievements = None if pool is None else pool.name
    result.stopped_early = stopped and result.deals < deals
    result.seconds = time.perf_counter() - ticker.start
    return result


# -- tournaments ---------------------------------------------------------------------------


def unique_labels(specs: Sequence[str]) -> list[str]:
    """The tournament's names for ``specs``: a repeated spec gets `` #2``, `` #3``...

    >>> unique_labels(["random", "discard", "random"])
    ['random', 'discard', 'random #2']
    """
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
    achievements: bool | str | GoalSet | None = None,
    backend: Backend = LOCAL,
    sprt: SprtParams | str | None = None,
    records: IO[str] | None = None,
    verbose: bool = False,
) -> TournamentResult:
    """Play every pairing of ``specs`` on the same ``deals`` duplicate deals and fit the
    Elo ladder. ``progress(pairing index, result so far)`` is called after every deal;
    ``backend``, ``records`` (every pairing's, one after another) and ``verbose`` are
    :func:`play_match`'s (one connection to a Ray cluster for all pairings); ``sprt`` stops
    each pairing on its own once decided.

    :raises ValueError: for fewer than two bots, or as :func:`play_match` does.
    """
    if len(specs) < 2:
        raise ValueError("a tournament needs at least two bots")
    bots = unique_labels(specs)
    pool = goal_pool(achievements)
    matches = []
    results = []
    pairs = [(i, j) for i in range(len(bots)) for j in range(i + 1, len(bots))]
    with ray_session(backend):
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
                achievements=pool,
                backend=backend,
                sprt=sprt,
                records=records,
                verbose=verbose,
            )
            m.a, m.b = bots[i], bots[j]
            matches.append(m)
            results.append((i, j, m.a_wins + m.draws / 2, float(m.rounds)))
    ratings = fit_ladder(len(bots), results, anchor=0)
    return TournamentResult(bots=bots, matches=matches, ratings=ratings)
