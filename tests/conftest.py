"""Shared test settings: any ERROR-level log record fails the test that emitted it."""

from __future__ import annotations

import logging
import os
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

# Hypothesis profiles (HYPOTHESIS_PROFILE picks one):
# - "dev", the default: derandomized, so a plain ``pytest`` tests the same examples every run
#   and a failure seen once is seen again (until the test or Hypothesis changes);
# - "ci", what scripts/test.sh runs: fresh examples every run from one seed, which the script
#   chooses and prints and pytest's header repeats (``--hypothesis-seed=N`` reruns them), and
#   each failure printed with its ``@reproduce_failure`` blob;
# - "thorough": ten times the examples of the tests that do not set their own count.
# A test's own ``@settings(max_examples=...)`` is its budget under every profile; the fuzz
# targets take theirs from LOSTCITIES_FUZZ_EXAMPLES (tests/test_fuzz.py).
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", settings.get_profile("ci"), derandomize=True, print_blob=False)
settings.register_profile("thorough", settings.get_profile("ci"), max_examples=600)
# a fuzz run for a wall time (LOSTCITIES_FUZZ_SECONDS, tests/fuzzbudget.py) reruns each target
# in batches that must differ: it defaults to "ci"
_DEFAULT_PROFILE = "ci" if os.environ.get("LOSTCITIES_FUZZ_SECONDS") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _DEFAULT_PROFILE))


def pytest_report_header(config: pytest.Config) -> str:
    """Say which Hypothesis profile runs and from which seed (rerun: --hypothesis-seed=N)."""
    seed = config.getoption("hypothesis_seed", None)
    current = settings.get_current_profile_name()
    if settings.default.derandomize:
        how = "derandomized (the same examples every run)"
    elif seed is not None:
        how = f"seed {seed} (rerun with --hypothesis-seed={seed})"
    else:
        how = "a fresh seed per test (pass --hypothesis-seed=N to fix one)"
    return f"hypothesis: profile {current!r}, {how}"


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
