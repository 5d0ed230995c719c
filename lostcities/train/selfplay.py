"""Self-play data: rounds played by a searching teacher, every position recorded.

In each position the *teacher* values the legal moves by compiled flat Monte Carlo
(:class:`lostcities.fast.search.FlatSearch`, the ``ismcts`` bot's smart rollouts): it
deals the hidden cards ``worlds`` times consistently with the mover's view, plays every
candidate move in every world and plays the round out; a move's value is its mean
``tanh(margin / scale)`` (``scale`` :data:`lostcities.scoring.MARGIN_SCALE`, the ``ismcts``
bot's). Which moves it searches is the teacher's choice:

- :class:`HeuristicTeacher` (the default): the ``heuristic`` bot's best card actions, each
  with its draw and with a draw from the draw pile, as the ``ismcts`` bot does (at 64 worlds
  it wins about 62% of rounds against ``heuristic``, +11 points a round);
- :class:`GuidedTeacher`: the network's best moves by prior, and the heuristic's;
- :class:`ExpertTeacher`: the ``expert`` bot's own search (issue 36's expert-iteration
  teacher): the network's best moves by prior, played out by the network on both sides,
  scored ``mean margin + prior * ln p``;
- :class:`FlatTeacher`: every legal move (weaker: the noise of many candidates lets poor
  moves win; it loses to ``heuristic``);

and any object with the :class:`Teacher` method can be used. Moves not searched get no
value (NaN in the data) and no policy target.

The move made is drawn from ``softmax(values / temperature)`` for the first
``sample_plies`` plies of a round (so the data sees varied positions), the best-valued one
afterwards. Once the round is over every position gets the final margin from its mover's
side (:mod:`lostcities.train.data` has the arrays and the targets).

Everything derives from the seed: round ``i`` of iteration ``t`` is dealt and searched
from ``derive_seed(seed, "selfplay", t, i)``, so the data is the same whatever the number
of worker processes, on this machine or on a Ray cluster (``backend``). Shards of ``shard_rounds`` consecutive rounds are written atomically
(``shard-00000.npz`` holds rounds 0 .. shard_rounds - 1); :func:`generate` skips the shards
already written (a shard of other rounds, e.g. the last one after ``rounds`` changed, or an
unreadable one is played again), so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from lostcities.arena import LOCAL, Backend, derive_seed
from lostcities.arena.cluster import ray_ordered, ray_session
from lostcities.bots.base import one_core_per_bot, workers_without_ctrl_c
from lostcities.bots.expert import NET_DEPTH, NET_PRIOR, ExpertBot
from lostcities.bots.flat import REMOVED_ROLLOUTS
from lostcities.bots.heuristic import HeuristicBot
from lostcities.nn import NUM_FEATURES, Network, default_network, features
from lostcities.presentation import progress_bar as rich_progress_bar
from lostcities.rules import Move, PlayerView, Round
from lostcities.scoring import MARGIN_SCALE
from lostcities.train.data import VARIANTS, Positions
from lostcities.train.errors import TrainOptionError

__all__ = [
    "ExpertTeacher",
    "FlatTeacher",
    "GuidedTeacher",
    "HeuristicTeacher",
    "SelfPlayConfig",
    "Teacher",
    "deal_round",
    "generate",
    "load_shards",
    "play_round",
    "progress_bar",
    "round_seed",
    "selfplay_round",
    "shard_path",
]

MAX_PLIES = 400
"""A safety cap on a self-play round's length (rounds end long before in practice)."""


class Teacher(Protocol):
    """Values moves of a position."""

    def search(self, view: PlayerView, legal: Sequence[Move], seed: int) -> list[float | None]:
        """The value of each of ``legal`` for the viewer (``None``: not searched; at least
        one must be searched), deterministic given ``seed``."""


