"""What ``lostcities connect`` tells its operator: one line per happening on stderr (a
game's start, each round, its result; challenges; reconnections), or with ``--log-json``
one JSON object per line on stdout, for a script or a test to wait on.

Nothing here ever sees the token.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from typing import Any, TextIO

__all__ = ["LEVELS", "Reporter"]

LEVELS = {"debug": 0, "info": 1, "warning": 2, "error": 3}
"""The levels of what is reported; ``--quiet`` shows only errors, ``--verbose`` also
debug (every move)."""


class Reporter:
    """Writes each report as a line (``text``) or a JSON object (``json_lines``).

    Args:
        level: the lowest level shown (``info`` by default).
        json_lines: one JSON object a line on ``out`` instead of text on ``err``.
    """

    def __init__(
        self,
        level: str = "info",
        *,
        json_lines: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.threshold = LEVELS[level]
        self.json_lines = json_lines
        self.out = out
        self.err = err
        self.history: list[dict[str, Any]] = []
        """Every report, shown or not (for the library's caller and for tests)."""

    def report(self, event: str, text: str, level: str = "info", **fields: Any) -> None:
        """Report ``event`` (``game``, ``challenge``, ``reconnect``, ...): ``text`` for a
        person, ``fields`` for a program."""
        record: dict[str, Any] = {"event": event, "level": level, **fields, "text": text}
        self.history.append(record)
        if LEVELS[level] < self.threshold:
            return
        try:
            if self.json_lines:
                stream = self.out or sys.stdout
                record = {"time": round(time.time(), 3), **record}
                stream.write(json.dumps(record, default=str) + "\n")
            else:
                stream = self.err or sys.stderr
                prefix = "" if level == "info" or level == "debug" else f"{level}: "
                stream.write(f"lostcities connect: {prefix}{text}\n")
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed terminal does not stop the games

    def game_line(self, game: Mapping[str, Any], status: str, level: str = "info") -> None:
        """The progress line of a game (``game``: what :class:`~lostcities.connect.game.
        GameRunner` knows of it): opponent, variant, round, score (ours first), result."""
        opponent = game.get("opponent") or "?"
        desc = [str(game.get("variant") or "?")]
        if game.get("rounds"):
            desc.append(f"{game['rounds']} round{'s' if game['rounds'] != 1 else ''}")
        desc.append("rated" if game.get("rated") else "casual")
        if game.get("clock") not in (None, "none"):
            desc.append(f"clock {game['clock']}")
        score = game.get("score") or (0, 0)
        text = (
            f"game {game.get('id')} vs {opponent} ({', '.join(desc)}): round"
            f" {game.get('round') or 1}, score {score[0]} : {score[1]}, {status}"
        )
        self.report(
            "game",
            text,
            level,
            game=game.get("id"),
            opponent=opponent,
            variant=game.get("variant"),
            rounds=game.get("rounds"),
            rated=bool(game.get("rated")),
            clock=game.get("clock"),
            round=game.get("round"),
            score=list(score),
            status=status,
        )
