"""The computer levels: what each plays (:data:`LEVELS`), and whether and how it plays on
this server (:class:`Levels`: its own bot, its fallback where a module is missing, or not
at all; a level whose bot runs the compiled search is *warming up* while a first start
compiles it in the background)."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from lostcities.bots import BotSpecError, make, parse_spec
from lostcities.web.errors import BotUnavailableError, WarmingUpError

__all__ = ["LEVELS", "SEARCH_BOTS", "Level", "Levels", "bot_available", "runs_compiled_search"]

SEARCH_BOTS = ("ismcts", "expert")
"""The bots whose moves run the numba-compiled search (unless ``engine=python``)."""


def runs_compiled_search(spec: str) -> bool:
    """Whether the bot of ``spec`` runs the compiled search where numba is installed (so it
    waits for the warm-up of a first start rather than compile inside its move).

    >>> runs_compiled_search("ismcts:time=1"), runs_compiled_search("heuristic")
    (True, False)
    >>> runs_compiled_search("ismcts:engine=python")
    False
    """
    try:
        name, options = parse_spec(spec)
    except BotSpecError:
        return False
    return name in SEARCH_BOTS and options.get("engine") != "python"


@dataclass(frozen=True)
class Level:
    """A computer level: the bot spec it plays, its label, and how often it blunders."""

    spec: str
    label: str
    mistakes: float = 0.0
    """Probability of playing a uniformly random legal move instead of the bot's choice."""
    fallback: str | None = None
    """Spec to play if ``spec`` (or a module in :attr:`requires`) is not installed here."""
    requires: tuple[str, ...] = ()
    """Modules the level needs beyond what its bot imports (``expert`` runs without numba,
    but its search is then pure Python and far weaker in its second)."""
    about: str = ""
    """One line saying what the level plays (the level picker, ``/api/levels``)."""


LEVELS: dict[str, Level] = {
    "easy": Level(
        "heuristic",
        "Easy",
        mistakes=0.4,
        fallback="random",
        about="the heuristic bot, playing a random move 40% of the time",
    ),
    "medium": Level(
        "heuristic", "Medium", about="the heuristic bot: sound rules of thumb, instant"
    ),
    "hard": Level(
        "ismcts:time=1", "Hard", about="Monte Carlo search over the hidden cards, 1 s a move"
    ),
    "expert": Level(
        "expert:time=1",
        "Expert",
        fallback="ismcts:time=1",
        requires=("numba",),
        about="a trained network guiding a compiled search, 1 s a move",
    ),
}
"""The default computer levels (``LOSTCITIES_LEVEL_<NAME>=SPEC`` overrides one)."""


def bot_available(spec: str) -> str | None:
    """``None`` if the bot of ``spec`` can be built here, else why not.

    >>> bot_available("random") is None, bot_available("nosuchbot") is None
    (True, False)
    """
    try:
        make(spec, 0).close()
    except (BotSpecError, ImportError, AttributeError) as e:
        return str(e) or e.__class__.__name__
    return None


class Levels(Mapping[str, Level]):
    """The levels a server offers, by name, and how each plays here; whether a bot or a
    module is installed is checked once, on first use.

    >>> levels = Levels({"easy": Level("random", "Easy", mistakes=0.4), "odd": Level("nosuchbot", "Odd")})
    >>> list(levels), levels.resolve("easy"), levels.unavailable("easy")
    (['easy', 'odd'], ('random', 0.4), None)
    >>> levels.unavailable("odd").startswith("the odd level is not available on this server")
    True
    """

    def __init__(self, levels: Mapping[str, Level] | None = None) -> None:
        self._levels = dict(LEVELS if levels is None else levels)
        self._availability: dict[str, str | None] = {}
        self._warming: asyncio.Event | None = None
        """Set once the compiled search is ready; ``None``: not warming up."""

    # -- the warm-up of a first start -------------------------------------------------------

    def start_warming(self) -> None:
        """The compiled search is being prepared (a first start compiles it in the
        background): the levels that run it are :meth:`warming_up` until :meth:`search_ready`."""
        if self._warming is None:
            self._warming = asyncio.Event()

    def search_ready(self) -> None:
        """The compiled search is ready: every level plays (games waiting for it go on)."""
        if self._warming is not None:
            self._warming.set()
            self._warming = None

    @property
    def warming(self) -> bool:
        """Whether the compiled search is still being prepared."""
        return self._warming is not None

    def waits_for_search(self, spec: str) -> bool:
        """Whether a move of ``spec`` must wait for the warm-up now (it runs the compiled
        search, numba is installed, and the search is not ready yet)."""
        return (
            self._warming is not None
            and runs_compiled_search(spec)
            and self._missing(("numba",)) is None
        )

    async def until_ready(self, spec: str) -> None:
        """Wait until ``spec`` can move without compiling (at once for most bots, and once
        the search is ready)."""
        event = self._warming
        if event is not None and self.waits_for_search(spec):
            await event.wait()

    def warming_up(self, level: str) -> bool:
        """Whether ``level`` plays the compiled search and waits for the warm-up now."""
        if self._warming is None:
            return False
        try:
            spec, _ = self._resolved(level)
        except BotUnavailableError:
            return False
        return self.waits_for_search(spec)

    # -- availability -----------------------------------------------------------------------

    def __getitem__(self, name: str) -> Level:
        return self._levels[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._levels)

    def __len__(self) -> int:
        return len(self._levels)

    def _available(self, spec: str) -> str | None:
        if spec not in self._availability:
            self._availability[spec] = bot_available(spec)
        return self._availability[spec]

    def _missing(self, modules: tuple[str, ...]) -> str | None:
        for name in modules:
            key = f"module {name}"
            if key not in self._availability:
                try:
                    importlib.import_module(name)
                except ImportError:
                    self._availability[key] = f"{name} is not installed"
                else:
                    self._availability[key] = None
            if self._availability[key] is not None:
                return self._availability[key]
        return None

    def own_bot_missing(self, level: str) -> str | None:
        """``None`` if the level's own bot (not its fallback) plays here, else why not."""
        lv = self._levels[level]
        return self._available(lv.spec) or self._missing(lv.requires)

    def resolve(self, level: str) -> tuple[str, float]:
        """The bot spec and mistake rate a level plays here (its fallback if need be).

        :raises WarmingUpError: while the level's compiled search is being prepared.
        :raises BotUnavailableError: if neither the level's bot nor its fallback is installed.
        """
        spec, mistakes = self._resolved(level)
        if self.waits_for_search(spec):
            raise WarmingUpError(
                f"the {level} level is warming up: the search engine is being prepared "
                "(first start only); try again in a few seconds"
            )
        return spec, mistakes

    def _resolved(self, level: str) -> tuple[str, float]:
        lv = self._levels[level]
        why = self.own_bot_missing(level)
        if why is None:
            return lv.spec, lv.mistakes
        if lv.fallback is not None and self._available(lv.fallback) is None:
            return lv.fallback, 0.0
        raise BotUnavailableError(f"the {level} level is not available on this server ({why})")

    def unavailable(self, level: str) -> str | None:
        """``None`` if the level can be played here, else why not."""
        try:
            self.resolve(level)
        except BotUnavailableError as e:
            return str(e)
        return None
