"""``net``: the policy network alone, a few milliseconds a move.

The move with the highest probability under the policy of :mod:`lostcities.nn` among the
legal moves (``temperature=T`` > 0 samples from the policy sharpened or flattened by
``T`` instead, with the bot's seeded generator). ``weights=PATH`` plays another weights
file than the one shipped in the package (for training and gating).

>>> from lostcities import Round
>>> r = Round.deal(seed=3)
>>> NetBot(seed=1).choose(r.view(0)) in r.legal_moves()
True
"""

from __future__ import annotations

import numpy as np

from lostcities.bots.base import Bot, BotError, BotSpecError, SpecOptions
from lostcities.nn import InvalidWeightsError, Network, default_network
from lostcities.rules import Move, PlayerView

__all__ = ["NetBot", "load_network"]


def load_network(weights: str | None) -> Network:
    """The shipped network, or the one in the file ``weights``.

    :raises BotSpecError: if the weights cannot be read.
    """
    try:
        return default_network() if weights is None else Network.load(weights)
    except InvalidWeightsError as e:
        raise BotSpecError(f"invalid bot spec: {e}") from None


class NetBot(Bot):
    """Plays the policy network's favourite legal move (see the module docs).

    :param weights: a weights file (``None``: the shipped network).
    :param temperature: 0 plays the most probable move; above 0 samples.
    """

    name = "net"

    def __init__(
        self,
        seed: int | None = None,
        *,
        weights: str | None = None,
        temperature: float = 0.0,
        network: Network | None = None,
    ) -> None:
        super().__init__(seed)
        if temperature < 0:
            raise BotSpecError(
                f"invalid bot spec: net temperature must be >= 0, not {temperature:g}"
            )
        self.network = network if network is not None else load_network(weights)
        self.temperature = temperature

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int | None = None) -> Bot:
        """Options ``weights`` (a file) and ``temperature``."""
        o = SpecOptions("net", options, ("weights", "temperature"))
        return cls(
            seed,
            weights=o.text("weights", None),
            temperature=o.number("temperature", 0.0, minimum=0),
        )

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        moves, probs = self.network.policy(view)
        if not moves:
            raise BotError("net: no legal move (not this bot's turn?)")
        if self.temperature > 0:
            p = probs ** (1.0 / self.temperature)
            p /= p.sum()
            x = self.rng.random()
            return moves[min(int(np.searchsorted(np.cumsum(p), x)), len(moves) - 1)]
        return moves[int(np.argmax(probs))]
