"""``lostcities bench``: engine speed, measured in one run against the C reference.

A part of its own above the core, the bots and the fast path (it times all three; the
``fast`` extra, numba, is needed).

Every figure is under the benchmark's uniform-random policy (that of the C reference
``lostcities/data/bench/playout.c``: uniform over the hand's card slots x play-if-legal/discard,
then uniform over the legal draw sources), classic variant:

- ``python``: the pure-Python :class:`~lostcities.Round` through its public API
  (``legal_moves()``, ``hands``, checked ``push``);
- ``fast``: the numba fast path on one core (whole rounds inside one compiled call);
- ``batch``: :class:`~lostcities.fast.batch.BatchGames` of 10,000 games on all numba
  threads: ``kernel`` (moves made inside one compiled call) and ``api`` (the RL loop
  ``legal_mask()``, ``random_actions("bench")``, ``step()``, ``reset_done()`` from Python);
- ``ismcts``: iterations per second of the default ``ismcts`` bot (flat mode, smart
  rollouts) at a fixed time per move with its compiled search (``engine=fast``) and with the
  same search on the pure-Python core (``engine=python``), and of ``mode=tree`` with compiled
  and with pure-Python rollouts (when :mod:`lostcities.bots.ismcts` exists);
- ``flat``: flat Monte Carlo over determinizations (a playout per candidate move per sampled
  world), compiled (:mod:`lostcities.fast.search`) against the same search on the core;
- ``c``: the C reference, shipped with the package (:data:`C_SOURCE`), compiled with
  ``-O3 -march=native`` by the system's C compiler (``$CC``, else ``gcc``, ``cc`` or
  ``clang`` on the PATH) into the user cache (:func:`c_cache_dir`), once per source and
  compiler; without a compiler the figure is skipped and the report says so
  (:data:`NO_COMPILER`).

Also the memory of a 10,000-game batch and the start-up time of the compiled kernels
(loaded from numba's on-disk cache after the first run).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.resources
import json
import os
import platform
import random
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numba
import numpy as np

from lostcities.fast import kernels as K
from lostcities.fast.batch import BatchGames
from lostcities.rules import Action, Move, PlayerView, Round

__all__ = [
    "C_SOURCE",
    "NO_COMPILER",
    "bench_c",
    "c_cache_dir",
    "cli_main",
    "find_compiler",
    "run_bench",
]

C_SOURCE = Path(str(importlib.resources.files("lostcities") / "data" / "bench" / "playout.c"))
"""The C reference's source, package data of every install (``benchmarks/c/playout.c``
in a checkout links to it)."""

NO_COMPILER = "no C compiler found (set CC): the C reference is skipped"
"""What the report says without a C compiler."""

BATCH_GAMES = 10_000

Report = Callable[[str], None]


# -- the measurements ----------------------------------------------------------------------


def _timed(seconds: float, step: Callable[[], int]) -> tuple[int, float]:
    """Call ``step`` (it returns how much it did) until about ``seconds`` have passed, at
    least once; return the total it did and the seconds it took."""
    done = 0
    start = time.perf_counter()
    while True:
        done += step()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done, elapsed


def _per_second(seconds: float, step: Callable[[], int]) -> float:
    """What ``step`` does per second, timed for about ``seconds`` (:func:`_timed`)."""
    done, elapsed = _timed(seconds, step)
    return done / elapsed


def _time_rounds(
    seconds: float, seed: int, choose: Callable[[Round, random.Random], Move]
) -> dict[str, float]:
    """Whole rounds through the core's public API for about ``seconds``, ``choose`` picking
    every move."""
    rng = random.Random(seed)
    rounds = turns = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        r = Round.deal(seed=rng.randrange(2**63))
        while not r.is_over():
            r.push(choose(r, rng))
            turns += 1
        rounds += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return _rates(rounds, turns, elapsed, time.process_time() - cpu)


def _bench_policy_move(r: Round, rng: random.Random) -> Move:
    """The C reference's policy: uniform over the hand's (card, play-if-legal/discard)
    options, then uniform over that option's draw sources."""
    moves = r.legal_moves()
    playable = set(moves.cards(Action.PLAY))
    hand = r.hands[r.to_move]
    options = [(Action.PLAY, c) for c in hand if c in playable]
    options += [(Action.DISCARD, c) for c in hand]
    action, card = options[rng.randrange(len(options))]
    draws = moves.draws(action, card)
    return Move(action, card, draws[rng.randrange(len(draws))])


