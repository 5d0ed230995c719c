"""The arena on a real Ray cluster: a head started with ``ray start`` on 127.0.0.1 with two
worker CPUs (no mocks). The same seed gives the same results as locally, bit for bit
(crashing bots forfeit the same, the SPRT stops at the same deal, the records are the
same); a killed worker's deal pairs are played again; Ctrl-C stops the cluster's work and
its bots; bad backend options are one-line errors; a Ray started for the run works too.

Every test runs under a :class:`loopback.ConnectionWatch`: a TCP socket off loopback,
seen at any moment of the test, fails it. tests/test_arena_ray.py runs this file in a
network namespace of its own whose loopback device also carries 192.0.2.77 with the
default route through it, so Ray finds a "network address" exactly as on a real machine
(and every packet stays in the namespace); the watch then reads the whole namespace.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from loopback import ConnectionWatch, hermetic_ray

from lostcities.arena import Backend, ClusterError, MatchResult, play_match, play_tournament
from lostcities.arena.cluster import LOOPBACK_VARIABLE, ray_session
from lostcities.cli import main

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")

ROOT = Path(__file__).resolve().parent.parent
BADBOT = ROOT / "tests" / "bots" / "misbehaving" / "badbot.py"
PY = sys.executable
IN_NAMESPACE = os.environ.get("LOSTCITIES_TEST_NETNS") == "1"
"""Run by tests/test_arena_ray.py in a network namespace of its own: every socket in it is
this run's."""


hermetic_ray()  # before Ray is imported: it reads its authentication settings then
pytest.importorskip("ray")


@pytest.fixture(autouse=True)
def only_loopback() -> Iterator[None]:
    """Fail the test if any TCP socket of it (of the namespace, inside one) leaves loopback."""
    with ConnectionWatch(namespace=IN_NAMESPACE) as watch:
        yield
    watch.check()


def comparable(result: MatchResult) -> dict[str, Any]:
    """The result without wall-clock times."""
    d = result.to_dict(games=True)
    d.pop("seconds")
    for g in d["games"]:
        g.pop("a_seconds")
        g.pop("b_seconds")
    return d


def _processes(match: Callable[[bytes], bool]) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if match(cmdline) and ") Z " not in stat:
                pids.append(int(entry.name))
    return pids


def _bots_with(marker: str) -> list[int]:
    """The running badbot processes started with ``marker``."""
    return _processes(
        lambda c: b"badbot.py" in c and marker.encode() in c and b"lostcities.cli" not in c
    )


