"""``cmd:PROGRAM ARGS``: an external program that speaks the bot protocol (docs/protocol.md).

>>> import sys
>>> from lostcities import Round
>>> from lostcities.bots import make
>>> bot = make(f"cmd:{sys.executable} -m lostcities.cli bot random", seed=3)
>>> r = Round.deal(seed=1)
>>> bot.restart(r.variant, 0)
>>> r.push(bot.choose(r.view(0), time_limit=2.0))
>>> bot.close()
"""

from __future__ import annotations

import os
import shlex

from lostcities.bots.base import Bot, BotError, BotSpecError
from lostcities.cards import Variant
from lostcities.protocol.host import (
    DEFAULT_MOVE_TIMEOUT,
    DEFAULT_START_TIMEOUT,
    ProgramError,
    SimpleBot,
    SubprocessTransport,
)
from lostcities.referee import DEFAULT_GRACE
from lostcities.rules import Move, PlayerView

__all__ = ["ExternalBot", "split_command"]


def split_command(command: str) -> list[str]:
    """Split a command line like a POSIX shell; a program given as a relative path
    (``./mybot``, ``bots/x.py``) is made absolute against the current directory.

    :raises BotSpecError: for an empty command or unbalanced quotes.

    >>> split_command("python 'my bot.py' --fast")
    ['python', 'my bot.py', '--fast']
    """
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise BotSpecError(f"invalid bot spec: 'cmd:{command}' ({e})") from None
    if not argv:
        raise BotSpecError("invalid bot spec: 'cmd:' (cmd: needs a program to run)")
    if os.sep in argv[0] and not os.path.isabs(argv[0]):
        argv[0] = os.path.abspath(argv[0])
    return argv


class ExternalBot(Bot):
    """A bot program run in its own process group and spoken to over the protocol.

    The program starts (and does the handshake) when the bot is made. A program that died
    or fell out of step (a timed-out move) is started again by the next :meth:`restart`,
    so one failure costs one round. :meth:`close` sends ``quit`` and kills the process
    group.

    Args:
        command: the command line (split like a shell does).
        seed: sent to the program with each ``newgame`` (``seed <n>``) when not ``None``.
        move_timeout: seconds per move when :meth:`choose` gets no ``time_limit``.
        grace: the allowance added to every move limit.
        start_timeout: seconds to start, do the handshake and answer ``isready``.

    :raises BotSpecError: if the program cannot be started.
    :raises BotError: if it fails the handshake (dies, times out).
    """

    name = "cmd"

    def __init__(
        self,
        command: str,
        seed: int | None = None,
        *,
        move_timeout: float = DEFAULT_MOVE_TIMEOUT,
        grace: float = DEFAULT_GRACE,
        start_timeout: float = DEFAULT_START_TIMEOUT,
    ) -> None:
        super().__init__(seed)
        self.command = command
        self.argv = split_command(command)
        self.move_timeout = move_timeout
        self.grace = grace
        self.start_timeout = start_timeout
        self.spec = f"cmd:{command}"
        self.engine: SimpleBot | None = None
        self._start()

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int | None = None) -> Bot:
        """Build from ``{'command': '...'}`` (what ``make('cmd:...')`` passes).

        :raises BotSpecError: if there is no command or the program cannot be started.
        """
        command = options.get("command", "")
        if not command.strip():
            raise BotSpecError("invalid bot spec: 'cmd:' (cmd: needs a program to run)")
        return cls(command, seed)

    def _start(self) -> SimpleBot:
        try:
            self.engine = SimpleBot.popen(
                self.argv, grace=self.grace, start_timeout=self.start_timeout
            )
        except ProgramError as e:
            raise BotSpecError(str(e)) from None
        return self.engine

    @property
    def id(self) -> dict[str, str]:
        """What the program said in its ``id`` lines."""
        return self.engine.id if self.engine is not None else {}

    def restart(self, variant: Variant, seat: int) -> None:
        """Start a round (``newgame``, ``seed``, ``isready``), first starting the program
        again if it died or fell out of step.

        :raises BotError: if the program cannot be (re)started or does not get ready.
        """
        engine = self.engine
        if engine is None or engine.out_of_sync or not self._alive(engine):
            if engine is not None:
                engine.close(timeout=0.1)
            engine = self._start()
        engine.newgame(variant, seat, self.seed)

    @staticmethod
    def _alive(engine: SimpleBot) -> bool:
        transport = engine.protocol.transport
        if not isinstance(transport, SubprocessTransport):
            return True
        return transport.process.returncode is None

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        """Send the position and ``go``; the program has ``time_limit`` seconds (default
        :attr:`move_timeout`) plus :attr:`grace`.

        :raises BotTimeoutError: if no move comes in time.
        :raises BotTerminatedError: if the program died (the exit code is in the message).
        :raises BotError: for a bad or illegal move.
        """
        if self.engine is None:
            raise BotError(f"bot {self.command!r} is closed")
        limit = self.move_timeout if time_limit is None or time_limit <= 0 else time_limit
        return self.engine.play(view, limit)

    def inform(self, move: Move, player: int) -> None:
        """Send ``moved <player> <move>``.

        :raises BotTerminatedError: if the program cannot be written to.
        """
        if self.engine is not None:
            self.engine.inform(move, player)

    def kill(self) -> None:
        """Kill the program's process group now, without ``quit`` (safe in a signal
        handler: no waiting)."""
        if self.engine is not None:
            self.engine.kill()

    def close(self) -> None:
        """``quit``, then kill the program's process group."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None
