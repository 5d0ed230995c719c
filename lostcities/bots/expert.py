"""``expert``: search guided by the policy network.

The network (:mod:`lostcities.nn`) proposes the candidates: its ``top`` most probable
legal moves (default 4; one that draws from a discard pile also drawing from the draw
pile instead). Each is then tried in the same sampled worlds (the hidden cards dealt at
random by :class:`~lostcities.WorldSampler`, common random numbers) and played out by the
network itself on both sides for ``depth`` moves (30), where its value head judges the
position, batched over worlds and candidates (:mod:`lostcities.fast.netsearch`); the move
played maximises ``mean margin + prior * log(probability)`` (``prior`` 2 points), so the
network breaks the ties the rollouts cannot see and the rollouts overrule the network where
they clearly disagree. That is expert iteration's search (issue 36): :meth:`ExpertBot.scores`
gives every candidate's score, which ``lostcities train --teacher expert`` learns from.
``rollout=smart`` plays the worlds out with the hand-written smart policy instead
(:class:`lostcities.fast.search.FlatSearch`, the design before issue 36), scoring
``mean tanh(margin / scale) + prior * log(probability)``.

In the achievements variant the network (which knows no goals) proposes its candidates as
usual and the goal-aware ``heuristic``'s candidates (those ``ismcts`` searches) join them,
without the prior's penalty; the rounds are played out on the Python engine, whose rollouts
claim and score goals. Inference (``infer``) runs on the compiled engine only.

Options (``expert:time=0.5``, ``expert:iters=4000,top=4``):

``time``     seconds per move (default 1 when ``iters`` is not given);
``iters``    playouts per move (deterministic given the seed);
``top``      candidates taken from the network (default 4; 5 with ``rollout=smart``);
``prior``    weight of ``log(probability)``: points with ``rollout=net`` (default 2), on the
             reward's scale with ``rollout=smart`` (default 0.05);
``scale``    with ``rollout=smart``, points of margin that give a reward of tanh(1)
             (default 15; with ``rollout=net``, the points a reward is worth where the
             smart policy must play the worlds out instead: goal games, no numba);
``weights``  a weights file instead of the shipped network;
``infer``    with ``rollout=smart``: the opponent's last moves read for inference about its
             hand (default 0: off): the worlds' hidden hands are drawn in proportion to
             how likely the network finds those moves with them
             (:mod:`lostcities.nn.inference`);
``guesses``  hands weighed per move for that (default 64);
``power``    the inference's temper, 0 .. 1 (default 1);
``control``  with ``rollout=smart``: search-time control (default 0: off): a move whose
             best candidate leads every other by ``control`` standard errors (of the
             paired, common-random-number differences, from batch means of 16 worlds)
             once a quarter of its budget is spent stops early, and the budget saved is
             banked for close decisions later in the round, which may spend up to
             ``spend`` times their budget more (default 2); the average over a round stays within ``time``/``iters``;
``mix``      weight of the network's value in a candidate's score, 0 .. 1 (default 0):
             ``(1 - mix) * rollouts + mix * value``, the value being the mean over
             ``vworlds`` sampled worlds (default 16) of the network's value of the position
             after the candidate, for the opponent then to move, negated (on the
             rollouts' scale); ``mix=1`` plays no rollouts;
``endgame``  with this many cards or fewer left in the draw pile, search every legal move
             (the prior still weighs them) instead of the network's ``top`` (default 0: off);
``union``    1: the ``ismcts`` candidates (the heuristic's best card actions, each with its
             draw and the draw pile) join the network's in every game, their prior no
             lower than the network's last candidate's (default 0: only in goal games);
``match``    in a round of a match (the view's :class:`~lostcities.MatchContext`), 1
             (default): a world's reward is the chance its margin gives to win the match
             (:func:`lostcities.bots.matchplay.match_utility`: a leader protects a lead in
             the last round, a trailer takes risks); 0: the round's ``tanh(margin /
             scale)`` as in a lone round (match-blind, for comparison);
``msd``      the standard deviation of a later round's margin that match value assumes
             (points, default 35, :data:`lostcities.bots.matchplay.ROUND_MARGIN_SD`);
``rollout``  who plays the worlds out: ``net`` (default): the network itself on both
             sides, batched over worlds and candidates (:mod:`lostcities.fast.netsearch`;
             compiled engine only: goal games and a missing numba play ``smart``), or
             ``smart``: the hand-written policy; in a match the match value is read back
             as points (:meth:`ExpertBot.points`); ``learned`` and ``jitter`` (with their
             options ``judge``, ``jitter`` and ``eps``) were removed in 0.4.0, no stronger
             than ``smart``
             (:data:`lostcities.bots.flat.REMOVED_ROLLOUTS`): a spec naming them is refused;
``depth``    with ``rollout=net``: moves the network plays before its value head judges the
             position (default 30; 0: to the end of the round);
``draws``    with ``rollout=net``, 1 (default): a candidate that draws from a discard pile
             is also searched drawing from the draw pile; 0: not.

>>> from lostcities import Round
>>> r = Round.deal(seed=4)
>>> bot = ExpertBot(iters=200, seed=1)
>>> m = bot.choose(r.view(0))
>>> m in r.legal_moves() and m == ExpertBot(iters=200, seed=1).choose(r.view(0))
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from lostcities.bots.base import Bot, BotError, BotSpecError, SearchSetup
from lostcities.bots.flat import (
    FlatSearcher,
    fast_engine_available,
    flat_search,
)
from lostcities.bots.ismcts import IsmctsBot
from lostcities.bots.matchplay import ROUND_MARGIN_SD, match_reward, points_per_utility
from lostcities.bots.net import load_network
from lostcities.bots.searchbot import SearchBot, check_rollout, search_spec
from lostcities.cards import Card, Variant
from lostcities.nn import Network
from lostcities.nn.features import NUM_FEATURES, features
from lostcities.nn.inference import HandInference
from lostcities.nn.model import VALUE_SCALE
from lostcities.rules import Move, PlayerView

if TYPE_CHECKING:
    from lostcities.fast.netsearch import PackedNetwork

__all__ = ["ExpertBot", "clear_lead"]


NET_PRIOR = 2.0
"""``prior``'s default with ``rollout=net``: points per unit of log-probability (issue 36:
``mean margin + 2 ln p`` beat the network alone by +6.4 points a round; ``6 ln p`` +2.2)."""
NET_DEPTH = 30
"""``depth``'s default: rollout moves before the value head judges (issue 36: against
``net``, ``depth=30`` +9.2 points a round, to the end +6.4, on the same 200 rounds)."""


class ExpertBot(SearchBot):
    """Network-guided flat search over sampled worlds (see the module docs)."""

    name = "expert"

    def __init__(
        self,
        time: float | None = None,
        iters: int | None = None,
        seed: int | None = None,
        *,
        top: int | None = None,
        prior: float | None = None,
        scale: float = 15.0,
        weights: str | None = None,
        network: Network | None = None,
        infer: int = 0,
        guesses: int = 64,
        power: float = 1.0,
        control: float = 0.0,
        spend: float = 2.0,
        endgame: int = 0,
        mix: float = 0.0,
        vworlds: int = 16,
        union: bool = False,
        match: bool = True,
        msd: float = ROUND_MARGIN_SD,
        rollout: str = "net",
        depth: int = NET_DEPTH,
        draws: bool = True,
    ) -> None:
        super().__init__(seed, time, iters, match=match, msd=msd)
        check_rollout("expert", rollout, ("smart", "net"))
        if depth < 0:
            raise BotSpecError(f"invalid bot spec: expert depth must be >= 0, not {depth}")
        self.rollout = rollout
        """Who plays the worlds out: ``smart`` (the hand-written policy) or ``net`` (the
        network itself, on both sides)."""
        self.depth = depth
        """With ``rollout=net``: moves before the value head judges (0: to the end)."""
        self.draws = draws
        """With ``rollout=net``: each candidate that draws from a discard pile is also
        searched with a draw from the draw pile."""
        self._packed: PackedNetwork | None = None
        if top is None:
            top = 4 if rollout == "net" else 5
        if prior is None:
            prior = NET_PRIOR if rollout == "net" else 0.05
        if top < 1 or prior < 0 or not scale > 0:
            raise BotSpecError("invalid bot spec: expert needs top >= 1, prior >= 0, scale > 0")
        if infer < 0 or guesses < 1 or not 0 <= power <= 1:
            raise BotSpecError(
                "invalid bot spec: expert needs infer >= 0, guesses >= 1, 0 <= power <= 1"
            )
        if control < 0 or spend < 0:
            raise BotSpecError("invalid bot spec: expert needs control >= 0 and spend >= 0")
        if rollout == "net" and (control > 0 or infer > 0):
            raise BotSpecError(
                "invalid bot spec: expert's control and infer work with rollout=smart only"
                " (the network's rollouts deal their worlds uniformly, in one batch)"
            )
        if not 0 <= mix <= 1 or vworlds < 1:
            raise BotSpecError("invalid bot spec: expert needs 0 <= mix <= 1 and vworlds >= 1")
        self.control = control
        self.mix = mix
        self.vworlds = vworlds
        self.endgame = endgame
        self.union = union
        self.spend = spend
        self.bank = 0.0
        """Budget saved by search-time control this round (seconds, or worlds with ``iters``)."""
        self.top = top
        self.prior = prior
        self.scale = scale
        self.network = network if network is not None else load_network(weights)
        self.guesses = guesses
        self.inference = (
            HandInference(self.network, steps=infer, power=power) if infer > 0 else None
        )
        self.last_iterations = 0
        """Playouts of the last search (for benchmarks)."""
        self._goal_candidates: IsmctsBot | None = None

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int | None = None) -> Bot:
        """Build from spec options (see the module docs).

        :raises BotSpecError: for an unknown option or a bad value, or a removed rollout
            policy or option (:func:`lostcities.bots.flat.removed_in_spec`).
        """
        o = search_spec(
            "expert",
            options,
            (
                "time",
                "iters",
                "top",
                "prior",
                "scale",
                "weights",
                "infer",
                "guesses",
                "power",
                "control",
                "spend",
                "endgame",
                "mix",
                "vworlds",
                "union",
                "match",
                "msd",
                "rollout",
                "depth",
                "draws",
            ),
        )
        t = o.number("time", math.nan)
        prior = o.number("prior", math.nan, minimum=0)
        match, msd = cls.match_options(o)
        return cls(
            time=None if math.isnan(t) else t,
            iters=o.whole("iters", None),
            seed=seed,
            top=o.whole("top", None, minimum=1),
            prior=None if math.isnan(prior) else prior,
            scale=o.number("scale", 15.0),
            weights=o.text("weights", None),
            infer=o.whole("infer", 0, minimum=0) or 0,
            guesses=o.whole("guesses", 64, minimum=1) or 64,
            power=o.number("power", 1.0, minimum=0),
            control=o.number("control", 0.0, minimum=0),
            spend=o.number("spend", 2.0, minimum=0),
            endgame=o.whole("endgame", 0, minimum=0) or 0,
            mix=o.number("mix", 0.0, minimum=0),
            vworlds=o.whole("vworlds", 16, minimum=1) or 16,
            union=bool(o.whole("union", 0, minimum=0)),
            match=match,
            msd=msd,
            rollout=options.get("rollout", "net").lower(),
            depth=o.whole("depth", NET_DEPTH, minimum=0) or 0,
            draws=bool(o.whole("draws", 1, minimum=0)),
        )

    def restart(self, variant: Variant, seat: int) -> None:
        """A new round: the time bank of search-time control starts empty."""
        self.bank = 0.0

    def candidates(self, view: PlayerView) -> tuple[list[Move], list[float]]:
        """The moves searched and their probabilities under the network, best first."""
        moves, probs = self.network.policy(view)
        top = len(moves) if view.deck_size <= self.endgame else self.top
        order = [int(i) for i in np.argsort(-probs, kind="stable")[:top]]
        goals = view.achievements is not None
        if goals or self.union:
            # the network knows no goals: the goal-aware heuristic's candidates join in
            # (searched without the prior's penalty: the network cannot judge them); with
            # ``union`` they join in every game, weighed no lower than the network's last
            if self._goal_candidates is None:
                self._goal_candidates = IsmctsBot(iters=1, seed=0)
            where = {m: i for i, m in enumerate(moves)}
            floor = float(probs[order[0]] if goals else probs[order[-1]])
            extra = [where[m] for m in self._goal_candidates.search_candidates(view)]
            extra = [i for i in dict.fromkeys(extra) if i not in order]
            return (
                [moves[i] for i in order + extra],
                [float(probs[i]) for i in order]
                + [floor if goals else max(floor, float(probs[i])) for i in extra],
            )
        cands = [moves[i] for i in order]
        cprobs = [float(probs[i]) for i in order]
        if self.rollout == "net" and self.draws:
            index = {m: i for i, m in enumerate(moves)}
            for m in list(cands):
                d = Move(m.action, m.card, None)
                if m.draw is not None and d not in cands:
                    cands.append(d)
                    cprobs.append(float(probs[index[d]]))
        return cands, cprobs

    def search_setup(self, view: PlayerView) -> SearchSetup:
        """:meth:`candidates` and the search's settings, for the analysis. The analysis
        plays its worlds out with the smart policy (its false-mark figure is measured with
        it) also for ``rollout=net``."""
        engine = "fast" if fast_engine_available() else "python"
        return SearchSetup(
            self.candidates(view)[0], self.scale, self.flat_rollout, engine, self.iters, self.time
        )

    @property
    def flat_rollout(self) -> str:
        """The rollout policy of the flat search (:func:`lostcities.bots.flat.flat_search`):
        the bot's own, or ``smart`` for ``rollout=net`` (the analysis, goal games, no
        numba: where the network's batched rollouts are not played)."""
        return "smart" if self.rollout == "net" else self.rollout

    def inferred_hands(self, view: PlayerView) -> list[list[Card]] | None:
        """Guesses of the opponent's hidden cards, drawn in proportion to their likelihood
        (``infer``), or ``None`` to deal them uniformly."""
        if self.inference is None or not view.history:
            return None
        sampler = view.sampler()
        n = self.guesses
        rng = self.rng
        hands = [rng.sample(sampler.unseen, sampler.hidden) for _ in range(n)]
        logw = self.inference.log_weights(view, hands, rng)
        w = np.exp(logw - logw.max())
        cum = np.cumsum(w / w.sum())
        picks = np.searchsorted(cum, (rng.random() + np.arange(n)) / n)  # systematic
        out = [hands[min(int(i), n - 1)] for i in picks]
        rng.shuffle(out)
        return out

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        moves = view.legal_moves()
        if not moves:
            raise BotError("expert: no legal move (not this bot's turn?)")
        if len(moves) == 1:
            self.last_iterations = 0
            return moves[0]
        cands, score = self.scores(view, time_limit)
        return cands[max(range(len(cands)), key=lambda j: (score[j], -j))]

    def scores(
        self, view: PlayerView, time_limit: float | None = None, worlds: int | None = None
    ) -> tuple[list[Move], list[float]]:
        """The searched candidates of ``view`` (:meth:`candidates`) and the score of each,
        the best highest: mean result over the worlds (``rollout=net``: points) plus
        ``prior * ln p``. :meth:`choose` plays the best; expert iteration's teacher
        (:class:`lostcities.train.selfplay.ExpertTeacher`) learns from all of them.

        ``worlds`` fixes the worlds searched (instead of the bot's ``time`` or ``iters``);
        a lone candidate is not searched (score 0).
        """
        start = time.perf_counter()
        deadline = math.inf
        if worlds is None and self.iters is None and self.time is not None:
            deadline = start + self.time
        hard = math.inf if time_limit is None else start + 0.85 * time_limit
        deadline = min(deadline, hard)
        cands, probs = self.candidates(view)
        k = len(cands)
        if k == 1:
            self.last_iterations = 0
            return cands, [0.0]
        reward = self.reward(view)
        # rollout=net scores in points (the prior too); smart in its reward's units
        unit = self.points(view) if self.rollout == "net" else 1.0
        values = self.values_after(view, cands, reward) if self.mix > 0 else None
        if values is not None:
            values = [v * unit for v in values]
        if values is not None and self.mix >= 1:
            self.last_iterations = 0
            return cands, self._scored(probs, values)
        max_worlds = worlds
        if max_worlds is None and self.iters is not None:
            max_worlds = -(-self.iters // k)
        # the compiled engine plays the classic game: goal games are played out in Python,
        # whose rollouts claim and score the goals (the network's candidates know none);
        # inference about the opponent's hand runs with the compiled engine only
        engine = "fast" if fast_engine_available() else "python"
        compiled = engine == "fast" and view.achievements is None
        if self.rollout == "net" and compiled:
            played, sums = self._net_search(view, cands, reward, deadline, max_worlds)
        else:
            played, sums = self._flat_search(
                view, cands, probs, reward, engine, start, (deadline, hard), max_worlds, unit
            )
            sums = [x * unit for x in sums]
        self.last_iterations = played * k
        w = max(played, 1)
        means = [x / w for x in sums]
        if values is not None:
            means = [(1 - self.mix) * m + self.mix * v for m, v in zip(means, values, strict=True)]
        return cands, self._scored(probs, means)

    def _flat_search(
        self,
        view: PlayerView,
        cands: list[Move],
        probs: list[float],
        reward: Callable[[int], float] | None,
        engine: str,
        start: float,
        deadlines: tuple[float, float],
        max_worlds: int | None,
        unit: float = 1.0,
    ) -> tuple[int, list[float]]:
        """Rollouts by the flat search on ``engine`` (with inference about the opponent's
        hand on the compiled one, and search-time control when on): worlds played and each
        candidate's summed rewards, within the soft and hard ``deadlines``. The smart
        policy plays them (also for ``rollout=net`` where the network cannot: goal games,
        no numba); ``unit``: points a reward is worth to the prior (:meth:`points`)."""
        deadline, hard = deadlines
        compiled = engine == "fast" and view.achievements is None
        search = flat_search(
            view,
            cands,
            engine=engine,
            scale=self.scale,
            rollout=self.flat_rollout,
            rng=self.rng,
            hands=self.inferred_hands(view) if compiled else None,
            reward=reward,
        )
        if self.control > 0:
            return self._controlled(probs, search, start, hard, max_worlds, unit)
        if deadline == math.inf:
            search.run(max_worlds or 1)
        else:
            search.run_until(deadline, max_worlds)
        return search.worlds, [float(x) for x in search.value_sums]

    def _net_search(
        self,
        view: PlayerView,
        cands: list[Move],
        reward: Callable[[int], float] | None,
        deadline: float,
        max_worlds: int | None,
    ) -> tuple[int, list[float]]:
        """Network-played rollouts (``rollout=net``): worlds played and each candidate's
        summed scores in points (the margin; in a match, the match value read back as
        points, :meth:`points`). Worlds go in chunks until the deadline or ``max_worlds``."""
        from lostcities.fast.netsearch import NetRollouts, PackedNetwork

        if self._packed is None:
            self._packed = PackedNetwork(self.network)
        search = NetRollouts(
            self._packed, view, cands, seed=self.rng.getrandbits(63), depth=self.depth
        )
        sums = np.zeros(len(cands))
        unit = self.points(view)
        left = max_worlds if max_worlds is not None else NET_MAX_WORLDS
        while left > 0:
            n = min(NET_CHUNK, left)
            block = np.rint(search.run(n)).astype(np.int64)
            if reward is None:
                sums += block.sum(axis=1)
            else:
                values, where = np.unique(block, return_inverse=True)
                r = np.array([reward(int(x)) for x in values], np.float64) * unit
                sums += r[where.reshape(block.shape)].sum(axis=1)
            left -= n
            if time.perf_counter() >= deadline:
                break
        return search.worlds, [float(x) for x in sums]

    def reward(self, view: PlayerView) -> Callable[[int], float] | None:
        """The reward of a world's margin for ``view``: the match value in a round of a
        match (``match=1``, :func:`lostcities.bots.matchplay.match_utility`), else
        ``None`` (the round's ``tanh(margin / scale)``)."""
        if not self.match:
            return None
        return match_reward(view.match, sd=self.msd, scale=self.scale)

    def points(self, view: PlayerView) -> float:
        """Points of margin one unit of this search's reward is worth near an even result:
        ``scale`` for ``tanh(margin / scale)``, and in a match (``match=1``)
        :func:`lostcities.bots.matchplay.points_per_utility`. ``rollout=net`` scores its
        candidates in points with it, so its ``prior`` is in points too."""
        if self.match and view.match is not None:
            return points_per_utility(view.match, sd=self.msd)
        return self.scale

    def _priors(self, probs: list[float]) -> list[float]:
        """The prior's term of each candidate's score: ``prior * log(probability)``."""
        return [self.prior * math.log(max(p, 1e-12)) for p in probs]

    def _scored(self, probs: list[float], means: list[float]) -> list[float]:
        return [m + p for m, p in zip(means, self._priors(probs), strict=True)]

    def values_after(
        self, view: PlayerView, cands: list[Move], reward: Callable[[int], float] | None = None
    ) -> list[float]:
        """Each candidate's mean value for the viewer over ``vworlds`` sampled worlds: the
        network's value of the position after it for the opponent then to move, negated,
        or the round's result where it ends; on the rollouts' reward scale
        (``tanh(margin / scale)``, or ``reward`` of the margin, rounded, when given)."""
        rw = (lambda m: math.tanh(m / self.scale)) if reward is None else reward
        sampler = view.sampler()
        me = view.player
        k = len(cands)
        x = np.zeros((self.vworlds * k, NUM_FEATURES))
        exact: dict[int, float] = {}
        sign = np.ones(self.vworlds * k)
        row = 0
        for _ in range(self.vworlds):
            world = sampler.sample(self.rng)
            for m in cands:
                r = world.copy()
                r.push_unchecked(m)
                if r.is_over():
                    sc = r.scores()
                    exact[row] = rw(sc[me] - sc[me ^ 1])
                else:
                    features(r.view(r.to_move), out=x[row])
                    sign[row] = 1.0 if r.to_move == me else -1.0
                row += 1
        _, v = self.network.forward(x)
        # the network's value is tanh(margin / VALUE_SCALE): put it on the rollouts' scale
        margin = VALUE_SCALE * np.arctanh(np.clip(v, -0.999999, 0.999999))
        if reward is None:
            out = np.tanh(margin / self.scale) * sign
        else:  # the viewer's margin, rounded to the points a round is scored in
            out = np.array([reward(round(float(x))) for x in margin * sign], np.float64)
        for i, e in exact.items():
            out[i] = e
        return [float(t) for t in out.reshape(self.vworlds, k).mean(axis=0)]

    def _controlled(
        self,
        probs: list[float],
        search: FlatSearcher,
        start: float,
        hard: float,
        max_worlds: int | None,
        unit: float = 1.0,
    ) -> tuple[int, list[float]]:
        """The search under search-time control (``control``): worlds played and each
        candidate's summed rewards."""
        k = len(probs)
        timed = max_worlds is None
        base = float(self.time or 1.0) if timed else float(max_worlds or 1)
        top = base + min(self.bank, self.spend * base)
        prior = np.array(self._priors(probs)) / unit
        rows: list[npt.NDArray[np.float64]] = []
        sums = np.zeros(k)
        worlds = 0
        spent = 0.0
        while True:
            n = CONTROL_CHUNK if timed else min(CONTROL_CHUNK, int(top) - worlds)
            if n <= 0:
                break
            before = np.array(search.value_sums, np.float64)
            search.run(n)
            chunk = np.array(search.value_sums, np.float64) - before
            rows.append(chunk / n)
            sums += chunk
            worlds += n
            now = time.perf_counter()
            spent = now - start if timed else float(worlds)
            if spent >= top or now >= hard:
                break
            if spent >= 0.25 * base and len(rows) >= 4 and clear_lead(rows, prior, self.control):
                break
        self.bank = max(0.0, self.bank + base - spent)
        return worlds, [float(x) for x in sums]


CONTROL_CHUNK = 16
"""Worlds per batch of search-time control (its standard errors come from batch means)."""
NET_CHUNK = 16
"""Worlds per batch of network rollouts (``rollout=net``; checked against the deadline)."""
NET_MAX_WORLDS = 4096
"""The most worlds a timed ``rollout=net`` search plays for one move."""


def clear_lead(
    rows: Sequence[npt.NDArray[np.float64]], prior: npt.NDArray[np.float64], z: float
) -> bool:
    """Whether the best candidate (by mean of ``rows``, one row of mean rewards per batch,
    plus ``prior``) leads every other by more than ``z`` standard errors of the paired
    differences.

    >>> rows = [np.array([0.5, 0.1]), np.array([0.6, 0.0]), np.array([0.4, 0.2])]
    >>> clear_lead(rows, np.zeros(2), 2.0), clear_lead(rows, np.array([0.0, 0.5]), 2.0)
    (True, False)
    """
    a = np.asarray(rows)
    score = a.mean(axis=0) + prior
    b = int(np.argmax(score))
    d = a[:, b : b + 1] - a
    se = d.std(axis=0, ddof=1) / math.sqrt(len(a))
    lead = score[b] - score
    return bool(np.all((lead > z * se)[np.arange(len(score)) != b]))
