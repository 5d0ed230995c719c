"""``lostcities bench``: one short real run through the CLI, and its parts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

from lostcities import bench


@pytest.fixture(scope="module")
def result() -> dict[str, object]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "lostcities.cli",
            "bench",
            "--json",
            "--seconds",
            "0.02",
            "--repeat",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    res: dict[str, object] = json.loads(out.stdout)  # one JSON object, nothing else
    return res


def test_bench_json_has_every_figure(result: dict[str, object]) -> None:
    res = result
    for key in ("python", "python_legal", "fast"):
        fig = res[key]
        assert isinstance(fig, dict)
        assert fig["rounds_per_s"] > 0 and fig["turns_per_s"] > fig["rounds_per_s"]
        assert 100 < fig["mean_turns"] < 200  # ~143 moves a round under this policy
    batch = res["batch"]
    assert isinstance(batch, dict) and batch["games"] == 10_000
    assert batch["kernel"]["turns_per_s"] > 0 and batch["api"]["turns_per_s"] > 0
    mem = res["batch_memory_mib"]
    assert isinstance(mem, dict) and 0 < mem["classic"] < 100 and 0 < mem["long"] < 100
    ratios = res["ratios"]
    assert isinstance(ratios, dict) and ratios["fast_over_python"] > 1
    start = res["fast_start_s"]
    assert isinstance(start, dict) and start["wall"] > 0 and start["cpu"] > 0
    ism = res["ismcts"]
    if ism is not None:
        assert isinstance(ism, dict) and ism["fast_iters_per_s"] > 0 and ism["pure_iters_per_s"] > 0
        # the default bot, compiled search against the same search on the pure-Python core
        assert ism["spec"].startswith("ismcts:time=") and ism["pure_spec"].endswith(
            ",engine=python"
        )
        assert ism["tree"]["fast_iters_per_s"] > 0 and "mode=tree" in ism["tree"]["spec"]
    flat = res["flat"]
    assert isinstance(flat, dict) and flat["fast_playouts_per_s"] > flat["pure_playouts_per_s"] > 0
    if bench.find_compiler() is not None:
        c = res["c"]
        assert isinstance(c, dict) and c["rounds_per_s"] > 0
        assert 100 < c["mean_turns"] < 200
        assert ratios["fast_over_c"] > 0


def test_report_text(result: dict[str, object]) -> None:
    text = bench.format_report(result)
    assert "fast path, one core" in text and "batch of 10,000 games" in text
    assert "turns/s" in text and "machine:" in text


def test_c_reference_needs_a_source(tmp_path: Path) -> None:
    assert bench.bench_c(0, tmp_path / "missing.c") is None


ROOT = Path(__file__).resolve().parents[1]


def test_the_c_reference_ships_with_the_package() -> None:
    # issue 28, part 4: it was looked for in benchmarks/c/, beside the package, which no
    # install has
    assert bench.C_SOURCE.is_file()
    assert bench.C_SOURCE.is_relative_to(Path(bench.__file__).resolve().parent / "data")
    assert "rounds_per_s" in bench.C_SOURCE.read_text()
    # one source of truth: the checkout's benchmarks/c/playout.c is the packaged file
    assert (ROOT / "benchmarks" / "c" / "playout.c").resolve() == bench.C_SOURCE.resolve()


def test_a_copy_of_the_package_alone_finds_and_runs_its_c_reference(tmp_path: Path) -> None:
    """As from an installed wheel: the package somewhere with no benchmarks/ beside it."""
    site = tmp_path / "site"
    shutil.copytree(
        ROOT / "lostcities", site / "lostcities", ignore=shutil.ignore_patterns("__pycache__")
    )
    code = (
        "import json, sys\n"
        "from lostcities import bench\n"
        "assert bench.__file__.startswith(sys.argv[1]), bench.__file__\n"
        "print(json.dumps({'source': str(bench.C_SOURCE), 'cc': bench.find_compiler(),"
        " 'c': bench.bench_c(0.05)}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", code, str(site)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=240,
    )
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert Path(res["source"]).is_relative_to(site)
    if res["cc"] is None:
        assert res["c"] == {"skipped": bench.NO_COMPILER}
        return
    c = res["c"]
    assert c["rounds_per_s"] > 0 and 100 < c["mean_turns"] < 200
    built = list((tmp_path / "cache" / "lostcities").glob("playout-*"))
    assert len(built) == 1 and os.access(built[0], os.X_OK)  # no leftover source or temp


def _no_compiler(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no gcc, cc or clang
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_without_a_compiler_the_report_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, result: dict[str, object]
) -> None:
    _no_compiler(monkeypatch, tmp_path)
    assert bench.find_compiler() is None
    c = bench.bench_c(0.01)
    assert c == {"skipped": "no C compiler found (set CC): the C reference is skipped"}
    ratios = result["ratios"]
    assert isinstance(ratios, dict)
    no_c = {k: v for k, v in ratios.items() if "_c" not in k}
    text = bench.format_report({**result, "c": c, "ratios": no_c})
    assert "no C compiler found (set CC): the C reference is skipped" in text


def test_cc_names_the_compiler(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _no_compiler(monkeypatch, tmp_path)
    tool = tmp_path / "mycc"
    tool.write_text("#!/bin/sh\nexit 1\n")
    tool.chmod(0o755)
    monkeypatch.setenv("CC", "mycc -m64")
    assert bench.find_compiler() == [str(tool), "-m64"]
    monkeypatch.setenv("CC", "nosuchcc")  # set but not there: skipped as without one
    assert bench.find_compiler() is None
    assert bench.bench_c(0.01) == {"skipped": bench.NO_COMPILER}
    # a compiler that fails says so, and leaves nothing in the cache
    monkeypatch.setenv("CC", "mycc")
    c = bench.bench_c(0.01)
    assert c is not None and c["error"].startswith("compiling playout.c failed")
    assert not any((tmp_path / "cache" / "lostcities").iterdir())


@pytest.mark.parametrize(
    "args", [["--seconds", "-1"], ["--seconds", "0"], ["--seconds", "nan"], ["--repeat", "0"]]
)
def test_bad_seconds_is_a_usage_error(args: list[str]) -> None:
    # issue 14, defect 7: --seconds 0 was accepted, and then one round against thousands of
    # C rounds made the fast path look faster than C
    out = subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "bench", *args],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "must be" in out.stderr


def test_every_timed_figure_says_how_noisy_it_was(result: dict[str, object]) -> None:
    assert result["repeat"] == 2
    figures = [result["python"], result["python_legal"], result["fast"]]
    batch = result["batch"]
    assert isinstance(batch, dict)
    figures += [batch["kernel"], batch["api"]]
    if result.get("c"):
        figures.append(result["c"])
    for fig in figures:
        assert isinstance(fig, dict)
        runs = fig["runs"]
        assert len(runs) == 2 and all(r > 0 for r in runs)
        assert fig["turns_per_s"] in runs  # the median run's figures (the lower of two)
        assert fig["spread"] == pytest.approx((max(runs) - min(runs)) / fig["turns_per_s"])
    text = bench.format_report(result)
    assert "spread" in text and "repeats" in text


def test_without_numba_the_command_says_which_extra_to_install() -> None:
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "from lostcities.cli import main\n"
        "sys.exit(main(['bench']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2
    assert "lostcities[fast]" in out.stderr and "Traceback" not in out.stderr


def test_the_ci_benchmark_prints_and_stores_its_figures(tmp_path: Path) -> None:
    # issue 28, part 5: a short run for CI, figures printed and kept, nothing asserted on
    # speed; the second run compares its ratios with the first
    script = ROOT / "benchmarks" / "ci_bench.py"
    env = {**os.environ, "LOSTCITIES_BENCH_OUT": str(tmp_path / "out")}
    args = [sys.executable, str(script), "--seconds", "0.02", "--repeat", "1"]
    first = subprocess.run(args, capture_output=True, text=True, env=env, timeout=240)
    assert first.returncode == 0, first.stderr
    assert "legal_moves() + push()" in first.stdout and "nothing to compare" in first.stdout
    res = json.loads((tmp_path / "out" / "bench-results.json").read_text())
    for key in ("turns_per_s", "pops_per_s", "views_per_s", "scores_per_s"):
        assert res["core"][key] > 0
    assert res["fast"]["turns_per_s"] > 0 and res["date"] and "ratios" in res
    if bench.find_compiler() is not None:
        assert res["c"]["turns_per_s"] > 0 and res["ratios"]["core_over_c"] > 0
    second = subprocess.run(args, capture_output=True, text=True, env=env, timeout=240)
    assert second.returncode == 0, second.stderr
    assert "previous run:" in second.stdout
    history = (tmp_path / "out" / "bench-history.jsonl").read_text().splitlines()
    assert len(history) == 2 and all(json.loads(line)["core"] for line in history)
