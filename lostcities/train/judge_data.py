"""Self-play data for the learned judge (:mod:`lostcities.fast.judge`).

The judge is taught to play as a *search* plays: in every position of a self-play round the
teacher values a few candidate moves by compiled flat Monte Carlo
(:class:`lostcities.fast.search.FlatSearch`) with the current rollout policy, ``smart`` at
first, and the judge learns ``softmax(values / T)`` over them. A one-move look-ahead over
a base policy's rollouts plays better than the base policy itself (the rollout algorithm's
policy improvement), so a judge that imitates it plays its rollouts better than ``smart``;
when the teacher then searches with that judge (``rollout="learned"``), the next round of
data improves on the judge in turn, which is expert iteration applied to the judge.

The candidates: the ``heuristic`` bot's ``top_k`` best card actions, each with the draw it
picks for it and with a draw from the draw pile (what ``ismcts`` searches), ``smart``'s move
(the network learns where to depart from it) and, when the teacher searches with a judge,
that judge's move, each with its draw-pile twin. The move made is drawn from the target for
the first ``sample_plies`` plies of a round (varied positions), the best-valued one after.

A position is stored as the array state of the whole round (:mod:`lostcities.fast.kernels`;
the judge's inputs read only the mover's view of it), the mover, its legal moves in the
core's order, the teacher's value of each (NaN: not searched), the move made and ``smart``'s
move. Round ``i`` is dealt and searched from ``derive_seed(seed, "judge", i)``, so the data
does not depend on the number of worker processes; shards of ``shard_rounds`` rounds are
written atomically and :func:`generate_judge_data` skips those already written, so an
interrupted run resumes where it stopped.

>>> cfg = JudgeDataConfig(worlds=4, sample_plies=0)
>>> d = judge_round(cfg, seed=1, index=0)
>>> len(d["mover"]) == len(d["played"]) > 20, d["states"].shape[1]
(True, 352)
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from lostcities.arena import derive_seed
from lostcities.bots.base import one_core_per_bot, workers_without_ctrl_c
from lostcities.bots.heuristic import HeuristicBot
from lostcities.rules import Move, Round
from lostcities.train.data import VARIANTS, atomic_path, concat_ragged, read_arrays
from lostcities.train.errors import InvalidShardError, TrainOptionError

__all__ = [
    "JudgeDataConfig",
    "generate_judge_data",
    "judge_round",
    "load_judge_shards",
    "shard_file",
]

MAX_PLIES = 400
"""A safety cap on a self-play round's length."""
ROLLOUTS = ("smart", "learned")
"""The teacher's rollout policies."""


@dataclass(frozen=True)
class JudgeDataConfig:
    """How the judge's self-play data is made (stored with it)."""

    worlds: int = 128
    """The teacher's sampled deals per candidate."""
    top_k: int = 3
    """Card actions taken from the heuristic's ranking."""
    rollout: str = "smart"
    """The teacher's rollout policy: ``smart`` or ``learned`` (with :attr:`judge`)."""
    judge: str | None = None
    """The weights file of the judge the teacher searches with (``rollout="learned"``;
    ``None``: the shipped one)."""
    temperature: float = 0.05
    """``T`` of the sampled opening moves ``softmax(values / T)``."""
    sample_plies: int = 8
    """Plies at the start of each round whose move is sampled."""
    variants: tuple[str, ...] = ("classic", "long")
    """Variants, taken in turn by round index."""
    shard_rounds: int = 16
    """Rounds per shard."""

    def __post_init__(self) -> None:
        if self.worlds < 1:
            raise TrainOptionError(f"invalid worlds: {self.worlds!r} (must be at least 1)")
        if self.top_k < 1:
            raise TrainOptionError(f"invalid top k: {self.top_k!r} (must be at least 1)")
        if self.rollout not in ROLLOUTS:
            raise TrainOptionError(f"invalid rollout: {self.rollout!r} (smart or learned)")
        if not (self.temperature > 0 and math.isfinite(self.temperature)):
            raise TrainOptionError(f"invalid temperature: {self.temperature!r} (must be positive)")
        if self.sample_plies < 0:
            raise TrainOptionError(f"invalid sample plies: {self.sample_plies!r}")
        if not self.variants or any(v not in VARIANTS for v in self.variants):
            raise TrainOptionError(f"invalid variants: {list(self.variants)!r}")
        if self.shard_rounds < 1:
            raise TrainOptionError(f"invalid shard rounds: {self.shard_rounds!r}")


