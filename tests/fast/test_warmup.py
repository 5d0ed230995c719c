"""``warm_up()``: after it, a first search move in a fresh process compiles nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parent.parent.parent

# In a fresh interpreter: warm up, note every numba function's compiled signatures and
# cache misses, then make the first move of each search bot the front ends play (and the
# other options that reach other kernels) in both variants, and note the signatures again.
SCRIPT = r"""
import json, time
from lostcities.fast.warmup import dispatchers, warm_up
from lostcities import Round
from lostcities.bots import make

seconds = warm_up()
def signatures():
    return {name: sorted(map(str, d.signatures)) for name, d in dispatchers()}
before = signatures()
misses = {name: len(d.stats.cache_misses) for name, d in dispatchers() if d.stats.cache_misses}
t = time.perf_counter()
make("ismcts:time=0.2", seed=1).choose(Round.deal(seed=7).view(0))
first_move = time.perf_counter() - t
for variant in ("classic", "long"):
    r = Round.deal(seed=5, variant=variant)
    for spec in ("expert:time=0.05", "expert:iters=60,top=3", "ismcts:time=0.05",
                 "ismcts:iters=60,rollout=cheap", "ismcts:iters=40,mode=tree,rollout=cheap",
                 "ismcts:iters=40,engine=python,rollout=cheap"):
        make(spec, seed=1).choose(r.view(r.to_move))
print(json.dumps({"seconds": seconds, "first_move": first_move, "misses": misses,
                  "before": before, "after": signatures()}))
"""


def _fresh_process() -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    return result


def test_a_first_search_move_after_warm_up_compiles_nothing() -> None:
    _fresh_process()  # fills numba's cache if it is cold (a fresh checkout)
    r = _fresh_process()
    # warm_up() only loaded code from the cache ...
    assert r["misses"] == {}, f"compiled instead of loading from the cache: {r['misses']}"
    # ... and the moves found every kernel they run already there: nothing compiled
    new = {k: v for k, v in r["after"].items() if v != r["before"][k]}
    assert new == {}, f"compiled inside a move: {new}"
    # (no wall-clock bound: that nothing compiled is the load-proof form of "the first
    # move is not held up by the JIT"; the times are in benchmarks' and the warm-up's own
    # output: `lostcities warmup` says how long it took)


def test_progress_messages() -> None:
    from lostcities.fast.warmup import LOADING, PREPARING, first_start, warm_up

    said: list[str] = []
    cold = first_start()
    seconds = warm_up(said.append)
    assert said == [PREPARING if cold else LOADING, f"ready in {seconds:.1f} s"]
    # the cache is warm now: the next warm-up only loads it, and says so
    assert not first_start()
    said.clear()
    seconds = warm_up(said.append)
    assert said == [LOADING, f"ready in {seconds:.1f} s"]


def _command(env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lostcities.cli", "warmup"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )


def test_the_warmup_command_says_first_start_only_at_a_first_start() -> None:
    _command()  # fills the cache if it is cold
    out = _command()
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "loading the search engine ..."  # not "(first start only)": it is not
    assert lines[1].startswith("ready in ") and lines[1].endswith(" s")
    assert "first start" not in out.stdout


def _first_start_in(env: dict[str, str]) -> bool:
    code = "from lostcities.fast.warmup import first_start; print(first_start())"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    return {"True": True, "False": False}[out.stdout.strip()]


def test_a_fresh_cache_is_a_first_start(tmp_path: Path) -> None:
    """A new numba cache folder (a fresh install) is a first start, without compiling
    anything to find out; the cache warmed by a warm-up is not; nor is a disabled JIT."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    assert _first_start_in({**env, "NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert not list((tmp_path / "cache").rglob("*.nbc"))  # nothing was compiled
    _command()
    assert not _first_start_in(env)
    assert not _first_start_in({**env, "NUMBA_DISABLE_JIT": "1"})


