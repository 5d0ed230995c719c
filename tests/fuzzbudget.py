"""How long a fuzz target runs (issue 14): a number of examples, or a wall time.

By default a target runs its Hypothesis test once (its ``max_examples``, from
``LOSTCITIES_FUZZ_EXAMPLES``). With ``LOSTCITIES_FUZZ_SECONDS=S`` it reruns the test, a fresh
random batch of ``max_examples`` each time, until ``S`` seconds of wall time are spent (a
batch is never cut, so a run ends up to one batch late). With ``LOSTCITIES_FUZZ_REPORT=FILE``
each target appends one JSON line to ``FILE``: its examples, batches, wall and CPU seconds (CPU
of the whole process, so a web target's in-process server counts). benchmarks/fuzz_long.py
runs every target this way.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

SECONDS = float(os.environ.get("LOSTCITIES_FUZZ_SECONDS", "0") or 0)
REPORT = os.environ.get("LOSTCITIES_FUZZ_REPORT", "")


def run(test: Any, name: str | None = None) -> None:
    """Run the Hypothesis test ``test`` (no arguments left) for this run's budget."""
    if not SECONDS and not REPORT:
        test()
        return
    count = [0]
    inner: Callable[..., Any] = test.hypothesis.inner_test

    def counting(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return inner(*args, **kwargs)

    test.hypothesis.inner_test = counting
    t0, c0 = time.monotonic(), time.process_time()
    batches = 0
    try:
        while True:
            test()
            batches += 1
            if time.monotonic() - t0 >= SECONDS:
                break
    finally:
        test.hypothesis.inner_test = inner
        line = {
            "target": name or test.__qualname__.split(".")[0],
            "examples": count[0],
            "batches": batches,
            "wall_s": round(time.monotonic() - t0, 1),
            "cpu_s": round(time.process_time() - c0, 1),
            "budget_s": SECONDS,
        }
        if REPORT:
            with open(REPORT, "a") as f:
                f.write(json.dumps(line) + "\n")


def timed(test: Any) -> Any:
    """Decorator for a module-level ``@given`` test: run it for this run's budget."""
    if not SECONDS and not REPORT:
        return test

    def wrapper() -> None:
        run(test, test.__name__)

    wrapper.__name__ = test.__name__
    wrapper.__qualname__ = test.__qualname__
    wrapper.__module__ = test.__module__
    wrapper.__doc__ = test.__doc__
    return wrapper