@dataclass(frozen=True)
class FlatTeacher:
    """Flat Monte Carlo over every legal move (module docs). Weak on its own: the noise of
    so many candidates lets poor moves win (it loses to ``heuristic``); see
    :class:`HeuristicTeacher`."""

    worlds: int = 64
    """Sampled deals per move."""
    rollout: str = "smart"
    """The rollout policy (``smart`` or ``cheap``, as :class:`~lostcities.fast.search.FlatSearch`)."""
    scale: float = MARGIN_SCALE
    """Margin scale of the reward ``tanh(margin / scale)``."""

    def __post_init__(self) -> None:
        _check_search(self.worlds, self.rollout, self.scale)

    def search(self, view: PlayerView, legal: Sequence[Move], seed: int) -> list[float | None]:
        """Every legal move's mean reward over :attr:`worlds` deals."""
        return list(_flat(view, legal, self.worlds, seed, self.rollout, self.scale))


@dataclass(frozen=True)
class HeuristicTeacher:
    """Flat Monte Carlo over the ``heuristic`` bot's ``top_k`` best card actions, each with
    the draw it picks for it and with a draw from the draw pile: the ``ismcts`` bot's
    candidates (:meth:`lostcities.bots.heuristic.HeuristicBot.rank_moves`)."""

    worlds: int = 64
    """Sampled deals per move."""
    top_k: int = 3
    """Card actions taken from the heuristic's ranking."""
    rollout: str = "smart"
    """The rollout policy."""
    scale: float = MARGIN_SCALE
    """Margin scale of the reward."""

    def __post_init__(self) -> None:
        _check_search(self.worlds, self.rollout, self.scale)
        if self.top_k < 1:
            raise TrainOptionError(f"invalid heuristic top k: {self.top_k!r} (must be at least 1)")

    def search(self, view: PlayerView, legal: Sequence[Move], seed: int) -> list[float | None]:
        """The chosen moves' mean rewards, ``None`` for the others."""
        return _search_some(
            view,
            legal,
            _heuristic_picks(view, self.top_k),
            self.worlds,
            seed,
            self.rollout,
            self.scale,
        )


@dataclass(frozen=True)
class GuidedTeacher:
    """Flat Monte Carlo over the network's ``top_k`` moves by prior and the heuristic's
    ``heuristic_k`` best card actions (as :class:`HeuristicTeacher`), each also drawing
    from the draw pile."""

    weights: str
    """The network's weights file (loaded once per process)."""
    top_k: int = 4
    """Moves taken by prior."""
    heuristic_k: int = 3
    """Card actions taken from the heuristic's ranking (0: none)."""
    worlds: int = 64
    """Sampled deals per move."""
    rollout: str = "smart"
    """The rollout policy."""
    scale: float = MARGIN_SCALE
    """Margin scale of the reward."""

    def __post_init__(self) -> None:
        _check_search(self.worlds, self.rollout, self.scale)
        if self.top_k < 1:
            raise TrainOptionError(f"invalid top k: {self.top_k!r} (must be at least 1)")
        if self.heuristic_k < 0:
            raise TrainOptionError(
                f"invalid heuristic top k: {self.heuristic_k!r} (must not be negative)"
            )

    def search(self, view: PlayerView, legal: Sequence[Move], seed: int) -> list[float | None]:
        """The chosen moves' mean rewards, ``None`` for the others."""
        net = _network(self.weights)
        logits, _ = net.forward(features(view)[None, :])
        prior = logits[0, np.array([m.index for m in legal], np.int64)]
        order = np.argsort(-prior, kind="stable")[: self.top_k]
        picks = [legal[int(i)].index for i in order]
        if self.heuristic_k:
            picks += _heuristic_picks(view, self.heuristic_k)
        return _search_some(
            view, legal, picks, self.worlds, seed, self.rollout, self.scale, self.weights
        )


