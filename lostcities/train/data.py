"""Self-play positions: the arrays of a data shard, their ``.npz`` files and the targets.

A shard holds the positions of consecutive self-play rounds. Each position has a fixed
part (one row per position) and a ragged part, its legal moves, stored flat (``legal`` and
``values``) with ``offsets``: position ``i``'s moves are ``legal[offsets[i]:offsets[i+1]]``.

==============  ========  ==========================================================
array           dtype     what
==============  ========  ==========================================================
``x``           float32   :func:`lostcities.nn.features` of the mover's view ``(n, 608)``
``offsets``     int64     ``(n + 1,)`` into ``legal`` / ``values``
``legal``       int16     legal moves (:attr:`lostcities.Move.index`)
``values``      float32   the teacher's mean value of each move (NaN: not searched)
``played``      int16     the move made
``mover``       int8      the player who made it
``margin``      int16     the round's final score margin, from the mover's side
``round``       int32     the round's index in its iteration
``ply``         int16     moves made before this one in the round
``variant``     int8      0 classic, 1 long
==============  ========  ==========================================================

Targets (:func:`policy_targets`, :func:`value_targets`): the policy target is
``softmax(values / T)`` over the searched legal moves, the value target
``tanh(margin / VALUE_SCALE)``.

>>> p = Positions.empty()
>>> len(p), p.offsets.tolist()
(0, [0])
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from lostcities.nn import NUM_FEATURES, VALUE_SCALE
from lostcities.train.errors import InvalidShardError

__all__ = [
    "InvalidShardError",
    "Positions",
    "atomic_path",
    "atomic_figure",
    "atomic_write_bytes",
    "atomic_write_text",
    "concat_ragged",
    "policy_targets",
    "read_arrays",
    "value_targets",
]

VARIANTS = ("classic", "long")
"""Variant codes of the ``variant`` array."""


@dataclass
class Positions:
    """The arrays of a shard (module docs)."""

    x: npt.NDArray[np.float32]
    """Input features, one row per position."""
    offsets: npt.NDArray[np.int64]
    """Where each position's legal moves start in :attr:`legal` (and one past the end)."""
    legal: npt.NDArray[np.int16]
    """Legal move indexes, all positions concatenated."""
    values: npt.NDArray[np.float32]
    """The teacher's value of each legal move (NaN where it was not searched)."""
    played: npt.NDArray[np.int16]
    """The move made."""
    mover: npt.NDArray[np.int8]
    """The player to move."""
    margin: npt.NDArray[np.int16]
    """Final margin of the round for the mover."""
    round: npt.NDArray[np.int32]
    """Round index within the iteration."""
    ply: npt.NDArray[np.int16]
    """Ply of the position in its round."""
    variant: npt.NDArray[np.int8]
    """0 classic, 1 long."""

    @classmethod
    def empty(cls) -> Positions:
        """No positions."""
        return cls(
            x=np.zeros((0, NUM_FEATURES), np.float32),
            offsets=np.zeros(1, np.int64),
            legal=np.zeros(0, np.int16),
            values=np.zeros(0, np.float32),
            played=np.zeros(0, np.int16),
            mover=np.zeros(0, np.int8),
            margin=np.zeros(0, np.int16),
            round=np.zeros(0, np.int32),
            ply=np.zeros(0, np.int16),
            variant=np.zeros(0, np.int8),
        )

    def __len__(self) -> int:
        return int(self.x.shape[0])

    @classmethod
    def concat(cls, parts: list[Positions]) -> Positions:
        """The positions of ``parts`` in order."""
        if not parts:
            return cls.empty()
        names = [f.name for f in fields(cls)]
        return cls(**concat_ragged([{k: getattr(p, k) for k in names} for p in parts], names))

    def select(self, rows: npt.NDArray[np.int64]) -> Positions:
        """The positions ``rows`` (in that order)."""
        starts = self.offsets[rows]
        lengths = self.offsets[rows + 1] - starts
        entries = ragged_entries(starts, lengths)
        out: dict[str, Any] = {
            "offsets": np.concatenate([np.zeros(1, np.int64), np.cumsum(lengths)]),
            "legal": self.legal[entries],
            "values": self.values[entries],
        }
        for f in fields(self):
            if f.name not in out:
                out[f.name] = getattr(self, f.name)[rows]
        return Positions(**out)

    def check(self) -> None:
        """Check the arrays fit together.

        :raises InvalidShardError: saying what does not fit.
        """
        n = len(self)
        if self.x.ndim != 2 or self.x.shape[1] != NUM_FEATURES:
            raise InvalidShardError(f"invalid shard: features of shape {self.x.shape}")
        if (
            self.offsets.shape != (n + 1,)
            or self.offsets[0] != 0
            or (np.diff(self.offsets) < 1).any()
        ):
            raise InvalidShardError("invalid shard: bad offsets")
        e = int(self.offsets[-1])
        if self.legal.shape != (e,) or self.values.shape != (e,):
            raise InvalidShardError(
                "invalid shard: legal moves and values do not match the offsets"
            )
        for name in ("played", "mover", "margin", "round", "ply", "variant"):
            if getattr(self, name).shape != (n,):
                raise InvalidShardError(f"invalid shard: {name} has the wrong length")

    # -- files ---------------------------------------------------------------------------

    def save(self, path: str | Path, meta: dict[str, Any] | None = None) -> None:
        """Write the shard (compressed ``.npz``, ``meta`` as JSON) atomically."""
        arrays: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        arrays["meta"] = np.array(json.dumps(meta or {}, sort_keys=True))
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> tuple[Positions, dict[str, Any]]:
        """Read a shard and its meta.

        :raises InvalidShardError: if it is missing, unreadable or of another layout.
        """
        arrays = read_arrays(path, "shard")
        try:
            meta = json.loads(str(arrays.pop("meta")))
            pos = cls(**{f.name: arrays[f.name] for f in fields(cls)})
        except (KeyError, ValueError) as e:
            raise InvalidShardError(f"invalid shard {str(path)!r}: {e}") from None
        pos.check()
        return pos, meta