@functools.cache
def _heuristic() -> HeuristicBot:
    return HeuristicBot(seed=0)


def _candidates(
    view_moves: Sequence[Move], picks: Sequence[int], legal_index: dict[int, int]
) -> list[int]:
    """The positions in ``view_moves`` of ``picks`` and of each one's draw-pile twin."""
    rows: set[int] = set()
    for a in picks:
        for b in (a, a - a % 7):
            if b in legal_index:
                rows.add(legal_index[b])
    return sorted(rows)


def judge_round(cfg: JudgeDataConfig, seed: int, index: int) -> dict[str, npt.NDArray[Any]]:
    """Play self-play round ``index`` and return its positions' arrays (module docs)."""
    from lostcities.fast.judge import load_judge
    from lostcities.fast.search import FlatSearch
    from lostcities.fast.smart import smart_action
    from lostcities.fast.state import state_from_round

    rs = derive_seed(seed, "judge", index)
    variant = cfg.variants[index % len(cfg.variants)]
    rnd = Round.deal(
        derive_seed(rs, "deal"), variant, derive_seed(rs, "starter") & 1, max_turns=MAX_PLIES
    )
    rng = np.random.default_rng(derive_seed(rs, "sample"))
    judge = load_judge(cfg.judge) if cfg.rollout == "learned" else None
    heur = _heuristic()
    states: list[npt.NDArray[np.int32]] = []
    legal_all: list[int] = []
    values_all: list[float] = []
    offsets = [0]
    played: list[int] = []
    smart: list[int] = []
    movers: list[int] = []
    plies: list[int] = []
    while not rnd.is_over():
        me = rnd.to_move
        view = rnd.view(me)
        legal = list(view.legal_moves())
        s = state_from_round(rnd)
        sa = int(smart_action(s))
        if len(legal) > 1:
            heur.reseed(derive_seed(rs, "heuristic", rnd.ply))
            picks = [m.index for _, m in heur.rank_moves(view)[: cfg.top_k]]
            picks.append(sa)
            if judge is not None:
                picks.append(judge.action(s, derive_seed(rs, "judge", rnd.ply)))
            where = {m.index: i for i, m in enumerate(legal)}
            rows = _candidates(legal, picks, where)
            search = FlatSearch(
                view,
                [legal[i] for i in rows],
                rollout=cfg.rollout,
                seed=derive_seed(rs, "search", rnd.ply),
                **({"judge": judge} if judge is not None else {}),  # type: ignore[arg-type]
            )
            search.run(cfg.worlds)
            v = np.full(len(legal), np.nan)
            v[rows] = search.values()
        else:
            v = np.zeros(1)
        searched = np.flatnonzero(~np.isnan(v))
        if rnd.ply < cfg.sample_plies:
            z = v[searched] / cfg.temperature
            p = np.exp(z - z.max())
            choice = int(searched[rng.choice(len(searched), p=p / p.sum())])
        else:
            choice = int(searched[np.argmax(v[searched])])
        states.append(s)
        legal_all.extend(m.index for m in legal)
        values_all.extend(v.tolist())
        offsets.append(len(legal_all))
        played.append(legal[choice].index)
        smart.append(sa)
        movers.append(me)
        plies.append(rnd.ply)
        rnd.push_unchecked(legal[choice])
    n = len(played)
    return {
        "states": np.array(states, np.int32).reshape(n, -1),
        "offsets": np.array(offsets, np.int64),
        "legal": np.array(legal_all, np.int16),
        "values": np.array(values_all, np.float32),
        "played": np.array(played, np.int16),
        "smart": np.array(smart, np.int16),
        "mover": np.array(movers, np.int8),
        "ply": np.array(plies, np.int16),
        "round": np.full(n, index, np.int32),
    }


