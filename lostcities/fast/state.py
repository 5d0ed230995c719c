"""A core :class:`~lostcities.Round` as a compact array, and :class:`FastRound` over it.

>>> from lostcities import Round
>>> r = Round.deal(seed=3)
>>> f = FastRound.from_round(r)
>>> f.legal_moves() == list(r.legal_moves())
True
>>> f.push(f.legal_moves()[0]); f.ply
1
"""

from __future__ import annotations

import warnings

import numpy as np
import numpy.typing as npt

from lostcities.cards import get_variant
from lostcities.errors import IllegalMoveError, InvalidMoveError
from lostcities.fast import kernels as K
from lostcities.rules import NUM_MOVES, Move, Round, Termination

__all__ = ["FastRound", "action_of", "encode_round", "move_of", "state_from_round"]

State = npt.NDArray[np.int32]

_TERMINATION = {
    None: K.OVER_RUNNING,
    Termination.DRAW_PILE_EMPTY: K.OVER_DRAW_PILE,
    Termination.TURN_LIMIT: K.OVER_TURN_LIMIT,
    Termination.FORFEIT: K.OVER_FORFEIT,
}
_TERMINATION_OF: dict[int, Termination | None] = {v: k for k, v in _TERMINATION.items()}
_MOVES: tuple[Move, ...] = tuple(map(Move.from_index, range(NUM_MOVES)))  # by action


def action_of(move: Move) -> int:
    """Deprecated (removed in 0.4.0): use :attr:`Move.index <lostcities.Move.index>`, the
    flat action index itself (the fast path's actions are the project's move numbering)."""
    warnings.warn(
        "lostcities.fast.action_of is deprecated and will be removed in 0.4.0: use Move.index",
        DeprecationWarning,
        stacklevel=2,
    )
    return move.index


def move_of(action: int) -> Move:
    """Deprecated (removed in 0.4.0): use :meth:`Move.from_index
    <lostcities.Move.from_index>`, which takes NumPy integers too.

    :raises InvalidMoveError: for an index outside ``0 .. 839``.
    """
    warnings.warn(
        "lostcities.fast.move_of is deprecated and will be removed in 0.4.0: use Move.from_index",
        DeprecationWarning,
        stacklevel=2,
    )
    return _move_of_action(action)


def _move_of_action(action: int) -> Move:
    """The move of a flat action index given to :meth:`FastRound.push`."""
    if not isinstance(action, int | np.integer) or not 0 <= action < NUM_MOVES:
        raise InvalidMoveError(f"invalid action index: {action!r} (expected 0..839)")
    return Move.from_index(int(action))


def encode_round(r: Round) -> tuple[bytes, bytes, int, int, int, int, int]:
    """The arguments of :func:`lostcities.fast.kernels.decode` for ``r`` (read from its
    :meth:`~lostcities.Round.tables`: hands in slot order, the draw pile next card last)."""
    t = r.tables()
    seqs = [*t.hands, t.deck, *t.piles, *t.expeditions[0], *t.expeditions[1], *t.known]
    return (
        bytes([c.index for q in seqs for c in q]),
        bytes(map(len, seqs)),
        r.variant.num_colors,
        r.to_move,
        r.ply,
        _TERMINATION[r.termination],
        r.max_turns or 0,
    )


def state_from_round(r: Round, out: State | None = None) -> State:
    """The array state of ``r`` (any position, also one from ``PlayerView.sample_round``);
    written into ``out`` when given (e.g. a row of a batch)."""
    s = np.empty(K.STATE_SIZE, np.int32) if out is None else out
    K.decode(*encode_round(r), s)
    return s


class FastRound:
    """A round on the fast path: the rules of :class:`~lostcities.Round` over an array
    state, for bulk simulation. Build one from any core round with :meth:`from_round`.

    Moves are given as :class:`~lostcities.Move` or flat action indexes
    (:attr:`Move.index <lostcities.Move.index>`).
    """

    __slots__ = ("_buf", "state", "variant")

    def __init__(self, state: State, variant: str = "classic") -> None:
        self.state = state
        """The array state (layout in :mod:`lostcities.fast.kernels`)."""
        self.variant = get_variant(variant)
        """The variant."""
        self._buf = np.empty(K.MAX_LEGAL, np.int64)

    @classmethod
    def from_round(cls, r: Round) -> FastRound:
        """A fast copy of ``r``'s position (``r`` is unchanged)."""
        return cls(state_from_round(r), r.variant.name)

    def copy(self) -> FastRound:
        """An independent copy."""
        return FastRound(self.state.copy(), self.variant.name)

    @property
    def to_move(self) -> int:
        """The player to move (after the end: the one who moved last)."""
        return int(self.state[K.TURN])

    @property
    def ply(self) -> int:
        """Moves made in the round."""
        return int(self.state[K.PLY])

    @property
    def deck_size(self) -> int:
        """Cards left in the draw pile."""
        return int(self.state[K.NDECK])

    def is_over(self) -> bool:
        """Whether the round has ended."""
        return bool(self.state[K.OVER])

    @property
    def termination(self) -> Termination | None:
        """How the round ended, ``None`` while it goes on."""
        return _TERMINATION_OF[int(self.state[K.OVER])]

    def legal_actions(self) -> npt.NDArray[np.int64]:
        """The distinct legal moves as flat action indexes, in the core's order."""
        n = K.gen_legal(self.state, self._buf, False)
        return self._buf[:n].copy()

    def legal_moves(self) -> list[Move]:
        """The distinct legal moves, equal to (and ordered as) ``Round.legal_moves()``."""
        n = K.gen_legal(self.state, self._buf, False)
        return [_MOVES[a] for a in self._buf[:n].tolist()]

    def is_legal(self, move: Move | int) -> bool:
        """Whether ``move`` (a Move or an action index) is legal now."""
        a = move.index if isinstance(move, Move) else int(move)
        return bool(K.is_legal(self.state, a))

    def push(self, move: Move | int) -> None:
        """Make a move (a Move or an action index), checking it is legal.

        :raises IllegalMoveError: if it is not legal here; nothing changes.
        :raises InvalidMoveError: for an action index outside ``0 .. 839``.
        """
        a = move.index if isinstance(move, Move) else _move_of_action(move).index
        if not K.is_legal(self.state, a):
            raise IllegalMoveError(f"illegal move: {str(_MOVES[a])!r}")
        K.apply(self.state, a)

    def scores(self) -> tuple[int, int]:
        """Both players' points as the expeditions stand."""
        return int(K.score(self.state, 0)), int(K.score(self.state, 1))

    def playout(self) -> tuple[int, int]:
        """Play a copy to the end with the rollout policy of :mod:`lostcities.bots.rollout`;
        the final scores. This round is unchanged."""
        a, b = K.playout_scores(self.state.copy())
        return int(a), int(b)

    def __repr__(self) -> str:
        state = "over" if self.is_over() else f"player {self.to_move} to move"
        return f"<FastRound {self.variant.name} ply {self.ply}, {state}, deck {self.deck_size}>"