def _busy_workers() -> list[int]:
    """Ray worker processes playing a unit now (Ray names them ``ray::<task>``)."""
    return _processes(lambda c: c.startswith(b"ray::_run_unit"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    """A Ray head on 127.0.0.1 with 2 CPUs (two worker processes), its own ports and
    temporary directory; stopped (its whole process group) at the end."""
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="lcray")  # short: Ray's socket paths must fit 107 bytes
    ray = str(Path(PY).parent / "ray")
    argv = [
        ray if os.path.exists(ray) else "ray", "start", "--head", "--block",
        "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
        "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
        f"--dashboard-port={_free_port()}", f"--metrics-export-port={_free_port()}",
        f"--dashboard-agent-listen-port={_free_port()}", f"--dashboard-agent-grpc-port={_free_port()}",
        f"--runtime-env-agent-port={_free_port()}", f"--node-manager-port={_free_port()}",
        f"--object-manager-port={_free_port()}",
    ]  # fmt: skip
    # a head meant to stay on loopback, as docs/scaling.md says to start one
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "RAY_USAGE_STATS_ENABLED": "0",
        LOOPBACK_VARIABLE: "0",
    }
    watch = ConnectionWatch(namespace=IN_NAMESPACE).start()  # the head's start and its end too
    head = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and head.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert head.poll() is None, head.stderr.read().decode() if head.stderr else ""
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        deadline = time.monotonic() + 10  # the head's children leave after it
        while time.monotonic() < deadline:
            try:
                os.killpg(head.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            os.killpg(head.pid, signal.SIGKILL)
        watch.stop()
    watch.check()


def test_the_same_results_on_ray_as_locally(address: str) -> None:
    ray = Backend.parse("ray", address)
    crash = f"cmd:{PY} {BADBOT} crash 5"
    with ray_session(ray):  # one connection for the whole test
        results = []
        for a, b, deals, sprt in (
            ("random", f"cmd:{PY} -m lostcities.cli bot random", 3, None),
            ("heuristic", crash, 2, None),  # the crashing bot forfeits, as locally
            ("discard", "random", 200, "elo0=0,elo1=20"),  # the SPRT stops at the same deal
        ):
            local_records, ray_records = io.StringIO(), io.StringIO()
            local = play_match(a, b, deals=deals, seed=11, jobs=1, sprt=sprt, records=local_records,
                               time_limit=2.0)  # fmt: skip
            seen: list[int] = []
            on_ray = play_match(a, b, deals=deals, seed=11, sprt=sprt, records=ray_records,
                                time_limit=2.0, backend=ray, jobs=2,
                                progress=lambda r, seen=seen: seen.append(r.rounds))  # fmt: skip
            assert comparable(on_ray) == comparable(local)
            assert ray_records.getvalue() == local_records.getvalue()
            assert seen and seen == sorted(seen) and seen[-1] == local.rounds
            results.append(on_ray)
        assert results[1].b_forfeits == 4 and all("crash" in g.reason for g in results[1].games)
        assert results[2].stopped_early and results[2].deals < 200
        here = play_tournament(["discard", "random", "heuristic"], deals=2, seed=4, jobs=1)
        there = play_tournament(["discard", "random", "heuristic"], deals=2, seed=4, backend=ray)
        assert here.to_dict()["ladder"] == there.to_dict()["ladder"]


def test_the_command_line_on_ray(address: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "random", "discard", "--deals", "3", "--seed", "5", "--json"]
    assert main([*argv, "--jobs", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--backend", "ray", "--address", address]) == 0
    out = capsys.readouterr().out
    on_ray = json.loads(out)  # stdout is the JSON alone
    local.pop("seconds"), on_ray.pop("seconds")
    assert on_ray == local


def test_a_killed_worker_has_its_deal_pairs_played_again(address: str) -> None:
    a, b = "random", "ismcts:iters=500"
    killed: list[int] = []
    match_over = threading.Event()

    def kill_one() -> None:  # until the first kill, or the match ends (no deadline: load)
        while not killed and not match_over.is_set():
            for pid in _busy_workers():
                os.kill(pid, signal.SIGKILL)  # a worker dies mid deal pair
                killed.append(pid)
                break
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one)
    killer.start()
    try:
        on_ray = play_match(a, b, deals=3, seed=2, backend=Backend("ray", address), time_limit=None)
    finally:
        match_over.set()
        killer.join()
    assert killed, "no worker was seen playing"
    local = play_match(a, b, deals=3, seed=2, jobs=1, time_limit=None)
    assert comparable(on_ray) == comparable(local)


@pytest.mark.timeout(900)  # (the wait below has no deadline of its own)
def test_ctrl_c_stops_the_cluster_work_and_its_bots(address: str, tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"  # unique across xdist workers too
    argv = [PY, "-m", "lostcities.cli", "match", "random", f"cmd:{PY} {BADBOT} stubborn 1 {marker}"]
    p = subprocess.Popen(
        [*argv, "--deals", "500", "--backend", "ray", "--address", address],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        # the wait is for the event, however loaded the machine: the case's timeout is the
        # only safety net (a wall-clock deadline here failed on a machine at load 5)
        while not _bots_with(marker):  # a worker plays (its bot is running)
            assert p.poll() is None, p.communicate()[1]
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGINT)  # Ctrl-C at the driver's terminal
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1] == "lostcities: interrupted"
    deadline = time.monotonic() + 60  # a safety net: the loop ends when they are gone
    while _bots_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _bots_with(marker) == []


def test_a_ray_started_for_the_run_stays_on_loopback() -> None:
    """``--backend ray`` without ``--address``: Ray's own processes are started for the run,
    and talk over loopback only (the watch fails the test otherwise)."""
    on_ray = play_match("random", "discard", deals=2, seed=3, backend=Backend("ray"), jobs=2)
    local = play_match("random", "discard", deals=2, seed=3, jobs=1)
    assert comparable(on_ray) == comparable(local)


def test_a_loopback_cluster_by_name(address: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``localhost:PORT`` is the same loopback cluster as ``127.0.0.1:PORT``."""
    port = address.rpartition(":")[2]
    argv = ["match", "random", "discard", "--deals", "2", "--seed", "6", "--json"]
    assert main([*argv, "--backend", "ray", "--address", f"localhost:{port}"]) == 0
    assert json.loads(capsys.readouterr().out)["rounds"] == 4


def test_bad_backend_options_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "random", "discard", "--address", "auto"]) == 2
    assert capsys.readouterr().err == (
        "lostcities match: error: --address needs --backend ray (got --address 'auto')\n"
    )
    with pytest.raises(ClusterError, match="invalid backend"):
        Backend.parse("spark")


def test_self_play_on_ray_gives_the_same_data(address: str, tmp_path: Path) -> None:
    pytest.importorskip("numba")
    import numpy as np

    from lostcities.train.selfplay import FlatTeacher, SelfPlayConfig, generate, load_shards

    teacher = FlatTeacher(worlds=2)
    config = SelfPlayConfig(variants=("classic", "long"), sample_plies=2, shard_rounds=2)
    args = {"rounds": 3, "seed": 3, "iteration": 2}
    local = generate(tmp_path / "local", teacher, config, jobs=1, **args)
    on_ray = generate(tmp_path / "ray", teacher, config, backend=Backend("ray", address), **args)
    assert [p.name for p in on_ray] == [p.name for p in local]
    a, b = load_shards(local), load_shards(on_ray)
    for f in fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name), equal_nan=True), f.name


def test_ppo_on_ray_learns_the_same_network(address: str, tmp_path: Path) -> None:
    """PPO's self-play shards played on the cluster give the network one process gives."""
    pytest.importorskip("torch")
    from lostcities.nn import Network
    from lostcities.train.rl import SHARD_GAMES, PPOConfig, run_ppo

    cfg = PPOConfig(
        updates=1, games=SHARD_GAMES + 4, seed=8, init="fresh", hidden=(16,), eval_every=0,
        critic_warmup=0, minibatch=256,
    )  # fmt: skip
    run_ppo(cfg, tmp_path / "local", progress=False)
    run_ppo(cfg, tmp_path / "ray", progress=False, backend=Backend("ray", address))
    a = Network.load(tmp_path / "local" / "net.npz").arrays()
    b = Network.load(tmp_path / "ray" / "net.npz").arrays()
    assert all(a[k].tobytes() == b[k].tobytes() for k in a)
