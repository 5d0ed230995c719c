"""benchmarks/loopback.py, the guard that keeps tests and benchmarks on loopback: it reads
the kernel's socket tables right, refuses targets off loopback, and catches a real
connection to a non-loopback address (made inside a network namespace of the test's own,
so no packet leaves the machine)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from loopback import (  # noqa: E402
    ConnectionWatch,
    NonLoopbackError,
    Socket,
    is_loopback,
    require_loopback,
    tcp_sockets,
)

TCP = """\
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0
   1: 4D0200C0:9C40 FEA9FEA9:0050 02 00000001:00000000 01:00000000 00000000     0        0 222 1 0
"""
TCP6 = """\
  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:1F91 00000000000000000000000001000000:A000 01 00000000:00000000 00:00000000 00000000     0        0 333 1 0
   1: 0000000000000000FFFF00004D0200C0:18EB 0000000000000000FFFF00004D0200C0:C350 01 00000000:00000000 00:00000000 00000000     0        0 444 1 0
   2: 00000000000000000000000000000000:1F92 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 555 1 0
"""


def test_the_socket_tables_are_read_as_the_kernel_writes_them(tmp_path: Path) -> None:
    (tmp_path / "net").mkdir()
    (tmp_path / "net" / "tcp").write_text(TCP)
    (tmp_path / "net" / "tcp6").write_text(TCP6)
    got = {s.inode: s for s in tcp_sockets(tmp_path)}
    assert got[111] == Socket("127.0.0.1:8080", "0.0.0.0:0", "LISTEN", 111)
    assert got[222] == Socket("192.0.2.77:40000", "169.254.169.254:80", "SYN-SENT", 222)
    assert got[333] == Socket("::1:8081", "::1:40960", "ESTABLISHED", 333)
    assert got[444] == Socket(
        "::ffff:192.0.2.77:6379", "::ffff:192.0.2.77:50000", "ESTABLISHED", 444
    )
    assert got[555].local == ":::8082"
    assert [i for i, s in sorted(got.items()) if s.on_loopback] == [111, 333, 555]


def test_targets_off_loopback_are_refused() -> None:
    for ok in ("http://127.0.0.1:8000/x", "ws://localhost:1", "127.0.0.5:6379", "http://[::1]:80"):
        assert require_loopback(ok) == ok
    for bad in ("http://192.0.2.1:8000", "10.0.0.5:6379", "https://example.org", "auto"):
        with pytest.raises(NonLoopbackError, match="not on loopback"):
            require_loopback(bad)
    assert is_loopback("::ffff:127.0.0.1") and not is_loopback("::ffff:192.0.2.1")


def test_the_watch_sees_this_process_and_passes_loopback_traffic() -> None:
    with (
        socket.create_server(("127.0.0.1", 0)) as server,
        ConnectionWatch() as watch,
        socket.create_connection(server.getsockname()),
    ):
        conn, _ = server.accept()
        watch.sample()
        conn.close()
    watch.check()
    assert watch.samples >= 2 and watch.supported


def _namespace() -> bool:
    if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("ip")):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


OFF_LOOPBACK = """
import socket, sys
sys.path.insert(0, {bench!r})
from loopback import ConnectionWatch, NonLoopbackError
for namespace in (False, True):
    with socket.create_server(("192.0.2.77", 0)) as server:
        watch = ConnectionWatch(namespace=namespace).start()
        with socket.create_connection(server.getsockname()):
            conn, _ = server.accept()
            watch.sample()
            conn.close()
        watch.stop()
    try:
        watch.check()
    except NonLoopbackError as e:
        print("caught:", e)
"""


@pytest.mark.skipif(not _namespace(), reason="needs root and unshare")
def test_the_watch_catches_a_connection_off_loopback() -> None:
    setup = 'ip link set lo up && ip addr add 192.0.2.77/24 dev lo && exec "$@"'
    code = OFF_LOOPBACK.format(bench=str(ROOT / "benchmarks"))
    done = subprocess.run(
        ["unshare", "-n", "bash", "-c", setup, "netns", sys.executable, "-c", code],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    caught = done.stdout.splitlines()
    assert len(caught) == 2, done.stdout  # by its own processes' sockets, and namespace-wide
    assert all("ESTABLISHED 192.0.2.77:" in line for line in caught)


def test_a_web_benchmark_runs_on_loopback_only() -> None:
    """benchmarks/web_load.py, tiny: a server and its clients, all under the watch (the run
    exits 3 with one line if any socket of its process tree left loopback)."""
    pytest.importorskip("fastapi")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "web_load.py"), "--games", "2", "--duration", "1",
         "--warmup", "0.5", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "off loopback" not in done.stderr


def test_a_target_off_loopback_is_refused_before_anything_is_sent() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "web_load.py"), "--url", "http://192.0.2.1:8000"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0 and "is not on loopback" in done.stderr
