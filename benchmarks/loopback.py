"""Keep tests and benchmarks on loopback: every TCP connection they open must be to
127.0.0.0/8 or ::1 (or inside a network namespace they made themselves), never to the
machine's interface address nor anything else.

Tools for the tests (tests/test_arena_ray.py) and the networked benchmarks alike:

- :func:`require_loopback` refuses a target URL or ``host:port`` that is not on loopback,
  before any packet is sent;
- :class:`ConnectionWatch` samples, in a background thread, the TCP sockets of this
  process and its descendants (or of the whole network namespace, ``namespace=True``, for
  a namespace of the run's own) from ``/proc/net/tcp{,6}``, and remembers every socket
  that is connected (or connecting, or listening on one address) anywhere but loopback.
  ``check()`` raises :class:`NonLoopbackError` naming them;
- :func:`hermetic_ray` keeps Ray's own extra traffic (a cloud-metadata probe, a usage
  report) off the network and its state out of the machine's home directory.

    with ConnectionWatch() as watch:
        run_the_benchmark()
    watch.check()

Linux only (``/proc``); elsewhere the watch sees nothing and says so in ``supported``.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

from lostcities.arena.cluster import is_loopback_host

__all__ = [
    "ConnectionWatch",
    "on_loopback",
    "hermetic_ray",
    "NonLoopbackError",
    "Socket",
    "is_loopback",
    "require_loopback",
    "tcp_sockets",
]

_STATES = {
    "01": "ESTABLISHED", "02": "SYN-SENT", "03": "SYN-RECV", "04": "FIN-WAIT-1",
    "05": "FIN-WAIT-2", "06": "TIME-WAIT", "07": "CLOSE", "08": "CLOSE-WAIT",
    "09": "LAST-ACK", "0A": "LISTEN", "0B": "CLOSING",
}  # fmt: skip


class NonLoopbackError(ValueError):
    """A test or benchmark opened (or was asked to open) a connection off loopback."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is loopback (``localhost``, 127.0.0.0/8, ``::1``, or IPv4-mapped):
    the product's own rule, :func:`lostcities.arena.cluster.is_loopback_host`.

    >>> [is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "::ffff:127.0.0.9")]
    [True, True, True, True]
    >>> [is_loopback(h) for h in ("192.0.2.7", "0.0.0.0", "example.org")]
    [False, False, False]
    """
    return is_loopback_host(host)


def require_loopback(target: str) -> str:
    """``target`` (a URL or ``host:port``) if its host is loopback.

    >>> require_loopback("http://127.0.0.1:8000")
    'http://127.0.0.1:8000'
    >>> require_loopback("10.0.0.5:6379")
    Traceback (most recent call last):
    ...
    loopback.NonLoopbackError: 10.0.0.5:6379 is not on loopback: tests and benchmarks connect only to 127.0.0.0/8 and ::1
    """
    host = urlsplit(target if "://" in target else f"//{target}").hostname or ""
    if not is_loopback(host):
        raise NonLoopbackError(
            f"{target} is not on loopback: tests and benchmarks connect only to 127.0.0.0/8 and ::1"
        )
    return target


def hermetic_ray() -> None:
    """Make Ray, in this process and the processes it starts from now on, the run's own
    whatever the machine holds: a home of its own (Ray keeps its token in ``~/.ray`` and
    reads ``~/ray_bootstrap_config.yaml``; a local cluster's config there stops its
    dashboard process from probing cloud metadata at 169.254.169.254), token authentication
    with a token of the run's own, and no usage report off loopback. Call it before Ray is
    imported (Ray reads its authentication settings then)."""
    home = Path(tempfile.mkdtemp(prefix="lcrayhome"))
    (home / "ray_bootstrap_config.yaml").write_text("provider:\n  type: local\n")
    os.environ.update(
        HOME=str(home),
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN=secrets.token_hex(32),
        RAY_USAGE_STATS_ENABLED="0",
        RAY_USAGE_STATS_REPORT_URL="http://127.0.0.1:9/",
    )


@dataclass(frozen=True)
class Socket:
    """One TCP socket as ``/proc/net/tcp`` lists it."""

    local: str
    remote: str
    state: str
    inode: int

    @property
    def on_loopback(self) -> bool:
        """Whether the socket keeps to loopback: a listening socket on a wildcard or loopback
        address, any other with both ends on loopback."""
        local_host = self.local.rpartition(":")[0]
        if self.state == "LISTEN":
            return local_host in ("0.0.0.0", "::") or is_loopback(local_host)
        return is_loopback(local_host) and is_loopback(self.remote.rpartition(":")[0])

    def __str__(self) -> str:
        return f"{self.state} {self.local} -> {self.remote}"


def _address(text: str) -> str:
    """``0100007F:1F90`` (or the IPv6 form) as ``127.0.0.1:8080``."""
    hexip, _, hexport = text.partition(":")
    raw = bytes.fromhex(hexip)
    # the kernel writes each 32-bit word in host (little-endian) order
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    ip = ipaddress.ip_address(words)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return f"::ffff:{ip.ipv4_mapped}:{int(hexport, 16)}"
    return f"{ip}:{int(hexport, 16)}"


def tcp_sockets(proc: Path = Path("/proc")) -> list[Socket]:
    """Every TCP socket of this network namespace (IPv4 and IPv6)."""
    out = []
    for name in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) < 10:
                continue
            out.append(Socket(_address(f[1]), _address(f[2]), _STATES.get(f[3], f[3]), int(f[9])))
    return out


def _descendants(root: int) -> set[int]:
    """``root`` and every live process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    seen, todo = {root}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _socket_inodes(pids: Iterable[int]) -> set[int]:
    inodes = set()
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(int(target[8:-1]))
    return inodes


