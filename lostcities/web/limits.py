"""Per-client rate limits of the web app: one limiter, used by every route that needs one.

A :class:`RateLimiter` is a token bucket per key: ``burst`` requests at once, then one more
every ``per / burst`` seconds. Keys are what :func:`client_key` makes of the client's
address: a salted hash, so the address itself is never kept (not even in memory).

>>> t = [0.0]
>>> lim = RateLimiter(burst=2, per=60.0, clock=lambda: t[0])
>>> lim.hit("k"), lim.hit("k"), lim.hit("k")
(0.0, 0.0, 30.0)
>>> t[0] = 30.0
>>> lim.hit("k")
0.0
"""

from __future__ import annotations

import hashlib
import math
import secrets
import threading
import time
from collections.abc import Callable

from fastapi import Request

__all__ = ["RateLimitedError", "RateLimiter", "client_key", "new_salt", "retry_after_header"]


class RateLimitedError(Exception):
    """A client went over a rate limit; ``retry_after`` is the seconds it must wait."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def new_salt() -> str:
    """A random salt for :func:`client_key` (one per server start unless configured)."""
    return secrets.token_hex(16)


def client_key(request: Request, salt: str) -> str:
    """The salted hash of the client's address (its only stored or kept form).

    >>> from starlette.requests import Request
    >>> r = Request({"type": "http", "client": ("203.0.113.7", 5000), "headers": []})
    >>> client_key(r, "s") == client_key(r, "s") != client_key(r, "t")
    True
    """
    host = request.client.host if request.client is not None else "unknown"
    return hashlib.sha256(f"{salt}:{host}".encode()).hexdigest()


def retry_after_header(seconds: float) -> str:
    """The ``Retry-After`` value: whole seconds, rounded up, at least 1.

    >>> retry_after_header(0.2), retry_after_header(30.0)
    ('1', '30')
    """
    return str(max(1, math.ceil(seconds)))


class RateLimiter:
    """A token bucket per key: ``burst`` hits at once, refilled at ``burst / per`` a second.

    Thread-safe; memory is bounded by dropping keys whose bucket is full again.
    """

    def __init__(
        self,
        burst: int,
        per: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        if burst < 1 or per <= 0:
            raise ValueError(f"invalid rate limit: {burst} per {per} s")
        self.burst = burst
        self.per = per
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)
        self._lock = threading.Lock()

    @property
    def rate(self) -> float:
        """Tokens added per second."""
        return self.burst / self.per

    def _tokens(self, key: str, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - at) * self.rate)

    def hit(self, key: str) -> float:
        """Take one token for ``key``: 0.0 if allowed, else the seconds until one is free
        (nothing is taken then)."""
        with self._lock:
            now = self.clock()
            tokens = self._tokens(key, now)
            if tokens < 1.0:
                return (1.0 - tokens) / self.rate
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) > self.max_keys:
                self._prune(now)
            return 0.0

    def check(self, key: str, what: str = "requests") -> None:
        """:meth:`hit`, raising when over the limit.

        :raises RateLimitedError: with the seconds to wait.
        """
        wait = self.hit(key)
        if wait > 0:
            raise RateLimitedError(
                f"too many {what}: at most {self.burst} per {_duration(self.per)}; "
                f"try again in {retry_after_header(wait)} s",
                wait,
            )

    def _prune(self, now: float) -> None:
        full = [k for k in self._buckets if self._tokens(k, now) >= self.burst]
        for k in full:
            del self._buckets[k]


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        n = int(seconds // 3600)
        return "hour" if n == 1 else f"{n} hours"
    if seconds % 60 == 0:
        n = int(seconds // 60)
        return "minute" if n == 1 else f"{n} minutes"
    return f"{seconds:g} s"
