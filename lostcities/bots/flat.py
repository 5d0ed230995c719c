"""One flat Monte Carlo search over sampled worlds, on either engine.

Flat Monte Carlo with common random numbers: every sampled world (the hidden cards dealt at
random consistently with the view, :class:`~lostcities.WorldSampler`) is played out once
after *each* candidate move, and each candidate's rewards (``tanh(margin / scale)``, or a
given reward of the margin) and final margins are summed. The ``ismcts`` and ``expert``
bots and the analysis (:mod:`lostcities.bots.analysis`) all search this way, through one
factory, :func:`flat_search`:

- ``engine="fast"``: :class:`lostcities.fast.search.FlatSearch`, compiled with numba;
- ``engine="python"`` (and any view of the achievements variant, whose goals the compiled
  engine does not know): :class:`PythonFlatSearch`, its twin on the pure-Python core, with
  the same interface.

Given the same candidates, generator (``rng``) state and number of worlds, the two deal
the same worlds, leave the generator in the same state and sum bit-for-bit the same totals
(``tests/bots/test_flat.py``); without ``rng`` the compiled ``cheap`` search draws from its
own xorshift generator instead, which the twin does not replay.

>>> import random
>>> from lostcities import Round
>>> view = Round.deal(seed=4).view(0)
>>> moves = list(view.legal_moves())[:3]
>>> s = flat_search(view, moves, engine="python", rollout="smart", rng=random.Random(1))
>>> s.run(4)
>>> s.worlds, len(s.values()), sum(s.margin_sums) != 0
(4, 3, True)
"""

from __future__ import annotations

import importlib.util
import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from lostcities.bots.rollout import playout, smart_playout
from lostcities.cards import Card
from lostcities.errors import IllegalMoveError
from lostcities.rules import Move, PlayerView, Round
from lostcities.scoring import MARGIN_SCALE

if TYPE_CHECKING:
    from lostcities.fast.search import FlatSearch

__all__ = [
    "ENGINES",
    "FLAT_ROLLOUTS",
    "REMOVED_OPTIONS",
    "REMOVED_ROLLOUTS",
    "FlatSearcher",
    "PythonFlatSearch",
    "SearchSetup",
    "check_candidates",
    "fast_engine_available",
    "flat_search",
    "removed_in_spec",
    "removed_rollout",
]


@dataclass(frozen=True)
class SearchSetup:
    """What a search bot compares at the root of ``view`` and how, as this module's flat
    search takes it (:meth:`Bot.search_setup <lostcities.bots.Bot.search_setup>`): the
    analysis (:mod:`lostcities.bots.analysis`) plays the same candidates out the same way.
    Also importable as ``lostcities.bots.SearchSetup``."""

    candidates: list[Move]
    """The moves the search compares, best first by the bot's own ordering."""
    scale: float
    """Points of margin that give a reward of ``tanh(1)``."""
    rollout: str
    """The rollout policy: ``"smart"`` or ``"cheap"``."""
    engine: str
    """``"fast"`` (compiled) or ``"python"``."""
    iters: int | None
    """Playouts per move, or ``None`` for a time budget."""
    time: float | None
    """Seconds per move, or ``None`` with ``iters``."""


ENGINES = ("fast", "python")
"""The engines a flat search runs on (:func:`flat_search`)."""

FLAT_ROLLOUTS = ("cheap", "smart")
"""The rollout policies of :class:`PythonFlatSearch`: :func:`~lostcities.bots.rollout.playout`
and :func:`~lostcities.bots.rollout.smart_playout`."""

REMOVED_ROLLOUTS = {"learned": "0.4.0", "jitter": "0.4.0"}
"""Rollout policies that were tried and removed, with the version that removed them: issue
24's learned judge (``rollout=learned``, a compiled policy network trained to imitate the
search) and its jittered ``smart`` (``rollout=jitter``, ``smart``'s thresholds drawn at
random per world) measured level with or behind ``smart`` (their figures stay in
``docs/performance.md``). A spec that names one is refused with the reason
(:func:`removed_rollout`); a new rollout policy earns its place by winning."""

