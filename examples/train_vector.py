"""Train a masked policy on the native vector env with PPO (plain PyTorch), then rate it.

The agent is a small MLP (observation -> two hidden layers -> a logit per action and a
value); the env's ``action_mask`` sets the logits of illegal actions to -inf, so it only
ever plays legal moves. It plays thousands of rounds at once on
:class:`lostcities.envs.vector.LostCitiesVectorEnv` against the built-in opponents stepped in
compiled code (half the envs against ``random``, half against ``rollout``), rewarded by the
round's score margin / 100, and learns by PPO (clipped policy ratio, GAE, entropy bonus).

Every ``--eval-every`` updates it prints a line of the learning curve (rounds finished in
that stretch, their win rate and mean margin against each opponent) and appends it to
``OUT/curve.jsonl``. At the end it saves the policy as NumPy arrays (``OUT/policy.npz``)
and rates it with the arena (duplicate deals, 95% intervals) against ``random`` and
``heuristic``: the arena plays it as a protocol bot, this same file in ``--play`` mode::

    python examples/train_vector.py --minutes 30 --out runs/ppo
    lostcities match "cmd:python examples/train_vector.py --play runs/ppo/policy.npz" heuristic

``--updates N`` ends the training after N updates (if the minutes last that long), so that
a seed always gives the same policy.

Requires the ``rl`` and ``train`` extras (``pip install '.[rl,train]'``): NumPy, numba,
Gymnasium, PyTorch (a CPU build is enough).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

HIDDEN = 128


# -- playing: NumPy only, as a protocol bot -------------------------------------------------


class NumpyPolicy:
    """The trained policy, greedy, as a player of :func:`lostcities.protocol.engine.serve`."""

    def __init__(self, path: str) -> None:
        from lostcities.envs.encoding import get_encoding

        with np.load(path) as w:
            self.w = {k: w[k] for k in w.files}
        self.encoding = get_encoding("classic")

    def choose(self, view: object, time_limit: float | None = None) -> object:
        from lostcities.rules import PlayerView

        assert isinstance(view, PlayerView)
        x = self.encoding.observation(view)
        h = np.maximum(self.w["w1"] @ x + self.w["b1"], 0.0)
        h = np.maximum(self.w["w2"] @ h + self.w["b2"], 0.0)
        logits = self.w["wp"] @ h + self.w["bp"]
        mask = self.encoding.action_mask(view)
        logits[mask == 0] = -np.inf
        return self.encoding.action_to_move(int(np.argmax(logits)))


def play(path: str) -> int:
    """Serve the policy saved at ``path`` over the bot protocol on stdin/stdout."""
    from lostcities.protocol.engine import serve

    return serve(NumpyPolicy(path), name="ppo-vector-example")  # type: ignore[arg-type]


# -- training: PyTorch ------------------------------------------------------------------------


def train(args: argparse.Namespace) -> None:
    import torch
    from torch import nn

    from lostcities.envs.vector import LostCitiesVectorEnv

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    half = args.envs // 2
    envs = [
        LostCitiesVectorEnv(half, opponent="random", reward="margin", autoreset_mode="same_step"),
        LostCitiesVectorEnv(
            args.envs - half, opponent="rollout", reward="margin", autoreset_mode="same_step"
        ),
    ]
    opp = np.array([0] * half + [1] * (args.envs - half))
    n_obs = envs[0].single_observation_space["observation"].shape[0]
    n_act = envs[0].single_action_space.n

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(
                nn.Linear(n_obs, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU()
            )
            self.pi = nn.Linear(HIDDEN, n_act)
            self.v = nn.Linear(HIDDEN, 1)

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = self.body(x)
            logits = self.pi(h).masked_fill(mask == 0, -1e9)
            return logits, self.v(h).squeeze(-1)

    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)

    def reset() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        parts = [e.reset(seed=args.seed + 1_000_003 * i)[0] for i, e in enumerate(envs)]
        return (
            np.concatenate([p["observation"] for p in parts]),
            np.concatenate([p["action_mask"] for p in parts]),
        )

    obs, mask = reset()
    n, t_len = args.envs, args.steps
    b_obs = torch.zeros((t_len, n, n_obs))
    b_mask = torch.zeros((t_len, n, n_act), dtype=torch.int8)
    b_act = torch.zeros((t_len, n), dtype=torch.int64)
    b_logp = torch.zeros((t_len, n))
    b_val = torch.zeros((t_len, n))
    b_rew = torch.zeros((t_len, n))
    b_done = torch.zeros((t_len, n))
    # the learning curve: rounds finished since the last line, per opponent
    tally = np.zeros((2, 3))  # rounds, wins, margin sum
    start = time.monotonic()
    steps = 0
    update = 0
    curve = (out / "curve.jsonl").open("w", encoding="utf-8")
    while time.monotonic() - start < args.minutes * 60 and (
        args.updates is None or update < args.updates
    ):
        # -- collect t_len steps of every env
        with torch.no_grad():
            for t in range(t_len):
                x = torch.from_numpy(obs)
                m = torch.from_numpy(mask)
                logits, value = net(x, m)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
                b_obs[t], b_mask[t], b_act[t] = x, m, action
                b_logp[t], b_val[t] = dist.log_prob(action), value
                acts = action.numpy()
                results = [
                    e.step(acts[i * half : i * half + e.num_envs]) for i, e in enumerate(envs)
                ]
                obs = np.concatenate([r[0]["observation"] for r in results])
                mask = np.concatenate([r[0]["action_mask"] for r in results])
                rew = np.concatenate([r[1] for r in results])
                done = np.concatenate([r[2] | r[3] for r in results])
                b_rew[t] = torch.from_numpy(rew / 100.0).float()
                b_done[t] = torch.from_numpy(done.astype(np.float32))
                for k in (0, 1):
                    sel = done & (opp == k)
                    tally[k] += (sel.sum(), (sel & (rew > 0)).sum(), rew[sel].sum())
            steps += t_len * n
            _, next_value = net(torch.from_numpy(obs), torch.from_numpy(mask))
        # -- advantages (GAE); a finished round does not bootstrap from the next deal
        adv = torch.zeros((t_len, n))
        last = torch.zeros(n)
        for t in reversed(range(t_len)):
            nv = next_value if t == t_len - 1 else b_val[t + 1]
            nonterminal = 1.0 - b_done[t]
            delta = b_rew[t] + args.gamma * nv * nonterminal - b_val[t]
            last = delta + args.gamma * args.lam * nonterminal * last
            adv[t] = last
        ret = adv + b_val
        # -- PPO epochs over shuffled minibatches
        f_obs, f_mask = b_obs.reshape(-1, n_obs), b_mask.reshape(-1, n_act)
        f_act, f_logp = b_act.reshape(-1), b_logp.reshape(-1)
        f_adv, f_ret = adv.reshape(-1), ret.reshape(-1)
        f_adv = (f_adv - f_adv.mean()) / (f_adv.std() + 1e-8)
        for _ in range(args.epochs):
            perm = torch.randperm(f_obs.shape[0])
            for i in range(0, f_obs.shape[0], args.minibatch):
                j = perm[i : i + args.minibatch]
                logits, value = net(f_obs[j], f_mask[j])
                dist = torch.distributions.Categorical(logits=logits)
                ratio = torch.exp(dist.log_prob(f_act[j]) - f_logp[j])
                a = f_adv[j]
                pg = -torch.min(ratio * a, ratio.clamp(1 - args.clip, 1 + args.clip) * a).mean()
                vloss = 0.5 * ((value - f_ret[j]) ** 2).mean()
                loss = pg + args.vf * vloss - args.ent * dist.entropy().mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                opt.step()
        update += 1
        if update % args.eval_every == 0:
            row = {
                "update": update,
                "steps": steps,
                "minutes": round((time.monotonic() - start) / 60, 2),
            }
            for k, name in enumerate(("random", "rollout")):
                rounds, wins, margin = tally[k]
                row[f"rounds_vs_{name}"] = int(rounds)
                row[f"win_rate_vs_{name}"] = round(wins / max(rounds, 1), 3)
                row[f"margin_vs_{name}"] = round(margin / max(rounds, 1), 1)
            tally[:] = 0
            print(json.dumps(row), flush=True)
            curve.write(json.dumps(row) + "\n")
            curve.flush()
    curve.close()
    # -- save for NumPy inference
    sd = {k: v.detach().numpy() for k, v in net.state_dict().items()}
    np.savez(
        out / "policy.npz",
        w1=sd["body.0.weight"],
        b1=sd["body.0.bias"],
        w2=sd["body.2.weight"],
        b2=sd["body.2.bias"],
        wp=sd["pi.weight"],
        bp=sd["pi.bias"],
    )
    print(
        f"trained {update} updates, {steps:,} env steps in "
        f"{(time.monotonic() - start) / 60:.1f} min; saved {out / 'policy.npz'}",
        flush=True,
    )


def rate(args: argparse.Namespace) -> None:
    """Rate the saved policy with the arena against ``random`` and ``heuristic``."""
    from lostcities.arena import play_match

    policy = Path(args.out) / "policy.npz"
    spec = f"cmd:{sys.executable} {Path(__file__).resolve()} --play {policy}"
    summary = {}
    for opponent in ("random", "heuristic"):
        r = play_match(spec, opponent, deals=args.eval_deals, seed=12345, jobs=args.jobs)
        summary[opponent] = {
            "rounds": r.rounds,
            "win_rate": r.a_win_rate,
            "win_rate_ci95": list(r.a_win_rate_ci95),
            "mean_margin": r.mean_margin,
            "forfeits": r.a_forfeits,
        }
        low, high = r.a_win_rate_ci95
        print(
            f"vs {opponent}: {r.a_win_rate:.1%} [{low:.1%}, {high:.1%}] over {r.rounds} rounds, "
            f"margin {r.mean_margin:+.1f}, forfeits {r.a_forfeits}",
            flush=True,
        )
    (Path(args.out) / "rating.json").write_text(json.dumps(summary, indent=1) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--play", metavar="POLICY", help="serve POLICY.npz as a protocol bot")
    p.add_argument(
        "--minutes",
        type=float,
        default=30.0,
        help="training time (30; 0: only rate OUT/policy.npz)",
    )
    p.add_argument(
        "--updates",
        type=int,
        default=None,
        help="stop training after this many PPO updates (default: none)",
    )
    p.add_argument("--out", default="runs/ppo", help="output folder (runs/ppo)")
    p.add_argument("--envs", type=int, default=1024, help="rounds played at once (1024)")
    p.add_argument("--steps", type=int, default=32, help="steps per env per update (32)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--minibatch", type=int, default=4096)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--lam", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--vf", type=float, default=0.5)
    p.add_argument("--ent", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2, help="PyTorch threads (2)")
    p.add_argument("--eval-every", type=int, default=5, help="updates per curve line (5)")
    p.add_argument(
        "--eval-deals",
        type=int,
        default=200,
        help="arena deals per opponent at the end (200; 0: no rating)",
    )
    p.add_argument("--jobs", type=int, default=2, help="arena worker processes (2)")
    args = p.parse_args()
    if args.play:
        sys.exit(play(args.play))
    if args.minutes > 0:  # --minutes 0: only rate the policy already saved in --out
        train(args)
    if args.eval_deals:
        rate(args)


if __name__ == "__main__":
    main()
