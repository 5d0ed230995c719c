"""The policy/value network, evaluated with NumPy alone (playing never needs PyTorch).

A multilayer perceptron: the :mod:`~lostcities.nn.features` vector, hidden layers with
ReLU, then two heads: *policy* logits over the 840 moves (:attr:`lostcities.Move.index`;
illegal moves are masked out before the softmax) and *value* ``tanh(v)``, the expected
``tanh(margin / VALUE_SCALE)`` of the round for the player to move.

Weights are an ``.npz`` file: ``trunk.{i}.weight`` / ``trunk.{i}.bias`` for each hidden
layer, ``policy.weight``, ``policy.bias``, ``value.weight``, ``value.bias`` (PyTorch's
``Linear`` layout: ``weight`` is ``(out, in)``), and ``meta`` (a JSON string: the
features version, layer sizes, how it was trained). The weights shipped in the package
load lazily on first use (:func:`default_network`).

>>> from lostcities import Round
>>> net = Network.random(hidden=(16,), seed=1)
>>> view = Round.deal(seed=2).view(0)
>>> moves, probs = net.policy(view)
>>> len(moves) == len(view.legal_moves()), round(float(probs.sum()), 6)
(True, 1.0)
>>> -1.0 <= net.value(view) <= 1.0
True
"""

from __future__ import annotations

import functools
import json
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from lostcities.nn.features import FEATURES_VERSION, NUM_FEATURES, features
from lostcities.rules import NUM_MOVES, Move, PlayerView

__all__ = [
    "TINY_WEIGHT",
    "VALUE_SCALE",
    "InvalidWeightsError",
    "Network",
    "as_float32",
    "default_network",
    "legal_mask",
]

VALUE_SCALE = 30.0
"""Points of margin that give a value of ``tanh(1)``."""

Array = npt.NDArray[np.float64]

TINY_WEIGHT = 1e-20
"""Weights smaller than this in magnitude are zero in float32 evaluation
(:func:`as_float32`)."""


