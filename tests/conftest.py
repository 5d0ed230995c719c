"""Shared test settings: any ERROR-level log record fails the test that emitted it."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

# helper programs run as subprocesses by the tests, not test modules
collect_ignore_glob = ["bots/misbehaving/*"]

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
