"""Environment steps per second for each RL API (PettingZoo, Gymnasium, OpenSpiel).

One *step* is one action by the agent to move plus whatever the API computes for the next
decision. Actions are uniform over the legal ones (from the mask or ``legal_actions``), so
the figures include the action choice, which is the same cheap NumPy call everywhere.

- ``pettingzoo raw``: ``raw_env.step`` + ``last()`` (observation and mask of the next agent);
- ``pettingzoo env()``: the same through PettingZoo's three standard wrappers;
- ``gymnasium``: ``LostCitiesEnv.step`` against ``random`` (the bot's reply is inside the
  step, so one step is two moves of the round), and against ``net`` (the network bot, to
  read the native env's ``net`` row against);
- ``gymnasium sync xN``: ``SyncVectorEnv`` of N envs; steps counted per env;
- ``openspiel``: ``apply_action`` + ``legal_actions`` at every node (chance nodes included,
  counted as steps), no observation;
- ``openspiel + obs``: the same plus ``observation_tensor`` for the player to move;
- ``native vector xN``: :class:`lostcities.envs.vector.LostCitiesVectorEnv` of N envs against
  each built-in opponent (``random``, ``rollout``, ``smart``, ``net``) and in self-play,
  observations and masks included, the agent's actions from ``sample_legal_actions()``
  (compiled, drawn in the step's pass: a NumPy choice per env would cost more than the step);
  one numba thread (``--native-parallel`` adds rows on numba's threads); steps counted per
  env, with the memory per env;
- ``core Round``: the rules core alone (``legal_moves`` + ``push``), the floor under all of
  them, to read the others as ratios on a loaded machine.

Each row is timed by the wall clock and by the process's CPU time (``steps/CPU s``: on a
shared machine the wall clock also counts the time other programs held the cores; the CPU
time does not, though their cache traffic still slows ours), and given as a ratio to
``SyncVectorEnv`` and to the single Gymnasium env of the same run. The header line has the
load average at the start and at the end.

Usage::

    python benchmarks/env_speed.py --seconds 5
    python benchmarks/env_speed.py --seconds 5 --repeat 3 --markdown
    python benchmarks/env_speed.py --only-native --native-envs 16384
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import time
from collections.abc import Callable

import numpy as np

Rate = tuple[float, float]
"""Steps per wall-clock second and per CPU second of this process."""


def _timed(fn: Callable[[], int], seconds: float) -> tuple[int, float]:
    steps = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    while time.perf_counter() - t0 < seconds:
        steps += fn()
    _CPU[0] = time.process_time() - c0
    return steps, time.perf_counter() - t0


_CPU = [0.0]  # the CPU seconds of the last _timed call


def _rate(steps: int, took: float) -> Rate:
    return steps / took, steps / max(_CPU[0], 1e-9)


def bench_core(seconds: float) -> Rate:
    """The rules core alone: ``legal_moves()`` + ``push`` (the floor under every env)."""
    import random

    from lostcities import Round

    rng = random.Random(0)
    seed = [0]

    def one_round() -> int:
        r = Round.deal(seed=seed[0])
        seed[0] += 1
        n = 0
        while not r.is_over():
            moves = r.legal_moves()
            r.push(moves[rng.randrange(len(moves))])
            n += 1
        return n

    steps, took = _timed(one_round, seconds)
    return _rate(steps, took)


def bench_pettingzoo(seconds: float, wrapped: bool) -> Rate:
    from lostcities.envs.pettingzoo import env, raw_env

    e = env() if wrapped else raw_env()
    rng = np.random.default_rng(0)
    seed = [0]

    def one_round() -> int:
        e.reset(seed=seed[0])
        seed[0] += 1
        n = 0
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
        return n

    steps, took = _timed(one_round, seconds)
    return _rate(steps, took)


def bench_gymnasium(seconds: float, opponent: str = "random") -> Rate:
    from lostcities.envs.gymnasium import LostCitiesEnv

    env = LostCitiesEnv(opponent=opponent)
    rng = np.random.default_rng(0)
    seed = [0]

    def one_round() -> int:
        obs, _ = env.reset(seed=seed[0])
        seed[0] += 1
        n = 0
        while True:
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
            if term or trunc:
                return n

    steps, took = _timed(one_round, seconds)
    return _rate(steps, took)


def bench_vector(seconds: float, num_envs: int) -> Rate:
    from lostcities.envs.gymnasium import make_vec

    envs = make_vec(num_envs, opponent="random")
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    state = {"obs": obs}

    def batch() -> int:
        masks = state["obs"]["action_mask"]
        acts = np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])
        state["obs"], *_ = envs.step(acts)
        return num_envs

    steps, took = _timed(batch, seconds)
    return _rate(steps, took)


_BYTES_PER_ENV: dict[str, float] = {}


def bench_native_vector(
    seconds: float, num_envs: int, opponent: str | None, parallel: bool = False
) -> Rate:
    from lostcities.envs.vector import LostCitiesVectorEnv

    envs = LostCitiesVectorEnv(num_envs, opponent=opponent, parallel=parallel)
    envs.reset(seed=0)
    envs.step(envs.sample_legal_actions())  # compiled (or loaded from numba's cache) now
    envs.step(envs.sample_legal_actions())
    _BYTES_PER_ENV[str(opponent or "self-play")] = envs.nbytes / num_envs

    def batch() -> int:
        envs.step(envs.sample_legal_actions())
        return num_envs

    steps, took = _timed(batch, seconds)
    return _rate(steps, took)


def bench_openspiel(seconds: float, observe: bool) -> Rate:
    import pyspiel

    import lostcities.envs.openspiel  # noqa: F401 - registers the game

    game = pyspiel.load_game("lost_cities")
    rng = np.random.default_rng(0)

    def one_round() -> int:
        s = game.new_initial_state()
        n = 0
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                i = rng.choice(len(outcomes), p=[p for _, p in outcomes])
                s.apply_action(outcomes[i][0])
            else:
                if observe:
                    s.observation_tensor(s.current_player())
                acts = s.legal_actions()
                s.apply_action(acts[rng.integers(len(acts))])
            n += 1
        return n

    steps, took = _timed(one_round, seconds)
    return _rate(steps, took)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="RL env steps per second")
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--vector-envs", type=int, default=8)
    ap.add_argument("--native-envs", type=int, default=4096, help="envs of the native vector env")
    ap.add_argument("--only-native", action="store_true", help="skip the Python envs")
    ap.add_argument("--no-net", action="store_true", help="skip the native env against net")
    ap.add_argument(
        "--native-parallel", action="store_true", help="also time the native env on numba's threads"
    )
    ap.add_argument(
        "--repeat", type=int, default=1, help="measure each N times, report the best (noisy hosts)"
    )
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    sync = f"gymnasium SyncVectorEnv x{args.vector_envs}"
    single = "gymnasium vs random"
    rows: list[tuple[str, Callable[[], Rate]]] = [
        ("core Round (reference, no env)", lambda: bench_core(args.seconds)),
        ("pettingzoo raw_env", lambda: bench_pettingzoo(args.seconds, wrapped=False)),
        ("pettingzoo env() (wrapped)", lambda: bench_pettingzoo(args.seconds, wrapped=True)),
        (single, lambda: bench_gymnasium(args.seconds)),
        *(
            []
            if args.no_net
            else [("gymnasium vs net", lambda: bench_gymnasium(args.seconds, "net"))]
        ),
        (sync, lambda: bench_vector(args.seconds, args.vector_envs)),
        ("openspiel (no observation)", lambda: bench_openspiel(args.seconds, observe=False)),
        ("openspiel + observation_tensor", lambda: bench_openspiel(args.seconds, observe=True)),
    ]
    n = args.native_envs
    opponents: list[str | None] = [
        "random",
        "rollout",
        "smart",
        *([] if args.no_net else ["net"]),
        None,
    ]
    native: list[tuple[str, Callable[[], Rate]]] = []
    for par in (False, True) if args.native_parallel else (False,):
        for opp in opponents:
            who = "self-play" if opp is None else f"vs {opp}"
            how = " (numba threads)" if par else ""
            run = functools.partial(bench_native_vector, args.seconds, n, opp, par)
            native.append((f"native vector x{n} {who}{how}", run))
    rows = native if args.only_native else rows[:1] + native + rows[1:]
    load0 = os.getloadavg()[0]
    results: list[tuple[str, Rate]] = []
    for name, fn in rows:
        runs = [fn() for _ in range(max(args.repeat, 1))]
        results.append((name, max(runs)))
    load1 = os.getloadavg()[0]
    rates = dict(results)
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load average {load0:.1f} at the start, {load1:.1f} at the end"
    )
    if _BYTES_PER_ENV:
        mem = ", ".join(f"{k} {v:,.0f}" for k, v in _BYTES_PER_ENV.items())
        print(f"# native vector env memory, bytes per env: {mem}")

    def ratio(name: str, base: str) -> str:
        return f"{rates[name][0] / rates[base][0]:,.1f}" if base in rates else "-"

    if args.markdown:
        print("| API | steps/s | steps/CPU s | x SyncVectorEnv | x single env |")
        print("|---|---:|---:|---:|---:|")
        for name, (wall, cpu) in results:
            print(
                f"| {name} | {wall:,.0f} | {cpu:,.0f} | {ratio(name, sync)} | {ratio(name, single)} |"
            )
    else:
        print(f"{'':44s} {'steps/s':>10s} {'steps/CPU s':>12s} {'x sync':>8s} {'x single':>9s}")
        for name, (wall, cpu) in results:
            print(
                f"{name:44s} {wall:10,.0f} {cpu:12,.0f} {ratio(name, sync):>8s} {ratio(name, single):>9s}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