REMOVED_OPTIONS = {"judge": "learned", "jitter": "jitter", "eps": "jitter"}
"""Search bot options that went with a removed rollout policy (:data:`REMOVED_ROLLOUTS`):
option -> that policy."""


def removed_rollout(rollout: str) -> str | None:
    """Why ``rollout`` is refused when it names a removed rollout policy
    (:data:`REMOVED_ROLLOUTS`; one line, to follow a bot's name), else ``None``.

    >>> removed_rollout("learned")
    'rollout=learned was removed in 0.4.0: it was no stronger than smart; use rollout=smart'
    >>> removed_rollout("smart") is None
    True
    """
    version = REMOVED_ROLLOUTS.get(rollout)
    if version is None:
        return None
    return (
        f"rollout={rollout} was removed in {version}: it was no stronger than smart; "
        "use rollout=smart"
    )


def removed_in_spec(options: Mapping[str, str]) -> str | None:
    """Why a search bot's spec ``options`` are refused when they name a removed rollout
    policy or one of its options (:data:`REMOVED_OPTIONS`), else ``None``; the rollout is
    named first, as the options' values are read (lower case).

    >>> removed_in_spec({"iters": "100", "eps": "0.1"})
    'eps= was removed in 0.4.0 with rollout=jitter, which was no stronger than smart'
    """
    why = removed_rollout(options.get("rollout", "").lower())
    if why is not None:
        return why
    for key in options:
        if key in REMOVED_OPTIONS:
            rollout = REMOVED_OPTIONS[key]
            return (
                f"{key}= was removed in {REMOVED_ROLLOUTS[rollout]} with rollout={rollout}, "
                "which was no stronger than smart"
            )
    return None


class FlatSearcher(Protocol):
    """What :func:`flat_search` returns, on either engine: the interface of
    :class:`lostcities.fast.search.FlatSearch` (see there) and of :class:`PythonFlatSearch`."""

    @property
    def candidates(self) -> list[Move]:
        """The moves compared, in order."""
        ...

    @property
    def worlds(self) -> int:
        """Worlds played so far."""
        ...

    @property
    def value_sums(self) -> Iterable[float]:
        """Per candidate: the sum of its rewards so far."""
        ...

    @property
    def margin_sums(self) -> Iterable[int]:
        """Per candidate: the sum of its final score margins so far."""
        ...

    def run(self, worlds: int) -> None:
        """Play ``worlds`` more worlds (each candidate once in each)."""
        ...

    def margins(self, worlds: int) -> Iterable[Iterable[int]]:
        """Play ``worlds`` more worlds; row ``w``, column ``j``: candidate ``j``'s margin in
        world ``w`` (with a ``reward``, :attr:`value_sums` is left to the caller)."""
        ...

    def run_until(self, deadline: float, max_worlds: int | None = None) -> None:
        """Play worlds until ``time.perf_counter()`` reaches ``deadline`` (at least one)
        or ``max_worlds`` more were played."""
        ...

    def values(self) -> list[float]:
        """Each candidate's mean reward so far (0 before any world)."""
        ...


_FAST_ENGINE: bool | None = None


def fast_engine_available() -> bool:
    """Whether the compiled flat search (:mod:`lostcities.fast.search`, numba) can run."""
    global _FAST_ENGINE
    if _FAST_ENGINE is None:
        try:
            if importlib.util.find_spec("numba") is None:
                raise ImportError("numba")
            import lostcities.fast.search  # noqa: F401
        except ImportError:
            _FAST_ENGINE = False
        else:
            _FAST_ENGINE = True
    return _FAST_ENGINE