def _uniform_legal_move(r: Round, rng: random.Random) -> Move:
    moves = r.legal_moves()
    return moves[rng.randrange(len(moves))]


def bench_python(seconds: float, seed: int = 1) -> dict[str, float]:
    """Whole random rounds through the core's public API under the C reference's policy."""
    return _time_rounds(seconds, seed, _bench_policy_move)


def bench_python_legal(seconds: float, seed: int = 1) -> dict[str, float]:
    """Whole rounds through ``legal_moves()`` + ``push()`` alone, uniform over the distinct
    legal moves (issue 2's measure of the core)."""
    return _time_rounds(seconds, seed, _uniform_legal_move)


def bench_fast(seconds: float, seed: int = 1) -> dict[str, float]:
    """Whole random rounds on one core inside compiled calls for about ``seconds``."""
    rng = np.array([0x9E3779B97F4A7C15, seed], np.uint64)
    K.random_rounds(10, 5, rng)  # load the compiled code before timing
    rounds = turns = 0
    chunk = 200
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        turns += int(K.random_rounds(chunk, 5, rng))
        rounds += chunk
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        chunk = min(chunk * 2, 20_000)
    return _rates(rounds, turns, elapsed, time.process_time() - cpu)


def bench_batch_kernel(seconds: float, seed: int = 1) -> dict[str, float]:
    """A 10,000-game batch stepped inside compiled parallel calls for about ``seconds``."""
    games = BatchGames(BATCH_GAMES, "classic", seed)
    games.play_bench(1)
    per = [20]  # turns per game of the next call, doubled up to 400

    def step() -> int:
        games.play_bench(per[0])
        done = per[0] * BATCH_GAMES
        per[0] = min(per[0] * 2, 400)
        return done

    return _batch_rates(*_timed(seconds, step))


def bench_batch_api(seconds: float, seed: int = 1) -> dict[str, float]:
    """The RL loop over a 10,000-game batch: mask, actions, step, reset, for ``seconds``."""
    games = BatchGames(BATCH_GAMES, "classic", seed)
    games.legal_mask()
    games.step(games.random_actions("bench"))
    games.reset_done()

    def step() -> int:
        games.legal_mask()
        actions = games.random_actions("bench")
        games.step(actions)
        games.reset_done()
        return int((actions >= 0).sum())

    return _batch_rates(*_timed(seconds, step))


def batch_memory() -> dict[str, float]:
    """MiB held by a 10,000-game batch (states, random streams, legal-mask buffer)."""
    return {v: BatchGames(BATCH_GAMES, v, 0).nbytes / 2**20 for v in ("classic", "long")}


def _ismcts_positions(count: int) -> Iterator[Round]:
    """Mid-round positions (a dozen moves in, expeditions started)."""
    rng = random.Random(7)
    k = 0
    while True:
        k += 1
        r = Round.deal(seed=1000 + k)
        for _ in range(12):
            moves = r.legal_moves()
            plays = [m for m in moves if m.action is Action.PLAY and m.draw is None]
            r.push(plays[0] if plays and rng.random() < 0.6 else moves[rng.randrange(len(moves))])
        yield r
        if k >= count:
            k = 0


