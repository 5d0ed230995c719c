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

Every public name of the three is importable from here (the wire format's examples are in
:mod:`lostcities.protocol.wire`):

>>> from lostcities.protocol import PositionReader, position_lines, run_engine
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
