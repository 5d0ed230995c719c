"""The network of :mod:`lostcities.nn.model` in PyTorch, for training.

:class:`TorchNetwork` is the same multilayer perceptron: hidden ``Linear`` + ReLU layers
(``trunk``), a ``policy`` head of 840 logits (one per :attr:`lostcities.Move.index`) and a
``value`` head ``tanh(Linear(h) -> 1)``. Its parameter names are the array names of the
``.npz`` weights files (``trunk.0.weight``, ``policy.bias``, ...), so
:meth:`TorchNetwork.to_network` and :meth:`TorchNetwork.from_network` convert to and from
the NumPy :class:`~lostcities.nn.Network` that the bots play with, without PyTorch.

>>> from lostcities.nn import Network
>>> net = Network.random(hidden=(16,), seed=1)
>>> t = TorchNetwork.from_network(net)
>>> sorted(t.state_dict())
['policy.bias', 'policy.weight', 'trunk.0.bias', 'trunk.0.weight', 'value.bias', 'value.weight']
>>> back = t.to_network()
>>> all((back.arrays()[k] == v).all() for k, v in net.arrays().items())
True
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

import numpy as np
import torch
from torch import nn

from lostcities.nn import FEATURES_VERSION, NUM_FEATURES, Network
from lostcities.rules import NUM_MOVES

P = ParamSpec("P")
R = TypeVar("R")


def subnormals_flushed(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` with the CPU flushing subnormal floats to zero
    (``torch.set_flush_denormal``), then restore IEEE arithmetic: training leaves weights
    at magnitudes like 1e-30, whose float32 products are subnormal and slow PyTorch's CPU
    kernels about 3 times (:func:`lostcities.nn.as_float32`). The mode is the thread's; it
    is switched back off afterwards, so nothing else in the process runs without
    subnormals."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        _flushing.depth = getattr(_flushing, "depth", 0) + 1
        torch.set_flush_denormal(True)
        try:
            return fn(*args, **kwargs)
        finally:
            _flushing.depth -= 1
            if _flushing.depth == 0:  # the outermost call (a shard played inside an update)
                torch.set_flush_denormal(False)

    return run


_flushing = threading.local()
"""How deep this thread is in :func:`subnormals_flushed` calls."""


__all__ = ["TorchNetwork"]


class TorchNetwork(nn.Module):
    """The policy/value MLP (module docs). ``forward(x)`` gives policy logits ``(n, 840)``
    and values ``(n,)`` in ``[-1, 1]``."""

    def __init__(self, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        if not hidden or any(h < 1 for h in hidden):
            raise ValueError(f"invalid hidden layer sizes: {list(hidden)!r}")
        self.hidden = tuple(int(h) for h in hidden)
        layers = []
        n_in = NUM_FEATURES
        for h in self.hidden:
            layers.append(nn.Linear(n_in, h))
            n_in = h
        self.trunk = nn.ModuleList(layers)
        self.policy = nn.Linear(n_in, NUM_MOVES)
        self.value = nn.Linear(n_in, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits and values of input rows ``x`` ``(n, F)``."""
        h = x
        for layer in self.trunk:
            h = torch.relu(layer(h))
        return self.policy(h), torch.tanh(self.value(h))[:, 0]

    @classmethod
    def from_network(cls, net: Network) -> TorchNetwork:
        """The same weights (float64 parameters; call ``.float()`` to train in float32)."""
        model = cls([w.shape[0] for w, _ in net.trunk]).double()
        state = {k: torch.from_numpy(np.array(v, np.float64)) for k, v in net.arrays().items()}
        model.load_state_dict(state)
        return model

    def to_network(self, meta: dict[str, Any] | None = None) -> Network:
        """The NumPy network with these weights (as float64), ``meta`` added to its own."""
        arrays = {k: v.detach().cpu().double().numpy().copy() for k, v in self.state_dict().items()}
        trunk = [
            (arrays[f"trunk.{i}.weight"], arrays[f"trunk.{i}.bias"]) for i in range(len(self.trunk))
        ]
        info: dict[str, Any] = {"features": FEATURES_VERSION, "hidden": list(self.hidden)}
        info.update(meta or {})
        return Network(
            trunk,
            (arrays["policy.weight"], arrays["policy.bias"]),
            (arrays["value.weight"], arrays["value.bias"]),
            info,
        )