FIELDS = ("states", "offsets", "legal", "values", "played", "smart", "mover", "ply", "round")
"""The arrays of a judge data shard."""


def shard_file(directory: str | Path, first: int) -> Path:
    """The file of the shard starting at round ``first``."""
    return Path(directory) / f"judge-{first:05d}.npz"


def _shard_meta(path: Path) -> dict[str, Any] | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            meta: dict[str, Any] = json.loads(str(z["meta"]))
            return meta
    except (OSError, ValueError, KeyError):
        return None


_WORK: tuple[JudgeDataConfig, int] | None = None


def _init(cfg: JudgeDataConfig, seed: int) -> None:
    global _WORK
    _WORK = (cfg, seed)
    one_core_per_bot()
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(index: int) -> dict[str, npt.NDArray[Any]]:
    assert _WORK is not None
    return judge_round(_WORK[0], _WORK[1], index)


def _stream(
    cfg: JudgeDataConfig, seed: int, todo: list[int], jobs: int
) -> Iterator[dict[str, npt.NDArray[Any]]]:
    if jobs <= 1 or len(todo) <= 1:
        for i in todo:
            yield judge_round(cfg, seed, i)
        return
    ctx = multiprocessing.get_context("spawn")
    with workers_without_ctrl_c():
        pool = ctx.Pool(min(jobs, len(todo)), initializer=_init, initargs=(cfg, seed))
    done = False
    try:
        yield from pool.imap(_work, todo)
        done = True
    finally:
        if done:
            pool.close()
        else:
            pool.terminate()
        pool.join()


def generate_judge_data(
    directory: str | Path,
    cfg: JudgeDataConfig,
    *,
    rounds: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> list[Path]:
    """Play ``rounds`` self-play rounds into shards in ``directory`` (created), skipping the
    shards already there with the same rounds, seed and config; every shard's path.

    :raises TrainOptionError: for a round count below 1.
    """
    if rounds < 1:
        raise TrainOptionError(f"invalid rounds: {rounds!r} (must be at least 1)")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {"config": asdict(cfg), "seed": seed}
    firsts = list(range(0, rounds, cfg.shard_rounds))
    todo: list[int] = []
    for f in firsts:
        span = [f, min(f + cfg.shard_rounds, rounds)]
        m = _shard_meta(shard_file(out, f))
        if m != {**json.loads(json.dumps(meta)), "rounds": span}:
            todo.extend(range(*span))
    done = rounds - len(todo)
    if progress is not None:
        progress(done, rounds)
    block: list[dict[str, npt.NDArray[Any]]] = []
    stream = _stream(cfg, seed, todo, jobs)
    try:
        for i, part in zip(todo, stream, strict=True):
            block.append(part)
            done += 1
            first = i - i % cfg.shard_rounds
            last = min(first + cfg.shard_rounds, rounds)
            if i + 1 == last:
                arrays: dict[str, Any] = concat_ragged(block, FIELDS)
                arrays["meta"] = np.array(json.dumps({**meta, "rounds": [first, last]}))
                with atomic_path(shard_file(out, first)) as tmp, open(tmp, "wb") as fh:
                    np.savez_compressed(fh, **arrays)
                block = []
            if progress is not None:
                progress(done, rounds)
    finally:
        if hasattr(stream, "close"):
            stream.close()
    return [shard_file(out, f) for f in firsts]


def load_judge_shards(paths: Sequence[str | Path]) -> dict[str, npt.NDArray[Any]]:
    """The positions of several shards, in order.

    :raises InvalidShardError: for a missing or bad shard.
    """
    parts = [read_arrays(p, "judge shard", FIELDS) for p in paths]
    if not parts:
        raise InvalidShardError("no judge shards")
    return concat_ragged(parts, FIELDS)


def default_jobs() -> int:
    """Worker processes by default: the cores there are."""
    return os.cpu_count() or 1
