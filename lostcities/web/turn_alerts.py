"""Pushed turn alerts of "my games": a server-sent event stream per ``/my-games`` page
that says which of its games changed, as soon as the change is committed, on whichever
server process it was made (no polling).

A stream watches the games its page names (the ids a browser remembers; ids are not
secrets, a seat token never travels here) and, for a signed-in player, every game of the
account, a new one included. The changes come from the game manager's hook
(:attr:`GameManager.on_game_change <lostcities.web.game_manager.GameManager.on_game_change>`):
on PostgreSQL the ``lostcities_games`` notification every process receives for every
committed write (the one the game copies already follow), on SQLite (one process) each
change made here. Changes are gathered for one turn of the event loop, and each stream
that watches one of them gets one event naming its changed games; the page then reads
``POST /api/my-games`` again (the summaries say whose turn it is). A game this process
holds in memory is brought up to the database first, so that the read sees the change.

A game id the streams here do not know yet is looked up in the database (its accounts)
only while a signed-in player's stream is open on this process, for all such ids of a
turn at once; one that no stream's account holds is not looked up again for
:data:`UNWATCHED_SECONDS` (a busy server's other games cost one query each that long).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Iterable

from lostcities.web.errors import BadGameIdsError
from lostcities.web.game_manager import GameManager
from lostcities.web.profiles import my_games_sync
from lostcities.web.repositories.games import accounts_of
from lostcities.web.store import GameStore

__all__ = ["HEARTBEAT", "MAX_GAMES", "TurnHub", "parse_game_ids"]

log = logging.getLogger("lostcities.web")

HEARTBEAT = 15.0
"""Seconds without a change after which a stream sends a comment (proxies keep it open)."""
MAX_GAMES = 200
"""Game ids one stream may name (as many as a browser remembers)."""
UNWATCHED_SECONDS = 10.0
"""How long a game found to be no stream's here is not looked up again."""
RETRY_MS = 2000
"""The reconnection delay the stream proposes (the page backs off further itself)."""


_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def parse_game_ids(text: str) -> list[str]:
    """The game ids of a stream's ``games`` parameter (comma-separated).

    >>> parse_game_ids("abc,d-e_f,,abc")
    ['abc', 'd-e_f']
    >>> parse_game_ids("a b")
    Traceback (most recent call last):
    ...
    lostcities.web.errors.BadGameIdsError: invalid game id 'a b' (letters, digits, - and _; at most 32)

    :raises BadGameIdsError: for a malformed id or more than :data:`MAX_GAMES`.
    """
    out: list[str] = []
    for part in text.split(","):
        if not part:
            continue
        if not _ID.fullmatch(part):
            raise BadGameIdsError(
                f"invalid game id {part[:40]!r} (letters, digits, - and _; at most 32)"
            )
        if part not in out:
            out.append(part)
    if len(out) > MAX_GAMES:
        raise BadGameIdsError(f"at most {MAX_GAMES} games per stream")
    return out


def accounts_of_sync(
    store: GameStore, game_ids: list[str]
) -> list[tuple[str, int | None, int | None]]:
    """Each game's id and the accounts of its two seats (unknown ids left out)."""
    return accounts_of(store.engine, game_ids)


class _Watch:
    """One ``/my-games`` page: its games, its account, its changes not yet sent."""

    def __init__(self, account_id: int | None, games: Iterable[str]) -> None:
        self.account_id = account_id
        self.games: set[str] = set(games)
        self.changed: set[str] = set()
        self.ready = asyncio.Event()

    def tell(self, game_id: str) -> None:
        self.changed.add(game_id)
        self.ready.set()