def bench_ismcts(seconds: float, iters: int = 200) -> dict[str, Any] | None:
    """ISMCTS iterations/s (``None`` without :mod:`lostcities.bots.ismcts`): the default bot
    at a fixed time per move with ``engine=fast`` against ``engine=python`` (the same search,
    same worlds, on the pure-Python core), and ``mode=tree`` with compiled against
    pure-Python rollouts at ``iters`` iterations per move."""
    try:
        from lostcities.bots import make
        from lostcities.bots.rollout import python_rollouts

        make("ismcts:iters=2,engine=fast", seed=1)
    except ImportError:
        return None

    from lostcities.bots.rollout import playout

    playout(Round.deal(seed=1))  # load the compiled rollouts before timing
    warm = _ismcts_positions(1)
    r0 = next(warm)
    make("ismcts:iters=20", seed=1).choose(r0.view(r0.to_move))  # and the compiled search

    def measure(specs: tuple[str, str], contexts: tuple[bool, bool]) -> dict[str, Any]:
        res: dict[str, Any] = {"spec": specs[0], "pure_spec": specs[1]}
        for label, spec, pure in zip(("fast", "pure"), specs, contexts, strict=True):
            with python_rollouts() if pure else nullcontext():
                bot = make(spec, seed=1)
                done = 0
                elapsed = cpu = 0.0
                for r in _ismcts_positions(16):
                    t0 = time.perf_counter()
                    c0 = time.process_time()
                    bot.choose(r.view(r.to_move))
                    cpu += time.process_time() - c0
                    elapsed += time.perf_counter() - t0
                    done += int(getattr(bot, "last_iterations", iters))
                    if elapsed >= seconds:
                        break
            res[f"{label}_iters_per_s"] = done / elapsed
            res[f"{label}_iters_per_cpu_s"] = done / max(cpu, 1e-9)
        res["speedup"] = res["fast_iters_per_s"] / res["pure_iters_per_s"]
        res["speedup_cpu"] = res["fast_iters_per_cpu_s"] / res["pure_iters_per_cpu_s"]
        return res

    move_time = min(0.2, max(0.02, seconds / 10))
    default = f"ismcts:time={move_time:g}"
    out = measure((default, default + ",engine=python"), (False, False))
    out["labels"] = ("compiled search (engine=fast)", "on the pure-Python core (engine=python)")
    tree = f"ismcts:iters={iters},rollout=cheap,mode=tree"
    out["tree"] = measure((tree, tree), (False, True))
    out["tree"]["labels"] = ("compiled rollouts", "pure-Python rollouts")
    return out


def bench_flat(seconds: float, candidates: int = 8) -> dict[str, float]:
    """Flat Monte Carlo over determinizations (the search of ``ismcts:mode=flat``, a playout
    per candidate per sampled world): compiled (:class:`~lostcities.fast.search.FlatSearch`)
    and on the pure-Python core (``sample_round``, ``copy``, ``push``, Python playouts)."""
    from lostcities.bots.rollout import playout_python
    from lostcities.fast.search import FlatSearch

    rng = random.Random(3)
    out: dict[str, float] = {}
    positions = _ismcts_positions(16)

    def candidates_at_next() -> tuple[PlayerView, list[Move]]:
        r = next(positions)
        view = r.view(r.to_move)
        return view, list(view.legal_moves())[:candidates]

    def pure() -> int:
        view, cands = candidates_at_next()
        for _ in range(20):
            w = view.sample_round(rng)
            for m in cands:
                x = w.copy(stack=False)
                x.push_unchecked(m)
                playout_python(x)
        return 20 * len(cands)

    def compiled() -> int:
        view, cands = candidates_at_next()
        FlatSearch(view, cands, seed=rng.randrange(2**32)).run(500)
        return 500 * len(cands)

    out["pure_playouts_per_s"] = _per_second(seconds, pure)
    view, cands = candidates_at_next()
    FlatSearch(view, cands, seed=1).run(1)  # load the compiled code before timing
    out["fast_playouts_per_s"] = _per_second(seconds, compiled)
    out["speedup"] = out["fast_playouts_per_s"] / out["pure_playouts_per_s"]
    return out


def find_compiler() -> list[str] | None:
    """The C compiler's command: ``$CC`` (split like a shell word list, its first word found
    on the PATH) when set, else the first of ``gcc``, ``cc`` and ``clang`` on the PATH;
    ``None`` without one."""
    cc = os.environ.get("CC", "").strip()
    if cc:
        words = shlex.split(cc)
        path = shutil.which(words[0])
        return [path, *words[1:]] if path else None
    for name in ("gcc", "cc", "clang"):
        path = shutil.which(name)
        if path:
            return [path]
    return None


