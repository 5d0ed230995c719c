"""The game record of a terminal match: :mod:`lostcities.record`'s format, with every undo
kept as a ``{undo MOVE}`` comment where the undone move was made (``{take back MOVE and
REPLY}`` for a move taken back with the bot's reply), and an ``Assisted`` tag when the
person asked for hints or took moves back.

>>> s = Session(rounds=1, seed=2, opponent="random")
>>> r = s.start_round()
>>> "R1:" in write(build_record(s))
True
"""

from __future__ import annotations

from lostcities.record import GameRecord
from lostcities.tui.session import Session

__all__ = ["build_record", "write"]


def build_record(session: Session) -> GameRecord:
    """The record of the session's match so far (finished or not), undos included."""
    tags = {"Event": "Hot-seat game" if session.hotseat else "Terminal game"}
    if not session.hotseat:
        tags["Opponent"] = session.opponent
    if session.assisted:
        tags["Assisted"] = session.assistance()
    rec = GameRecord.from_match(session.match, players=session.names, **tags)
    for u in session.undos:
        text = f"undo {u.move}" if u.reply is None else f"take back {u.move} and {u.reply}"
        rec.rounds[u.round_index].comments.append((u.ply, text))
    return rec


def write(record: GameRecord) -> str:
    """The record as text."""
    return str(record)