@dataclass(frozen=True)
class ExpertTeacher:
    """The ``expert`` bot's search with the network in ``weights``
    (:meth:`lostcities.bots.expert.ExpertBot.scores`): the network's ``top_k`` most probable
    moves and the draw-pile variant of each, ``worlds`` worlds dealt consistently with the
    mover's view, every candidate played out in the same worlds by the network on both
    sides and judged by its value head after ``depth`` moves. A move's value is its score,
    ``mean margin + prior * ln p`` points, divided by ``scale`` (so that the policy target's
    temperature means what it means with the other teachers).

    >>> from lostcities.rules import Round
    >>> view = Round.deal(seed=3).view(0)
    >>> values = ExpertTeacher("", worlds=4).search(view, view.legal_moves(), seed=1)
    >>> 4 <= sum(v is not None for v in values) <= 8
    True
    """

    weights: str
    """The network's weights file (empty: the shipped network; loaded once per process)."""
    worlds: int = 64
    """Sampled deals, the same for every candidate."""
    top_k: int = 4
    """Moves taken by prior (each also with a draw from the draw pile)."""
    depth: int = NET_DEPTH
    """Rollout moves before the value head judges (0: to the end of the round)."""
    prior: float = NET_PRIOR
    """Points per unit of log-probability added to a move's mean margin."""
    scale: float = MARGIN_SCALE
    """Points per unit of value."""

    def __post_init__(self) -> None:
        _check_search(self.worlds, "net", self.scale)
        if self.top_k < 1:
            raise TrainOptionError(f"invalid top k: {self.top_k!r} (must be at least 1)")
        if self.depth < 0:
            raise TrainOptionError(f"invalid depth: {self.depth!r} (must not be negative)")
        if not (self.prior >= 0 and math.isfinite(self.prior)):
            raise TrainOptionError(f"invalid prior: {self.prior!r} (must not be negative)")

    def search(self, view: PlayerView, legal: Sequence[Move], seed: int) -> list[float | None]:
        """The candidates' scores over :attr:`scale`, ``None`` for the other moves."""
        bot = _expert(self.weights, self.top_k, self.depth, self.prior)
        bot.reseed(seed)
        cands, scores = bot.scores(view, worlds=self.worlds)
        where = {m: i for i, m in enumerate(legal)}
        out: list[float | None] = [None] * len(legal)
        for m, score in zip(cands, scores, strict=True):
            out[where[m]] = score / self.scale
        return out


@functools.cache
def _expert(weights: str, top: int, depth: int, prior: float) -> ExpertBot:
    net = _network(weights) if weights else default_network()
    return ExpertBot(iters=1, network=net, top=top, depth=depth, prior=prior, match=False)


def _heuristic_picks(view: PlayerView, k: int) -> list[int]:
    return [m.index for _, m in _heuristic().rank_moves(view)[:k]] if k else []


@functools.cache
def _heuristic() -> HeuristicBot:
    return HeuristicBot()


def _search_some(
    view: PlayerView,
    legal: Sequence[Move],
    picks: Sequence[int],
    worlds: int,
    seed: int,
    rollout: str,
    scale: float,
    weights: str = "",
) -> list[float | None]:
    """Search the legal moves ``picks`` (indexes) and the draw-pile variant of each, in
    the order of ``legal``; ``None`` for the rest."""
    position = {m.index: i for i, m in enumerate(legal)}
    chosen: set[int] = set()
    for index in picks:
        for i in (index, index - index % 7):  # the move, and drawing from the pile instead
            if i in position:
                chosen.add(position[i])
    rows = sorted(chosen)
    values = _flat(view, [legal[i] for i in rows], worlds, seed, rollout, scale, weights)
    out: list[float | None] = [None] * len(legal)
    for i, v in zip(rows, values, strict=True):
        out[i] = v
    return out