class ConnectionWatch:
    """Watches the TCP sockets of this process and its descendants (``namespace=False``) or
    of the whole network namespace (``namespace=True``) every ``interval`` seconds while it
    runs (a context manager, or :meth:`start`/:meth:`stop`), and keeps those off loopback.
    """

    def __init__(self, *, namespace: bool = False, interval: float = 0.05) -> None:
        self.namespace = namespace
        self.interval = interval
        self.offenders: dict[tuple[str, str, str], Socket] = {}
        """Every socket seen off loopback, once each (by its addresses and state)."""
        self.samples = 0
        """How many times the sockets were read."""
        self.supported = Path("/proc/net/tcp").exists()
        """Whether this system lets the watch see anything (Linux)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> None:
        """Read the sockets once now."""
        sockets = tcp_sockets()
        if not self.namespace:
            mine = _socket_inodes(_descendants(os.getpid()))
            sockets = [s for s in sockets if s.inode in mine]
        for s in sockets:
            if not s.on_loopback:
                self.offenders.setdefault((s.local, s.remote, s.state), s)
        self.samples += 1

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def start(self) -> ConnectionWatch:
        """Start sampling in a background thread."""
        self.sample()
        self._thread = threading.Thread(target=self._run, name="loopback-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling (after one last sample)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.sample()

    def check(self) -> None:
        """Raise :class:`NonLoopbackError` if any socket was seen off loopback."""
        if self.offenders:
            listed = "; ".join(str(s) for s in list(self.offenders.values())[:10])
            more = len(self.offenders) - 10
            raise NonLoopbackError(
                f"{len(self.offenders)} TCP socket(s) off loopback: {listed}"
                + (f" and {more} more" if more > 0 else "")
            )

    def __enter__(self) -> ConnectionWatch:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def on_loopback(main: Callable[[], int | None]) -> int:
    """Run a benchmark's ``main`` under a :class:`ConnectionWatch` of its whole process
    tree; its exit code, or 3 with one line on stderr if any socket left loopback::

        if __name__ == "__main__":
            sys.exit(on_loopback(main))
    """
    with ConnectionWatch(interval=0.2) as watch:
        code = main()
    try:
        watch.check()
    except NonLoopbackError as e:
        print(f"{Path(sys.argv[0]).name}: {e}", file=sys.stderr)
        return 3
    return int(code or 0)
