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
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields

from starlette.requests import HTTPConnection

from lostcities.web.errors import RateLimitedError, retry_after_header

__all__ = [
    "CLOSE_RATE_LIMITED",
    "ClientLimits",
    "Limits",
    "RateLimiter",
    "client_key",
    "new_salt",
]

CLOSE_RATE_LIMITED = 4429
"""The WebSocket close code for a client over a limit (too many open sockets or messages);
an ``error`` message with code ``rate_limited`` comes just before it."""


def new_salt() -> str:
    """A random salt for :func:`client_key` (one per server start unless configured)."""
    return secrets.token_hex(16)


def client_key(request: HTTPConnection, salt: str) -> str:
    """The salted hash of the client's address (its only stored or kept form); a request
    or a WebSocket.

    >>> from starlette.requests import Request
    >>> r = Request({"type": "http", "client": ("203.0.113.7", 5000), "headers": []})
    >>> client_key(r, "s") == client_key(r, "s") != client_key(r, "t")
    True
    """
    host = request.client.host if request.client is not None else "unknown"
    return hashlib.sha256(f"{salt}:{host}".encode()).hexdigest()


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

    def wait(self, key: str) -> float:
        """The seconds until ``key`` may :meth:`hit` again (0.0: now); takes nothing."""
        with self._lock:
            tokens = self._tokens(key, self.clock())
            return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

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


Rate = tuple[int, float]
"""``(burst, per)``: ``burst`` at once, refilled over ``per`` seconds."""


@dataclass(frozen=True)
class Limits:
    """The per-client limits of the web app (``None``: no limit). A client is its address
    (:func:`client_key`); behind a reverse proxy, run uvicorn with ``--proxy-headers`` so the
    address is the real client's.

    >>> Limits.parse("create=5/60,sockets=3").create, Limits.parse("off").sockets
    ((5, 60.0), None)
    >>> Limits.parse("moves=fast")
    Traceback (most recent call last):
    ...
    ValueError: invalid LOSTCITIES_LIMITS: 'moves=fast' (expected off or name=burst/seconds, e.g. create=30/600; sockets=N)
    """

    create: Rate | None = (30, 600.0)
    """Games created (``POST /api/games``, rematches): 30 at once, then one per 20 s."""
    join: Rate | None = (30, 600.0)
    """Invites accepted (``POST /api/games/{id}/join``), right or wrong."""
    moves: Rate | None = (120, 60.0)
    """Moves and resignations, over HTTP and WebSocket, across all of a client's games."""
    messages: Rate | None = (600, 60.0)
    """WebSocket messages of any kind, across all of a client's sockets."""
    sockets: int | None = 32
    """WebSockets open at once."""
    bot: Rate | None = (300, 60.0)
    """Bot API requests (``/api/bot/``, with an API token), per token and, apart, per
    client: 300 at once, then 5 a second."""

    @classmethod
    def off(cls) -> Limits:
        """No limits at all (load benchmarks that play many clients from one address)."""
        return cls(None, None, None, None, None, None)

    @classmethod
    def parse(cls, text: str) -> Limits:
        """``off``, or ``name=burst/seconds`` items (``sockets=N``), comma-separated, over
        the defaults (``LOSTCITIES_LIMITS``).

        :raises ValueError: for anything else.
        """
        text = text.strip()
        if text == "off":
            return cls.off()
        values: dict[str, object] = {f.name: getattr(cls(), f.name) for f in fields(cls)}
        for item in filter(None, (x.strip() for x in text.split(","))):
            name, _, value = item.partition("=")
            try:
                if name not in values:
                    raise ValueError
                if value == "off":
                    values[name] = None
                elif name == "sockets":
                    values[name] = int(value)
                    if int(value) < 1:
                        raise ValueError
                else:
                    burst, _, per = value.partition("/")
                    rate = (int(burst), float(per))
                    if rate[0] < 1 or not rate[1] > 0:
                        raise ValueError
                    values[name] = rate
            except ValueError:
                raise ValueError(
                    f"invalid LOSTCITIES_LIMITS: {item!r} (expected off or name=burst/seconds, "
                    "e.g. create=30/600; sockets=N)"
                ) from None
        return cls(**values)  # type: ignore[arg-type]


class ClientLimits:
    """The app's limiters for :class:`Limits`, and the count of each client's open sockets."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

        def make(rate: Rate | None) -> RateLimiter | None:
            return RateLimiter(rate[0], rate[1]) if rate is not None else None

        self.create = make(limits.create)
        self.join = make(limits.join)
        self.moves = make(limits.moves)
        self.messages = make(limits.messages)
        self.bot = make(limits.bot)
        self._sockets: dict[str, int] = {}
        self._lock = threading.Lock()

    @staticmethod
    def check(limiter: RateLimiter | None, key: str, what: str) -> None:
        """``limiter.check`` where there is a limit.

        :raises RateLimitedError: over the limit.
        """
        if limiter is not None:
            limiter.check(key, what)

    @staticmethod
    def check_free(limiter: RateLimiter | None, key: str, what: str) -> None:
        """Like :meth:`check` but takes nothing: for a charge made only once the request
        succeeds (a move over the socket: refused ones cost no work worth limiting, and the
        ``messages`` limit bounds them).

        :raises RateLimitedError: when ``key`` has no token left.
        """
        if limiter is not None:
            wait = limiter.wait(key)
            if wait > 0:
                limiter.check(key, what)  # raises, with the limit's words

    @staticmethod
    def charge(limiter: RateLimiter | None, key: str) -> None:
        """Take one token, never refusing (after :meth:`check_free` allowed the request)."""
        if limiter is not None:
            limiter.hit(key)

    def open_socket(self, key: str) -> bool:
        """Count a new socket of ``key``; ``False`` (nothing counted) when it has too many."""
        with self._lock:
            n = self._sockets.get(key, 0)
            if self.limits.sockets is not None and n >= self.limits.sockets:
                return False
            self._sockets[key] = n + 1
            return True

    def close_socket(self, key: str) -> None:
        """A socket counted by :meth:`open_socket` closed."""
        with self._lock:
            n = self._sockets.get(key, 0) - 1
            if n > 0:
                self._sockets[key] = n
            else:
                self._sockets.pop(key, None)

    def open_sockets(self, key: str) -> int:
        """How many sockets ``key`` has open."""
        with self._lock:
            return self._sockets.get(key, 0)
