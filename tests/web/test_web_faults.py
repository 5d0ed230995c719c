"""Faults of the server process (issue 14): a kill -9 leaves no bot worker behind."""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Any

import pytest
from webharness import alive, descendants  # benchmarks/ (on sys.path: web_helpers.py)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def test_kill_9_of_the_server_takes_its_bot_workers_with_it(server_factory: Any) -> None:
    # issue 14, defect 3: the worker processes were re-parented to PID 1 and lived on
    # (190-260 MB each); they now die with the server, whichever way it goes.
    server = server_factory(LOSTCITIES_BOT_EXECUTOR="process", LOSTCITIES_BOT_WORKERS="2")
    assert server.proc is not None
    pid = server.proc.pid
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        workers = descendants(pid)
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
