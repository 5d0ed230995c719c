"""Where the arena's and self-play's units of work run: ``local`` worker processes (the
default, no extra packages) or a Ray cluster (``pip install 'lostcities[ray]'``).

Ray is the scheduler; this module only hands it units and takes the results back in
order. A unit is a pure function of its number and a shared, picklable value (a deal pair
of a match, a self-play round), so the results are the same bit for bit whichever
backend and however many workers play them, and the caller reduces them in unit order
(:func:`ray_ordered` yields them so). A worker that dies has its unit played again by
another worker (Ray's task retries); closing the iterator (an SPRT stop, Ctrl-C, an
error) cancels the units in flight.

The workers import ``lostcities`` from their own Python: every node of the cluster needs
the same version installed (checked, a unit of another version fails with
:class:`ClusterError`), and the programs of any ``cmd:`` bot at the same path.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

__all__ = [
    "BACKENDS",
    "Backend",
    "ClusterError",
    "LOCAL",
    "ray_ordered",
    "ray_session",
]

S = TypeVar("S")
U = TypeVar("U")
R = TypeVar("R")

BACKENDS = ("local", "ray")
"""The backends' names (``--backend``)."""

RETRIES = 3
"""How many times a unit whose worker died is played again before the run fails."""

CANCEL_GRACE = 5.0
"""Seconds units in flight get to stop by themselves (closing their bots) once cancelled."""


class ClusterError(ValueError):
    """The backend cannot be used: a bad ``--backend``/``--address``, Ray not installed,
    no cluster at the address, a worker with another lostcities, or a unit lost more
    often than :data:`RETRIES` allows."""


@dataclass(frozen=True)
class Backend:
    """Where units of work run.

    >>> Backend.parse("ray", "auto")
    Backend(kind='ray', address='auto')
    >>> Backend.parse("local", None) == LOCAL
    True
    >>> Backend.parse("local", "auto")
    Traceback (most recent call last):
    ...
    lostcities.arena.cluster.ClusterError: --address needs --backend ray (got --address 'auto')
    """

    kind: Literal["local", "ray"] = "local"
    """``local`` (worker processes on this machine) or ``ray``."""
    address: str | None = None
    """Ray only: the cluster's address (``host:port``), ``auto`` (the cluster started on
    this machine by ``ray start``, or ``RAY_ADDRESS``), or ``None``: a Ray instance of
    this machine's cores, started for the run."""

    @classmethod
    def parse(cls, kind: str | None, address: str | None = None) -> Backend:
        """The backend of the ``--backend`` and ``--address`` options.

        :raises ClusterError: for another backend, or an address without ``ray``.
        """
        kind = kind or "local"
        if kind not in BACKENDS:
            raise ClusterError(f"invalid backend: {kind!r} (local or ray)")
        if address is not None and not address.strip():
            raise ClusterError(f"invalid address: {address!r} (host:port or auto)")
        if kind == "local":
            if address is not None:
                raise ClusterError(f"--address needs --backend ray (got --address {address!r})")
            return LOCAL
        return cls("ray", address)


LOCAL = Backend()
"""The default backend: worker processes on this machine."""


def _ray() -> Any:
    if importlib.util.find_spec("ray") is None:
        raise ClusterError("--backend ray needs 'ray': pip install 'lostcities[ray]'")
    import ray

    return ray


@contextlib.contextmanager
def ray_session(backend: Backend, *, verbose: bool = False) -> Iterator[None]:
    """Connect to the backend's Ray cluster for the block (nothing for ``local``, nor when
    this process is connected already); disconnect at its end if it connected.

    :raises ClusterError: without Ray, or when no cluster answers at the address.
    """
    if backend.kind != "ray":
        yield
        return
    ray = _ray()
    if ray.is_initialized():
        yield
        return
    try:
        ray.init(
            address=backend.address,
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=verbose,  # workers' warnings about bots (as --verbose locally)
            configure_logging=True,
        )
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = backend.address or "this machine"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ClusterError(f"no Ray cluster at {where!r}: {first}") from None
    try:
        yield
    finally:
        ray.shutdown()


def cluster_cpus() -> int:
    """The CPUs of the connected Ray cluster (at least 1)."""
    ray = _ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _run_unit(fn: Callable[[S, U], R], shared: S, unit: U, version: str) -> R:
    """One unit on a worker (a Ray task): checks the worker's lostcities first."""
    from lostcities import __version__

    if version != __version__:
        raise ClusterError(
            f"a worker has lostcities {__version__}, this machine {version}: "
            "install the same version on every node"
        )
    return fn(shared, unit)


def ray_ordered(
    fn: Callable[[S, U], R],
    shared: S,
    units: Sequence[U],
    *,
    jobs: int | None = None,
    describe: Callable[[U], str] = str,
) -> Generator[R, None, None]:
    """Run ``fn(shared, unit)`` for every unit on the connected Ray cluster (see
    :func:`ray_session`) and yield the results in the order of ``units``.

    ``fn`` must be importable by name on the workers (a module-level function of
    lostcities); ``shared`` is sent to the cluster once. Each unit takes one CPU; at most
    ``jobs`` units are in flight (so ``jobs`` workers busy), or by default twice the
    cluster's CPUs (every CPU busy, the next units queued). Closing the generator
    cancels the units in flight: each gets :data:`CANCEL_GRACE` seconds to stop (a
    ``KeyboardInterrupt`` in the worker, so its bots are closed), then its worker is
    killed.

    :raises ClusterError: when a unit's worker died more than :data:`RETRIES` times, or
        the unit failed on the worker (the worker's error, in one line).
    """
    ray = _ray()
    from lostcities import __version__

    remote = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(_run_unit)
    window = jobs or 2 * cluster_cpus()
    shared_ref = ray.put(shared)
    pending: dict[int, Any] = {}
    next_submit = 0
    try:
        for i, unit in enumerate(units):
            while next_submit < len(units) and len(pending) < window:
                pending[next_submit] = remote.remote(fn, shared_ref, units[next_submit], __version__)
                next_submit += 1
            ref = pending.pop(i)
            try:
                yield ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                cause = e.cause if isinstance(e.cause, Exception) else e
                if isinstance(cause, ClusterError):
                    raise ClusterError(str(cause)) from None
                raise ClusterError(f"{describe(unit)} failed on the cluster: {_one_line(cause)}") from None
            except ray.exceptions.RayError as e:
                raise ClusterError(
                    f"{describe(unit)} was lost {RETRIES + 1} times on the cluster: {_one_line(e)}"
                ) from None
    finally:
        _cancel(ray, list(pending.values()))


def _one_line(e: BaseException) -> str:
    text = str(e).strip()
    line = text.splitlines()[-1] if text else ""
    return f"{type(e).__name__}: {line}" if line else type(e).__name__


def _cancel(ray: Any, refs: list[Any]) -> None:
    """Cancel units in flight: gently (their bots are closed), then by killing the worker."""
    if not refs:
        return
    for ref in refs:
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=False, recursive=True)
    with contextlib.suppress(Exception):
        _, refs = ray.wait(refs, num_returns=len(refs), timeout=CANCEL_GRACE)
    for ref in refs:
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=True)
