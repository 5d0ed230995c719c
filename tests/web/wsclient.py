"""A small synchronous WebSocket client for the web tests (the websockets library)."""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import connect


class Client:
    """One connection to ``/ws/games/{id}``, recording every message it receives."""

    def __init__(self, ws_url: str, game_id: str, token: str | None) -> None:
        self._cm = connect(f"{ws_url}/ws/games/{game_id}", open_timeout=10, max_size=2**22)
        self.ws = self._cm.__enter__()
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.state: dict[str, Any] = {}
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.next_id = 0
        self.wait_state()

    def recv(self, timeout: float = 15.0) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.raw.append(text)
        msg: dict[str, Any] = json.loads(text)
        self.messages.append(msg)
        if msg["type"] == "state":
            self.state = msg
        return msg

    def wait_state(self, pred: Any = None, timeout: float = 15.0) -> dict[str, Any]:
        """The next state message satisfying ``pred``."""
        while True:
            m = self.recv(timeout)
            if m["type"] == "state" and (pred is None or pred(m)):
                return m

    def settle(self, timeout: float = 15.0) -> None:
        """Wait until the server has finished handling what was sent so far (a ping's pong:
        a connection handles its messages in order). After the hello that means it has
        joined the game's chat: the hello's state is sent before the join, so a phrase said
        before the pong may arrive in the ``chat_log`` instead of as a ``chat`` message."""
        self.send({"type": "ping"})
        while self.recv(timeout)["type"] != "pong":
            pass

    def wait_error(self, timeout: float = 15.0) -> dict[str, Any]:
        while True:
            m = self.recv(timeout)
            if m["type"] == "error":
                return m

    def send_move(self, move: str, rnd: int | None = None, ply: int | None = None) -> int:
        self.next_id += 1
        s = self.state
        self.ws.send(
            json.dumps(
                {
                    "type": "move",
                    "move": move,
                    "round": s["round"] if rnd is None else rnd,
                    "ply": s["view"]["ply"] if ply is None else ply,
                    "id": self.next_id,
                }
            )
        )
        return self.next_id

    def move(self, move: str) -> dict[str, Any]:
        """Send a move and wait for its acknowledgement (a state with ``ack``)."""
        mid = self.send_move(move)
        while True:
            m = self.recv()
            if m["type"] == "error" and m.get("id") == mid:
                raise AssertionError(f"move {move} refused: {m['message']}")
            if m["type"] == "state" and m.get("ack") == mid:
                return m

    def send(self, obj: Any) -> None:
        self.ws.send(obj if isinstance(obj, str) else json.dumps(obj))

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def position_key(m: dict[str, Any]) -> tuple[int, int, bool]:
    """Where a state message is: (round, ply, match over)."""
    return (m["round"], m["view"]["ply"], m["match"]["over"])