class TurnHub:
    """One process's ``/my-games`` streams and the changes they are told (module docs)."""

    def __init__(self, mgr: GameManager) -> None:
        self.mgr = mgr
        self._by_game: dict[str, set[_Watch]] = {}
        self._by_account: dict[int, set[_Watch]] = {}
        self._pending: set[str] = set()
        self._flushing: asyncio.Task[None] | None = None
        self._unwatched: dict[str, float] = {}
        """Games looked up and found to be no stream's account's: when (monotonic)."""
        self.events_sent = 0
        """Change events sent to streams (tests, benchmarks)."""
        mgr.on_game_change.append(self.changed)

    @property
    def streams(self) -> int:
        """How many streams are open here."""
        return len({w for ws in self._by_game.values() for w in ws} | self._accounts())

    def _accounts(self) -> set[_Watch]:
        return {w for ws in self._by_account.values() for w in ws}

    # -- changes ----------------------------------------------------------------------------

    def changed(self, game_id: str) -> None:
        """A committed change of ``game_id`` (``"*"``: any game may have changed, the
        listener having reconnected): the streams watching it are told, once this turn of
        the event loop has gathered every change (:meth:`flush`)."""
        if not self._by_game and not self._by_account:
            return  # (no stream here: nothing to do, on every move of every game)
        self._pending.add(game_id)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(0)  # the other changes of this turn
        try:
            await self.flush()
        except Exception as e:  # a failed look-up must not stop later alerts
            log.warning("my-games alerts: %s", e)

    async def flush(self) -> None:
        """Tell each stream which of its games changed among those gathered."""
        while self._pending:
            ids, self._pending = self._pending, set()
            if "*" in ids:
                every = self._accounts() | {w for ws in self._by_game.values() for w in ws}
                for w in every:
                    w.tell("*")
                continue
            now = time.monotonic()
            if len(self._unwatched) > 10_000:
                self._unwatched = {
                    g: t for g, t in self._unwatched.items() if now - t < UNWATCHED_SECONDS
                }
            unknown = [
                g
                for g in ids
                if g not in self._by_game
                and now - self._unwatched.get(g, -UNWATCHED_SECONDS) >= UNWATCHED_SECONDS
            ]
            if unknown and self._by_account:
                found = await asyncio.to_thread(accounts_of_sync, self.mgr.store, unknown)
                for gid, *seats in found:
                    for account_id in seats:
                        for w in self._by_account.get(account_id or -1, ()):
                            self._watch(w, gid)
                for gid in unknown:
                    if gid not in self._by_game:
                        self._unwatched[gid] = now
            hit = [g for g in ids if g in self._by_game]
            for gid in hit:  # a copy in memory here: up to the database before the page reads
                g = self.mgr.games.get(gid)
                if g is not None and self.mgr.peers.shared:
                    await g.sync()
            for gid in hit:
                for w in self._by_game.get(gid, ()):
                    w.tell(gid)

    def _watch(self, w: _Watch, game_id: str) -> None:
        w.games.add(game_id)
        self._by_game.setdefault(game_id, set()).add(w)

    # -- streams ----------------------------------------------------------------------------

    async def events(self, account_id: int | None, game_ids: list[str]) -> AsyncIterator[bytes]:
        """The server-sent events of one ``/my-games`` page: ``{"type": "hello"}`` once
        watching (the page reads its games then: changes before it are in that read),
        then ``{"type": "changed", "games": [ids]}`` for each change of its games (``"*"``:
        any may have changed), and a comment after :data:`HEARTBEAT` quiet seconds."""
        games = set(game_ids)
        if account_id is not None:
            games |= set(await asyncio.to_thread(my_games_sync, self.mgr.store, account_id))
        w = _Watch(account_id, ())
        for gid in games:
            self._watch(w, gid)
        if account_id is not None:
            self._by_account.setdefault(account_id, set()).add(w)
            self._unwatched.clear()  # (a game of this account may be among them)
        try:
            yield f"retry: {RETRY_MS}\ndata: {json.dumps({'type': 'hello'})}\n\n".encode()
            while True:
                try:
                    await asyncio.wait_for(w.ready.wait(), HEARTBEAT)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                changed, w.changed = sorted(w.changed), set()
                w.ready.clear()
                self.events_sent += 1
                msg = {"type": "changed", "games": changed}
                yield f"data: {json.dumps(msg)}\n\n".encode()
        finally:
            self._forget(w)

    def _forget(self, w: _Watch) -> None:
        for gid in w.games:
            ws = self._by_game.get(gid)
            if ws is not None:
                ws.discard(w)
                if not ws:
                    del self._by_game[gid]
        if w.account_id is not None:
            ws = self._by_account.get(w.account_id)
            if ws is not None:
                ws.discard(w)
                if not ws:
                    del self._by_account[w.account_id]
