"""What the search bots (``ismcts``, ``expert``) share: a budget per move (``time`` or
``iters``), the value of a round inside a match (``match``, ``msd``), their rollout
policy's check and the reading of their specs, each with the same one-line errors of
:class:`~lostcities.bots.base.BotSpecError`.

>>> spec = search_spec("ismcts", {"iters": "100"}, ("iters",))
>>> spec.whole("iters", None)
100
>>> search_spec("ismcts", {"rollout": "jitter"}, ("rollout",))
Traceback (most recent call last):
...
lostcities.bots.base.BotSpecError: invalid bot spec: ismcts rollout=jitter was removed in 0.4.0: it was no stronger than smart; use rollout=smart
"""

from __future__ import annotations

from lostcities.bots.base import Bot, BotSpecError, SpecOptions
from lostcities.bots.flat import removed_in_spec, removed_rollout
from lostcities.bots.matchplay import ROUND_MARGIN_SD

__all__ = ["SearchBot", "check_rollout", "search_spec"]


def search_spec(bot: str, options: dict[str, str], known: tuple[str, ...]) -> SpecOptions:
    """The spec ``options`` of search bot ``bot``, read with ``known`` its options.

    :raises BotSpecError: for an option not ``known``, or a removed rollout policy or
        option (:func:`lostcities.bots.flat.removed_in_spec`).
    """
    why = removed_in_spec(options)
    if why is not None:
        raise BotSpecError(f"invalid bot spec: {bot} {why}")
    return SpecOptions(bot, options, known)


def check_rollout(bot: str, rollout: str, allowed: tuple[str, ...]) -> None:
    """Refuse a rollout policy of search bot ``bot`` that is not one of ``allowed``.

    >>> check_rollout("expert", "cheap", ("smart", "net"))
    Traceback (most recent call last):
    ...
    lostcities.bots.base.BotSpecError: invalid bot spec: expert rollout must be smart or net, not 'cheap'

    :raises BotSpecError: the reason when ``rollout`` was removed
        (:func:`lostcities.bots.flat.removed_rollout`), else the policies allowed.
    """
    why = removed_rollout(rollout)
    if why is not None:
        raise BotSpecError(f"invalid bot spec: {bot} {why}")
    if rollout not in allowed:
        raise BotSpecError(
            f"invalid bot spec: {bot} rollout must be {' or '.join(allowed)}, not {rollout!r}"
        )


class SearchBot(Bot):
    """A bot that searches each move within a budget, for a round's or a match's value.

    :param time: seconds per move (used when ``iters`` is ``None``; default 1).
    :param iters: playouts or iterations per move (deterministic given the seed).
    :param match: whether a round of a match is searched for the match's value.
    :param msd: the spread of a later round's margin that match value assumes.
    :raises BotSpecError: for a budget or an ``msd`` that is not positive.
    """

    def __init__(
        self,
        seed: int | None,
        time: float | None,
        iters: int | None,
        *,
        match: bool = True,
        msd: float = ROUND_MARGIN_SD,
    ) -> None:
        super().__init__(seed)
        if iters is None and time is None:
            time = 1.0
        if iters is not None and iters < 1:
            raise BotSpecError(f"invalid bot spec: {self.name} iters must be positive, not {iters}")
        if time is not None and not time > 0:
            raise BotSpecError(f"invalid bot spec: {self.name} time must be positive, not {time}")
        if not msd > 0:
            raise BotSpecError(f"invalid bot spec: {self.name} msd must be positive, not {msd}")
        self.time = time
        """Seconds per move (``None`` with ``iters``)."""
        self.iters = iters
        """Playouts or iterations per move, or ``None`` for a time budget."""
        self.match = match
        """Whether a round of a match is searched for the match's value (``match=1``)."""
        self.msd = msd
        """The spread of a later round's margin that match value assumes (points)."""

    @staticmethod
    def match_options(spec: SpecOptions) -> tuple[bool, float]:
        """The spec's ``match`` (default 1) and ``msd`` (default
        :data:`~lostcities.bots.matchplay.ROUND_MARGIN_SD`) options."""
        return bool(spec.whole("match", 1, minimum=0)), spec.number("msd", ROUND_MARGIN_SD)
