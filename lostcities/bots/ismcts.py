"""``ismcts``: Monte Carlo search over sampled worlds (determinization), in two modes.

Every iteration deals the hidden cards (the opponent's unknown hand cards and the draw
pile) at random consistently with the bot's view, as
:meth:`~lostcities.PlayerView.sample_round` does (the cards the opponent is known to hold
stay in its hand), and plays the world to the end of the round with a rollout policy. The
reward is ``tanh(margin / scale)`` from the bot's point of view.

The moves searched at the root are the :mod:`heuristic bot's <lostcities.bots.heuristic>`
``top`` best card actions (default 3), each with the draw the heuristic picks for it and
with a draw from the draw pile (``top=0``: every legal move).

``mode=flat`` (the default; determinized flat Monte Carlo): each sampled world is played
out once after *every* candidate move (common random numbers: the candidates are compared
on the same deals, which removes most of the noise of the deal), and the move with the best
mean reward is played. With the budgets a 1 s move allows in Python this measured stronger
than the tree (see ``docs/performance.md``).

``mode=tree`` (single-observer information-set MCTS, Cowling, Powley and Whitehouse 2012):
one tree shared by all sampled worlds; below the root a turn is two tree levels (the card
action, then the draw), a node chooses among the options legal in the current world with
UCB where a child's *availability* counts the iterations in which it could have been
chosen, untried card actions are added in the order of a cheap prior and only as the
visit count grows (progressive widening); the tree grows at most ``depth`` moves deep.

Rollouts: ``rollout=smart`` (default) is :func:`smart_playout`, a pure-Python policy that
opens strong expeditions and plays them up; ``rollout=cheap`` is
:func:`lostcities.bots.rollout.playout` (compiled with numba when available, about 5 times
faster per rollout but it never opens an expedition, which biases the search against
opening). ``rollout=fast`` is a deprecated name of ``cheap`` (accepted, with a
:class:`DeprecationWarning`, until 0.4.0; "fast" is the compiled engine, ``engine=fast``).
Both always end: they draw from the draw pile (or a pile top they can play).

Options (spec ``ismcts:time=0.5``, ``ismcts:iters=2000,mode=tree,c=0.7``):

``time``     seconds per move (default 1 when ``iters`` is not given);
``iters``    rollouts per move: fully deterministic given the seed (unless a ``time_limit``
             passed to :meth:`IsmctsBot.choose` cuts the search short);
``mode``     ``flat`` (default) or ``tree``;
``rollout``  ``smart`` (default) or ``cheap`` (``fast``: deprecated name of ``cheap``,
             removed in 0.4.0); ``learned`` and ``jitter`` (with their options ``judge``,
             ``jitter`` and ``eps``) were removed in 0.4.0, no stronger than ``smart``
             (:data:`lostcities.bots.flat.REMOVED_ROLLOUTS`): a spec naming them is refused;
``top``      heuristic card actions searched at the root (default 3; 0 = every legal move);
``c``        the UCB exploration constant (default 0.7, tree mode);
``depth``    most moves from the root the tree grows (default 8, tree mode);
``widen``    progressive-widening exponent (default 0.5; 0 turns widening off);
``scale``    points of margin that give a reward of tanh(1) (default 15,
             :data:`lostcities.scoring.MARGIN_SCALE`, as for the compiled search);
``goals``    ``on`` (default) or ``off``: ``off`` searches as if the round had no goals
             (goal-blind play, for measuring what valuing them is worth);
``engine``   ``fast`` (default when numba is installed: the flat search runs compiled in
             :mod:`lostcities.fast.search`, about 25 times the rollouts per second, the
             same moves for the same ``iters`` and seed) or ``python``. In the
             achievements variant the search always runs in Python (the compiled engine
             knows no goals), so its rollouts claim goals and its rewards count them;
``match``    in a round of a match (the view's :class:`~lostcities.MatchContext`), 1
             (default): the reward is the chance the margin gives to win the match
             (:func:`lostcities.bots.matchplay.match_utility`); 0: ``tanh(margin /
             scale)`` as in a lone round (match-blind);
``msd``      the standard deviation of a later round's margin that match value assumes
             (points, default 35, :data:`lostcities.bots.matchplay.ROUND_MARGIN_SD`).

A single legal move is returned at once.

>>> from lostcities import Round
>>> r = Round.deal(seed=4)
>>> bot = IsmctsBot(iters=50, seed=1, engine="python")
>>> m = bot.choose(r.view(0))
>>> m == IsmctsBot(iters=50, seed=1, engine="python").choose(r.view(0)) and m in r.legal_moves()
True
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
import warnings
from collections.abc import Callable

from lostcities.bots.base import Bot, BotError, BotSpecError, SearchSetup
from lostcities.bots.flat import (
    PythonFlatSearch,
    fast_engine_available,
    flat_search,
)
from lostcities.bots.heuristic import HeuristicBot, goals_option
from lostcities.bots.matchplay import ROUND_MARGIN_SD, match_reward
from lostcities.bots.rollout import DISCARD_KEY_BASE, MOVES, playout, smart_playout
from lostcities.bots.searchbot import SearchBot, check_rollout, search_spec
from lostcities.cards import ALL_CARDS
from lostcities.rules import Action, Move, PlayerView, Round, playable
from lostcities.scoring import MARGIN_SCALE

__all__ = ["ROLLOUTS", "IsmctsBot", "fast_engine_available", "flat_totals", "smart_playout"]

ROLLOUTS = ("smart", "cheap")
"""The rollout policies (option ``rollout``); ``fast`` is accepted as a deprecated name of
``cheap``."""

_PLAY = Action.PLAY
_DISCARD = Action.DISCARD
# card-level keys: card index (play) or 60 + card index (discard);
# draw-level keys: 0 for the draw pile, 1 + colour for a discard pile
_DISCARD_BASE = DISCARD_KEY_BASE


class _Node:
    __slots__ = ("children", "n", "w", "avail", "order")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0
        self.order: dict[int, int] | None = None  # root only: key -> expansion rank


def _card_key(action: Action, card_index: int) -> int:
    return card_index if action is _PLAY else _DISCARD_BASE + card_index


def _move_of(key: int, draw_key: int) -> Move:
    """The move of a card-level and a draw-level key: their :attr:`Move.index` is
    ``key * 7 + draw_key``."""
    return MOVES[key * 7 + draw_key]


def _prior(world: Round, key: int) -> float:
    """A cheap preference for expanding a card action first (higher first)."""
    p = world.to_move
    t = world.tables()
    tops = t.tops[p]
    exp = t.expeditions[p]
    if key >= _DISCARD_BASE:
        card = ALL_CARDS[key - _DISCARD_BASE]
        c = card.color
        if t.expeditions[p ^ 1][c] and playable(card.rank, t.tops[p ^ 1][c]):
            return -card.rank  # feeds the opponent
        if not playable(card.rank, tops[c]):
            return 6.0  # dead card
        return 3.0 - card.rank / 5
    card = ALL_CARDS[key]
    c = card.color
    if exp[c]:
        return 10.0 - (card.rank - tops[c] if card.rank else 0)
    hand_sum = sum(h.rank for h in t.hands[p] if h.color == c)
    return (hand_sum - 22) / 4 - (card.rank - 2) / 2


def flat_totals(
    view: PlayerView,
    candidates: list[Move],
    worlds: int,
    rng: random.Random,
    scale: float = MARGIN_SCALE,
    play: Callable[[Round], tuple[int, int]] = smart_playout,
) -> list[float]:
    """The flat search of the Python engine for a fixed number of ``worlds``: the summed
    rewards of each candidate, drawing worlds from ``rng`` exactly as the bot does (the
    reference the compiled engine is checked and timed against;
    :class:`lostcities.bots.flat.PythonFlatSearch` with ``play``)."""
    if not candidates:
        return []
    search = PythonFlatSearch(view, candidates, scale=scale, rng=rng, play=play)
    search.run(worlds)
    return search.value_sums


class IsmctsBot(SearchBot):
    """Information-set MCTS with rollouts; see the module docstring for the options.

    :param time: seconds per move (used when ``iters`` is ``None``; default 1).
    :param iters: iterations per move (deterministic given the seed).
    :raises BotSpecError: for a budget that is not positive.
    """

    name = "ismcts"

    def __init__(
        self,
        time: float | None = None,
        iters: int | None = None,
        seed: int | None = None,
        *,
        c: float = 0.7,
        depth: int = 8,
        widen: float = 0.5,
        scale: float = MARGIN_SCALE,
        rollout: str = "smart",
        top: int = 3,
        mode: str = "flat",
        engine: str | None = None,
        goals: bool = True,
        match: bool = True,
        msd: float = ROUND_MARGIN_SD,
    ) -> None:
        super().__init__(seed, time, iters, match=match, msd=msd)
        if c < 0 or depth < 1 or widen < 0 or scale <= 0:
            raise BotSpecError(
                "invalid bot spec: ismcts needs c >= 0, depth >= 1, widen >= 0, scale > 0"
            )
        self.c = c
        self.depth = depth
        self.widen = widen
        self.scale = scale
        if rollout == "fast":
            warnings.warn(
                "ismcts rollout=fast is deprecated and will be removed in 0.4.0: "
                "it is called rollout=cheap",
                DeprecationWarning,
                stacklevel=2,
            )
            rollout = "cheap"
        check_rollout("ismcts", rollout, ROLLOUTS)
        self.rollout = rollout
        """The rollout policy: ``smart`` or ``cheap`` (``fast`` given is stored as ``cheap``)."""
        if top < 0:
            raise BotSpecError(f"invalid bot spec: ismcts top must be >= 0, not {top}")
        self.top = top
        if mode not in ("tree", "flat"):
            raise BotSpecError(f"invalid bot spec: ismcts mode must be tree or flat, not {mode!r}")
        self.mode = mode
        if engine is None:
            engine = "fast" if fast_engine_available() else "python"
        if engine not in ("fast", "python"):
            raise BotSpecError(
                f"invalid bot spec: ismcts engine must be fast or python, not {engine!r}"
            )
        if engine == "fast" and not fast_engine_available():
            raise BotSpecError(
                "invalid bot spec: ismcts engine=fast needs numba (pip install 'lostcities[fast]')"
            )
        self.engine = engine
        self.goals = goals
        """Whether the search values the achievements variant's goals (``goals=off``: not)."""
        self._reward: Callable[[int], float] | None = None
        self._playout = smart_playout if rollout == "smart" else playout
        self._heuristic = HeuristicBot(seed=seed)
        self.last_iterations = 0
        """Iterations of the last search (for benchmarks)."""

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int | None = None) -> Bot:
        """Build from spec options ``time``, ``iters``, ``c``, ``depth``, ``widen``, ``scale``.

        :raises BotSpecError: for an unknown option or a bad value, or a removed rollout
            policy or option (:func:`lostcities.bots.flat.removed_in_spec`).
        """
        o = search_spec(
            "ismcts",
            options,
            (
                "time",
                "iters",
                "c",
                "depth",
                "widen",
                "scale",
                "rollout",
                "top",
                "mode",
                "engine",
                "goals",
                "match",
                "msd",
            ),
        )
        time_ = o.number("time", math.nan)
        depth = o.whole("depth", 8)
        top = o.whole("top", 3)
        assert depth is not None and top is not None
        match, msd = cls.match_options(o)
        return cls(
            time=None if math.isnan(time_) else time_,
            iters=o.whole("iters", None),
            seed=seed,
            c=o.number("c", 0.7),
            depth=depth,
            widen=o.number("widen", 0.5),
            scale=o.number("scale", MARGIN_SCALE),
            rollout=options.get("rollout", "smart").lower(),
            top=top,
            mode=options.get("mode", "flat").lower(),
            engine=options["engine"].lower() if "engine" in options else None,
            goals=goals_option("ismcts", options),
            match=match,
            msd=msd,
        )

    def reseed(self, seed: int | None) -> None:
        """Start the bot's random numbers (the search's and the heuristic's that ranks the
        candidates) afresh from ``seed``."""
        super().reseed(seed)
        self._heuristic.reseed(seed)

    # -- search ------------------------------------------------------------------------

    def search_candidates(self, view: PlayerView) -> list[Move]:
        """The moves the search compares at the root for ``view`` (it is the viewer's
        turn): the heuristic's ``top`` best card actions, each with the draw the heuristic
        picks for it and with a draw from the draw pile; every legal move when ``top`` is 0.
        :func:`lostcities.bots.analysis.analyse` evaluates these."""
        if not self.top:
            return list(view.legal_moves())
        return self._root_moves(self._heuristic.rank_moves(view))

    def search_setup(self, view: PlayerView) -> SearchSetup:
        """:meth:`search_candidates` and the search's settings, for the analysis."""
        return SearchSetup(
            self.search_candidates(view),
            self.scale,
            self.rollout,
            self.engine,
            self.iters,
            self.time,
        )

    def _root_moves(self, ranked: list[tuple[float, Move]]) -> list[Move]:
        # the heuristic's best card actions, each with its chosen draw and the draw pile
        candidates: list[Move] = []
        for _, m in ranked[: self.top]:
            candidates.append(m)
            if m.draw is not None:
                candidates.append(_move_of(_card_key(m.action, m.card.index), 0))
        return candidates

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        if view.achievements is not None and not self.goals:
            view = dataclasses.replace(view, achievements=None)
        moves = view.legal_moves()
        if not moves:
            raise BotError("ismcts: no legal move (not this bot's turn?)")
        if len(moves) == 1:
            self.last_iterations = 0
            return moves[0]
        start = time.perf_counter()
        deadline = math.inf
        if self.iters is None and self.time is not None:
            deadline = start + self.time
        if time_limit is not None:
            deadline = min(deadline, start + 0.85 * time_limit)
        root = _Node()
        ranked = self._heuristic.rank_moves(view)
        candidates: list[Move] | None = None
        if self.top:
            candidates = self._root_moves(ranked)
        else:
            order: dict[int, int] = {}
            for _, m in ranked:
                order.setdefault(_card_key(m.action, m.card.index), len(order))
            root.order = order
        # in a round of a match: the match's value of a margin (None: tanh(margin / scale))
        self._reward = (
            match_reward(view.match, sd=self.msd, scale=self.scale) if self.match else None
        )
        if self.mode == "flat":
            return self._flat(view, candidates or list(moves), deadline)
        me = view.player
        rng = self.rng
        sampler = view.sampler()
        i = 0
        while True:
            if self.iters is not None and i >= self.iters:
                break
            if i & 15 == 0 and time.perf_counter() >= deadline and i > 0:
                break
            self._iterate(root, sampler.sample(rng), me, candidates)
            i += 1
        self.last_iterations = i
        if not root.children:  # pragma: no cover - at least one iteration always runs
            return ranked[0][1]
        if candidates is not None:
            arm = max(root.children, key=lambda k: (root.children[k].n, root.children[k].w))
            return candidates[arm]
        key = max(root.children, key=lambda k: (root.children[k].n, root.children[k].w))
        node = root.children[key]
        if not node.children:  # pragma: no cover - a visited card node has a draw child
            return _move_of(key, 0)
        dkey = max(node.children, key=lambda k: (node.children[k].n, node.children[k].w))
        return _move_of(key, dkey)

    def _flat(self, view: PlayerView, candidates: list[Move], deadline: float) -> Move:
        """Flat Monte Carlo with common random numbers (:func:`lostcities.bots.flat.flat_search`
        on the bot's engine): every sampled world is played out once after each candidate
        move, so the candidates are compared on the same deals."""
        k = len(candidates)
        if k == 1:
            self.last_iterations = 0
            return candidates[0]
        # the compiled engine plays the classic game: goal games search in Python, whose
        # rollouts claim goals and score them
        search = flat_search(
            view,
            candidates,
            engine=self.engine,
            scale=self.scale,
            rollout=self.rollout,
            rng=self.rng,
            reward=self._reward,
        )
        max_worlds = None if self.iters is None else -(-self.iters // k)
        if deadline == math.inf:
            search.run(max_worlds or 1)
        else:
            search.run_until(deadline, max_worlds)
        self.last_iterations = search.worlds * k
        sums = [float(x) for x in search.value_sums]
        return candidates[max(range(k), key=lambda j: (sums[j], -j))]

    def _select(
        self, node: _Node, keys: list[int], world: Round, card_level: bool
    ) -> tuple[int, bool]:
        """Pick a child key among ``keys`` (the options legal in this world); create it if
        new. Returns the key and whether a node was added."""
        children = node.children
        avail = [k for k in keys if k in children]
        for k in avail:
            children[k].avail += 1
        limit = len(keys)
        if self.widen > 0 and card_level:
            limit = 1 + int((node.n + 1) ** self.widen)
        if len(avail) < len(keys) and (len(avail) < limit or not avail):
            untried = [k for k in keys if k not in children]
            if node.order is not None:
                rank = node.order
                pick = min(untried, key=lambda k: rank.get(k, 1000))
            elif card_level:
                pick = max(untried, key=lambda k: _prior(world, k))
            else:
                pick = untried[0]
            child = _Node()
            child.avail = 1
            children[pick] = child
            return pick, True
        best = avail[0]
        best_v = -math.inf
        cexp = self.c
        for k in avail:
            ch = children[k]
            v = ch.w / ch.n + cexp * math.sqrt(math.log(ch.avail) / ch.n) if ch.n else math.inf
            if v > best_v:
                best_v = v
                best = k
        return best, False

    def _iterate(self, root: _Node, world: Round, me: int, candidates: list[Move] | None) -> None:
        path: list[tuple[_Node, int]] = []
        node = root
        depth = 0
        if candidates is not None:
            # the root's arms: a few whole moves, all available in every world
            children = root.children
            if len(children) < len(candidates):
                arm = len(children)
                children[arm] = _Node()
            else:
                log_n = math.log(root.n)
                cexp = self.c
                arm = max(
                    children,
                    key=lambda k: (
                        children[k].w / children[k].n + cexp * math.sqrt(log_n / children[k].n)
                    ),
                )
            node = children[arm]
            path.append((node, me))
            world.push_unchecked(candidates[arm])
            depth = 1
        while not world.is_over() and depth < self.depth:
            p = world.to_move
            lm = world.legal_moves()
            keys = [c.index for c in lm.cards(_PLAY)]
            keys += [_DISCARD_BASE + c.index for c in lm.cards(_DISCARD)]
            key, added = self._select(node, keys, world, True)
            child = node.children[key]
            path.append((child, p))
            if key >= _DISCARD_BASE:
                action, card = _DISCARD, ALL_CARDS[key - _DISCARD_BASE]
            else:
                action, card = _PLAY, ALL_CARDS[key]
            dkeys = [0 if s is None else s + 1 for s in lm.draws(action, card)]
            dkey, added2 = self._select(child, dkeys, world, False)
            node = child.children[dkey]
            path.append((node, p))
            world.push_unchecked(_move_of(key, dkey))
            depth += 1
            if added or added2:
                break
        s = self._playout(world)
        margin = s[me] - s[me ^ 1]
        r = math.tanh(margin / self.scale) if self._reward is None else self._reward(margin)
        root.n += 1
        for n, p in path:
            n.n += 1
            n.w += r if p == me else -r