def flat_search(
    view: PlayerView,
    candidates: Sequence[Move],
    *,
    engine: str = "fast",
    scale: float = MARGIN_SCALE,
    seed: int | None = None,
    rollout: str = "cheap",
    rng: random.Random | None = None,
    hands: Sequence[Sequence[Card]] | None = None,
    reward: Callable[[int], float] | None = None,
) -> FlatSearcher:
    """The flat search of ``candidates`` for ``view`` on ``engine`` (module docs): the
    compiled :class:`~lostcities.fast.search.FlatSearch` for ``"fast"`` and a classic view,
    else :class:`PythonFlatSearch`; the other arguments as for both.

    :raises ValueError: for an unknown ``engine``, a removed ``rollout``
        (:func:`removed_rollout`) and as the searches raise.
    :raises ImportError: for ``engine="fast"`` without numba
        (:func:`fast_engine_available` says beforehand).
    """
    if engine not in ENGINES:
        raise ValueError(f"flat search: engine must be fast or python, not {engine!r}")
    why = removed_rollout(rollout)
    if why is not None:
        raise ValueError(f"flat search: {why}")
    search: type[FlatSearch | PythonFlatSearch] = PythonFlatSearch
    if engine == "fast" and view.achievements is None:
        from lostcities.fast.search import FlatSearch

        search = FlatSearch
    return search(
        view,
        candidates,
        scale=scale,
        seed=seed,
        rollout=rollout,
        rng=rng,
        hands=hands,
        reward=reward,
    )


def check_candidates(view: PlayerView, candidates: Sequence[Move]) -> None:
    """Check that every one of ``candidates`` is legal for the viewer of ``view`` now (the
    twin's and the analysis's check, with the reason the core gives).

    :raises IllegalMoveError: for the first that is not (any, when it is not the viewer's
        turn).
    """
    if candidates and (view.over or view.to_move != view.player):
        raise IllegalMoveError(
            f"illegal move: {str(candidates[0])!r} (not legal for player {view.player} now)"
        )
    for m in candidates:
        if not view.is_legal(m):
            raise IllegalMoveError(f"illegal move: {str(m)!r} ({view.why_illegal(m)})")


