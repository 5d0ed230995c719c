"""Several server processes behind one PostgreSQL database.

Each process keeps the games its clients use in memory. What keeps the copies in step is
PostgreSQL itself, no message bus of our own:

- **LISTEN/NOTIFY.** Every write of a game sends ``NOTIFY lostcities_games, '<id>'`` in
  its own transaction (:func:`lostcities.web.repositories.games.notify_change`), delivered at commit;
  each process listens on one connection and refreshes the game from the database if it
  holds it, then sends its clients their states. A move made on one process is seen at
  once by a player connected to another. A chat phrase announces itself as ``chat:<id>``
  (:data:`lostcities.web.repositories.games.CHAT_NOTICE`): the processes holding the game send their
  clients the phrases stored since the last they sent.
- **Exactly once.** A move's row has the primary key (game, round, ply): of two processes
  storing the same ply, one commits and the other's insert fails (its player is told the
  move is stale and gets the fresh state).
- **Bots run once.** A process runs a game's bot only while it holds the game's session
  advisory lock (``pg_try_advisory_lock``) on its own connection; a process that dies
  loses its connection and so its locks, and another process that holds the game takes
  the bot over on its next sweep (every :data:`SWEEP_SECONDS`).

With SQLite there is one process (``lostcities serve --workers`` above 1 is refused) and
:class:`SingleProcess` does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from lostcities.web.repositories.games import NOTIFY_CHANNEL

__all__ = ["SWEEP_SECONDS", "Peers", "PostgresPeers", "SingleProcess", "peers_for"]

log = logging.getLogger("lostcities.web")

SWEEP_SECONDS = 2.0
"""How often a process looks for games whose bot nobody runs (its process died)."""


class Peers:
    """What a game manager needs to share its games with other processes."""

    shared = False
    """Whether other processes may hold the same games."""

    async def start(self, on_change: Callable[[str], None]) -> None:
        """Call ``on_change(game_id)`` (in this event loop) for every committed change."""

    async def own_bots(self, game_id: str) -> bool:
        """Whether this process runs the game's bots (it does from now on, if so)."""
        return True

    async def release(self, game_id: str) -> None:
        """Let another process run the game's bots (the game left this process's memory)."""

    async def close(self) -> None:
        """Stop listening; release every lock."""


class SingleProcess(Peers):
    """One process (SQLite, or PostgreSQL with one server): every bot is this process's."""


def _lock_key(game_id: str) -> int:
    """The advisory lock's key of a game (a signed 64-bit number, stable everywhere)."""
    digest = hashlib.blake2b(f"lostcities:{game_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PostgresPeers(Peers):
    """LISTEN/NOTIFY for changes and session advisory locks for bots (module docs)."""

    shared = True

    def __init__(self, url: str) -> None:
        self.url = url
        self._stop = threading.Event()
        self._listener: threading.Thread | None = None
        self._locks: Any = None
        self._locks_guard = threading.Lock()
        self.owned: set[str] = set()
        """Games whose bots this process runs."""

    async def start(self, on_change: Callable[[str], None]) -> None:
        import psycopg

        loop = asyncio.get_running_loop()
        self._locks = await asyncio.to_thread(psycopg.connect, self.url, autocommit=True)
        ready = threading.Event()

        def listen() -> None:
            while not self._stop.is_set():
                try:
                    with psycopg.connect(self.url, autocommit=True) as conn:
                        conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                        ready.set()
                        loop.call_soon_threadsafe(on_change, "*")  # changes missed meanwhile
                        while not self._stop.is_set():
                            for n in conn.notifies(timeout=0.5):
                                loop.call_soon_threadsafe(on_change, n.payload)
                except Exception as e:  # the database went away: listen again
                    if self._stop.is_set():
                        return
                    log.warning("listening for game changes failed: %s; retrying", e)
                    self._stop.wait(1.0)

        self._listener = threading.Thread(target=listen, name="lostcities-listen", daemon=True)
        self._listener.start()
        await asyncio.to_thread(ready.wait, 10.0)

    def _lock(self, sql: str, game_id: str) -> bool:
        with self._locks_guard:
            row = self._locks.execute(sql, (_lock_key(game_id),)).fetchone()
            return bool(row[0])

    async def own_bots(self, game_id: str) -> bool:
        if game_id in self.owned:
            return True
        got = await asyncio.to_thread(self._lock, "SELECT pg_try_advisory_lock(%s)", game_id)
        if got:
            self.owned.add(game_id)
        return got

    async def release(self, game_id: str) -> None:
        if game_id in self.owned:
            self.owned.discard(game_id)
            await asyncio.to_thread(self._lock, "SELECT pg_advisory_unlock(%s)", game_id)

    async def close(self) -> None:
        self._stop.set()
        if self._listener is not None:
            await asyncio.to_thread(self._listener.join, 5.0)
        if self._locks is not None:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self._locks.close)  # releases every lock
        self.owned.clear()


def peers_for(db_url: str) -> Peers:
    """:class:`PostgresPeers` for a PostgreSQL URL (SQLAlchemy's form is accepted),
    :class:`SingleProcess` otherwise."""
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    if url.get_backend_name() != "postgresql":
        return SingleProcess()
    plain = url.set(drivername="postgresql").render_as_string(hide_password=False)
    return PostgresPeers(plain)
