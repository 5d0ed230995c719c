"""Shared test settings: any ERROR-level log record fails the test that emitted it."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

collect_ignore_glob = [
    # helper programs run as subprocesses by the tests, not test modules
    "bots/misbehaving/*",
    # the test directories' conftest.py files: fixtures, no doctests. pytest loads each as a
    # plugin under the bare name ``conftest`` (tests/web, tests/envs, tests/tui are not
    # packages); collecting one again for --doctest-modules re-imports it by that name, which
    # is another directory's conftest when one command line names two of them (``pytest
    # tests/web tests/envs``: "import file mismatch")
    "*/conftest.py",
]

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci")


class _RaiseOnError(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def _no_error_logs(request: pytest.FixtureRequest) -> Iterator[None]:
    handler = _RaiseOnError()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
    if handler.records and not request.node.get_closest_marker("allow_error_logs"):
        msgs = "; ".join(r.getMessage() for r in handler.records[:3])
        pytest.fail(f"ERROR-level log during the test: {msgs}")
