"""The learned judge's training: a tiny run end to end is deterministic, resumes, and its
weights load into the compiled kernels and the search bots."""

from __future__ import annotations

from pathlib import Path

import pytest

from lostcities import Round

np = pytest.importorskip("numpy")
pytest.importorskip("numba")
pytest.importorskip("torch")

from lostcities.cli import main  # noqa: E402
from lostcities.fast.judge import Judge  # noqa: E402
from lostcities.fast.state import state_from_round  # noqa: E402
from lostcities.train.judge import JudgeTrainConfig, judge_tensors, train_judge  # noqa: E402
from lostcities.train.judge_data import (  # noqa: E402
    JudgeDataConfig,
    generate_judge_data,
    load_judge_shards,
)

TINY = JudgeDataConfig(worlds=2, shard_rounds=2)
TRAIN = JudgeTrainConfig(hidden=(8, 4), epochs=2, batch_size=64, holdout=0.34)


def test_tiny_run_is_deterministic_and_loads(tmp_path: Path) -> None:
    paths = generate_judge_data(tmp_path / "a", TINY, rounds=3, seed=5)
    again = generate_judge_data(tmp_path / "b", TINY, rounds=3, seed=5)
    da, db = load_judge_shards(paths), load_judge_shards(again)
    for k in da:
        assert np.array_equal(da[k], db[k], equal_nan=k == "values")
    t = judge_tensors(da, 0.05)
    assert len(t) > 50 and np.allclose(t.target.sum(axis=1), 1)
    j1, fig = train_judge(da, TRAIN)
    j2, _ = train_judge(db, TRAIN)
    assert all(np.array_equal(a, b) for a, b in zip(j1.arrays, j2.arrays, strict=True))
    assert fig["held_positions"] > 0 and len(fig["history"]) == 2
    j1.save(tmp_path / "j.npz")
    back = Judge.load(tmp_path / "j.npz")
    assert back.meta["train"]["hidden"] == [8, 4]
    s = state_from_round(Round.deal(seed=1))
    assert back.playout_scores(s.copy()) == j1.playout_scores(s.copy())


def test_data_resumes_and_skips_written_shards(tmp_path: Path) -> None:
    paths = generate_judge_data(tmp_path, TINY, rounds=4, seed=2)
    stamps = [p.stat().st_mtime_ns for p in paths]
    paths[1].unlink()
    done: list[tuple[int, int]] = []
    generate_judge_data(tmp_path, TINY, rounds=4, seed=2, progress=lambda d, n: done.append((d, n)))
    assert done[0] == (2, 4)  # the first shard was kept
    assert paths[0].stat().st_mtime_ns == stamps[0] and paths[1].exists()


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = ["train-judge", "--out", str(out), "--rounds", "2", "--worlds", "2"]
    args += ["--hidden", "8,4", "--epochs", "1", "--no-progress"]
    assert main(args) == 0
    assert (out / "judge.npz").exists() and (out / "judge.json").exists()
    assert "held-out top-1" in capsys.readouterr().out
    assert main(["train-judge", "--out", str(out), "--worlds", "0"]) == 2
    err = capsys.readouterr().err
    assert "--worlds" in err and "Traceback" not in err
    spec = f"expert:iters=60,rollout=learned,judge={out / 'judge.npz'}"
    assert main(["match", spec, "heuristic", "--deals", "1", "--jobs", "1"]) == 0


def test_teachers_search_with_a_judge(tmp_path: Path) -> None:
    from lostcities.train.judge_data import judge_round
    from lostcities.train.selfplay import HeuristicTeacher

    view = Round.deal(seed=3).view(0)
    legal = list(view.legal_moves())
    teacher = HeuristicTeacher(worlds=2, rollout="learned")  # the shipped judge
    values = teacher.search(view, legal, seed=1)
    assert any(v is not None for v in values) and values == teacher.search(view, legal, seed=1)
    path = tmp_path / "j.npz"
    Judge.random(0, (8, 4)).save(path)
    cfg = JudgeDataConfig(worlds=2, rollout="learned", judge=str(path), sample_plies=0)
    a, b = judge_round(cfg, 1, 0), judge_round(cfg, 1, 0)
    assert np.array_equal(a["played"], b["played"]) and len(a["played"]) > 20
