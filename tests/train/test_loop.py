"""The training loop and ``lostcities train``: a tiny run, resuming it, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lostcities.cli import main
from lostcities.nn import Network

pytest.importorskip("torch")
pytest.importorskip("numba")

from lostcities.train.errors import RunDirectoryError
from lostcities.train.loop import RunConfig, gate_rule, run

TINY = RunConfig(
    iterations=2,
    rounds=2,
    worlds=2,
    seed=5,
    variants=("classic",),
    gate_deals=1,
    reference_deals=1,
    hidden=(16,),
    epochs=2,
    batch_size=64,
    shard_rounds=1,
    sample_plies=2,
)


def _quiet(_: str) -> None:
    pass


def _strip_times(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _strip_times(v) for k, v in x.items() if k not in ("seconds", "machine")}
    if isinstance(x, list):
        return [_strip_times(v) for v in x]
    return x


def _weights(path: Path) -> dict[str, np.ndarray]:
    return Network.load(path).arrays()


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("straight") / "run"
    return out, run(out, TINY, jobs=1, progress=False, echo=_quiet)


def test_tiny_run(straight: tuple[Path, dict[str, Any]]) -> None:
    out, log = straight
    assert [r["iteration"] for r in log["iterations"]] == [1, 2]
    assert json.loads((out / "log.json").read_text())["iterations"] == log["iterations"]
    assert RunConfig.from_dict(json.loads((out / "config.json").read_text())) == TINY
    first = log["iterations"][0]
    assert first["positions"] > 50 and first["teacher"] == "heuristic"
    assert first["gate"]["opponent"] == "heuristic" and first["gate"]["rounds"] == 2
    assert 0 <= first["reference"]["win_rate"] <= 1 and first["reference"]["rounds"] == 2
    assert first["train"]["holdout_positions"] > 0 and "holdout_policy_loss" in first["train"]
    assert (out / "strength.svg").read_text().lstrip().startswith("<?xml")
    for t in (1, 2):
        Network.load(out / f"iter-{t:03d}" / "candidate.npz")
    champion = log["champion"]
    assert (champion is None) == (not (out / "net.npz").exists())
    if champion is not None:
        for k, v in _weights(out / champion).items():
            assert np.array_equal(_weights(out / "net.npz")[k], v)


@pytest.mark.parametrize("stage", ["selfplay", "train", "gate"])
def test_resume_after_an_interrupted_iteration(
    straight: tuple[Path, dict[str, Any]], tmp_path: Path, stage: str
) -> None:
    out = tmp_path / "run"
    cut = run(out, TINY, jobs=1, progress=False, echo=_quiet, stop_after=stage)
    assert cut["iterations"] == []
    assert not (out / "iter-001" / "done.json").exists()
    # a kill in the middle of writing a shard leaves a temporary file: it is ignored
    (out / "iter-001" / "data" / ".shard-00001.tmp.npz").write_bytes(b"partial")
    log = run(out, None, resume=True, jobs=1, progress=False, echo=_quiet)
    ref_out, ref = straight
    assert _strip_times(log) == _strip_times(ref)
    for t in (1, 2):
        name = f"iter-{t:03d}/candidate.npz"
        for k, v in _weights(ref_out / name).items():
            assert np.array_equal(_weights(out / name)[k], v), (name, k)


def test_resume_runs_more_iterations(straight: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out = tmp_path / "run"
    one = RunConfig(
        **{**TINY.to_dict(), "iterations": 1, "variants": ("classic",), "hidden": (16,)}
    )
    run(out, one, jobs=1, progress=False, echo=_quiet)
    log = run(
        out, None, resume=True, overrides={"iterations": 2}, jobs=1, progress=False, echo=_quiet
    )
    assert _strip_times(log)["iterations"] == _strip_times(straight[1])["iterations"]


def test_resume_with_other_rounds(tmp_path: Path) -> None:
    out = tmp_path / "run"
    one = RunConfig(
        **{**TINY.to_dict(), "iterations": 1, "variants": ("classic",), "hidden": (16,)}
    )
    run(out, one, jobs=1, progress=False, echo=_quiet)
    log = run(
        out,
        None,
        resume=True,
        overrides={"iterations": 2, "rounds": 3},
        jobs=1,
        progress=False,
        echo=_quiet,
    )
    assert [r["rounds"] for r in log["iterations"]] == [2, 3]
    first, second = (r["positions"] for r in log["iterations"])
    train = log["iterations"][1]["train"]
    assert train["positions"] + train["holdout_positions"] == first + second
    assert json.loads((out / "config.json").read_text())["rounds"] == 3


def test_guided_teacher_from_the_first_champion(tmp_path: Path) -> None:
    cfg = RunConfig(
        **{
            **TINY.to_dict(),
            "variants": ("long",),
            "hidden": (16,),
            "teacher": "guided",
            "gate_deals": 0,
            "reference_deals": 0,
            "guided_worlds": 2,
        }
    )
    log = run(tmp_path / "run", cfg, jobs=1, progress=False, echo=_quiet)
    assert [r["teacher"] for r in log["iterations"]] == ["heuristic", "guided"]
    assert [r["champion"] for r in log["iterations"]] == [
        "iter-001/candidate.npz",
        "iter-002/candidate.npz",
    ]
    assert log["iterations"][0]["gate"]["rule"] == "no gate (--gate-deals 0)"


def test_expert_teacher_trains_the_shipped_champion_further(tmp_path: Path) -> None:
    from lostcities.nn import default_network

    cfg = RunConfig(
        **{
            **TINY.to_dict(),
            "iterations": 1,
            "hidden": (256, 256),
            "teacher": "expert",
            "student": "champion",
            "lr": 1e-9,
            "epochs": 1,
            "guided_worlds": 2,
            "depth": 6,
        }
    )
    out = tmp_path / "run"
    log = run(out, cfg, jobs=1, progress=False, echo=_quiet)
    assert [r["teacher"] for r in log["iterations"]] == ["expert"]
    shipped = default_network().arrays()
    assert all(np.array_equal(v, shipped[k]) for k, v in _weights(out / "champion-0.npz").items())
    # a learning rate of 1e-9: the candidate is the champion, trained a step further
    cand = _weights(out / "iter-001" / "candidate.npz")
    assert all(np.allclose(v, shipped[k], atol=1e-4) for k, v in cand.items())
    assert log["iterations"][0]["gate"]["opponent"].endswith("champion-0.npz")


def test_a_champion_of_other_sizes_cannot_be_trained_further(tmp_path: Path) -> None:
    from lostcities.train.errors import TrainOptionError

    cfg = RunConfig(**{**TINY.to_dict(), "teacher": "expert", "student": "champion"})
    with pytest.raises(TrainOptionError, match="hidden sizes"):
        run(tmp_path / "run", cfg, jobs=1, progress=False, echo=_quiet)
    with pytest.raises(TrainOptionError, match="invalid student"):
        RunConfig(student="teacher")


def test_run_directory_errors(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunDirectoryError, match="not a directory"):
        run(tmp_path / "file", TINY, progress=False, echo=_quiet)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(RunDirectoryError, match="not empty"):
        run(tmp_path / "full", TINY, progress=False, echo=_quiet)
    with pytest.raises(RunDirectoryError, match="no run to resume"):
        run(tmp_path / "none", None, resume=True, progress=False, echo=_quiet)


def test_gate_rule() -> None:
    assert gate_rule([0.5, 1.0, 0.5, 1.0])[2]
    assert not gate_rule([0.5, 0.5])[2]
    assert not gate_rule([1.0])[2]  # one deal: no standard error, no pass
    assert not gate_rule([])[2]


# -- the command line ---------------------------------------------------------------------------

CLI_TINY = [
    "--iterations",
    "1",
    "--rounds",
    "2",
    "--worlds",
    "2",
    "--variant",
    "classic",
    "--gate-deals",
    "1",
    "--reference-deals",
    "0",
    "--hidden",
    "8",
    "--epochs",
    "1",
    "--jobs",
    "1",
    "--no-progress",
]


def test_cli_run_and_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), *CLI_TINY]) == 0
    captured = capsys.readouterr()
    assert "1 iteration;" in captured.out and "iteration 1:" in captured.err
    log = json.loads((out / "log.json").read_text())
    assert log["config"]["hidden"] == [8] and log["iterations"][0]["reference"] is None
    assert not (out / "strength.svg").exists()  # no reference matches, nothing to plot
    # stopping after a stage, then going on
    other = tmp_path / "other"
    assert main(["train", "--out", str(other), *CLI_TINY, "--stop-after", "selfplay"]) == 0
    assert "stopped after selfplay" in capsys.readouterr().out
    assert not (other / "iter-001" / "train.json").exists()
    assert main(["train", "--out", str(other), "--resume", "--no-progress"]) == 0
    assert _strip_times(json.loads((other / "log.json").read_text())) == _strip_times(log)
    # resuming a finished run does nothing; a changed option is refused
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 0
    assert main(["train", "--out", str(out), "--resume", "--worlds", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        err[-1]
        == "lostcities train: error: --worlds 3 differs from the run's 2 (a resumed run keeps its options)"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--out RUNDIR is required"),
        (["--out", "{d}", "--rounds", "abc"], "invalid --rounds: 'abc' (not a whole number)"),
        (["--out", "{d}", "--worlds", "0"], "invalid --worlds: '0' (must be at least 1)"),
        (["--out", "{d}", "--jobs", "-1"], "invalid --jobs: '-1' (must be at least 1)"),
        (
            ["--out", "{d}", "--gate-deals", "-3"],
            "invalid --gate-deals: '-3' (must not be negative)",
        ),
        (["--out", "{d}", "--temperature", "0"], "invalid --temperature: '0' (must be positive)"),
        (["--out", "{d}", "--lr", "nan"], "invalid --lr: 'nan' (not finite)"),
        (["--out", "{d}", "--holdout", "1"], "invalid --holdout: '1' (must be from 0 to below 1)"),
        (
            ["--out", "{d}", "--variant", "short"],
            "invalid --variant: 'short' (classic, long or both)",
        ),
        (["--out", "{d}", "--hidden", "64,x"], "invalid --hidden: '64,x' (sizes such as 256,256)"),
        (["--out", "{d}", "--device", "tpu"], "invalid --device: 'tpu' (cpu or cuda)"),
        (["--out", "{d}", "--student", "x"], "invalid --student: 'x' (fresh or champion)"),
        (["--out", "{d}", "--prior", "-2"], "invalid --prior: '-2' (must not be negative)"),
        (["--out", "{d}", "--depth", "-1"], "invalid --depth: '-1' (must not be negative)"),
        (["--out", "{d}/file"], "not a directory"),
        (["--out", "{d}/full"], "is not empty (use --resume to continue its run)"),
        (["--out", "{d}/none", "--resume"], "no run to resume in"),
        (["--out", "{d}/a,b"], "a comma cannot be in a bot spec's path"),
        (["--out", "{d}/x", "--stop-after", "lunch"], "invalid --stop-after: 'lunch'"),
        (
            ["--out", "{d}/x", "--rollout", "learned"],
            "invalid --rollout: 'learned' (removed in 0.4.0: it was no stronger than smart; "
            "use --rollout smart)",
        ),
    ],
)
def test_cli_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    argv = ["train", *[a.replace("{d}", str(tmp_path)) for a in args]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("lostcities train: error: ") and message in err
    assert "Traceback" not in err
    assert not (tmp_path / "none").exists()


def test_cli_help_states_the_defaults() -> None:
    import re
    from dataclasses import fields

    from lostcities.train.cli import OPTIONS

    defaults = {f.name: f.default for f in fields(RunConfig)}
    for flag, name, _, help_text in OPTIONS:
        stated = re.search(r"\(([^()]*)\)$", help_text)
        assert stated is not None, flag
        value = defaults[name]
        shown = {("classic", "long"): "both"}.get(value) if isinstance(value, tuple) else None
        if shown is None:
            shown = (
                ",".join(map(str, value))
                if isinstance(value, tuple)
                else f"{value:g}"
                if isinstance(value, float)
                else str(value) or "none"
            )
        assert stated.group(1) == shown, (flag, stated.group(1), shown)


def test_a_run_of_a_removed_rollout_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a run started with the learned judge (rollout=learned, removed in 0.4.0) is not resumed
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text(json.dumps({**TINY.to_dict(), "rollout": "learned"}))
    assert main(["train", "--out", str(out), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.endswith(
        "config.json': invalid rollout: 'learned' (removed in 0.4.0: it was no stronger than "
        "smart; use smart)\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["config.json"]
