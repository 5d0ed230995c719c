"""A game's quick chat: phrases of a fixed list (never free text), stored with the game and
sent to every connection that has the chat so far, once each and in order, whichever server
process they were said on."""

from __future__ import annotations

import asyncio
import json
from typing import Protocol

from lostcities.web import schemas
from lostcities.web.conns import Conn, send
from lostcities.web.errors import ChatFullError
from lostcities.web.repositories.games import op_add_chat
from lostcities.web.store import GameStore

__all__ = ["CHAT_IDS", "CHAT_KEPT", "CHAT_SHOWN", "ChatHost", "ChatRoom"]

CHAT_KEPT = 200
"""Quick-chat phrases a game keeps (stored with it); then its chat is full."""
CHAT_SHOWN = 50
"""The last phrases a connection gets again when it says hello (a reload)."""
CHAT_IDS = frozenset(schemas.CHAT_PHRASES)
"""The phrases' ids (:data:`~lostcities.web.schemas.CHAT_PHRASES`)."""


class ChatHost(Protocol):
    """What a chat room needs of the server process: the store it writes and reads."""

    @property
    def store(self) -> GameStore: ...


class ChatRoom:
    """The quick chat of the game ``game_id``, for the connections ``conns`` (the game's
    list, shared: a connection that joins it is in the room)."""

    def __init__(self, game_id: str, conns: list[Conn], host: ChatHost) -> None:
        self.game_id = game_id
        self.conns = conns
        self.host = host
        self.count: int | None = None
        """Chat phrases stored for this game (counted on the first one said here)."""
        self.pending = 0
        """Chat phrases of this process being stored."""
        self.seen = 0
        """The number of the last stored phrase sent to this process's connections."""
        self.lock = asyncio.Lock()

    async def say(self, seat: int, phrase: str) -> None:
        """``seat`` says a quick-chat phrase (an id of :data:`schemas.CHAT_PHRASES`, never
        free text): stored with the game, then sent to every connection (:meth:`pull`;
        those on other server processes get it from theirs).

        :raises ChatFullError: once the game keeps :data:`CHAT_KEPT` phrases.
        """
        if self.count is None:
            async with self.lock:
                await self._catch_up()
        assert self.count is not None
        if self.count + self.pending >= CHAT_KEPT:
            raise ChatFullError(f"this game's chat is full ({CHAT_KEPT} messages)")
        self.pending += 1
        store = self.host.store
        try:
            await store.write(op_add_chat(self.game_id, seat, phrase))
        except BaseException:
            self.pending -= 1
            raise
        async with self.lock:
            self.pending -= 1
            await self._send(await store.chat_after(self.game_id, self.seen))

    async def _send(self, said: list[tuple[int, int, str]]) -> None:
        # (the caller holds the lock) phrases stored after ``seen``, to every connection
        # that has the chat so far
        for number, seat, phrase in said:
            self.seen = max(self.seen, number)
            if phrase in CHAT_IDS:
                text = json.dumps({"type": "chat", "seat": seat, "phrase": phrase})
                for c in list(self.conns):
                    if c.chat:
                        await send(self.conns, c, text)
        if self.count is not None:
            self.count += len(said)

    async def _catch_up(self) -> list[tuple[int, int, str]]:
        # (the caller holds the lock) read the whole chat: send what is new, count it
        said = await self.host.store.chat_after(self.game_id, 0)
        self.count = None
        await self._send([x for x in said if x[0] > self.seen])
        self.count = len(said)
        return said

    async def pull(self) -> None:
        """Send every connection, once and in order, the phrases stored since the last one
        sent here (said on this process, or on another: its notification,
        :data:`~lostcities.web.repositories.games.CHAT_NOTICE`)."""
        async with self.lock:
            if any(c.chat for c in self.conns):  # (else a hello reads the chat anyway)
                await self._send(await self.host.store.chat_after(self.game_id, self.seen))

    async def join(self, conn: Conn) -> None:
        """``conn`` said hello: send it the ``chat_log`` (the last :data:`CHAT_SHOWN`
        phrases, a reload), then every new phrase (:meth:`pull`), none twice."""
        async with self.lock:
            said = await self._catch_up()
            shown = [{"seat": s, "phrase": p} for _, s, p in said if p in CHAT_IDS]
            if shown:
                msg = {"type": "chat_log", "messages": shown[-CHAT_SHOWN:]}
                await send(self.conns, conn, json.dumps(msg))
            conn.chat = True
