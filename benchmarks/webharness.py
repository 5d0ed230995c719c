"""The web-server harness of the tests and the benchmarks: ``lostcities serve`` as a
subprocess on a free loopback port and a database, waited for until it answers
``/healthz``, stopped or killed (``kill -9``, as in a crash) and restarted; a JSON client for
its HTTP API; and the ``/proc`` readings (descendants, liveness, memory, CPU time) that check
its bot workers and measure it.

The server always binds 127.0.0.1. Its environment is this process's, then
:data:`DEFAULT_ENV` (no per-client limits, since every scripted client comes from this one
address; no bot delay), then the caller's.

The tests import it through tests/web/web_helpers.py (which puts ``benchmarks/`` on
``sys.path``, as the benchmarks import one another); it is development tooling, not part of the installed package.

    >>> s = Server("sqlite://", env={"LOSTCITIES_BOT_EXECUTOR": "thread"})
    >>> s.url.startswith("http://127.0.0.1:"), s.env["LOSTCITIES_LIMITS"]
    (True, 'off')
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_ENV",
    "HOST",
    "Server",
    "alive",
    "cpu_seconds",
    "descendants",
    "free_port",
    "new_account",
    "rss_kib",
    "signed_in",
]

HOST = "127.0.0.1"
"""The only address a harness server listens on."""

DEFAULT_ENV = {"LOSTCITIES_LIMITS": "off", "LOSTCITIES_BOT_DELAY": "0"}
"""What every harness server runs with unless the caller says otherwise."""


def free_port() -> int:
    """A TCP port free on the loopback address now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``lostcities serve`` as a subprocess: on ``db_url``, the port ``port`` (a free one
    when 0), logging to ``log`` (a file in a temp folder when ``None``; appended to across
    restarts). ``env``: environment variables over :data:`DEFAULT_ENV`; ``limits``: keep
    the per-client limits (the server's defaults, or ``env``'s); ``nice``, ``cpus``: run it
    under ``nice -n`` and pinned by ``taskset -c`` (so that it need not share a core with
    the clients); ``cwd``: its working folder (``python -m`` puts it first on ``sys.path``,
    so a checkout there shadows a ``PYTHONPATH`` that names another one)."""

    def __init__(
        self,
        db_url: str,
        log: Path | None = None,
        env: dict[str, str] | None = None,
        *,
        port: int = 0,
        limits: bool = False,
        nice: int = 0,
        cpus: str | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.db_url = db_url
        self.port = port or free_port()
        self.log = (
            log if log is not None else Path(tempfile.mkdtemp(prefix="lc-server-")) / "server.log"
        )
        self.env = {**os.environ, **DEFAULT_ENV, **(env or {})}
        """The server's environment."""
        if limits and "LOSTCITIES_LIMITS" not in (env or {}):
            self.env.pop("LOSTCITIES_LIMITS", None)
        self.nice, self.cpus, self.cwd = nice, cpus, cwd
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://{HOST}:{self.port}"

    @property
    def ws_url(self) -> str:
        """The base URL of its WebSockets."""
        return f"ws://{HOST}:{self.port}"

    @property
    def pid(self) -> int:
        """The server's process id (it must be running)."""
        assert self.proc is not None, "the server is not running"
        return self.proc.pid

    def command(self) -> list[str]:
        """The command line that starts the server."""
        cmd = [
            sys.executable,
            "-m",
            "lostcities.cli",
            "serve",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--db",
            self.db_url,
        ]
        if self.nice:
            cmd = ["nice", "-n", str(self.nice), *cmd]
        if self.cpus:
            cmd = ["taskset", "-c", self.cpus, *cmd]
        return cmd

    def start(self, timeout: float = 60.0, port: int | None = None) -> Server:
        """Start the server (on ``port`` if given, else on its port) and wait until it
        answers ``/healthz``; returns it.

        :raises RuntimeError: if it exits first, or does not answer within ``timeout``
            seconds (it is then killed, never left running); the message ends with its log.
        """
        if port is not None:
            self.port = port
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                self.command(), stdout=out, stderr=subprocess.STDOUT, env=self.env, cwd=self.cwd
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.proc = None
                raise RuntimeError(f"server exited with {code}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:  # not listening yet (an error status is an HTTPError too)
                pass
            time.sleep(0.05)
        self.proc.kill()
        self.proc.wait(10)
        self.proc = None
        raise RuntimeError(f"server did not start within {timeout:g} s:\n{self.log_tail()}")

    def start_on(self, port: int) -> Server:
        """Start again on a given port (e.g. the same one after a crash)."""
        return self.start(port=port)

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the server's log."""
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def kill(self) -> set[int]:
        """``kill -9``: no shutdown code runs (as in a crash). Returns the processes it had
        (its bot workers; Linux only, else empty), to check that they die with it."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = None
            return set()
        kids = descendants(self.proc.pid)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.proc = None
        return kids

    def stop(self, wait: float = 15.0) -> None:
        """Stop it as Ctrl+C does (its shutdown code runs); killed if it takes over
        ``wait`` seconds."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(wait)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """One HTTP request with a JSON body; the status and the JSON answer (its text if
        it is not JSON)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                raw, status = r.read(), r.status
        except urllib.error.HTTPError as e:
            raw, status = e.read(), e.code
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode()


# -- /proc readings (Linux) --------------------------------------------------------------------


def new_account(store: Any, name: str) -> int:
    """A new active account ``name`` (no password, no passkey), written into ``store`` (a
    :class:`~lostcities.web.store.GameStore` on the server's database); returns its id."""
    from lostcities.web.accounts import username_key
    from lostcities.web.models.accounts import AccountRow

    def fn(s: Any) -> int:
        row = AccountRow(
            username=name, username_key=username_key(name), user_handle=f"h-{name}", status="active"
        )
        s.add(row)
        s.flush()
        return int(row.id)

    return int(store.write_sync(fn))


def signed_in(store: Any, name: str) -> dict[str, str]:
    """:func:`new_account` with a session: the headers of its browser (the session and
    CSRF cookies and the CSRF header)."""
    import secrets

    from lostcities.web.accounts import CSRF_COOKIE, SESSION_COOKIE, op_new_session

    token = secrets.token_urlsafe(16)
    store.write_sync(op_new_session(new_account(store, name), token))
    csrf = secrets.token_urlsafe(16)
    return {"Cookie": f"{SESSION_COOKIE}={token}; {CSRF_COOKIE}={csrf}", "X-CSRF-Token": csrf}


def descendants(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (empty where there is no ``/proc``)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return set()
    parents: dict[int, int] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            f = stat[stat.rindex(")") + 2 :].split()
            if f[0] != "Z":
                parents[int(entry.name)] = int(f[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in parents.items() if pp == p} - found
        found |= kids
        todo.extend(kids)
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid``, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(parts[11]) + int(parts[12])) / ticks
