"""The arena on a real Ray cluster (tests/ray_cluster_cases.py), run in a network namespace
of its own where root may make one: its loopback device also carries a documentation
address (192.0.2.77/24) with the default route through it, so Ray's address detection
finds a "network address" exactly as on a machine with an interface, and every packet of
the run stays inside the namespace. The cases fail on any TCP socket off loopback.

Without root (or ``unshare``/``ip``), the cases run in a plain subprocess and the watch
reads the sockets of the test's own processes instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "ray_cluster_cases.py"
TEST_ADDRESS = "192.0.2.77/24"  # RFC 5737 TEST-NET-1: never routed anywhere

NAMESPACE_SETUP = f"""
set -e
ip link set lo up
ip addr add {TEST_ADDRESS} dev lo
ip route add default dev lo src {TEST_ADDRESS.split("/")[0]}
exec "$@"
"""


def can_make_a_network_namespace() -> bool:
    """Root, with util-linux's ``unshare`` and iproute2's ``ip``, and a kernel that lets
    this process make a namespace (not inside a container that forbids it)."""
    if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("ip")):
        return False
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    return probe.returncode == 0


def run_cases(*pytest_args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
            "--timeout", "300", str(CASES), *pytest_args]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if can_make_a_network_namespace():
        env["LOSTCITIES_TEST_NETNS"] = "1"
        argv = ["unshare", "-n", "bash", "-c", NAMESPACE_SETUP, "netns", *argv]
    else:
        env.pop("LOSTCITIES_TEST_NETNS", None)
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=2400)


@pytest.mark.timeout(2500)  # (a loaded machine: the cases' own timeouts fail first)
def test_the_arena_on_a_real_ray_cluster_over_loopback_only() -> None:
    done = run_cases()
    tail = (done.stdout + done.stderr)[-6000:]
    assert done.returncode == 0, tail
    assert " passed" in done.stdout and " failed" not in done.stdout, tail


@pytest.mark.skipif(not can_make_a_network_namespace(), reason="needs root and unshare")
def test_the_namespace_has_a_network_address_that_ray_would_choose() -> None:
    """The set-up reproduces a machine with an interface: a socket aimed at the world
    leaves from 192.0.2.77, the address Ray picks by default."""
    probe = (
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        "s.connect(('203.0.113.1', 80)); print(s.getsockname()[0])"
    )
    done = subprocess.run(
        ["unshare", "-n", "bash", "-c", NAMESPACE_SETUP, "netns", sys.executable, "-c", probe],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == TEST_ADDRESS.split("/")[0]