def c_cache_dir() -> Path:
    """Where the compiled C reference is kept: ``$XDG_CACHE_HOME/lostcities``, else
    ``~/.cache/lostcities`` (a temporary folder when neither can be made)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    cache = Path(base) / "lostcities"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        cache = Path(tempfile.gettempdir()) / "lostcities-bench"
        cache.mkdir(parents=True, exist_ok=True)
    return cache


def _compiler_id(cc: list[str]) -> bytes:
    """The compiler's command and its ``--version`` line: an upgrade compiles again."""
    try:
        out = subprocess.run([*cc, "--version"], capture_output=True, text=True, timeout=30)
        version = out.stdout.splitlines()[0] if out.stdout else ""
    except (OSError, subprocess.TimeoutExpired):
        version = ""
    return " ".join([*cc, version]).encode()


def compile_c_reference(source: Path = C_SOURCE) -> Path | dict[str, str] | None:
    """The C reference's executable in the user cache (:func:`c_cache_dir`), compiled on
    the first call for this source and compiler (keyed by a hash of both); a dict saying
    why there is none (``skipped``: no compiler, ``error``: it did not compile); ``None``
    without the source."""
    if not source.is_file():
        return None
    cc = find_compiler()
    if cc is None:
        return {"skipped": NO_COMPILER}
    code = source.read_bytes()
    digest = hashlib.sha256(code + b"\0" + _compiler_id(cc)).hexdigest()[:16]
    cache = c_cache_dir()
    exe = cache / f"playout-{digest}"
    if exe.is_file():
        return exe
    # compile a copy in the cache: the installed source may sit where nothing can be written
    src = cache / f"playout-{digest}.{os.getpid()}.c"
    tmp = exe.with_suffix(f".{os.getpid()}.tmp")
    src.write_bytes(code)
    try:
        cmd = [*cc, "-O3", "-march=native", "-o", str(tmp), str(src)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:  # e.g. -march=native unsupported: try without
            cmd.remove("-march=native")
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                return {"error": f"compiling {source.name} failed: {done.stderr.strip()[:200]}"}
        tmp.replace(exe)
    finally:
        src.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)
    return exe


