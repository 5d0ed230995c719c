"""The Lost Cities bot protocol (LCP): a line protocol over stdin/stdout, like UCI or GTP.

The spec is ``docs/protocol.md``. The package has three parts:

- :mod:`lostcities.protocol.wire`: the messages, how each is written and read, and the
  position lines (:func:`position_lines` / :class:`PositionReader`, a
  :class:`~lostcities.PlayerView` to lines and back). **A bot author reads this one.**
- :mod:`lostcities.protocol.engine`: the bot side, serving any player (an object with
  ``choose``, see :class:`lostcities.referee.Player`) on stdin/stdout (:func:`serve`,
  :func:`run_engine`; ``lostcities bot SPEC``).
- :mod:`lostcities.protocol.host`: the referee side, which drives a bot program: the
  asyncio core :class:`BotProtocol` over a :class:`Transport`
  (:class:`SubprocessTransport`, the scripted :class:`MockTransport`) and the blocking
  :class:`SimpleBot`, with time limits.

>>> from lostcities import Round
>>> view = Round.deal(seed=1).view(0)
>>> lines = position_lines(view)
>>> lines[:3]
['ply 0', 'deck 44', 'hand yx y4 y8 b5 b10 wx g6 r10']
>>> reader = PositionReader()
>>> reader.newgame("classic", 0)
>>> for line in lines:
...     reader.feed(line)
>>> reader.view() == view
True
"""

from __future__ import annotations

from lostcities.protocol.engine import run_engine, serve
from lostcities.protocol.host import (
    DEFAULT_GRACE,
    DEFAULT_MOVE_TIMEOUT,
    DEFAULT_START_TIMEOUT,
    BotProtocol,
    MockTransport,
    ProgramError,
    SimpleBot,
    SubprocessTransport,
    Transport,
)
from lostcities.protocol.wire import PositionError, PositionReader, position_lines

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_MOVE_TIMEOUT",
    "DEFAULT_START_TIMEOUT",
    "BotProtocol",
    "MockTransport",
    "PositionError",
    "PositionReader",
    "ProgramError",
    "SimpleBot",
    "SubprocessTransport",
    "Transport",
    "position_lines",
    "run_engine",
    "serve",
]