def test_an_edited_source_is_a_first_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The note names each compiled source's size and time: an edit of the fast path (or an
    upgrade) makes the next start a first start again."""
    from lostcities.fast import warmup

    warmup.warm_up()
    assert not warmup.first_start()
    real = os.stat

    def touched(path: Any, *args: Any, **kwargs: Any) -> Any:
        st = real(path, *args, **kwargs)
        if str(path).endswith("kernels.py"):
            return SimpleNamespace(st_mtime=st.st_mtime + 1, st_size=st.st_size)
        return st

    monkeypatch.setattr(os, "stat", touched)
    assert warmup.first_start()


def test_the_warm_up_process_runs_apart_and_can_be_stopped() -> None:
    from lostcities.fast.warmup import WarmUpProcess, warm_up

    warm_up()  # warm: the child only loads
    child = WarmUpProcess()
    seconds = child.wait()
    child.close()
    assert seconds >= 0
    stopped = WarmUpProcess()
    stopped.close()  # at once: killed, never left running
    with pytest.raises(Exception, match="failed"):
        stopped.wait()


def test_without_numba_the_command_says_so_and_succeeds() -> None:
    code = "import sys; sys.modules['numba'] = None\nfrom lostcities.cli import main\nsys.exit(main(['warmup']))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert (
        out.stdout
        == "numba is not installed: nothing to compile (the bots search in pure Python)\n"
    )


def test_warm_ups_starting_together_compile_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first start's compile is held open while two more warm-ups start (``serve
    --workers 3``, each process's warm-up): they wait on the lock beside the cache, then
    load what the first compiled; only one compile runs. (Threads here: each warm-up opens
    the lock file itself, and ``flock`` locks are per open file, so they exclude each
    other as processes do; the real processes: the next test.)"""
    import threading
    import time

    from lostcities.fast import warmup

    note = tmp_path / "cache" / warmup.NOTE  # a cold cache of its own
    monkeypatch.setattr(warmup, "_note", lambda: (note, {"sources": "these"}))
    held = threading.Event()
    compiling = threading.Event()
    runs: list[tuple[str, bool]] = []  # (warm-up, whether its kernels ran on a cold cache)

    def kernels(variant: str) -> None:
        cold = warmup.first_start()
        runs.append((threading.current_thread().name, cold))
        if cold:
            compiling.set()
            assert held.wait(60), "the test never let the compile end"

    monkeypatch.setattr(warmup, "_bot_kernels", kernels)
    monkeypatch.setattr(warmup, "_batch_kernels", kernels)
    said: dict[str, list[str]] = {name: [] for name in ("w0", "w1", "w2")}
    threads = [
        threading.Thread(target=warmup.warm_up, args=(said[name].append,), name=name)
        for name in said
    ]
    threads[0].start()
    assert compiling.wait(30)
    for t in threads[1:]:
        t.start()
    deadline = time.monotonic() + 30
    while not all(said[n] == [warmup.WAITING] for n in ("w1", "w2")):  # both wait on it
        assert time.monotonic() < deadline, said
        time.sleep(0.01)
    held.set()  # the compile ends
    for t in threads:
        t.join(30)
    assert {name for name, cold in runs if cold} == {"w0"}, runs  # one compile
    assert sorted(runs) == sorted([("w0", True)] * 4 + [("w1", False)] * 4 + [("w2", False)] * 4), (
        runs
    )
    assert said["w0"][0] == warmup.PREPARING
    for name in ("w1", "w2"):
        assert said[name][:2] == [warmup.WAITING, warmup.LOADING], said
    assert not warmup.first_start()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_warm_up_processes_on_a_cold_cache_compile_once(tmp_path: Path) -> None:
    """The real thing, as ``serve --workers 2`` starts it: two warm-up child processes on an
    empty ``NUMBA_CACHE_DIR``, while the lock is held (by this test, standing in for a
    compile already running): both wait; then one compiles and the other loads."""
    import fcntl

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    code = "from lostcities.fast.warmup import LOCK, _note; print(_note()[0].with_name(LOCK))"
    lock = Path(
        subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
            text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "ab") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        children = [
            subprocess.Popen(
                [sys.executable, "-m", "lostcities.fast.warmup"], cwd=ROOT, env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True,
            )
            for _ in range(2)
        ]  # fmt: skip
        for c in children:  # each says it waits (and so waits) before anything compiles
            assert c.stdout is not None
            assert (
                c.stdout.readline().strip()
                == "waiting for another process preparing the search engine ..."
            )
    outs = []
    for c in children:
        assert c.stdout is not None and c.stdin is not None
        outs.append(c.stdout.read())
        assert c.wait(600) == 0, outs[-1]
        c.stdin.close()
        c.stdout.close()
    firsts = sorted(out.splitlines()[0] for out in outs)
    assert firsts == sorted(["preparing the search engine (first start only) ...",
                             "loading the search engine ..."]), outs  # fmt: skip