def bench_c(seconds: float, source: Path = C_SOURCE) -> dict[str, Any] | None:
    """The C reference (:func:`compile_c_reference`) run for about ``seconds``; without a
    compiler ``{"skipped": NO_COMPILER}``, when it does not compile ``{"error": ...}``,
    without the source ``None``."""
    exe = compile_c_reference(source)
    if not isinstance(exe, Path):
        return exe
    cc = find_compiler() or ["cc"]

    def run(n: int) -> dict[str, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        text = subprocess.run([str(exe), str(n)], capture_output=True, text=True, check=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        fields = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", text)}
        fields["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return fields

    probe = run(2000)
    n = max(2000, int(probe["rounds_per_s"] * seconds))
    res = run(n) if n > 2000 else probe
    rounds_per_s = res["rounds_per_s"]
    moves = res["mean_turns"] + 1  # playout.c does not count the move that ends the round
    # CPU time of the whole process (start-up included: negligible against seconds of play)
    per_cpu = res["rounds"] / res["cpu"] if res["cpu"] > 0 else 0.0
    return {
        "rounds_per_s": rounds_per_s,
        "turns_per_s": rounds_per_s * moves,
        "rounds_per_cpu_s": per_cpu,
        "turns_per_cpu_s": per_cpu * moves,
        "mean_turns": moves,
        "rounds": int(res["rounds"]),
        "compiler": Path(cc[0]).name,
    }


def fast_start_time() -> dict[str, float]:
    """Seconds (wall and CPU) a fresh interpreter takes to import the fast path and load its
    kernels (from numba's cache once compiled), the interpreter's own start not counted."""
    code = (
        "import time; t = time.perf_counter(); c = time.process_time()\n"
        "import numpy as np\n"
        "from lostcities.fast import kernels as K\n"
        "from lostcities.fast.batch import BatchGames\n"
        "from lostcities.bots.rollout import playout\n"
        "from lostcities import Round\n"
        "K.random_rounds(1, 5, np.array([1, 2], np.uint64))\n"
        "g = BatchGames(4, seed=1); g.legal_mask(); g.step(g.random_actions('bench'))\n"
        "playout(Round.deal(seed=1))\n"
        "print(time.perf_counter() - t, time.process_time() - c)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    wall, cpu = map(float, out.stdout.split()[-2:])
    return {"wall": wall, "cpu": cpu}


def _rates(rounds: int, turns: int, elapsed: float, cpu: float) -> dict[str, float]:
    """Rates per second of wall time, and per second of CPU time (``*_per_cpu_s``: less
    sensitive to other work on the machine; the one-core comparisons use both)."""
    return {
        "rounds_per_s": rounds / elapsed,
        "turns_per_s": turns / elapsed,
        "rounds_per_cpu_s": rounds / cpu if cpu > 0 else 0.0,
        "turns_per_cpu_s": turns / cpu if cpu > 0 else 0.0,
        "mean_turns": turns / rounds if rounds else 0.0,
        "rounds": rounds,
        "seconds": elapsed,
        "cpu_seconds": cpu,
    }


MEAN_MOVES = 143.0
"""Moves per classic round under the benchmark policy (measured: 142.9 by the fast path,
141.9 + the final move by the C reference)."""


def _batch_rates(turns: int, elapsed: float) -> dict[str, float]:
    """Rates of a batch, whose games are at every stage of their rounds: rounds/s is derived
    from the moves made."""
    return {
        "rounds_per_s": turns / elapsed / MEAN_MOVES,
        "turns_per_s": turns / elapsed,
        "mean_turns": MEAN_MOVES,
        "seconds": elapsed,
    }


def machine() -> str:
    """The CPU model (``lscpu``'s model name) or the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# -- the run -----------------------------------------------------------------------------

STEPS = (
    "start",
    "python",
    "python legal",
    "fast",
    "batch kernel",
    "batch api",
    "memory",
    "ismcts",
    "flat",
    "c",
)


NOISY = 0.10
"""A spread between repeats above this (10%) is called out in the report."""


def repeated(repeat: int, measure: Callable[[], dict[str, Any] | None]) -> dict[str, Any] | None:
    """Run ``measure`` ``repeat`` times: the median run's figures (by ``turns_per_s``; the
    lower middle one for an even count), with ``runs`` (every run's turns per second) and
    ``spread`` ((max - min) / median, how noisy the figure is). A run that gives no figure
    (``None``, or an ``error``) is returned as it is.

    >>> it = iter([3.0, 1.0, 2.0])
    >>> r = repeated(3, lambda: {"turns_per_s": next(it)})
    >>> r["turns_per_s"], r["runs"], r["spread"]
    (2.0, [3.0, 1.0, 2.0], 1.0)
    """
    runs: list[dict[str, Any]] = []
    for _ in range(repeat):
        r = measure()
        if r is None or "turns_per_s" not in r:
            return r
        runs.append(r)
    ordered = sorted(runs, key=lambda r: float(r["turns_per_s"]))
    out = dict(ordered[(len(ordered) - 1) // 2])
    values = [float(r["turns_per_s"]) for r in runs]
    out["runs"] = values
    mid = float(out["turns_per_s"])
    out["spread"] = (max(values) - min(values)) / mid if mid > 0 else 0.0
    return out


def run_bench(seconds: float, report: Report | None = None, repeat: int = 3) -> dict[str, Any]:
    """Run every measurement (about ``seconds`` each) and return the results with ratios.
    The engine figures (python, fast, batch, C) are each run ``repeat`` times and give
    the median with the spread (:func:`repeated`).

    :raises ValueError: for ``seconds`` not positive or ``repeat`` under 1.
    """
    if not 0 < seconds < float("inf"):
        raise ValueError(f"invalid seconds: {seconds!r} (expected a positive number)")
    if repeat < 1:
        raise ValueError(f"invalid repeat: {repeat!r} (expected at least 1)")
    say = report or (lambda _: None)
    out: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "cpus": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "numba": numba.__version__,
        "python_version": platform.python_version(),
        "seconds_per_measurement": seconds,
        "repeat": repeat,
        "policy": "uniform random (lostcities/data/bench/playout.c), classic",
    }
    say("start")
    first = fast_start_time()  # compiles the kernels if numba's cache does not hold them
    out["fast_first_start_s"] = first
    out["fast_start_s"] = fast_start_time()
    say("python")
    out["python"] = repeated(repeat, lambda: bench_python(seconds))
    say("python legal")
    out["python_legal"] = repeated(repeat, lambda: bench_python_legal(seconds))
    say("fast")
    out["fast"] = repeated(repeat, lambda: bench_fast(seconds))
    say("batch kernel")
    batch: dict[str, Any] = {"games": BATCH_GAMES, "threads": numba.get_num_threads()}
    batch["kernel"] = repeated(repeat, lambda: bench_batch_kernel(seconds))
    say("batch api")
    batch["api"] = repeated(repeat, lambda: bench_batch_api(seconds))
    out["batch"] = batch
    say("memory")
    out["batch_memory_mib"] = batch_memory()
    say("ismcts")
    out["ismcts"] = bench_ismcts(seconds)
    say("flat")
    out["flat"] = bench_flat(seconds)
    say("c")
    c = repeated(repeat, lambda: bench_c(seconds))
    out["c"] = c
    ratios: dict[str, float] = {
        "fast_over_python": out["fast"]["rounds_per_s"] / out["python"]["rounds_per_s"],
    }
    if c is not None and "rounds_per_s" in c:
        cr = c["rounds_per_s"]
        ratios["python_over_c"] = out["python"]["rounds_per_s"] / cr
        ratios["python_legal_turns_over_c"] = out["python_legal"]["turns_per_s"] / c["turns_per_s"]
        ratios["fast_over_c"] = out["fast"]["rounds_per_s"] / cr
        if c["rounds_per_cpu_s"] > 0 and out["fast"]["rounds_per_cpu_s"] > 0:
            ratios["fast_over_c_cpu"] = out["fast"]["rounds_per_cpu_s"] / c["rounds_per_cpu_s"]
            ratios["python_over_c_cpu"] = out["python"]["rounds_per_cpu_s"] / c["rounds_per_cpu_s"]
        ct = c["turns_per_s"]  # a batch finishes few rounds per step: compare moves made
        ratios["batch_kernel_over_c"] = batch["kernel"]["turns_per_s"] / ct
        ratios["batch_api_over_c"] = batch["api"]["turns_per_s"] / ct
    if out["ismcts"] is not None:
        ratios["ismcts_fast_over_pure"] = out["ismcts"]["speedup"]
        ratios["ismcts_tree_fast_over_pure"] = out["ismcts"]["tree"]["speedup"]
    ratios["flat_fast_over_pure"] = out["flat"]["speedup"]
    out["ratios"] = ratios
    say("done")
    return out


def format_report(res: dict[str, Any]) -> str:
    """The human-readable table of :func:`run_bench`'s results."""

    def row(name: str, r: dict[str, Any] | None, note: str = "") -> str:
        if r is None or "rounds_per_s" not in r:
            return f"{name:<28} {'-':>12} {'-':>14} {'':>7}  {note}"
        spread = f"{100 * r['spread']:.0f}%" if "spread" in r else ""
        return (
            f"{name:<28} {r['rounds_per_s']:>12,.0f} {r['turns_per_s']:>14,.0f} {spread:>7}  {note}"
        )

    timed = [
        res["python"],
        res["python_legal"],
        res["fast"],
        res["batch"]["kernel"],
        res["batch"]["api"],
        res["c"],
    ]
    worst = max((r["spread"] for r in timed if r and "spread" in r), default=0.0)

    c = res["c"]
    ratios = res["ratios"]

    def vs_c(key: str) -> str:
        if key not in ratios:
            return ""
        text = f"{ratios[key]:.3f} x C"
        if key + "_cpu" in ratios:
            text += f" ({ratios[key + '_cpu']:.3f} x C per CPU second)"
        return text

    batch = res["batch"]
    lines = [
        f"machine: {res['machine']} ({res['cpus']} CPUs, numba threads {res['numba_threads']}),"
        f" {res['date']}",
        f"policy: {res['policy']}; about {res['seconds_per_measurement']:g} s per figure",
        f"each engine figure: the median of {res.get('repeat', 1)} repeats; spread ="
        " (max - min) / median of their turns/s",
        "",
        f"{'':<28} {'rounds/s':>12} {'turns/s':>14} {'spread':>7}",
        row("python (Round, public API)", res["python"], vs_c("python_over_c")),
        row(
            "python, legal_moves()+push() *",
            res["python_legal"],
            f"{ratios['python_legal_turns_over_c']:.3f} x C in turns/s"
            if "python_legal_turns_over_c" in ratios
            else "",
        ),
        row("fast path, one core", res["fast"], vs_c("fast_over_c")),
        row(f"batch {batch['games']:,}: kernel *", batch["kernel"], vs_c("batch_kernel_over_c")),
        row(f"batch {batch['games']:,}: api loop *", batch["api"], vs_c("batch_api_over_c")),
        row(
            f"C reference ({c['compiler']} -O3)" if c and "compiler" in c else "C reference",
            c,
            "" if c and "rounds_per_s" in c else f"({_c_missing(c)})",
        ),
        "* python, legal_moves()+push(): uniform over the distinct legal moves (rounds run"
        " longer under that policy: compare turns/s)",
        "* batch rounds/s = turns/s / 143 (its games are at every stage of their rounds);"
        f" {batch['threads']} numba threads",
        "",
        f"fast path / python: {ratios['fast_over_python']:.0f}x",
        "batch of 10,000 games: "
        + ", ".join(f"{v} {mib:.1f} MiB" for v, mib in res["batch_memory_mib"].items()),
        "fast path start-up (import numba, load the cached kernels):"
        f" {res['fast_start_s']['wall']:.2f} s ({res['fast_start_s']['cpu']:.2f} s CPU)"
        + (
            f"; this run's first start compiled them: {res['fast_first_start_s']['wall']:.1f} s"
            if res["fast_first_start_s"]["wall"] > 3 * res["fast_start_s"]["wall"] + 1
            else ""
        ),
    ]
    if worst > NOISY:
        lines.append(
            f"noisy run: figures differ by up to {100 * worst:.0f}% between repeats (a busy"
            " machine or too few --seconds); compare ratios with care"
        )
    ism = res["ismcts"]
    if ism is None:
        lines.append("ismcts: not available")
    else:
        for m in (ism, ism["tree"]):
            fast_label, pure_label = m.get("labels", ("compiled rollouts", "pure-Python rollouts"))
            lines.append(
                f"{m['spec']}: {m['fast_iters_per_s']:,.0f} iterations/s, {fast_label};"
                f" {m['pure_iters_per_s']:,.0f} {pure_label} ({m['speedup']:.1f}x,"
                f" {m.get('speedup_cpu', m['speedup']):.1f}x per CPU second)"
            )
    flat = res["flat"]
    lines.append(
        f"flat Monte Carlo (playout per candidate per sampled world): {flat['fast_playouts_per_s']:,.0f}"
        f" playouts/s compiled, {flat['pure_playouts_per_s']:,.0f} on the pure-Python core"
        f" ({flat['speedup']:.1f}x)"
    )
    return "\n".join(lines)


def _c_missing(c: dict[str, Any] | None) -> str:
    """Why a report has no C figure."""
    if c is None:
        return f"no C source at {C_SOURCE}"
    return str(c.get("skipped") or c.get("error") or "no figure")


@contextmanager
def _progress(enabled: bool) -> Iterator[Report]:
    """A progress display on stderr: a rich bar when rich is installed, else status lines."""
    if not enabled:
        yield lambda _: None
        return
    total = len(STEPS)
    try:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    except ImportError:  # pragma: no cover - rich comes with most extras

        def line(step: str) -> None:
            if step != "done":
                print(f"bench: {step} ({STEPS.index(step) + 1}/{total})", file=sys.stderr)

        yield line
        return
    with Progress(
        TextColumn("bench: {task.description:<14}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("start", total=total)

        def advance(step: str) -> None:
            if step == "done":
                bar.update(task, completed=total, description="done")
            else:
                bar.update(task, completed=STEPS.index(step), description=step)

        yield advance


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities bench [--json] [--seconds S] [--repeat N]``."""
    seconds = float(args.seconds)
    with _progress(enabled=True) as report:
        res = run_bench(seconds, report, repeat=int(getattr(args, "repeat", 3)))
    if args.json:
        print(json.dumps(res))
    else:
        print(format_report(res))
    return 0