class PythonFlatSearch:
    """The flat search on the pure-Python core: the twin of
    :class:`lostcities.fast.search.FlatSearch`, with its arguments, attributes and methods
    (lists where it has arrays), for the achievements variant (its rollouts claim and score
    goals) and for installs without numba.

    Each world is ``view.sampler().sample(rng)`` (or, with ``hands``, the next given hand
    and the other unseen cards shuffled with ``rng`` into the draw pile); each candidate is
    made on a copy and played out with ``rollout`` (``"cheap"``:
    :func:`~lostcities.bots.rollout.playout`, ``"smart"``:
    :func:`~lostcities.bots.rollout.smart_playout`; ``play``: any such function instead),
    and its reward and margin added, world after world, in candidate order. Without
    ``rng`` the worlds are drawn from ``random.Random(seed)``; any :class:`random.Random`
    works.

    :raises IllegalMoveError: if a candidate is not legal for the viewer now (also when it
        is not the viewer's turn).
    :raises ValueError: for no candidates, a ``scale`` that is not positive, an unknown
        ``rollout`` or given ``hands`` that do not fit.
    """

    def __init__(
        self,
        view: PlayerView,
        candidates: Sequence[Move],
        *,
        scale: float = MARGIN_SCALE,
        seed: int | None = None,
        rollout: str = "cheap",
        rng: random.Random | None = None,
        hands: Sequence[Sequence[Card]] | None = None,
        reward: Callable[[int], float] | None = None,
        play: Callable[[Round], tuple[int, int]] | None = None,
    ) -> None:
        if rollout not in FLAT_ROLLOUTS:
            raise ValueError(f"flat search: rollout must be cheap or smart, not {rollout!r}")
        if not candidates:
            raise ValueError("flat search: no candidate moves")
        if not scale > 0:
            raise ValueError(f"flat search: scale must be positive, not {scale!r}")
        check_candidates(view, candidates)
        self.view = view
        self.candidates = list(candidates)
        self.scale = float(scale)
        self.me = view.player
        self.opp = view.player ^ 1
        self.rollout = rollout
        self.rng = random.Random(seed) if rng is None else rng
        """The generator the worlds are dealt with (advanced as they are)."""
        self.sampler = view.sampler()
        self.play: Callable[[Round], tuple[int, int]] = (
            play if play is not None else smart_playout if rollout == "smart" else playout
        )
        """The playout of a world after a candidate (changes it; returns both scores)."""
        self.hands: list[tuple[list[Card], list[Card]]] | None = None
        """The given hidden hands of the opponent, each with the other unseen cards, or
        ``None``."""
        if hands is not None:
            self.hands = _hands_and_rests(self.sampler.unseen, self.sampler.hidden, hands)
        self.reward = reward
        """The reward of a final margin, or ``None`` for ``tanh(margin / scale)``."""
        self.worlds = 0
        """Worlds played so far."""
        self.value_sums = [0.0] * len(self.candidates)
        """Per candidate: the sum of its rewards so far."""
        self.margin_sums = [0] * len(self.candidates)
        """Per candidate: the sum of its final score margins so far."""

    def _world(self) -> Round:
        """The next world, dealt with :attr:`rng`."""
        if self.hands is None:
            return self.sampler.sample(self.rng)
        hand, rest = self.hands[self.worlds % len(self.hands)]
        cards = list(rest)
        self.rng.shuffle(cards)
        return self.sampler.deal([*hand, *cards])

    def _play_world(self, values: bool) -> list[int]:
        """Play one more world after every candidate; its margins (added to the sums, and
        the rewards too when ``values``)."""
        world = self._world()
        me, opp, play, scale, reward = self.me, self.opp, self.play, self.scale, self.reward
        sums = self.value_sums
        out = []
        for j, move in enumerate(self.candidates):
            w = world.copy(stack=False)
            w.push_unchecked(move)
            s = play(w)
            m = s[me] - s[opp]
            out.append(m)
            self.margin_sums[j] += m
            if values:
                sums[j] += math.tanh(m / scale) if reward is None else reward(m)
        self.worlds += 1
        return out

    def run(self, worlds: int) -> None:
        """Play ``worlds`` more worlds (each candidate once in each)."""
        for _ in range(max(worlds, 0)):
            self._play_world(True)

    def margins(self, worlds: int) -> list[list[int]]:
        """Play ``worlds`` more worlds as :meth:`run` does and return each world's final
        margins (row ``w``, column ``j``: candidate ``j``'s in world ``w``); with a
        ``reward``, :attr:`value_sums` is left to the caller, as the compiled search
        leaves it."""
        return [self._play_world(self.reward is None) for _ in range(max(worlds, 0))]

    def run_until(self, deadline: float, max_worlds: int | None = None) -> None:
        """Play worlds until ``time.perf_counter()`` reaches ``deadline`` (checked after
        every world; at least one world) or ``max_worlds`` more were played."""
        left = math.inf if max_worlds is None else max_worlds
        done = 0
        while done < left:
            if done and time.perf_counter() >= deadline:
                break
            self._play_world(True)
            done += 1

    def values(self) -> list[float]:
        """Each candidate's mean reward so far (0 before any world)."""
        if self.worlds == 0:
            return [0.0] * len(self.candidates)
        return [x / self.worlds for x in self.value_sums]


def _hands_and_rests(
    unseen: Sequence[Card], hidden: int, hands: Sequence[Sequence[Card]]
) -> list[tuple[list[Card], list[Card]]]:
    """Each given hidden hand, with the other unseen cards in their order (as
    :class:`lostcities.fast.search.FlatSearch` pairs them)."""
    if not hands:
        raise ValueError("flat search: no hands given")
    out = []
    for hand in hands:
        if len(hand) != hidden:
            raise ValueError(f"flat search: a given hand has {len(hand)} cards, not {hidden}")
        rest = list(unseen)
        for c in hand:
            try:
                rest.remove(c)
            except ValueError:
                raise ValueError(f"flat search: {c} of a given hand is not unseen") from None
        out.append((list(hand), rest))
    return out