def _check_search(worlds: int, rollout: str, scale: float) -> None:
    if worlds < 1:
        raise TrainOptionError(f"invalid worlds: {worlds!r} (must be at least 1)")
    if rollout in REMOVED_ROLLOUTS:  # in the config of a run made before the removal
        raise TrainOptionError(
            f"invalid rollout: {rollout!r} (removed in {REMOVED_ROLLOUTS[rollout]}: it was no "
            "stronger than smart; use smart)"
        )
    if rollout not in ("smart", "cheap", "net"):
        raise TrainOptionError(f"invalid rollout: {rollout!r} (smart, cheap or net)")
    if not (scale > 0 and math.isfinite(scale)):
        raise TrainOptionError(f"invalid scale: {scale!r} (must be positive)")


@functools.cache
def _network(path: str) -> Network:
    return Network.load(path)


def _flat(
    view: PlayerView,
    moves: Sequence[Move],
    worlds: int,
    seed: int,
    rollout: str,
    scale: float,
    weights: str = "",
) -> list[float]:
    """Each move's mean ``tanh(margin / scale)`` over ``worlds`` sampled deals; ``rollout``
    ``net`` plays them out with the network in ``weights`` (the shipped one if empty) on
    both sides (:class:`lostcities.fast.netsearch.NetRollouts`)."""
    if rollout == "net":
        from lostcities.fast.netsearch import NetRollouts

        net = _network(weights) if weights else default_network()
        margins = NetRollouts(net, view, moves, seed=seed).run(worlds)
        return [float(x) for x in np.tanh(np.rint(margins) / scale).mean(axis=1)]
    from lostcities.fast.search import FlatSearch

    search = FlatSearch(view, moves, rollout=rollout, seed=seed, scale=scale)
    search.run(worlds)
    return search.values()


@dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play rounds are played (all of it is recorded with the data)."""

    temperature: float = 0.05
    """``T`` of the policy target ``softmax(values / T)`` (and of the sampled moves)."""
    sample_plies: int = 8
    """Plies at the start of each round whose move is sampled from the target."""
    variants: tuple[str, ...] = ("classic",)
    """Variants, taken in turn by round index."""
    shard_rounds: int = 8
    """Rounds per data shard."""

    def __post_init__(self) -> None:
        if not self.temperature > 0 or not math.isfinite(self.temperature):
            raise TrainOptionError(f"invalid temperature: {self.temperature!r} (must be positive)")
        if self.sample_plies < 0:
            raise TrainOptionError(
                f"invalid sample plies: {self.sample_plies!r} (must not be negative)"
            )
        if not self.variants or any(v not in VARIANTS for v in self.variants):
            raise TrainOptionError(
                f"invalid variants: {list(self.variants)!r} (classic and/or long)"
            )
        if self.shard_rounds < 1:
            raise TrainOptionError(
                f"invalid shard rounds: {self.shard_rounds!r} (must be at least 1)"
            )


def round_seed(seed: int, iteration: int, index: int) -> int:
    """The seed of self-play round ``index`` of ``iteration``."""
    return derive_seed(seed, "selfplay", iteration, index)


def deal_round(config: SelfPlayConfig, seed: int, iteration: int, index: int) -> Round:
    """The deal of self-play round ``index`` of ``iteration`` (its variant, deck and starter)."""
    rs = round_seed(seed, iteration, index)
    variant = config.variants[index % len(config.variants)]
    return Round.deal(
        derive_seed(rs, "deal"), variant, derive_seed(rs, "starter") & 1, max_turns=MAX_PLIES
    )


def _softmax(v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    e = np.exp(v - v.max())
    out: npt.NDArray[np.float64] = e / e.sum()
    return out


def play_round(
    teacher: Teacher, config: SelfPlayConfig, seed: int, iteration: int, index: int
) -> Positions:
    """Play self-play round ``index`` of ``iteration`` and return its positions."""
    rs = round_seed(seed, iteration, index)
    variant = config.variants[index % len(config.variants)]
    rnd = deal_round(config, seed, iteration, index)
    rng = np.random.default_rng(derive_seed(rs, "sample"))
    xs: list[npt.NDArray[np.float64]] = []
    legal_all: list[int] = []
    values_all: list[float] = []
    offsets = [0]
    played: list[int] = []
    movers: list[int] = []
    plies: list[int] = []
    while not rnd.is_over():
        me = rnd.to_move
        view = rnd.view(me)
        legal = list(view.legal_moves())
        values = teacher.search(view, legal, derive_seed(rs, "search", rnd.ply))
        v = np.array([np.nan if x is None else x for x in values], np.float64)
        searched = np.flatnonzero(~np.isnan(v))
        assert len(searched) > 0, "the teacher searched no move"
        if rnd.ply < config.sample_plies:
            p = _softmax(v[searched] / config.temperature)
            choice = int(searched[rng.choice(len(searched), p=p)])
        else:
            choice = int(searched[np.argmax(v[searched])])
        xs.append(features(view))
        legal_all.extend(m.index for m in legal)
        values_all.extend(v.tolist())
        offsets.append(len(legal_all))
        played.append(legal[choice].index)
        movers.append(me)
        plies.append(rnd.ply)
        rnd.push_unchecked(legal[choice])
    scores = rnd.scores()
    n = len(played)
    mover = np.array(movers, np.int8)
    margin = np.array([scores[m] - scores[m ^ 1] for m in movers], np.int16)
    return Positions(
        x=np.array(xs, np.float32).reshape(n, NUM_FEATURES),
        offsets=np.array(offsets, np.int64),
        legal=np.array(legal_all, np.int16),
        values=np.array(values_all, np.float32),
        played=np.array(played, np.int16),
        mover=mover,
        margin=margin,
        round=np.full(n, index, np.int32),
        ply=np.array(plies, np.int16),
        variant=np.full(n, VARIANTS.index(variant), np.int8),
    )


def shard_path(directory: str | Path, first_round: int) -> Path:
    """The file of the shard starting at round ``first_round``."""
    return Path(directory) / f"shard-{first_round:05d}.npz"


# -- workers ------------------------------------------------------------------------------

_WORK: tuple[Teacher, SelfPlayConfig, int, int] | None = None


def _worker_init(teacher: Teacher, config: SelfPlayConfig, seed: int, iteration: int) -> None:
    global _WORK
    _WORK = (teacher, config, seed, iteration)
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


def _worker_round(index: int) -> Positions:
    assert _WORK is not None
    teacher, config, seed, iteration = _WORK
    return play_round(teacher, config, seed, iteration, index)


def selfplay_round(work: tuple[Teacher, SelfPlayConfig, int, int], index: int) -> Positions:
    """Round ``index`` of the self-play ``work`` (teacher, config, seed, iteration): the
    unit a Ray worker plays (:func:`play_round`)."""
    one_core_per_bot()
    teacher, config, seed, iteration = work
    return play_round(teacher, config, seed, iteration, index)


def _rounds(
    teacher: Teacher,
    config: SelfPlayConfig,
    seed: int,
    iteration: int,
    todo: list[int],
    jobs: int | None,
    backend: Backend = LOCAL,
) -> Generator[Positions, None, None]:
    """Each round of ``todo``'s positions, in order."""
    if backend.kind == "ray":
        yield from ray_ordered(
            selfplay_round,
            (teacher, config, seed, iteration),
            todo,
            jobs=jobs,
            describe=lambda i: f"self-play round {i}",
        )
        return
    jobs = min(jobs or os.cpu_count() or 1, max(len(todo), 1))
    if jobs <= 1 or len(todo) <= 1:
        for i in todo:
            yield play_round(teacher, config, seed, iteration, i)
        return
    one_core_per_bot()
    ctx = multiprocessing.get_context("spawn")
    with workers_without_ctrl_c():
        pool = ctx.Pool(
            min(jobs, len(todo)),
            initializer=_worker_init,
            initargs=(teacher, config, seed, iteration),
        )
    finished = False
    try:
        yield from pool.imap(_worker_round, todo)
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


