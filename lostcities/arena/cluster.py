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

A cluster on this machine's loopback (``--address 127.0.0.1:PORT``, ``localhost:PORT``,
``auto`` when that finds one) and a Ray started for the run stay on loopback: Ray by
itself swaps a loopback address for the machine's network address (so that other nodes
could join), which dials an address a head bound to 127.0.0.1 does not answer and sends
the run's traffic over the interface. :func:`ray_session` turns that off for the session
(:data:`LOOPBACK_VARIABLE`), as Ray does on its own on macOS and Windows.
"""

from __future__ import annotations

import contextlib
import importlib.util
import ipaddress
import logging
import os
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
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

LOOPBACK_VARIABLE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch between a single-machine Ray on loopback (``0``) and one whose node
address is the machine's network address (``1``, the default on Linux). Set to ``0`` for a
session on a loopback cluster, in this process and the Ray processes it starts; start a
head meant to stay on loopback with it too (docs/scaling.md)."""


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


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 in brackets or not) is this machine's
    loopback: ``localhost``, 127.0.0.0/8 or ``::1``.

    >>> [is_loopback_host(h) for h in ("127.0.0.1", "127.3.4.5", "localhost", "[::1]")]
    [True, True, True, True]
    >>> [is_loopback_host(h) for h in ("192.0.2.7", "head.example", "0.0.0.0", "")]
    [False, False, False, False]
    """
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _current_cluster() -> str | None:
    """The address ``auto`` means: ``RAY_ADDRESS``, else the cluster ``ray start`` last
    started on this machine (Ray's ``ray_current_cluster`` file), else ``None``."""
    if os.environ.get("RAY_ADDRESS"):
        return os.environ["RAY_ADDRESS"]
    try:
        return Path("/tmp/ray/ray_current_cluster").read_text().strip() or None
    except OSError:
        return None


def stays_on_loopback(backend: Backend) -> bool:
    """Whether a Ray session of ``backend`` runs on this machine's loopback: a Ray started
    for the run, or a cluster whose address is a loopback one.

    >>> stays_on_loopback(Backend("ray", "127.0.0.1:6379")), stays_on_loopback(Backend("ray"))
    (True, True)
    >>> stays_on_loopback(Backend("ray", "10.1.2.3:6379"))
    False
    """
    address = _current_cluster() if backend.address == "auto" else backend.address
    if address is None:
        return backend.address is None  # "auto" with no cluster found: Ray decides
    host = address.split("://")[-1].rpartition(":")[0] or address
    return is_loopback_host(host)


@contextlib.contextmanager
def _loopback_ray(enabled: bool) -> Iterator[None]:
    """Keep Ray's node address on loopback for the block (see :data:`LOOPBACK_VARIABLE`):
    the variable for the processes Ray starts, and Ray's own reading of it if Ray was
    imported before it was set; both restored after."""
    if not enabled:
        yield
        return
    before = os.environ.get(LOOPBACK_VARIABLE)
    os.environ[LOOPBACK_VARIABLE] = "0"
    constants = sys.modules.get("ray._private.ray_constants")
    read = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if constants is not None and read is not None:
        setattr(constants, "ENABLE_RAY_CLUSTER", False)  # noqa: B010 (Ray's, read at import)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(LOOPBACK_VARIABLE, None)
        else:
            os.environ[LOOPBACK_VARIABLE] = before
        if constants is not None and read is not None:
            setattr(constants, "ENABLE_RAY_CLUSTER", read)  # noqa: B010


@contextlib.contextmanager
def ray_session(backend: Backend, *, verbose: bool = False) -> Iterator[None]:
    """Connect to the backend's Ray cluster for the block (nothing for ``local``, nor when
    this process is connected already); disconnect at its end if it connected. A loopback
    cluster, or a Ray started for the run, is used over loopback only
    (:func:`stays_on_loopback`).

    :raises ClusterError: without Ray, or when no cluster answers at the address.
    """
    if backend.kind != "ray":
        yield
        return
    loopback = stays_on_loopback(backend)
    with _loopback_ray(loopback):
        ray = _ray()
        if ray.is_initialized():
            yield
            return
        with _connected(ray, backend, verbose):
            yield


@contextlib.contextmanager
def _connected(ray: Any, backend: Backend, verbose: bool) -> Iterator[None]:
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
                pending[next_submit] = remote.remote(
                    fn, shared_ref, units[next_submit], __version__
                )
                next_submit += 1
            ref = pending.pop(i)
            try:
                yield ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                cause = e.cause if isinstance(e.cause, Exception) else e
                if isinstance(cause, ClusterError):
                    raise ClusterError(str(cause)) from None
                raise ClusterError(
                    f"{describe(unit)} failed on the cluster: {_one_line(cause)}"
                ) from None
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
