"""The connections of a game: who is connected to it, at which seat, and sending them a
message (a dead connection is dropped)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["Conn", "Sender", "send"]


class Sender(Protocol):
    """What the referee needs of a connection: send one text message."""

    async def send_text(self, data: str) -> None: ...


@dataclass(eq=False)
class Conn:
    """A connected client of a game."""

    sender: Sender
    seat: int | None
    alive: bool = True
    chat: bool = False
    """Whether it gets new chat phrases (it has the chat so far:
    :meth:`ChatRoom.join <lostcities.web.chatroom.ChatRoom.join>`)."""


async def send(conns: list[Conn], c: Conn, text: str) -> None:
    """Send ``text`` to ``c``, one of ``conns``; a connection that fails is marked dead and
    dropped from ``conns``."""
    if not c.alive:
        return
    try:
        await c.sender.send_text(text)
    except Exception:
        c.alive = False
        if c in conns:
            conns.remove(c)
