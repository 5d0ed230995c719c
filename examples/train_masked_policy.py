"""Train a small masked-policy agent on the Gymnasium env and show it beating ``random``.

NumPy only: a softmax policy over the *legal* actions (the env's ``action_mask``), linear
(default) or with one hidden layer (``--policy mlp``), trained with REINFORCE (the round
result +1/-1/0 as the return, or ``--reward margin`` for the score margin / 100; a
running-mean baseline) against the built-in ``random`` bot in a random seat. Then it plays ``--eval-rounds`` fresh
rounds (other seeds) with its greedy policy and prints the win rate with a 95% confidence
interval, next to ``random`` playing the same deals.

    python examples/train_masked_policy.py --minutes 3 --eval-rounds 1000

``--rounds N`` ends the training after N rounds (if the minutes last that long), so that a
seed always gives the same policy and the same evaluation.

Requires the ``rl`` extra (``pip install lostcities[rl]``); ``rich`` for the progress bar.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from lostcities.envs.gymnasium import LostCitiesEnv

Array = npt.NDArray[np.float64]


def _masked_softmax(z: Array, mask: npt.NDArray[np.int8]) -> Array:
    z = np.where(mask > 0, z, -np.inf)
    z = z - z.max()
    p: Array = np.exp(z)
    p /= p.sum()
    return p


class MaskedLinearPolicy:
    """``logits = W @ obs + b``; illegal actions get probability 0. Plain gradient ascent."""

    def __init__(self, obs_size: int, num_actions: int, rng: np.random.Generator) -> None:
        self.w: Array = rng.normal(0.0, 0.01, (num_actions, obs_size))
        self.b: Array = np.zeros(num_actions)

    def probs(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> Array:
        return _masked_softmax(self.w @ obs + self.b, mask)

    def update(self, xs: Array, gs: Array, step: float) -> None:
        """Ascend ``sum_t gs[t] . d logits(xs[t])``, scaled by ``step``."""
        self.w += step * (gs.T @ xs)
        self.b += step * gs.sum(axis=0)


class MaskedMLPPolicy:
    """One hidden ReLU layer, ``logits = W2 relu(W1 obs + b1) + b2``, trained with Adam."""

    def __init__(
        self, obs_size: int, num_actions: int, rng: np.random.Generator, hidden: int = 128
    ) -> None:
        self.params: list[Array] = [
            rng.normal(0.0, 1.0 / np.sqrt(obs_size), (hidden, obs_size)),
            np.zeros(hidden),
            rng.normal(0.0, 0.01, (num_actions, hidden)),
            np.zeros(num_actions),
        ]
        self.m = [np.zeros_like(q) for q in self.params]
        self.v = [np.zeros_like(q) for q in self.params]
        self.t = 0

    def probs(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> Array:
        w1, b1, w2, b2 = self.params
        h = np.maximum(w1 @ obs + b1, 0.0)
        return _masked_softmax(w2 @ h + b2, mask)

    def update(self, xs: Array, gs: Array, lr: float) -> None:
        """One Adam ascent step on ``sum_t gs[t] . d logits(xs[t])`` (``gs`` already holds
        the advantage)."""
        w1, b1, w2, _ = self.params
        h = np.maximum(xs @ w1.T + b1, 0.0)
        dh = (gs @ w2) * (h > 0)
        grads = [dh.T @ xs, dh.sum(0), gs.T @ h, gs.sum(0)]
        self.t += 1
        for q, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            mhat = m / (1 - 0.9**self.t)
            vhat = v / (1 - 0.999**self.t)
            q += lr * mhat / (np.sqrt(vhat) + 1e-8)


def play_episode(
    env: LostCitiesEnv,
    choose: Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int],
    seed: int,
) -> tuple[float, int]:
    """One round; returns (reward, steps)."""
    obs, _ = env.reset(seed=seed)
    steps = 0
    while True:
        a = choose(obs["observation"], obs["action_mask"])
        obs, reward, term, trunc, _ = env.step(a)
        steps += 1
        if term or trunc:
            return float(reward), steps


def train(
    minutes: float,
    seed: int,
    lr: float,
    opponent: str,
    reward: str,
    policy: str,
    rounds: int | None = None,
) -> tuple[MaskedLinearPolicy | MaskedMLPPolicy, int, int]:
    """REINFORCE for ``minutes`` (or ``rounds`` rounds, if that comes first: a fixed number
    of rounds gives the same policy for the same seed); returns the policy, episodes and
    steps played.

    ``reward``: ``result`` (+1/-1/0) or ``margin`` (the score margin / 100) as the return.
    """
    env = LostCitiesEnv(opponent=opponent, reward="margin" if reward == "margin" else "result")
    scale = 100.0 if reward == "margin" else 1.0
    enc = env.encoding
    rng = np.random.default_rng(seed)
    pol: MaskedLinearPolicy | MaskedMLPPolicy
    if policy == "mlp":
        pol = MaskedMLPPolicy(enc.observation_size, enc.num_actions, rng)
    else:
        pol = MaskedLinearPolicy(enc.observation_size, enc.num_actions, rng)
    baseline = 0.0
    episodes = steps = 0
    deadline = time.monotonic() + 60 * minutes
    try:
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        progress: Progress | None = Progress(
            TextColumn("training"),
            BarColumn(),
            TextColumn("{task.fields[info]}"),
            TimeRemainingColumn(),
        )
    except ImportError:  # pragma: no cover - rich is optional
        progress = None
    task = None
    if progress is not None:
        progress.start()
        task = progress.add_task("train", total=60 * minutes, info="")
    recent: list[float] = []
    start = time.monotonic()
    while time.monotonic() < deadline and (rounds is None or episodes < rounds):
        xs: list[npt.NDArray[np.float32]] = []
        gs: list[Array] = []
        obs, _ = env.reset(seed=int(rng.integers(2**62)))
        while True:
            x, mask = obs["observation"], obs["action_mask"]
            p = pol.probs(x, mask)
            a = int(rng.choice(len(p), p=p))
            g = -p
            g[a] += 1.0  # d log p(a) / d logits, zero outside the legal actions
            xs.append(x)
            gs.append(g)
            obs, ret, term, trunc, info = env.step(a)
            steps += 1
            if term or trunc:
                break
        ret /= scale
        adv = ret - baseline
        baseline += 0.01 * (ret - baseline)
        if policy == "mlp":
            pol.update(np.asarray(xs, np.float64), adv * np.asarray(gs) / len(xs), lr)
        else:
            pol.update(np.asarray(xs, np.float64), np.asarray(gs), lr * adv / len(xs))
        episodes += 1
        recent.append(float(np.sign(info["score_margin"])))
        if progress is not None and task is not None and episodes % 20 == 0:
            win = sum(r > 0 for r in recent[-500:]) / len(recent[-500:])
            progress.update(
                task,
                completed=time.monotonic() - start,
                info=f"{episodes} rounds, recent win rate {win:.2f}",
            )
    if progress is not None:
        progress.stop()
    return pol, episodes, steps


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (c - h, c + h)


def evaluate(
    choose: Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int],
    rounds: int,
    seed: int,
    opponent: str,
) -> tuple[int, int, int]:
    """Wins, ties, losses over ``rounds`` rounds on seeds ``seed .. seed + rounds - 1``."""
    env = LostCitiesEnv(opponent=opponent)
    w = t = lo = 0
    for i in range(rounds):
        r, _ = play_episode(env, choose, seed + i)
        if r > 0:
            w += 1
        elif r < 0:
            lo += 1
        else:
            t += 1
    return w, t, lo


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    ap.add_argument(
        "--eval-rounds", type=int, default=1000, help="evaluation rounds (default 1000)"
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="stop training after this many rounds (default: none)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--policy",
        choices=["linear", "mlp"],
        default="linear",
        help="linear with plain gradient steps (default) or one hidden layer of 128 ReLUs with Adam",
    )
    ap.add_argument(
        "--lr", type=float, default=None, help="learning rate (default 0.001 mlp, 0.5 linear)"
    )
    ap.add_argument("--opponent", default="random", help="bot spec to train and test against")
    ap.add_argument(
        "--reward",
        choices=["result", "margin"],
        default="result",
        help="training return: the result +1/-1/0 (default) or the score margin / 100",
    )
    args = ap.parse_args(argv)

    t0 = time.monotonic()
    lr = args.lr if args.lr is not None else (0.001 if args.policy == "mlp" else 0.5)
    pol, episodes, steps = train(
        args.minutes, args.seed, lr, args.opponent, args.reward, args.policy, args.rounds
    )
    took = time.monotonic() - t0
    print(
        f"trained {episodes} rounds ({steps} agent steps) in {took:.0f} s "
        f"against {args.opponent!r} ({args.policy} policy, return {args.reward}, lr {lr})"
    )

    def greedy(x: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        return int(np.argmax(pol.probs(x, mask)))

    rng = np.random.default_rng(args.seed + 1)

    def uniform(x: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        return int(rng.choice(np.flatnonzero(mask)))

    eval_seed = 10**9 + args.seed  # deals never used in training (those come from the rng)
    for name, choose in (("trained policy", greedy), ("random (baseline)", uniform)):
        w, t, lo = evaluate(choose, args.eval_rounds, eval_seed, args.opponent)
        n = w + t + lo
        lo_ci, hi_ci = wilson(w, n)
        print(
            f"{name:18s} vs {args.opponent}: won {w}, tied {t}, lost {lo} of {n}: "
            f"win rate {w / n:.3f} (95% CI {lo_ci:.3f}-{hi_ci:.3f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
