"""Faults of the server process (issue 14): a kill -9 leaves no bot worker behind."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, pp in parents.items() if pp == p}
        todo.extend(kids - found)
        found |= kids
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def test_kill_9_of_the_server_takes_its_bot_workers_with_it(server_factory: Any) -> None:
    # issue 14, defect 3: the worker processes were re-parented to PID 1 and lived on
    # (190-260 MB each); they now die with the server, whichever way it goes.
    server = server_factory(LOSTCITIES_BOT_EXECUTOR="process", LOSTCITIES_BOT_WORKERS="2")
    assert server.proc is not None
    pid = server.proc.pid
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        workers = children(pid)
        time.sleep(0.2)
    assert len(workers) >= 2, workers  # the pool's workers (and any helper process)
    server.kill()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(w) for w in workers):
        time.sleep(0.1)
    left = [w for w in workers if alive(w)]
    for w in left:  # never leave them behind, even when the test fails
        os.kill(w, signal.SIGKILL)
    assert left == [], f"bot workers outlived the server: {left}"
