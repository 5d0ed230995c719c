"""Settings and shared dependencies (the game manager) of the web app."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from fastapi import Request
from starlette.requests import HTTPConnection

from lostcities.bots import parse_spec
from lostcities.web.game_manager import GameManager
from lostcities.web.levels import LEVELS, Level
from lostcities.web.limits import ClientLimits, Limits, RateLimiter, client_key, new_salt
from lostcities.web.store import GameStore

__all__ = [
    "Settings",
    "comment_limiter",
    "get_limits",
    "get_manager",
    "get_settings",
    "get_store",
    "rate_limit",
]

_T = TypeVar("_T")


def _env_float(name: str, default: float | None) -> float | None:
    text = os.environ.get(name)
    if text is None or text == "":
        return default
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"invalid {name}: {text!r} (expected a number)") from None


def _env_seconds(name: str, most: float) -> float | None:
    """The env variable ``name``, a number of seconds in (0, ``most``], or ``None`` if unset."""
    seconds = _env_float(name, None)
    if seconds is not None and not 0 < seconds <= most:
        raise ValueError(f"invalid {name}: {seconds:g} (expected 0 < seconds <= {most:g})")
    return seconds


@dataclass
class Settings:
    """Everything the app can be configured with (``lostcities serve`` flags and env)."""

    db_url: str = "sqlite:///lostcities.db"
    """Database URL: ``sqlite:///FILE`` or ``postgresql://...``."""
    bot_executor: str = "process"
    """``process`` (default: searches never hold the server's GIL) or ``thread``."""
    bot_workers: int = field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)))
    """Bot worker processes/threads."""
    bot_time_limit: float | None = None
    """Passed to ``Bot.choose`` (the level's spec sets its own search time)."""
    bot_min_delay: float = 0.6
    """The computer waits at least this long before moving, so people can follow."""
    max_message_bytes: int = 4096
    """Larger WebSocket messages are refused with an error."""
    unload_after: float = 900.0
    """Seconds after which a game nobody watches is dropped from memory (reloaded on use)."""
    resume_on_start: bool = True
    """Load unfinished games with a bot on startup so a bot to move carries on."""
    levels: dict[str, Level] = field(default_factory=lambda: dict(LEVELS))
    """The computer levels (bot spec per level)."""
    prepare_search: bool = True
    """Compile the search (or load it from numba's cache) at start-up, before any move."""
    comment_burst: int = 5
    """Comments one client may post at once (then one per ``comment_per / comment_burst`` s)."""
    comment_per: float = 600.0
    """The window of :attr:`comment_burst`, in seconds."""
    client_salt: str = field(default_factory=new_salt)
    """Salt of the hashed client addresses (``LOSTCITIES_CLIENT_SALT``; random per start)."""
    limits: Limits = field(default_factory=Limits)
    """Per-client limits on games, joins, moves, WebSocket messages and sockets
    (``LOSTCITIES_LIMITS``: ``off`` or ``create=30/600,sockets=32``...; docs/web.md)."""
    abandon_after: float = 120.0
    """Seconds a player must have been away from a game before the opponent may claim the
    win or a draw (``LOSTCITIES_ABANDON_SECONDS``; :mod:`lostcities.web.abandon`)."""
    bot_keepalive: float = 7.0
    """Seconds between two keep-alive lines of a quiet bot API stream
    (``LOSTCITIES_BOT_KEEPALIVE``; docs/bot-api.md: 7)."""
    test_deal_seed: int | None = None
    """For test servers only (``LOSTCITIES_TEST_DEAL_SEED``): the games this process
    creates are dealt from seeds ``test_deal_seed``, ``test_deal_seed + 1``..., in order,
    so a test plays known deals and the bots (seeded by the deal) the same moves every run.
    No request can set a seed; a server with this set logs a warning at start, since its
    deals can be foreseen."""

    @classmethod
    def from_env(cls, db_url: str) -> Settings:
        """Settings with overrides from ``LOSTCITIES_BOT_EXECUTOR``, ``LOSTCITIES_BOT_WORKERS``,
        ``LOSTCITIES_BOT_DELAY``, ``LOSTCITIES_LEVEL_<EASY|MEDIUM|HARD|EXPERT>`` (a bot spec),
        ``LOSTCITIES_LIMITS``, ``LOSTCITIES_CLIENT_SALT``, ``LOSTCITIES_ABANDON_SECONDS``,
        ``LOSTCITIES_BOT_KEEPALIVE`` and ``LOSTCITIES_TEST_DEAL_SEED``.

        :raises ValueError: for a bad value.
        """
        s = cls(db_url=db_url)
        limits = os.environ.get("LOSTCITIES_LIMITS")
        if limits:
            s.limits = Limits.parse(limits)
        salt = os.environ.get("LOSTCITIES_CLIENT_SALT")
        if salt:
            s.client_salt = salt
        ex = os.environ.get("LOSTCITIES_BOT_EXECUTOR")
        if ex:
            if ex not in ("process", "thread"):
                raise ValueError(f"invalid LOSTCITIES_BOT_EXECUTOR: {ex!r} (process or thread)")
            s.bot_executor = ex
        workers = _env_float("LOSTCITIES_BOT_WORKERS", None)
        if workers is not None:
            s.bot_workers = max(1, int(workers))
        delay = _env_float("LOSTCITIES_BOT_DELAY", None)
        if delay is not None:
            s.bot_min_delay = max(0.0, delay)
        abandon = _env_seconds("LOSTCITIES_ABANDON_SECONDS", 86400)
        if abandon is not None:
            s.abandon_after = abandon
        keepalive = _env_seconds("LOSTCITIES_BOT_KEEPALIVE", 3600)
        if keepalive is not None:
            s.bot_keepalive = keepalive
        deal = os.environ.get("LOSTCITIES_TEST_DEAL_SEED")
        if deal:
            try:
                s.test_deal_seed = int(deal)
            except ValueError:
                raise ValueError(
                    f"invalid LOSTCITIES_TEST_DEAL_SEED: {deal!r} (expected an integer)"
                ) from None
        for name, level in list(s.levels.items()):
            spec = os.environ.get(f"LOSTCITIES_LEVEL_{name.upper()}")
            if spec:
                try:
                    parse_spec(spec)
                except ValueError as e:
                    raise ValueError(f"invalid LOSTCITIES_LEVEL_{name.upper()}: {e}") from None
                s.levels[name] = Level(spec, level.label, about=f"the bot {spec.strip()}")
        return s


