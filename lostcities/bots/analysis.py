"""Analysis: what each move is worth, from the mover's view only (the one code path behind
:meth:`Bot.analyse <lostcities.bots.Bot.analyse>`, ``lostcities analyse``, the web's hints
and analysis page and the TUI's).

A search bot (``ismcts``, ``expert``) proposes its candidate moves; each of their card
actions is then tried with every legal draw that can matter (the draw pile and each
discard pile's top that extends an expedition on the table, :func:`with_every_draw`: a
bot's candidates pair a card action with one or two draws, and the draw it left out can be
the best part of the move), and the move actually played is added when it is not among
them. Every candidate is then tried in the same sampled worlds
(the hidden cards dealt at random by :class:`~lostcities.WorldSampler`, consistently with
the view; common random numbers) and played out to the end of the round with the bot's
rollout policy, compiled when numba is there. Per move the analysis gives the mean final
margin (points, the mover's score minus the opponent's), the win probability of the round
(the share of worlds the mover ends ahead, ties counting half) and the bot's own reward
(mean ``tanh(margin / scale)``). The best move has the highest expected margin. Nothing in
it depends on the opponent's hidden cards or the order of the draw pile: only the view and
the random numbers.

A move's *loss* is the best move's expected margin minus its own (points, never negative);
the marks (:func:`mark`) are thresholds on it: :data:`INACCURACY`, :data:`MISTAKE`,
:data:`BLUNDER` points (see ``docs/analysis.md``).

>>> from lostcities import Move, Round
>>> from lostcities.bots import make
>>> r = Round.deal(seed=4)
>>> a = make("ismcts:iters=400", seed=1).analyse(r.view(0), played=Move.parse("-b9."))
>>> a.best == a.moves[0].move and a.loss(Move.parse("-b9.")) >= 0
True
>>> mark(a.loss(a.best)) is None
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from lostcities.bots.flat import SearchSetup, check_candidates, flat_search
from lostcities.cards import Card
from lostcities.errors import BotError, IllegalMoveError
from lostcities.rules import Action, Move, PlayerView, Round, playable
from lostcities.scoring import MARGIN_SCALE

__all__ = [
    "ACCURACY_SCALE",
    "BLUNDER",
    "DEFAULT_BOT",
    "DEFAULT_WORLDS",
    "INACCURACY",
    "MARKS",
    "MISTAKE",
    "STAKE_FULL",
    "Analysable",
    "Analysis",
    "MoveEval",
    "MoveReview",
    "Position",
    "accuracy",
    "analyse",
    "evaluate",
    "mark",
    "position_seed",
    "positions",
    "report",
    "review",
    "summary",
    "with_every_draw",
]


class Analysable(Protocol):
    """What :func:`analyse` and :func:`review` need of a bot; every
    :class:`~lostcities.bots.Bot` has it (the analysis names no bot class, so that
    ``Bot.analyse`` is this module's :func:`analyse` without an import circle)."""

    name: str
    """The bot's name, for the errors."""
    rng: random.Random
    """The generator the worlds are dealt from."""

    def reseed(self, seed: int | None) -> None:
        """Start the generator afresh from ``seed``."""

    def search_setup(self, view: PlayerView) -> SearchSetup | None:
        """The candidates and settings the bot's search compares, or ``None``."""


DEFAULT_BOT = "ismcts"
"""The analysing bot of ``lostcities analyse``, the web app and the TUI (its candidates: the
heuristic's three best card actions, each with two draws; the smart rollouts, compiled)."""
DEFAULT_WORLDS = 1000
"""Sampled worlds per move by default (about 40 ms a move with numba, on one core)."""
INACCURACY = 4.0
"""Expected points lost against the best move from which a move is an inaccuracy."""
MISTAKE = 8.0
"""... a mistake."""
BLUNDER = 15.0
"""... a blunder (a wager alone in an empty expedition at the end costs 40)."""
MARKS = ("inaccuracy", "mistake", "blunder")
"""The marks, mildest first."""
ACCURACY_SCALE = 2.0
"""Average points lost per move that bring a player's accuracy down to ``100 / e`` (37%)."""
STAKE_FULL = 1.0
"""Expected points at stake (best minus worst evaluated move) from which a move counts fully
in :func:`accuracy` (less, in proportion, below)."""


def mark(loss: float) -> str | None:
    """The mark of a move that lost ``loss`` expected points (``None`` below
    :data:`INACCURACY`).

    >>> [mark(x) for x in (0.0, 4.0, 9.5, 40.0)]
    [None, 'inaccuracy', 'mistake', 'blunder']
    """
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def accuracy(losses: Sequence[float], stakes: Sequence[float] | None = None) -> float:
    """A player's accuracy in percent: ``100 * exp(-L / 2)`` where ``L`` is its average loss
    in expected points per move (100 for no loss at all; 61 for an average of 1 point, 37
    for 2, 8 for 5). The exponential of the *mean* loss, not the mean of per-move
    exponentials: a player who loses a few points on every move (discarding every card
    costs 2-7 points a move) comes out near 0, where a mean of per-move figures would keep
    its cheap moves near 100 and rate it about halfway.

    With ``stakes`` (per move, the expected points between the best and the worst move
    evaluated, :attr:`MoveReview.stake`) a move weighs by what was at stake in it, fully
    from :data:`STAKE_FULL` point up: a move whose candidates all come to the same (the
    end of a round when nothing matters any more) does not count, so a game of
    throwaway moves cannot look accurate by its moves that no longer matter.

    >>> accuracy([0.0, 0.0]), round(accuracy([0.0, 2.0]), 1), accuracy([])
    (100.0, 60.7, 100.0)
    >>> accuracy([3.0, 0.0], [6.0, 0.0]) == accuracy([3.0]), accuracy([0.0], [0.0])
    (True, 100.0)
    """
    if not losses:
        return 100.0
    if stakes is None:
        weights = [1.0] * len(losses)
    elif len(stakes) != len(losses):
        raise ValueError(f"accuracy: {len(losses)} losses but {len(stakes)} stakes")
    else:
        weights = [min(1.0, max(x, 0.0) / STAKE_FULL) for x in stakes]
    total = sum(weights)
    if total <= 0.0:
        return 100.0
    mean = sum(w * max(x, 0.0) for w, x in zip(weights, losses, strict=True)) / total
    return 100.0 * math.exp(-mean / ACCURACY_SCALE)


@dataclass(frozen=True)
class MoveEval:
    """One evaluated move."""

    move: Move
    """The move."""
    margin: float
    """Expected final margin of the round after it (points, the mover's minus the opponent's)."""
    win: float
    """Probability that the mover wins the round after it (ties count half)."""
    value: float
    """The bot's reward: mean ``tanh(margin / scale)``."""


@dataclass(frozen=True)
class Analysis:
    """The evaluation of a position for the player to move."""

    player: int
    """The mover."""
    moves: tuple[MoveEval, ...]
    """Every evaluated move, best (highest expected margin) first."""
    worlds: int
    """Sampled worlds each move was played out in."""

    @property
    def best(self) -> Move:
        """The move with the highest expected margin."""
        return self.moves[0].move

    @property
    def win(self) -> float:
        """The mover's win probability with the best move."""
        return self.moves[0].win

    def of(self, move: Move) -> MoveEval:
        """The evaluation of ``move``.

        :raises KeyError: if it was not evaluated.
        """
        for e in self.moves:
            if e.move == move:
                return e
        raise KeyError(str(move))

    def loss(self, move: Move) -> float:
        """Expected points ``move`` loses against the best move (>= 0)."""
        return max(0.0, self.moves[0].margin - self.of(move).margin)

    def win_loss(self, move: Move) -> float:
        """Win probability ``move`` loses against the evaluated move with the highest (>= 0)."""
        return max(0.0, max(e.win for e in self.moves) - self.of(move).win)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: the mover, the worlds and each move's margin, win and value."""
        return {
            "player": self.player,
            "worlds": self.worlds,
            "best": str(self.best),
            "moves": [
                {
                    "move": str(e.move),
                    "margin": round(e.margin, 2),
                    "win": round(e.win, 4),
                    "value": round(e.value, 4),
                }
                for e in self.moves
            ],
        }


def evaluate(
    view: PlayerView,
    candidates: Sequence[Move],
    *,
    worlds: int | None = None,
    deadline: float | None = None,
    rng: random.Random,
    scale: float = MARGIN_SCALE,
    rollout: str = "smart",
    engine: str = "fast",
) -> Analysis:
    """Play every candidate out in the same sampled worlds (module docs): ``worlds`` of them,
    or until ``time.perf_counter()`` reaches ``deadline`` (at least one world; both given:
    whichever comes first). ``engine="fast"`` runs compiled
    (:class:`lostcities.fast.search.FlatSearch`), ``"python"`` on the core
    (:func:`lostcities.bots.flat.flat_search` chooses); with the same
    ``rng`` state both deal the same worlds and give the same figures. A view of the
    achievements variant is always played out on the core, whose rollouts claim and score
    the goals.

    :raises IllegalMoveError: if a candidate is not legal for the viewer now.
    :raises ValueError: for no candidates, or neither ``worlds`` nor ``deadline``.
    """
    cands = list(dict.fromkeys(candidates))
    if not cands:
        raise ValueError("analysis: no candidate moves")
    if worlds is None and deadline is None:
        raise ValueError("analysis: give worlds or a deadline")
    check_candidates(view, cands)
    k = len(cands)
    limit = math.inf if worlds is None else worlds
    end = math.inf if deadline is None else deadline
    # the compiled engine knows no goals: flat_search plays goal games out in Python
    search = flat_search(view, cands, engine=engine, scale=scale, rollout=rollout, rng=rng)
    wins = [0.0] * k
    done = 0
    while done < limit:
        for row in search.margins(1):  # one world at a time: its margins give the wins
            for j, d in enumerate(row):
                wins[j] += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
        done += 1
        if time.perf_counter() >= end:
            break
    margins = [float(x) for x in search.margin_sums]
    values = [float(x) for x in search.value_sums]
    evals = [
        MoveEval(m, margins[j] / done, wins[j] / done, values[j] / done)
        for j, m in enumerate(cands)
    ]
    order = sorted(range(k), key=lambda j: (-evals[j].margin, -evals[j].value, j))
    return Analysis(view.player, tuple(evals[j] for j in order), done)


def with_every_draw(view: PlayerView, candidates: Sequence[Move]) -> list[Move]:
    """``candidates``, then each of their card actions (play or discard which card) with
    every other draw legal in ``view`` that can matter for the cards: the draw pile, and
    each discard pile whose top extends an expedition already on the table (one of the
    mover's, after the card action, or one of the opponent's: the card it would take), in
    the order :meth:`LegalMoves.draws <lostcities.rules.LegalMoves.draws>` gives them. A
    bot picks one draw or two for a card action; a top it passed over (a wager for a
    wagered expedition, the next card of one) can be worth more than the card action.

    A top that extends no expedition is left out: taking it only delays the end of the
    round, and the rollouts, which seldom stall later, would prize stalling now far above
    what it is worth (measured: ``benchmarks/analysis_quality.py``'s false blunders).

    >>> from lostcities import Round
    >>> r = Round.deal(seed=5)
    >>> for m in "+y7. -r9. -r6. +y10. -r7.".split():
    ...     r.push(m)
    >>> [str(m) for m in with_every_draw(r.view(1), [Move.parse("-g8.")])]  # r7 extends none
    ['-g8.']
    >>> r = Round.deal(seed=18, starter=0)
    >>> r.push("-yx.")  # a wager on the yellow pile, and player 1 holds one
    >>> [str(m) for m in with_every_draw(r.view(1), [Move.parse("+yx."), Move.parse("-yx.")])]
    ['+yx.', '-yx.', '+yxy']
    """
    out = list(dict.fromkeys(candidates))
    legal = view.legal_moves()
    me = view.player
    for m in list(out):
        for draw in legal.draws(m.action, m.card):
            if draw is not None:
                top = view.discard_piles[draw][-1]
                mine = view.expeditions[me][draw]
                if m.action is Action.PLAY and m.card.color == draw:
                    mine = (*mine, m.card)
                if not (_extends(top, mine) or _extends(top, view.expeditions[me ^ 1][draw])):
                    continue
            out.append(Move(m.action, m.card, draw))
    return list(dict.fromkeys(out))


def _extends(card: Card, expedition: Sequence[Card]) -> bool:
    """Whether ``card`` may go onto ``expedition``, started already."""
    return bool(expedition) and playable(card.rank, expedition[-1].rank)


def analyse(
    bot: Analysable,
    view: PlayerView,
    time_limit: float | None = None,
    *,
    played: Move | None = None,
    worlds: int | None = None,
    seed: int | None = None,
) -> Analysis:
    """Evaluate the position for the player to move, from ``view`` alone: each of ``bot``'s
    search candidates (plus ``played``, when given and not among them) with its expected
    final margin and win probability of the round, best first. Also every bot's method,
    :meth:`Bot.analyse <lostcities.bots.Bot.analyse>` ``(view, ...)``; search bots
    (``ismcts``, ``expert``) analyse. The budget: ``worlds`` sampled deals when given
    (capped by ``time_limit`` seconds when both are), else ``time_limit`` seconds, else the
    bot's own (``iters`` playouts spread over the moves, or ``time`` seconds). With a
    ``seed`` the bot is reseeded first (its candidates' tie-breaks and the worlds then
    depend on the view and the seed alone: the figures are a function of the two), else
    its generator goes on.

    >>> from lostcities import Round
    >>> from lostcities.bots import make
    >>> a = make("ismcts", seed=1).analyse(Round.deal(seed=4).view(0), worlds=100)
    >>> a.worlds, a.best == a.moves[0].move, 0 <= a.win <= 1
    (100, True, True)

    :raises BotError: for a bot that does not search, or a view with no legal move (not
        the viewer's turn).
    :raises IllegalMoveError: if ``played`` is not legal in ``view``.
    """
    moves = view.legal_moves()
    if not moves or view.to_move != view.player:
        raise BotError(f"{bot.name}: no legal move to analyse (not this player's turn?)")
    if played is not None and not view.is_legal(played):
        raise IllegalMoveError(f"illegal move: {str(played)!r} ({view.why_illegal(played)})")
    if seed is not None:
        bot.reseed(seed)
    setup = bot.search_setup(view)
    if setup is None:
        raise BotError(f"{bot.name}: cannot analyse (only the search bots do: ismcts, expert)")
    cands = with_every_draw(view, setup.candidates) if len(moves) > 1 else [moves[0]]
    if played is not None and played not in cands:
        cands.append(played)
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    if worlds is None and deadline is None:
        if setup.iters is not None:
            worlds = -(-setup.iters // len(cands))
        else:
            deadline = start + (setup.time if setup.time is not None else 1.0)
    return evaluate(
        view,
        cands,
        worlds=worlds,
        deadline=deadline,
        rng=bot.rng,
        scale=setup.scale,
        rollout=setup.rollout,
        engine=setup.engine,
    )


# -- whole games ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A move of a game to review: where it was made and the mover's view before it."""

    round: int
    """The round, from 1."""
    ply: int
    """The move's index in that round's history, from 0."""
    view: PlayerView
    """The mover's view before the move."""
    move: Move
    """The move played."""


def positions(rounds: Sequence[Round]) -> list[Position]:
    """Every move of the rounds (a :class:`~lostcities.Match`'s ``rounds``), replayed from
    their deals (:meth:`Round.replayed <lostcities.Round.replayed>`: goal cards and all),
    with the mover's view before it."""
    out: list[Position] = []
    for k, r in enumerate(rounds, 1):
        w = r.replayed(0)
        for ply, move in enumerate(r.history):
            out.append(Position(k, ply, w.view(w.to_move), move))
            w.push(move)
    return out


def position_seed(seed: int, round: int, ply: int) -> int:
    """The seed of the worlds a game's move is analysed in: a function of the analysis seed
    and where the move is, so results do not depend on the order or the worker.

    >>> position_seed(0, 1, 0) == position_seed(0, 1, 0) != position_seed(0, 1, 1)
    True
    """
    return (seed * 1_000_003 + round) * 1_000_003 + ply


@dataclass(frozen=True)
class MoveReview:
    """The review of one move of a game (``lostcities analyse``; JSON by :meth:`to_dict`)."""

    round: int
    """The round, from 1."""
    ply: int
    """The move's index in that round's history, from 0."""
    player: int
    """Who moved."""
    move: Move
    """The move played."""
    best: Move
    """The best move found (highest expected margin)."""
    loss: float
    """Expected points lost against the best move (>= 0)."""
    win_loss: float
    """Win probability lost against the most winning evaluated move (>= 0)."""
    margin: float
    """Expected final margin after the move played (the mover's side)."""
    best_margin: float
    """... after the best move."""
    win: float
    """The mover's win probability of the round after the move played."""
    best_win: float
    """... after the best move."""
    forced: bool
    """Whether it was the only legal move (never marked, left out of the averages)."""
    worlds: int
    """Sampled worlds behind the figures."""
    worst_margin: float = math.nan
    """The expected final margin after the worst evaluated move (``nan``: not known)."""

    @property
    def stake(self) -> float:
        """The points at stake in the move: the best evaluated move's expected margin minus
        the worst's (``nan`` when :attr:`worst_margin` is not known)."""
        return self.best_margin - self.worst_margin

    @property
    def mark(self) -> str | None:
        """``None``, ``"inaccuracy"``, ``"mistake"`` or ``"blunder"`` (:func:`mark`)."""
        return None if self.forced else mark(self.loss)

    def to_dict(self) -> dict[str, object]:
        """The JSON item of ``lostcities analyse --json``'s ``"moves"``."""
        return {
            "round": self.round,
            "ply": self.ply,
            "player": self.player,
            "move": str(self.move),
            "best": str(self.best),
            "loss": round(self.loss, 2),
            "mark": self.mark,
            "win_loss": round(self.win_loss, 4),
            "margin": round(self.margin, 2),
            "best_margin": round(self.best_margin, 2),
            "win": round(self.win, 4),
            "best_win": round(self.best_win, 4),
            "forced": self.forced,
            "worlds": self.worlds,
        }


def review(
    bot: Analysable,
    pos: Position,
    *,
    worlds: int | None = None,
    time_limit: float | None = None,
    seed: int = 0,
) -> MoveReview:
    """Analyse the move of ``pos`` with ``bot`` (:func:`analyse`, the worlds seeded by
    :func:`position_seed`).

    :raises BotError: for a bot that does not search.
    """
    forced = len(pos.view.legal_moves()) == 1
    a = analyse(
        bot,
        pos.view,
        time_limit,
        played=pos.move,
        worlds=worlds,
        seed=position_seed(seed, pos.round, pos.ply),
    )
    e = a.of(pos.move)
    best = a.moves[0]
    return MoveReview(
        pos.round,
        pos.ply,
        pos.view.player,
        pos.move,
        best.move,
        a.loss(pos.move),
        a.win_loss(pos.move),
        e.margin,
        best.margin,
        e.win,
        best.win,
        forced,
        a.worlds,
        a.moves[-1].margin,
    )


def summary(reviews: Sequence[MoveReview], player: int) -> dict[str, object]:
    """One player's figures over its unforced moves: ``moves``, ``average_loss`` (points),
    ``accuracy`` (%, :func:`accuracy`) and the count of each mark (``inaccuracies``,
    ``mistakes``, ``blunders``).

    >>> summary([], 0)["accuracy"]
    100.0
    """
    mine = [m for m in reviews if m.player == player and not m.forced]
    losses = [m.loss for m in mine]
    stakes = [m.stake for m in mine]
    marks = [m.mark for m in mine]
    return {
        "player": player,
        "moves": len(mine),
        "average_loss": round(sum(losses) / len(losses), 2) if losses else 0.0,
        "accuracy": round(
            accuracy(losses, None if any(math.isnan(x) for x in stakes) else stakes), 1
        ),
        "inaccuracies": marks.count("inaccuracy"),
        "mistakes": marks.count("mistake"),
        "blunders": marks.count("blunder"),
    }


def report(reviews: Sequence[MoveReview], players: Sequence[str]) -> dict[str, object]:
    """A reviewed game as JSON: ``players``, ``moves`` (each :meth:`MoveReview.to_dict`) and
    ``summary`` (one :func:`summary` per player), as ``lostcities analyse --json`` prints
    it (which adds where the game is from and the budget) and the web app stores it."""
    return {
        "players": list(players),
        "moves": [m.to_dict() for m in reviews],
        "summary": [summary(reviews, p) for p in (0, 1)],
    }