def as_float32(a: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``a`` as a contiguous float32 array, its entries below :data:`TINY_WEIGHT` in
    magnitude set to 0.

    Training with weight decay leaves dead weights at magnitudes like 1e-30: in float32
    their products are subnormal numbers, which slow a CPU's matrix products 10 to 50
    times. Their contribution (under 1e-18 of an activation) is far below float32's
    precision, so zeroing them changes nothing but the speed.

    >>> as_float32([1.0, 1e-30, -2e-25, 1e-10]).tolist()
    [1.0, 0.0, 0.0, 1.000000013351432e-10]
    """
    out = np.ascontiguousarray(a, np.float32)
    out[np.abs(out) < TINY_WEIGHT] = 0.0
    return out


class InvalidWeightsError(ValueError):
    """A weights file that is missing, unreadable or of another layout."""


def legal_mask(view: PlayerView) -> tuple[list[Move], npt.NDArray[np.int64]]:
    """The legal moves of ``view`` and their indexes (:attr:`Move.index`)."""
    moves = list(view.legal_moves())
    return moves, np.fromiter((m.index for m in moves), np.int64, len(moves))


class Network:
    """A policy/value MLP (see the module docs). Arrays are float64 for evaluation."""

    def __init__(
        self,
        trunk: list[tuple[Array, Array]],
        policy: tuple[Array, Array],
        value: tuple[Array, Array],
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.trunk = [(np.asarray(w, np.float64), np.asarray(b, np.float64)) for w, b in trunk]
        self.policy_head = (np.asarray(policy[0], np.float64), np.asarray(policy[1], np.float64))
        self.value_head = (np.asarray(value[0], np.float64), np.asarray(value[1], np.float64))
        self.meta: dict[str, Any] = dict(meta or {})
        """What the weights file says about itself (features version, sizes, training)."""
        n_in = NUM_FEATURES
        for w, b in self.trunk:
            if w.shape[1] != n_in or b.shape != (w.shape[0],):
                raise InvalidWeightsError(
                    f"invalid weights: a layer of shape {w.shape} after {n_in} inputs"
                )
            n_in = w.shape[0]
        if self.policy_head[0].shape != (NUM_MOVES, n_in) or self.value_head[0].shape != (1, n_in):
            raise InvalidWeightsError("invalid weights: the heads do not fit the trunk")

    # -- building ------------------------------------------------------------------------

    @classmethod
    def random(cls, hidden: tuple[int, ...] = (256, 256), seed: int | None = None) -> Network:
        """Untrained weights (He-initialised), for tests and as a training start."""
        rng = np.random.default_rng(seed)
        trunk = []
        n_in = NUM_FEATURES
        for h in hidden:
            trunk.append((rng.normal(0, (2 / n_in) ** 0.5, (h, n_in)), np.zeros(h)))
            n_in = h
        policy = (rng.normal(0, 0.01, (NUM_MOVES, n_in)), np.zeros(NUM_MOVES))
        value = (rng.normal(0, 0.01, (1, n_in)), np.zeros(1))
        return cls(trunk, policy, value, {"features": FEATURES_VERSION, "hidden": list(hidden)})

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """Read a weights file.

        :raises InvalidWeightsError: if it is missing, unreadable or of another layout.
        """
        not_weights = (
            f"invalid weights file {str(path)!r}: not a weights file (the .npz of a network's"
            " arrays that Network.save and lostcities train write)"
        )
        try:
            loaded = np.load(path, allow_pickle=False)
        except OSError as e:
            raise InvalidWeightsError(
                f"invalid weights file {str(path)!r}: {e.strerror or e}"
            ) from None
        except (ValueError, EOFError, zipfile.BadZipFile):  # NumPy's advice is allow_pickle=True
            raise InvalidWeightsError(not_weights) from None
        if not isinstance(loaded, np.lib.npyio.NpzFile):  # a lone .npy array
            raise InvalidWeightsError(not_weights)
        try:
            with loaded as z:
                arrays = {k: z[k] for k in z.files}
        except (
            OSError,
            ValueError,
            EOFError,
            zipfile.BadZipFile,
        ):  # an object array, a broken member
            raise InvalidWeightsError(not_weights) from None
        try:
            meta = json.loads(str(arrays.pop("meta"))) if "meta" in arrays else {}
            if meta.get("features", FEATURES_VERSION) != FEATURES_VERSION:
                raise InvalidWeightsError(
                    f"invalid weights file {str(path)!r}: features version {meta.get('features')},"
                    f" this program reads {FEATURES_VERSION}"
                )
            trunk = []
            i = 0
            while f"trunk.{i}.weight" in arrays:
                trunk.append((arrays[f"trunk.{i}.weight"], arrays[f"trunk.{i}.bias"]))
                i += 1
            policy = (arrays["policy.weight"], arrays["policy.bias"])
            value = (arrays["value.weight"], arrays["value.bias"])
        except KeyError as e:
            raise InvalidWeightsError(f"invalid weights file {str(path)!r}: no array {e}") from None
        return cls(trunk, policy, value, meta)

    def arrays(self) -> dict[str, Array]:
        """The weights by name, as stored (float64)."""
        out: dict[str, Array] = {}
        for i, (w, b) in enumerate(self.trunk):
            out[f"trunk.{i}.weight"] = w
            out[f"trunk.{i}.bias"] = b
        out["policy.weight"], out["policy.bias"] = self.policy_head
        out["value.weight"], out["value.bias"] = self.value_head
        return out

    def save(self, path: str | Path) -> None:
        """Write the weights (float32, compressed, tiny ones as 0: :func:`as_float32`) with
        :attr:`meta`."""
        arrays: dict[str, Any] = {k: as_float32(v) for k, v in self.arrays().items()}
        arrays["meta"] = np.array(json.dumps({**self.meta, "features": FEATURES_VERSION}))
        np.savez_compressed(path, **arrays)

    # -- evaluation ----------------------------------------------------------------------

    def forward(self, x: Array) -> tuple[Array, Array]:
        """Policy logits ``(n, 840)`` and values ``(n,)`` of input rows ``x`` ``(n, F)``."""
        h = x
        for w, b in self.trunk:
            h = h @ w.T + b
            np.maximum(h, 0.0, out=h)
        logits = h @ self.policy_head[0].T + self.policy_head[1]
        v = np.tanh(h @ self.value_head[0].T + self.value_head[1])[:, 0]
        return logits, v

    def evaluate(self, view: PlayerView) -> tuple[list[Move], Array, float]:
        """The legal moves of ``view``, their probabilities under the policy, and the
        value of the position for the viewer."""
        moves, idx = legal_mask(view)
        logits, v = self.forward(features(view)[None, :])
        return moves, _softmax(logits[0, idx]), float(v[0])

    def policy(self, view: PlayerView) -> tuple[list[Move], Array]:
        """The legal moves of ``view`` and their probabilities."""
        moves, probs, _ = self.evaluate(view)
        return moves, probs

    def value(self, view: PlayerView) -> float:
        """The value of the position for the viewer, in ``[-1, 1]``."""
        _, v = self.forward(features(view)[None, :])
        return float(v[0])

    def __repr__(self) -> str:
        sizes = [w.shape[0] for w, _ in self.trunk]
        return f"<Network hidden={sizes} {self.meta.get('name', '')}>".replace(" >", ">")


def _softmax(z: Array) -> Array:
    e = np.exp(z - z.max())
    out: Array = e / e.sum()
    return out


WEIGHTS_FILE = "net.npz"


@functools.cache
def default_network() -> Network:
    """The network shipped in the package (``lostcities/data/net.npz``), loaded once.

    :raises InvalidWeightsError: if the package has no weights.
    """
    ref = resources.files("lostcities") / "data" / WEIGHTS_FILE
    with resources.as_file(ref) as path:
        if not path.exists():
            raise InvalidWeightsError(f"no network weights in the package ({WEIGHTS_FILE})")
        return Network.load(path)