def read_arrays(
    path: str | Path, what: str, names: Sequence[str] | None = None
) -> dict[str, npt.NDArray[Any]]:
    """The arrays ``names`` (default all) of the ``.npz`` file ``path``.

    :raises InvalidShardError: ``invalid <what> '<path>': <why>`` if the file is missing,
        unreadable or lacks one of ``names``.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in (z.files if names is None else names)}
    except (OSError, ValueError, KeyError) as e:
        raise InvalidShardError(f"invalid {what} {str(path)!r}: {e}") from None


def concat_ragged(
    parts: Sequence[Mapping[str, npt.NDArray[Any]]], names: Sequence[str]
) -> dict[str, npt.NDArray[Any]]:
    """``offsets`` and the arrays ``names`` of ``parts`` (at least one) concatenated in
    order, ``offsets`` (a part's ``n + 1`` starts of its positions' ragged entries) shifted
    past the entries of the parts before.

    >>> a = {"offsets": np.array([0, 2]), "legal": np.array([7, 8])}
    >>> b = {"offsets": np.array([0, 1, 3]), "legal": np.array([1, 2, 3])}
    >>> {k: v.tolist() for k, v in concat_ragged([a, b], ["offsets", "legal"]).items()}
    {'offsets': [0, 2, 3, 5], 'legal': [7, 8, 1, 2, 3]}
    """
    offsets = [np.zeros(1, np.int64)]
    base = 0
    for p in parts:
        offsets.append(p["offsets"][1:] + base)
        base += int(p["offsets"][-1])
    out: dict[str, npt.NDArray[Any]] = {"offsets": np.concatenate(offsets)}  # first, as saved
    for k in names:
        if k != "offsets":
            out[k] = np.concatenate([p[k] for p in parts])
    return out


def ragged_entries(
    starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """The flat indexes ``starts[i] + 0 .. lengths[i] - 1`` for each ``i``, concatenated.

    >>> ragged_entries(np.array([5, 0]), np.array([2, 3])).tolist()
    [5, 6, 0, 1, 2]
    """
    total = int(lengths.sum())
    first = np.cumsum(lengths) - lengths
    return np.repeat(starts - first, lengths) + np.arange(total, dtype=np.int64)


def policy_targets(pos: Positions, temperature: float) -> npt.NDArray[np.float32]:
    """Per legal move (flat, as :attr:`Positions.legal`): ``softmax(values / T)`` over the
    position's searched moves, 0 for a move not searched.

    >>> p = Positions.empty()
    >>> p.offsets = np.array([0, 3]); p.values = np.array([0.1, 0.1, np.nan], np.float32)
    >>> policy_targets(p, 0.05).tolist()
    [0.5, 0.5, 0.0]
    """
    v = pos.values.astype(np.float64) / temperature
    searched = ~np.isnan(v)
    n = len(pos.offsets) - 1
    row = np.repeat(np.arange(n), np.diff(pos.offsets))
    best = np.full(n, -np.inf)
    np.maximum.at(best, row[searched], v[searched])
    e = np.where(searched, np.exp(np.where(searched, v, 0.0) - best[row]), 0.0)
    total = np.zeros(n)
    np.add.at(total, row, e)
    return (e / total[row]).astype(np.float32)


def value_targets(pos: Positions) -> npt.NDArray[np.float32]:
    """``tanh(margin / VALUE_SCALE)`` per position."""
    return np.tanh(pos.margin.astype(np.float64) / VALUE_SCALE).astype(np.float32)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that it is either the old file or the new one."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix) to write to; on success it replaces
    ``path`` (with the usual permissions), on failure it is removed."""
    path = Path(path)
    fd, name = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}"
    )
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_figure(path: Path) -> Iterator[Any]:
    """The axes of a new 7 x 4 inch matplotlib figure (the Agg backend) to draw on; when
    the block ends without an error the figure is laid out tight and written to ``path`` as
    :func:`atomic_path` writes (the format its suffix names, SVG without one). The figure is
    closed either way. Needs matplotlib (the ``train`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        yield ax
        fig.tight_layout()
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=path.suffix.lstrip(".") or "svg")
    finally:
        plt.close(fig)


@functools.cache
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    """:func:`atomic_write_bytes` of UTF-8 text."""
    atomic_write_bytes(path, text.encode())
