"""PPO self-play: rounds played to their end, advantages, a run that resumes exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from lostcities.fast.rng import xorshift_state  # noqa: E402
from lostcities.nn import VALUE_SCALE, Network  # noqa: E402
from lostcities.train.errors import TrainOptionError  # noqa: E402
from lostcities.train.model import TorchNetwork  # noqa: E402
from lostcities.train.rl import (  # noqa: E402
    SHARD_GAMES,
    CollectJob,
    PPOConfig,
    Rollout,
    advantages,
    collect,
    collect_shard,
    run_ppo,
)


def _tiny() -> TorchNetwork:
    return TorchNetwork.from_network(Network.random(hidden=(16,), seed=2)).float()


def test_collect_plays_every_round_to_its_end_with_legal_moves() -> None:
    games = 4
    rngs = np.stack([xorshift_state(g) for g in range(games)])
    ro = collect(_tiny(), None, games, np.array([5, 6, 5, 6]), rngs, 140, torch.Generator())
    assert len(ro) == int(ro.plies.sum())  # one decision per ply of every round
    assert ro.mask[np.arange(len(ro)), ro.action].all()  # every move made was legal
    for g in range(games):
        players = ro.player[ro.game == g]
        assert (players[1:] != players[:-1]).all()  # the seats alternate
    assert (np.exp(ro.logp) <= 1.0 + 1e-6).all()
    assert ro.forced == int(np.maximum(ro.plies - 140, 0).sum())  # draw-pile draws only then


def test_a_pool_opponent_plays_its_seat_and_only_the_learner_is_recorded() -> None:
    games = 6
    rngs = np.stack([xorshift_state(g) for g in range(games)])
    seats = np.array([-1, 0, 1, -1, 1, 0])
    other = TorchNetwork.from_network(Network.random(hidden=(8,), seed=7)).float()
    ro = collect(
        _tiny(), None, games, np.array([5, 6] * 3), rngs, 140, torch.Generator(), other, seats
    )
    assert ro.mask[np.arange(len(ro)), ro.action].all()
    for g in range(games):
        players = ro.player[ro.game == g]
        if seats[g] < 0:
            assert len(players) == ro.plies[g]  # self-play: both seats recorded
        else:
            assert (players != seats[g]).all()  # the past network's moves are not learned from
            assert abs(len(players) - ro.plies[g] / 2) <= 0.5


def test_a_run_with_a_pool_resumes_exactly(tmp_path: Path) -> None:
    cfg = PPOConfig(
        updates=3, games=6, seed=4, init="fresh", hidden=(16,), eval_every=0, critic_warmup=0,
        minibatch=64, pool=0.5, pool_size=2, pool_every=1,
    )  # fmt: skip
    run_ppo(cfg, tmp_path / "once", progress=False)
    run_ppo(PPOConfig(**{**cfg.to_dict(), "updates": 2}), tmp_path / "twice", progress=False)
    run_ppo(cfg, tmp_path / "twice", resume=True, progress=False)
    a = Network.load(tmp_path / "once" / "net.npz").arrays()
    b = Network.load(tmp_path / "twice" / "net.npz").arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    kept = sorted(p.name for p in (tmp_path / "once" / "pool").iterdir())
    assert kept == ["update-00002.npz", "update-00003.npz"]  # the latest pool_size snapshots
    log = [json.loads(x) for x in (tmp_path / "once" / "log.jsonl").read_text().splitlines()]
    assert log[0]["decisions"] < log[0]["mean_plies"] * 6  # some rounds met a past network


def test_advantages_follow_each_players_own_decisions() -> None:
    # one round, player 0 moves at t=0 and t=2, player 1 at t=1 and t=3; player 0 wins by 30
    ro = Rollout(
        x=np.zeros((4, 1), np.float32),
        hidden=np.zeros((4, 0), np.float32),
        mask=np.ones((4, 1), np.bool_),
        action=np.zeros(4, np.int64),
        logp=np.zeros(4, np.float32),
        value=np.array([0.1, -0.2, 0.3, -0.4], np.float32),
        game=np.zeros(4, np.int64),
        player=np.array([0, 1, 0, 1]),
        margins=np.array([30]),
        plies=np.array([4]),
        forced=0,
    )
    z = float(np.tanh(30 / VALUE_SCALE))
    adv1, final = advantages(ro, 1.0)  # lambda 1: the outcome less the value
    np.testing.assert_allclose(adv1, [z - 0.1, -z + 0.2, z - 0.3, -z + 0.4], rtol=1e-5)
    np.testing.assert_allclose(final, [z, -z, z, -z], rtol=1e-6)
    adv0, _ = advantages(ro, 0.0)  # lambda 0: the player's next value less this one
    np.testing.assert_allclose(adv0, [0.3 - 0.1, -0.4 + 0.2, z - 0.3, -z + 0.4], rtol=1e-5)


def test_a_run_resumes_exactly_where_it_stopped(tmp_path: Path) -> None:
    cfg = PPOConfig(
        updates=2,
        games=4,
        seed=3,
        init="fresh",
        hidden=(16,),
        eval_every=0,
        critic_warmup=1,
        minibatch=64,
    )
    run_ppo(cfg, tmp_path / "once", progress=False)
    run_ppo(PPOConfig(**{**cfg.to_dict(), "updates": 1}), tmp_path / "twice", progress=False)
    run_ppo(cfg, tmp_path / "twice", resume=True, progress=False)
    a = Network.load(tmp_path / "once" / "net.npz").arrays()
    b = Network.load(tmp_path / "twice" / "net.npz").arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    log = [json.loads(x) for x in (tmp_path / "twice" / "log.jsonl").read_text().splitlines()]
    assert [r["update"] for r in log] == [1, 2]
    # killed after the log line of update 3, before its checkpoint: the line goes on resume
    with (tmp_path / "twice" / "log.jsonl").open("a") as f:
        f.write(json.dumps({"update": 3}) + "\n")
    run_ppo(cfg, tmp_path / "twice", resume=True, progress=False)
    log = [json.loads(x) for x in (tmp_path / "twice" / "log.jsonl").read_text().splitlines()]
    assert [r["update"] for r in log] == [1, 2]
    with pytest.raises(Exception, match="not an empty directory"):
        run_ppo(cfg, tmp_path / "once", progress=False)


def test_core_seconds_count_each_sittings_cores(tmp_path: Path) -> None:
    import torch

    cfg = PPOConfig(
        updates=1, games=4, seed=3, init="fresh", hidden=(16,), eval_every=0, minibatch=64
    )
    run_ppo(cfg, tmp_path, progress=False)
    first = torch.load(tmp_path / "checkpoint.pt", weights_only=False)
    assert first["core_seconds"] == pytest.approx(first["seconds"])
    more = PPOConfig(**{**cfg.to_dict(), "updates": 2, "threads": 2})
    run_ppo(more, tmp_path, resume=True, progress=False)
    second = torch.load(tmp_path / "checkpoint.pt", weights_only=False)
    took = second["seconds"] - first["seconds"]
    assert took > 0
    assert second["core_seconds"] == pytest.approx(first["seconds"] + 2 * took)


def test_the_data_is_the_same_on_one_worker_or_several(tmp_path: Path) -> None:
    """The rounds of an update are cut into shards of SHARD_GAMES, each with its own seeded
    sampler: one process or a pool of workers learn the same network bit for bit."""
    cfg = PPOConfig(
        updates=1,
        games=SHARD_GAMES + 6,  # two shards, the second short
        seed=5,
        init="fresh",
        hidden=(16,),
        eval_every=0,
        critic_warmup=0,
        minibatch=256,
    )
    run_ppo(cfg, tmp_path / "one", progress=False, jobs=1)
    run_ppo(cfg, tmp_path / "two", progress=False, jobs=2)
    a = Network.load(tmp_path / "one" / "net.npz").arrays()
    b = Network.load(tmp_path / "two" / "net.npz").arrays()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    one, two = ((tmp_path / d / "log.jsonl").read_text() for d in ("one", "two"))
    keep = ("decisions", "mean_plies", "abs_margin", "policy_loss", "kl")
    assert [json.loads(one)[k] for k in keep] == [json.loads(two)[k] for k in keep]
    assert json.loads(one)["decisions"] > 0


def test_a_shard_is_a_pure_function_of_the_job() -> None:
    model = _tiny()
    ncols = np.array([5, 6] * (SHARD_GAMES // 2 + 2), np.int64)
    job = CollectJob.of(model, None, ncols, PPOConfig(seed=9, hidden=(16,)), update=4)
    assert job.shards() == [0, 1]
    a, b = collect_shard(job, 1), collect_shard(job, 1)
    assert np.array_equal(a.action, b.action) and np.array_equal(a.margins, b.margins)
    assert set(np.unique(a.game)) == set(range(SHARD_GAMES, ncols.shape[0]))  # the update's numbers
    c = collect_shard(CollectJob.of(model, None, ncols, PPOConfig(seed=9, hidden=(16,)), 5), 1)
    assert not np.array_equal(a.margins, c.margins)  # another update, other deals


def test_bad_settings_are_refused() -> None:
    with pytest.raises(TrainOptionError, match="critic"):
        PPOConfig(critic="oracle")
    with pytest.raises(TrainOptionError, match="variants"):
        PPOConfig(variants=("short",))
    with pytest.raises(TrainOptionError, match="pool"):
        PPOConfig(pool=1.0)


def test_the_command_line_refuses_options_of_the_other_method(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "lostcities.cli", "train", "--out", str(tmp_path / "r"), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )

    p = run("--method", "ppo", "--worlds", "3")
    assert p.returncode == 2 and "--worlds is an option of --method exit" in p.stderr
    p = run("--games", "3")
    assert p.returncode == 2 and "--games is an option of --method ppo" in p.stderr
    p = run("--method", "ppo", "--stop-after", "train")
    assert p.returncode == 2 and "--stop-after is not an option of --method ppo" in p.stderr
    p = run("--method", "ppo", "--device", "tpu")
    assert p.returncode == 2 and "invalid --device: 'tpu' (cpu or cuda)" in p.stderr
    p = run("--method", "ppo", "--backend", "spark")
    assert p.returncode == 2 and "invalid backend" in p.stderr
    p = run("--method", "dqn")
    assert p.returncode == 2 and "invalid --method" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_the_guided_teacher_searches_with_network_rollouts(tmp_path: Path) -> None:
    from lostcities import Round
    from lostcities.train.selfplay import GuidedTeacher

    weights = tmp_path / "w.npz"
    Network.random(hidden=(16,), seed=4).save(weights)
    teacher = GuidedTeacher(str(weights), top_k=2, heuristic_k=0, worlds=4, rollout="net")
    view = Round.deal(seed=9).view(0)
    legal = list(view.legal_moves())
    values = teacher.search(view, legal, seed=5)
    searched = [i for i, v in enumerate(values) if v is not None]
    assert 2 <= len(searched) <= 4  # the two by prior, and their draw-pile variants
    assert all(-1 <= v <= 1 for v in values if v is not None)
    assert values == teacher.search(view, legal, seed=5)


def test_expert_iteration_can_start_from_a_given_champion(tmp_path: Path) -> None:
    weights = tmp_path / "w.npz"
    Network.random(hidden=(16,), seed=4).save(weights)
    out = tmp_path / "run"
    args = [
        "--out",
        str(out),
        "--iterations",
        "1",
        "--rounds",
        "2",
        "--guided-worlds",
        "2",
        "--teacher",
        "guided",
        "--rollout",
        "net",
        "--champion",
        str(weights),
        "--heuristic-k",
        "0",
        "--variant",
        "classic",
        "--stop-after",
        "selfplay",
        "--jobs",
        "1",
        "--no-progress",
    ]
    p = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "train", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    stats = json.loads((out / "iter-001" / "selfplay.json").read_text())
    assert stats["teacher"] == "guided"
    assert (out / "champion-0.npz").is_file()


def test_the_learning_curve_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    from lostcities.train.data import atomic_figure
    from lostcities.train.rl import plot_curve

    evals = [
        {"update": u, "margin": 2.0 * u, "margin_se": 1.0, "win_rate": 0.4 + u / 100, "rounds": 200}
        for u in (10, 20, 30)
    ]
    path = tmp_path / "curve.svg"
    plot_curve(evals, path)
    svg = path.read_text()
    assert (
        svg.lstrip().startswith("<?xml") and "greedy policy vs heuristic (200 rounds each)" in svg
    )
    with pytest.raises(RuntimeError), atomic_figure(tmp_path / "broken.png") as ax:
        ax.plot([0, 1], [1, 0])
        raise RuntimeError("drawing failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.svg"]  # no file, no temp
    assert plt.get_fignums() == []  # both figures closed
