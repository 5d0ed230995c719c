"""Bots, named by spec strings: ``random``, ``discard``, ``heuristic``, ``ismcts``,
options after a colon (``ismcts:time=0.5``, ``heuristic:seed=3``), and
``cmd:./mybot --flag`` for an external program speaking the bot protocol.

>>> from lostcities import Round
>>> bot = make("random", seed=1)
>>> r = Round.deal(seed=2)
>>> r.push(bot.choose(r.view(r.to_move)))
>>> make("nosuchbot")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
lostcities.bots.base.BotSpecError: unknown bot: 'nosuchbot' (known: random, discard, heuristic, ismcts, ...)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from lostcities.bots.base import (
    Bot,
    BotError,
    BotSpecError,
    BotTerminatedError,
    BotTimeoutError,
    SearchSetup,
)

__all__ = [
    "BUILTIN",
    "Bot",
    "BotError",
    "BotSpecError",
    "BotTerminatedError",
    "BotTimeoutError",
    "SearchSetup",
    "make",
    "parse_options",
    "parse_spec",
    "register",
]

Factory = Callable[[dict[str, str], "int | None"], Bot]

BUILTIN: dict[str, str] = {
    "random": "lostcities.bots.random:RandomBot",
    "discard": "lostcities.bots.discard:DiscardBot",
    "heuristic": "lostcities.bots.heuristic:HeuristicBot",
    "ismcts": "lostcities.bots.ismcts:IsmctsBot",
    "net": "lostcities.bots.net:NetBot",
    "expert": "lostcities.bots.expert:ExpertBot",
}
"""Built-in bot names and where their class lives (imported only when used)."""

_registry: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    """Make ``name`` usable in specs: ``factory(options, seed)`` builds the bot."""
    _registry[name] = factory


def parse_options(text: str, spec: str) -> dict[str, str]:
    """``'time=0.5,iters=100'`` -> ``{'time': '0.5', 'iters': '100'}``.

    :raises BotSpecError: for an option without ``=``.
    """
    options: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise BotSpecError(f"invalid bot spec: {spec!r} (option {part!r} is not key=value)")
        options[key.strip().lower()] = value.strip()
    return options


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a spec into its name and options. ``cmd:`` keeps the command line whole
    under the option ``command``."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError(f"invalid bot spec: {spec!r} (empty)")
    spec = spec.strip()
    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if name == "cmd":
        if not rest.strip():
            raise BotSpecError(f"invalid bot spec: {spec!r} (cmd: needs a program to run)")
        return name, {"command": rest.strip()}
    return name, parse_options(rest, spec)


def _builtin_factory(target: str) -> Factory:
    module_name, _, cls_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    factory: Factory = cls.from_options
    return factory


def make(spec: str, seed: int | None = None) -> Bot:
    """Build the bot a spec names. A ``seed`` option in the spec overrides ``seed``.

    :raises BotSpecError: for an unknown bot or a bad option, saying which.
    """
    name, options = parse_spec(spec)
    if name in _registry:
        factory = _registry[name]
    elif name in BUILTIN:
        factory = _builtin_factory(BUILTIN[name])
    elif name == "cmd":
        factory = _builtin_factory("lostcities.bots.external:ExternalBot")
    else:
        known = ", ".join([*BUILTIN, *_registry, "cmd:PROGRAM"])
        raise BotSpecError(f"unknown bot: {spec!r} (known: {known})")
    if "seed" in options:
        try:
            seed = int(options.pop("seed"))
        except ValueError:
            raise BotSpecError(
                f"invalid bot spec: {spec!r} (seed must be a whole number)"
            ) from None
    bot = factory(options, seed)
    bot.spec = spec.strip()
    return bot
