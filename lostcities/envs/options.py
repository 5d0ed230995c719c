"""What the environments share: the checks of their options, with the same one-line
:class:`ValueError`, and the round a reset deals.

>>> check_agent_options(seat=None, max_turns=40, reward="margin", illegal="raise")
>>> check_agent_options(seat=2, max_turns=None, reward="result", illegal="raise")
Traceback (most recent call last):
...
ValueError: invalid seat: 2 (expected 0, 1 or None)
"""

from __future__ import annotations

from collections.abc import Sequence

from lostcities.achievements import GoalSet
from lostcities.cards import Card, Variant
from lostcities.rules import Round

__all__ = ["check_agent_options", "check_max_turns", "check_render_mode", "deal_round"]


def check_max_turns(max_turns: object) -> None:
    """Refuse a turn cap that is not a positive whole number or ``None``.

    >>> check_max_turns(True)
    Traceback (most recent call last):
    ...
    ValueError: invalid max_turns: True (expected a positive number)
    """
    if max_turns is not None and (
        isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
    ):
        raise ValueError(f"invalid max_turns: {max_turns!r} (expected a positive number)")


def check_agent_options(
    *, seat: object, max_turns: object, reward: object, illegal: object
) -> None:
    """Refuse bad options of an environment where one agent plays a bot (the Gymnasium
    env and the vector env): ``seat`` 0, 1 or ``None``, ``max_turns`` (:func:`check_max_turns`),
    ``reward`` ``result`` or ``margin``, ``illegal`` ``forfeit`` or ``raise``, in that order.
    """
    if seat not in (None, 0, 1):
        raise ValueError(f"invalid seat: {seat!r} (expected 0, 1 or None)")
    check_max_turns(max_turns)
    if reward not in ("result", "margin"):
        raise ValueError(f"invalid reward: {reward!r} (expected 'result' or 'margin')")
    if illegal not in ("forfeit", "raise"):
        raise ValueError(f"invalid illegal: {illegal!r} (expected 'forfeit' or 'raise')")


def check_render_mode(render_mode: str | None, modes: Sequence[str]) -> None:
    """Refuse a ``render_mode`` that is neither ``None`` nor one of ``modes``."""
    if render_mode is not None and render_mode not in modes:
        expected = " or ".join([", ".join(repr(m) for m in modes), "None"])
        raise ValueError(f"invalid render_mode: {render_mode!r} (expected {expected})")


def deal_round(
    variant: Variant,
    starter: int,
    *,
    seed: int,
    deck: Sequence[Card | str] | None,
    max_turns: int | None,
    achievements: bool | GoalSet | None,
) -> Round:
    """The round a reset deals: from ``seed``, or ``deck`` (the whole deck in dealing
    order, :meth:`lostcities.Round.from_deck`) when given.

    :raises ValueError: for an invalid deck.
    """
    if deck is None:
        return Round.deal(
            seed=seed,
            variant=variant,
            starter=starter,
            max_turns=max_turns,
            achievements=achievements,
        )
    return Round.from_deck(deck, starter, variant, max_turns=max_turns, achievements=achievements)
