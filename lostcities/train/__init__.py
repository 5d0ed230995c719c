"""Training the policy/value network of :mod:`lostcities.nn` by self-play (``lostcities train``).

Needs the ``train`` extra (PyTorch, CPU is enough): ``pip install 'lostcities[train]'``.
Playing with a trained network needs only NumPy (:mod:`lostcities.nn`).

- :mod:`~lostcities.train.selfplay`: rounds played by a searching teacher, the data shards;
- :mod:`~lostcities.train.data`: the shards' arrays and the training targets;
- :mod:`~lostcities.train.model`: the network in PyTorch, to and from :class:`lostcities.nn.Network`;
- :mod:`~lostcities.train.trainer`: fitting a fresh network to the data;
- :mod:`~lostcities.train.loop`: the iterations (self-play, train, gate, reference match),
  resumable, with the log and the strength plot;
- :mod:`~lostcities.train.cli`: the ``lostcities train`` command.

Importing this package loads none of them (nor PyTorch). docs/training.md tells the whole
story.
"""

from __future__ import annotations

__all__: list[str] = []
