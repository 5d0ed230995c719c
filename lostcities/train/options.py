"""The options of ``lostcities train`` as text in, values out: each option is a row
``(flag, config field, kind, help)`` of a table (:data:`lostcities.train.cli.OPTIONS`,
:data:`lostcities.train.rl_cli.PPO_OPTIONS`), added to a parser as text
(:func:`add_options`) and read by its kind (:func:`reader`, :func:`read_given`), so that
any bad value is one line on stderr and exit code 2.

Imports neither PyTorch nor numba (``lostcities --help`` loads it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lostcities.train.errors import TrainOptionError

__all__ = ["Option", "add_options", "as_json", "given", "read_given", "reader"]

Option = tuple[str, str, str, str]
"""An option's flag, the config field it sets, its kind (``int>=1``, ``variant``, ...) and
its help."""


def add_options(p: argparse.ArgumentParser, options: Sequence[Option]) -> None:
    """Add each of ``options`` to ``p``, read as text (``None`` when not given)."""
    for flag, _, kind, help_text in options:
        p.add_argument(flag, metavar=kind.split(">")[0].upper(), default=None, help=help_text)


def as_json(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options as ``config.json`` stores them: the same, with tuples as lists.

    >>> as_json({"variants": ("classic", "long"), "lr": 0.001})
    {'variants': ['classic', 'long'], 'lr': 0.001}
    """
    return {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}


def given(args: argparse.Namespace, options: Sequence[Option]) -> list[tuple[Option, str]]:
    """The options of ``options`` that ``args`` gives, each with its text."""
    out = []
    for option in options:
        text = getattr(args, option[0][2:].replace("-", "_"))
        if text is not None:
            out.append((option, text))
    return out


def read_given(args: argparse.Namespace, options: Sequence[Option]) -> dict[str, Any]:
    """The values of the options of ``options`` that ``args`` gives, by config field.

    :raises TrainOptionError: a bad value.
    """
    return {name: reader(kind, flag)(text) for (flag, name, kind, _), text in given(args, options)}


def reader(kind: str, flag: str) -> Callable[[str], Any]:
    """The reader of an option of ``kind`` (its text to its value); a bad value raises
    :class:`~lostcities.train.errors.TrainOptionError` naming ``flag``.

    >>> reader("int>=2", "--games")("8"), reader("variant", "--variant")("both")
    (8, ('classic', 'long'))
    >>> reader("int>=1", "--worlds")("0")
    Traceback (most recent call last):
    ...
    lostcities.train.errors.TrainOptionError: invalid --worlds: '0' (must be at least 1)
    """

    def bad(text: str, why: str) -> TrainOptionError:
        return TrainOptionError(f"invalid {flag}: {text!r} ({why})")

    def read(text: str) -> Any:
        if kind.startswith("int"):
            try:
                n = int(text)
            except ValueError:
                raise bad(text, "not a whole number") from None
            if kind in ("int>=1", "int>=2") and n < 1:
                raise bad(text, "must be at least 1")
            if kind == "int>=2" and n < 2:
                raise bad(text, "must be at least 2")
            if kind == "int>=0" and n < 0:
                raise bad(text, "must not be negative")
            return n
        if kind.startswith("float") or kind == "fraction":
            try:
                x = float(text)
            except ValueError:
                raise bad(text, "not a number") from None
            if x != x or x in (float("inf"), float("-inf")):
                raise bad(text, "not finite")
            if kind == "float>0" and not x > 0:
                raise bad(text, "must be positive")
            if kind == "float>=0" and x < 0:
                raise bad(text, "must not be negative")
            if kind == "fraction" and not 0 <= x < 1:
                raise bad(text, "must be from 0 to below 1")
            return x
        if kind == "variant":
            choices = {"classic": ("classic",), "long": ("long",), "both": ("classic", "long")}
            if text not in choices:
                raise bad(text, "classic, long or both")
            return choices[text]
        if kind == "weights":
            from pathlib import Path

            if not Path(text).is_file():
                raise bad(text, "no such weights file")
            return str(Path(text).resolve())
        if kind == "init":
            from pathlib import Path

            if text not in ("shipped", "fresh") and not Path(text).is_file():
                raise bad(text, "shipped, fresh or a weights file")
            return text
        if kind == "sizes":
            try:
                sizes = tuple(int(s) for s in text.split(","))
            except ValueError:
                raise bad(text, "sizes such as 256,256") from None
            if any(s < 1 for s in sizes):
                raise bad(text, "every size must be at least 1")
            return sizes
        allowed = {
            "teacher": ("heuristic", "guided", "flat", "expert"),
            "rollout": ("smart", "cheap", "net"),
            "device": ("cpu", "cuda"),
            "critic": ("full", "own"),
            "student": ("fresh", "champion"),
        }[kind]
        if text not in allowed:
            if kind == "rollout":
                from lostcities.bots.flat import REMOVED_ROLLOUTS

                if text in REMOVED_ROLLOUTS:
                    raise bad(
                        text,
                        f"removed in {REMOVED_ROLLOUTS[text]}: it was no stronger than smart; "
                        "use --rollout smart",
                    )
            raise bad(text, " or ".join(allowed))
        return text

    return read
