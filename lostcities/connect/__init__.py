"""``lostcities connect``: any engine (a built-in bot or a ``cmd:`` program speaking the
bot protocol) online as a bot account, through the server's bot API (docs/bot-api.md).

- :mod:`lostcities.connect.client`: the bot API over httpx (the NDJSON streams, the
  requests, :class:`ApiError` with the server's codes);
- :mod:`lostcities.connect.policy`: which challenges are accepted, and the decline reasons;
- :mod:`lostcities.connect.game`: one game followed and played (:class:`GameRunner`), the
  back-off, the time given to a move;
- :mod:`lostcities.connect.connector`: the account's event stream and its games
  (:class:`Connector`, asyncio) and the blocking :func:`run`;
- :mod:`lostcities.connect.progress`: the progress lines (or JSON lines).

It is a client of the web API and imports nothing of :mod:`lostcities.web`. It needs
httpx: ``pip install 'lostcities[connect]'``.
"""

from __future__ import annotations

from lostcities.connect.client import (
    ApiError,
    BotApiClient,
    ConnectionLost,
    ServerUrlError,
    TokenFileError,
)
from lostcities.connect.connector import (
    ChallengeRefusedError,
    ChallengeRequest,
    ConnectConfig,
    Connector,
    ConnectSummary,
    EngineError,
    ServerRefusedError,
    ServerUnreachableError,
    run,
)
from lostcities.connect.game import Backoff, GameResult, GameRunner
from lostcities.connect.policy import ChallengePolicy, ClockSpecError, parse_clocks
from lostcities.connect.progress import Reporter

__all__ = [
    "ApiError",
    "Backoff",
    "BotApiClient",
    "ChallengePolicy",
    "ChallengeRefusedError",
    "ChallengeRequest",
    "ClockSpecError",
    "ConnectConfig",
    "ConnectSummary",
    "ConnectionLost",
    "Connector",
    "EngineError",
    "GameResult",
    "GameRunner",
    "Reporter",
    "ServerRefusedError",
    "ServerUnreachableError",
    "ServerUrlError",
    "TokenFileError",
    "parse_clocks",
    "run",
]