Progress = Callable[[int, int, int], None]
"""Called with (rounds done, rounds in all, positions so far)."""


def generate(
    directory: str | Path,
    teacher: Teacher,
    config: SelfPlayConfig,
    *,
    rounds: int,
    seed: int,
    iteration: int,
    jobs: int | None = None,
    progress: Progress | None = None,
    backend: Backend = LOCAL,
) -> list[Path]:
    """Play ``rounds`` self-play rounds of ``iteration`` into shards in ``directory``
    (created if needed), skipping the shards already there; returns every shard's path.

    ``jobs``: worker processes (all cores by default); ``backend``: where the rounds are
    played (:class:`~lostcities.arena.Backend`), the data is the same on either. On a Ray
    cluster a :class:`GuidedTeacher`'s weights file must be at the same path on every
    node; the shards are written here.

    :raises ValueError: for a round count below 1.
    :raises ClusterError: when the Ray cluster cannot be used or loses a round.
    """
    if rounds < 1:
        raise TrainOptionError(f"invalid rounds: {rounds!r} (must be at least 1)")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    firsts = list(range(0, rounds, config.shard_rounds))
    paths = [shard_path(out, f) for f in firsts]
    todo = [
        i
        for f, p in zip(firsts, paths, strict=True)
        if not _is_shard_of(p, [f, min(f + config.shard_rounds, rounds)], seed, iteration)
        for i in range(f, min(f + config.shard_rounds, rounds))
    ]
    done = rounds - len(todo)
    positions = 0
    if progress is not None:
        progress(done, rounds, positions)
    meta: dict[str, Any] = {
        "config": asdict(config),
        "teacher": {"kind": type(teacher).__name__, **_describe(teacher)},
        "seed": seed,
        "iteration": iteration,
    }
    block: list[Positions] = []
    with ray_session(backend):
        stream = _rounds(teacher, config, seed, iteration, todo, jobs, backend)
        try:
            for i, pos in zip(todo, stream, strict=True):
                block.append(pos)
                positions += len(pos)
                done += 1
                first = i - i % config.shard_rounds
                if i + 1 == min(first + config.shard_rounds, rounds):
                    Positions.concat(block).save(
                        shard_path(out, first), {**meta, "rounds": [first, i + 1]}
                    )
                    block = []
                if progress is not None:
                    progress(done, rounds, positions)
        finally:
            stream.close()
    return paths


def _is_shard_of(path: Path, rounds: list[int], seed: int, iteration: int) -> bool:
    """Whether ``path`` is a readable shard of those rounds (else it is played again)."""
    if not path.exists():
        return False
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
    except (OSError, ValueError, KeyError):
        return False
    return bool(
        meta.get("rounds") == rounds
        and meta.get("seed") == seed
        and meta.get("iteration") == iteration
    )


def _describe(teacher: Teacher) -> dict[str, Any]:
    try:
        return asdict(teacher)  # type: ignore[call-overload, no-any-return]
    except TypeError:
        return {}


def load_shards(paths: Sequence[str | Path]) -> Positions:
    """The positions of several shards, in order.

    :raises InvalidShardError: for a missing or bad shard.
    """
    return Positions.concat([Positions.load(p)[0] for p in paths])


@contextlib.contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Progress]:
    """A rich progress bar on stderr for :func:`generate` (nothing when disabled)."""
    if not enabled:
        yield lambda done, total, positions: None
        return
    start = time.perf_counter()
    with rich_progress_bar(
        fields="rounds, {task.fields[positions]:,} positions {task.fields[rate]}", keep=True
    ) as bar:
        task = bar.add_task(f"{label:<28}", total=None, positions=0, rate="")

        def update(done: int, total: int, positions: int) -> None:
            dt = time.perf_counter() - start
            rate = f"({positions / dt:,.0f}/s)" if dt > 0 and positions else ""
            bar.update(task, completed=done, total=total, positions=positions, rate=rate)

        yield update
