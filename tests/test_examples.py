"""The scripts in ``examples/`` run as their docstrings say, each on a budget that keeps it
short (a number of rounds or updates, never a number of minutes) and seeded, so that a run
gives the same output every time. ``tests/test_protocol.py`` checks ``examples/bot.py``'s
protocol in detail; here it plays the match of its docstring."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PY = sys.executable

TESTED = {"bot.py", "train_masked_policy.py", "train_vector.py"}
"""The examples this file runs (one test each at least)."""


def _run(*args: str, timeout: float = 240) -> str:
    done = subprocess.run(
        [PY, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_every_example_is_run_here() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == TESTED


def test_bot_example_plays_the_match_of_its_docstring() -> None:
    assert 'lostcities match "cmd:python examples/bot.py" random' in (
        EXAMPLES / "bot.py"
    ).read_text(encoding="utf-8")
    out = _run(
        "-m",
        "lostcities.cli",
        "match",
        f"cmd:{PY} examples/bot.py",
        "random",
        "--deals",
        "2",
        "--jobs",
        "1",
        "--json",
    )
    result = json.loads(out)
    assert result["rounds"] == 4
    assert result["a_forfeits"] == result["b_forfeits"] == 0


def _without_times(out: str) -> str:
    """The output with its one wall-clock figure (the training's seconds) blanked."""
    return re.sub(r"\) in \d+ s against", ") in ? s against", out)


def test_train_masked_policy_is_the_same_every_run() -> None:
    pytest.importorskip("gymnasium")
    args = (
        "examples/train_masked_policy.py",
        "--rounds",
        "30",
        "--eval-rounds",
        "10",
        "--seed",
        "3",
        "--minutes",
        "60",
    )
    first, second = _without_times(_run(*args)), _without_times(_run(*args))
    assert first == second
    lines = [line for line in first.splitlines() if line.strip()]
    assert lines[-3].startswith("trained 30 rounds (")
    assert re.match(r"trained policy +vs random: won \d+, tied \d+, lost \d+ of 10: ", lines[-2])
    assert re.match(
        r"random \(baseline\) +vs random: won \d+, tied \d+, lost \d+ of 10: ", lines[-1]
    )


def test_train_masked_policy_mlp_on_the_margin() -> None:
    pytest.importorskip("gymnasium")
    out = _run(
        "examples/train_masked_policy.py",
        "--policy",
        "mlp",
        "--reward",
        "margin",
        "--rounds",
        "8",
        "--eval-rounds",
        "4",
        "--minutes",
        "60",
    )
    assert "trained 8 rounds (" in out and "(mlp policy, return margin, lr 0.001)" in out


@pytest.mark.slow
@pytest.mark.timeout(600)  # PyTorch's import, and the compile on an empty numba cache, when loaded
def test_train_vector_trains_saves_and_rates(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("numba")
    pytest.importorskip("gymnasium")
    out_dir = tmp_path / "ppo"
    out = _run(
        "examples/train_vector.py",
        "--updates",
        "2",
        "--minutes",
        "60",
        "--envs",
        "16",
        "--steps",
        "8",
        "--minibatch",
        "64",
        "--epochs",
        "1",
        "--eval-every",
        "1",
        "--threads",
        "1",
        "--eval-deals",
        "1",
        "--jobs",
        "1",
        "--out",
        str(out_dir),
        timeout=540,
    )
    assert "trained 2 updates, 256 env steps in " in out
    curve = [json.loads(line) for line in (out_dir / "curve.jsonl").read_text().splitlines()]
    assert [row["update"] for row in curve] == [1, 2]
    assert (out_dir / "policy.npz").is_file()
    rating = json.loads((out_dir / "rating.json").read_text())
    assert sorted(rating) == ["heuristic", "random"]
    # the saved policy played the arena as a protocol bot (--play), every move legal
    assert all(r["rounds"] == 2 and r["forfeits"] == 0 for r in rating.values())