def _state(conn: HTTPConnection, name: str, kind: type[_T]) -> _T:
    """The app's ``name``, a ``kind`` its start-up put on ``app.state``."""
    value: _T = getattr(conn.app.state, name)
    return value


def get_settings(request: Request) -> Settings:
    """The app's settings (override with ``app.dependency_overrides`` in tests)."""
    return _state(request, "settings", Settings)


def get_manager(conn: HTTPConnection) -> GameManager:
    """The game manager of the app (of a request or a WebSocket)."""
    return _state(conn, "manager", GameManager)


def get_store(request: Request) -> GameStore:
    """The app's database."""
    return _state(request, "store", GameStore)


def comment_limiter(request: Request) -> RateLimiter:
    """The per-client limiter of posted comments (one per app, made on first use)."""
    lim: RateLimiter | None = getattr(request.app.state, "comment_limiter", None)
    if lim is None:
        settings = get_settings(request)
        lim = RateLimiter(settings.comment_burst, settings.comment_per)
        request.app.state.comment_limiter = lim
    return lim


def get_limits(conn: HTTPConnection) -> ClientLimits:
    """The app's per-client limiters."""
    return _state(conn, "limits", ClientLimits)


_WHAT = {"create": "new games", "join": "joins", "moves": "moves"}


def rate_limit(kind: str) -> Callable[[Request], None]:
    """A route dependency charging the client one ``kind`` (``create``, ``join``,
    ``moves``) of its :class:`~lostcities.web.limits.Limits`.

    :raises RateLimitedError: over the limit (answered 429 with ``Retry-After``).
    """

    def charge(request: Request) -> None:
        limits = get_limits(request)
        key = client_key(request, get_settings(request).client_salt)
        ClientLimits.check(getattr(limits, kind), key, _WHAT[kind])

    return charge
