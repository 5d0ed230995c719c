"""The bot interface: a bot sees only a :class:`~lostcities.PlayerView` and returns a move.

The shape follows OpenSpiel's ``pyspiel.Bot``: :meth:`Bot.restart` before each round,
:meth:`Bot.choose` when it is to move, :meth:`Bot.inform` after every move of either player.
"""

from __future__ import annotations

import abc
import contextlib
import math
import os
import random
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

from lostcities.bots.analysis import analyse
from lostcities.bots.flat import SearchSetup  # its home: the flat search's settings
from lostcities.cards import Variant
from lostcities.errors import BotError, BotTerminatedError, BotTimeoutError
from lostcities.rules import Move, PlayerView

__all__ = [
    "Bot",
    "BotError",
    "BotSpecError",
    "BotTerminatedError",
    "BotTimeoutError",
    "MAX_WHOLE_OPTION",
    "SearchSetup",
    "SpecOptions",
]


class BotSpecError(ValueError):
    """A bot spec string that names no bot or has bad options (``'ismcts:iters=-1'``)."""


class Bot(abc.ABC):
    """A player. Subclasses implement :meth:`choose`; the rest is optional."""

    name: str = "bot"
    """The spec name (``random``, ``heuristic``, ...)."""
    spec: str = ""
    """The full spec string this bot was made from."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def reseed(self, seed: int | None) -> None:
        """Start the bot's random numbers afresh from ``seed`` (analysis does, so that its
        figures depend only on the view and the seed)."""
        self.seed = seed
        self.rng.seed(seed)

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int | None = None) -> Bot:
        """Build the bot from spec options (``{'time': '0.5'}``). Subclasses that take options
        override this; the default accepts none.

        :raises BotSpecError: for an unknown or bad option.
        """
        if options:
            bad = ", ".join(sorted(options))
            raise BotSpecError(f"invalid bot spec: {cls.name!r} takes no option {bad}")
        return cls(seed=seed)

    def restart(self, variant: Variant, seat: int) -> None:  # noqa: B027 - optional hook
        """A new round starts; this bot plays ``seat``."""

    @abc.abstractmethod
    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        """Return a legal move for ``view`` (it is this bot's turn), within ``time_limit``
        seconds when given.

        :raises BotError: if the bot cannot give a legal move.
        """

    analyse = analyse
    """:func:`lostcities.bots.analysis.analyse` as a method: ``bot.analyse(view, time_limit,
    *, played, worlds, seed)`` evaluates the position for the player to move, from ``view``
    alone (search bots analyse: ``ismcts``, ``expert``)."""

    def search_setup(self, view: PlayerView) -> SearchSetup | None:
        """The candidates and settings this bot's search compares at ``view``, for
        :meth:`analyse`; ``None`` (the default) for a bot that does not search."""
        return None

    def inform(self, move: Move, player: int) -> None:  # noqa: B027 - optional hook
        """``player`` made ``move`` (called for both players' moves)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (processes, threads)."""

    def __enter__(self) -> Bot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec or self.name!r}>"


_N = TypeVar("_N", int, float)

MAX_WHOLE_OPTION = 10_000_000
"""The largest whole number a bot spec's option may give (``iters``, ``top``, ...): ten
million playouts a move is minutes of search; more would run until killed."""


class SpecOptions:
    """Typed reading of a bot's spec options, with the one-line errors of
    :class:`BotSpecError`.

    >>> o = SpecOptions("net", {"temperature": "0.5"}, ("temperature", "weights"))
    >>> o.number("temperature", 0.0), o.text("weights", None)
    (0.5, None)
    >>> SpecOptions("net", {"speed": "1"}, ("temperature",))
    Traceback (most recent call last):
    ...
    lostcities.bots.base.BotSpecError: invalid bot spec: net has no option 'speed' (known: temperature)
    """

    def __init__(self, bot: str, options: dict[str, str], known: tuple[str, ...]) -> None:
        for key in options:
            if key not in known:
                raise BotSpecError(
                    f"invalid bot spec: {bot} has no option {key!r} (known: {', '.join(known)})"
                )
        self.bot = bot
        self.options = options

    def number(self, key: str, default: float, *, minimum: float | None = None) -> float:
        """A finite number (``default`` when absent), at least ``minimum`` when given."""
        value = self._read(key, float, "a number", minimum)
        return default if value is None else value

    def whole(
        self,
        key: str,
        default: int | None,
        *,
        minimum: int | None = None,
        maximum: int = MAX_WHOLE_OPTION,
    ) -> int | None:
        """A whole number (``default`` when absent), at least ``minimum`` when given and at
        most ``maximum`` (:data:`MAX_WHOLE_OPTION`: ``iters=10**20`` would search until
        killed).

        >>> SpecOptions("ismcts", {"iters": "99999999999"}, ("iters",)).whole("iters", None)
        Traceback (most recent call last):
        ...
        lostcities.bots.base.BotSpecError: invalid bot spec: ismcts iters must be at most 10,000,000, not 99999999999
        """
        value = self._read(key, int, "a whole number", minimum)
        if value is not None and value > maximum:
            raise BotSpecError(
                f"invalid bot spec: {self.bot} {key} must be at most {maximum:,}, not {value}"
            )
        return default if value is None else value

    def _read(
        self, key: str, convert: Callable[[str], _N], what: str, minimum: _N | None
    ) -> _N | None:
        """Option ``key`` converted (``None`` when absent): finite, at least ``minimum``."""
        text = self.options.get(key)
        if text is None:
            return None
        try:
            value = convert(text)
        except ValueError:
            raise BotSpecError(
                f"invalid bot spec: {self.bot} {key}={text!r} is not {what}"
            ) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise BotSpecError(f"invalid bot spec: {self.bot} {key}={text!r} is not finite")
        if minimum is not None and value < minimum:
            least = f"{minimum:g}" if isinstance(minimum, float) else str(minimum)
            raise BotSpecError(
                f"invalid bot spec: {self.bot} {key} must be at least {least}, not {text}"
            )
        return value

    def text(self, key: str, default: str | None) -> str | None:
        """The option as given (``default`` when absent)."""
        return self.options.get(key, default)


BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables that set how many threads NumPy's linear algebra starts."""


def one_core_per_bot() -> None:
    """Make the worker processes started from now on (the arena's, self-play's, the web
    app's bot pool) use one thread each for NumPy's linear algebra, unless the variables
    are already set: a network bot's matrix products otherwise start a thread per core in
    every worker, and many workers on few cores slow each other tenfold."""
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


@contextlib.contextmanager
def workers_without_ctrl_c() -> Iterator[None]:
    """Start the worker processes of a pool inside this block: they begin with Ctrl-C
    ignored (the disposition survives ``exec``; a spawned worker still importing would
    otherwise die with a traceback), since Ctrl-C is the parent's to handle. This thread
    blocks Ctrl-C meanwhile, so one pressed during the block reaches it at the end.

    POSIX only (elsewhere, or off the main thread, the block changes nothing).
    """
    if (
        not hasattr(signal, "pthread_sigmask")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        if signal.SIGINT in signal.sigpending():  # ignoring it now would drop it
            raise KeyboardInterrupt
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, handler)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a Ctrl-C held back arrives now
