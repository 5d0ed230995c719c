"""The bot side of the protocol: serve any player on stdin/stdout.

A *player* is what the referee plays with (:class:`lostcities.referee.Player`): an object
with ``choose(view, time_limit)``, and optionally ``restart(variant, seat)``,
``inform(move, player)`` and ``close()`` (every :class:`lostcities.bots.Bot` has them).
:func:`serve` answers the referee's commands with it; ``lostcities bot SPEC`` is
:func:`run_engine` with a built-in bot.

>>> import io
>>> class First:
...     def choose(self, view, time_limit=None):
...         return view.legal_moves()[0]
>>> out = io.StringIO()
>>> serve(First(), name="first", stdin=io.StringIO("lcp\\nisready\\n"), stdout=out)
0
>>> print(out.getvalue(), end="")
id name first
lcpok
readyok
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO

from lostcities.errors import InvalidMoveError
from lostcities.protocol.wire import (
    POSITION_KEYWORDS,
    PositionError,
    PositionReader,
    handshake_lines,
    move_line,
    parse_go,
    parse_moved,
    parse_newgame,
    parse_seed,
)
from lostcities.referee import Player

__all__ = ["run_engine", "serve"]


class _PlayerFailed(Exception):
    """The served player raised instead of choosing a move."""


def _call(player: Player, hook: str, *args: object) -> None:
    """Call the optional hook ``restart``/``inform``/``close`` when ``player`` has it."""
    method = getattr(player, hook, None)
    if method is not None:
        method(*args)


def _tell(player: Player, hook: str, *args: object) -> None:
    """:func:`_call` for ``restart``/``inform`` on a command: the player's failure is said
    (:class:`_PlayerFailed`), and the engine goes on."""
    try:
        _call(player, hook, *args)
    except Exception as e:
        raise _PlayerFailed(f"the bot failed on {hook} ({type(e).__name__}: {e})") from None


def run_engine(
    make_player: Callable[[int | None], Player],
    *,
    name: str = "lostcities",
    author: str | None = "the lostcities project",
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    warm_up: Callable[[], None] | None = None,
) -> int:
    """Serve a player over the protocol until ``quit`` or the end of input.

    ``warm_up``, when given, runs once, at the first ``lcp`` or ``isready`` and before
    its answer: what a player's first move would otherwise spend getting ready (loading
    a compiled search, a network), so that a tight time limit does not cost move 1. A
    warm-up that fails is said (``info error``) and the engine goes on.

    ``make_player(seed)`` builds the player (``None`` at first, then again with the number
    of every ``seed`` command; the old one is closed unless the same object comes back).
    Lines it cannot use are answered with ``info error ...`` and otherwise ignored, as the
    protocol asks, and so is a ``go`` without a usable position (missing lines, a hand that
    is not full, a card twice, ...) or one the player fails on: no move is sent, the engine
    keeps running. Returns 0.
    """
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout

    def say(*lines: str) -> None:
        for text in lines:
            out.write(text + "\n")
        out.flush()

    player = make_player(None)
    reader = PositionReader()
    warm = warm_up

    def ready() -> None:
        nonlocal warm
        if warm is None:
            return
        job, warm = warm, None
        try:
            job()
        except Exception as e:  # a warm-up is a help, never a reason to stop
            say(f"info error warm-up failed ({type(e).__name__}: {e}): the first move gets ready")

    try:
        for raw in inp:
            words = raw.split()
            if not words:
                continue
            cmd = words[0]
            try:
                if cmd == "lcp":
                    ready()
                    say(*handshake_lines(name, author))
                elif cmd == "isready":
                    ready()
                    say("readyok")
                elif cmd == "newgame":
                    variant, seat = parse_newgame(words)
                    reader.newgame(variant, seat)
                    _tell(player, "restart", variant, seat)
                elif cmd == "seed":
                    seed = parse_seed(words)
                    new = make_player(seed)
                    if new is not player:
                        _call(player, "close")
                        player = new
                    if reader.variant is not None:
                        _tell(player, "restart", reader.variant, reader.seat)
                elif cmd in POSITION_KEYWORDS:
                    reader.feed(raw)
                elif cmd == "moved":
                    who, move = parse_moved(words)
                    _tell(player, "inform", move, who)
                elif cmd == "go":
                    ms = parse_go(words)
                    view = reader.view()
                    try:
                        move = player.choose(view, ms / 1000)
                    except Exception as e:  # the player's failure: said, and the engine goes on
                        raise _PlayerFailed(
                            f"no move: the bot failed ({type(e).__name__}: {e})"
                        ) from None
                    say(move_line(move))
                elif cmd == "quit":
                    break
                else:
                    say(f"info error unknown command {cmd!r} ignored")
            except (PositionError, InvalidMoveError, _PlayerFailed) as e:
                say(f"info error {e}")
                if cmd == "go":  # no move: the referee's log and the bot's stderr say why
                    print(f"lostcities bot: {e}", file=sys.stderr, flush=True)
    finally:
        _call(player, "close")
    return 0


def serve(
    player: Player,
    *,
    name: str = "lostcities",
    author: str | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    """Serve one ``player`` over the protocol (``seed`` commands are ignored); see
    :func:`run_engine`."""
    return run_engine(lambda seed: player, name=name, author=author, stdin=stdin, stdout=stdout)
