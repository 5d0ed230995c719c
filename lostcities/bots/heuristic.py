"""``heuristic``: a rule-based player built on a static estimate of each expedition's
final score, computed from the player's view only.

How it decides (one turn = a card action, then a draw):

* **Card counting.** The unseen cards (the opponent's unknown hand cards and the draw
  pile, :meth:`~lostcities.PlayerView.unseen_cards`) and the cards the opponent is known
  to hold give, per colour, which higher cards may still come.
* **Expedition estimate.** For each colour the bot projects its final number sum: what
  is on the table, the playable cards in hand, and the unseen higher cards weighted by
  the chance of drawing them in the turns left (about half the draw pile). That gives
  ``(sum - 20) x (wagers + 1)`` plus the 8-card bonus when it is realistic. An
  expedition not yet started is worth only its *option* value (a soft maximum of 0 and
  its projection), so opening costs something unless the projection is clearly positive:
  weak expeditions are never opened, strong ones are opened with their lowest card.
* **Wagers** are planned only when the conservative projection is well above 20 and
  there are turns enough to play them and the numbers after them (so only early).
* **Turns as a resource.** Each turn plays or discards one card; cards that cannot be
  played in the turns left are worth nothing, so late in the round the bot plays before
  it is too late, and playing a card that skips lower cards (in hand or still unseen)
  costs their value.
* **Safe discards.** A discard costs the value of the card to the bot plus what it would
  give the opponent (a card their open expedition can take is expensive; dead cards
  are cheap).
* **Draws.** A discard-pile card that raises the estimate is taken; a card the
  opponent's expedition needs is taken to deny it when cheap; and tempo: when ahead the
  bot draws from the draw pile to hasten the end, when behind with cards still to play it
  slows the end with discard-pile draws. Stalling is capped: once it has drawn from
  discard piles :data:`MAX_STALLS` times in a round it takes a discard-pile card only when
  the card itself is worth it, and from ply :data:`STALL_PLY_LIMIT` on it always draws
  from the draw pile, so every round it plays ends, even against itself (the rules set
  no turn limit).

* **Goals** (the achievements variant only): a move that meets an unclaimed race goal is
  worth a share of its 10 points (:attr:`HeuristicBot.goal_race`), a step towards one a
  smaller share (:attr:`HeuristicBot.goal_progress` x the progress gained), and an end
  goal a share of the 10 points it would swing if the round ended now, more as the end
  nears (:attr:`HeuristicBot.goal_end`). The shares are below 1 because the cards a goal
  takes cost more than the estimate sees (tuned in arena matches against ``goals=off``,
  docs/performance.md). The classic game never computes this.

Deterministic given its seed (the seed only breaks exact ties).

>>> from lostcities import Round
>>> r = Round.deal(seed=5)
>>> bot = HeuristicBot(seed=1)
>>> while not r.is_over():
...     r.push(bot.choose(r.view(r.to_move)))
>>> r.is_over()
True
"""

from __future__ import annotations

import math

from lostcities.achievements import GOAL_POINTS, GoalBoard, decide_end
from lostcities.bots.base import Bot, BotError, BotSpecError
from lostcities.cards import Card, Color
from lostcities.rules import PLAYABLE, Action, Move, PlayerView, playable

__all__ = ["HeuristicBot", "MAX_STALLS", "STALL_PLY_LIMIT", "goals_option"]

MAX_STALLS = 6
"""Discard-pile draws per round after which the bot no longer stalls (takes a discard-pile
card only for its own use or denial value)."""
STALL_PLY_LIMIT = 150
"""From this ply on the bot always draws from the draw pile, so every round ends."""


_PLAYABLE_ON: tuple[tuple[bool, ...], ...] = tuple(zip(*PLAYABLE, strict=True))
"""``_PLAYABLE_ON[top][rank]``: :data:`lostcities.rules.PLAYABLE` by top first (the ranks
playable onto one expedition)."""


def _softplus(x: float, s: float) -> float:
    if x > 8 * s:
        return x
    if x < -8 * s:
        return 0.0
    return s * math.log1p(math.exp(x / s))


class _Table:
    """What the view says, per colour, in plain lists (built once per decision)."""

    def __init__(self, view: PlayerView) -> None:
        n = view.variant.num_colors
        me = view.player
        self.n = n
        self.me = me
        self.deck = view.deck_size
        self.s: list[list[int]] = [[0] * n, [0] * n]
        self.w: list[list[int]] = [[0] * n, [0] * n]
        self.cnt: list[list[int]] = [[0] * n, [0] * n]
        self.top: list[list[int]] = [[0] * n, [0] * n]
        for p in (0, 1):
            for c, exp in enumerate(view.expeditions[p]):
                for card in exp:
                    if card.rank:
                        self.s[p][c] += card.rank
                        self.top[p][c] = card.rank
                    else:
                        self.w[p][c] += 1
                self.cnt[p][c] = len(exp)
        unseen = view.unseen_cards()
        self.n_unseen = len(unseen)
        self.unseen_ranks: list[list[int]] = [[] for _ in range(n)]
        for card in unseen:
            if card.rank:
                self.unseen_ranks[card.color].append(card.rank)
        self.opp_known: list[list[int]] = [[] for _ in range(n)]
        for card in view.opponent_known:
            self.opp_known[card.color].append(card.rank)
        self.pile_top: list[Card | None] = [p[-1] if p else None for p in view.discard_piles]


class HeuristicBot(Bot):
    """A rule-based player: expedition estimates from card counting, safe discards,
    useful and denial draws, tempo. See the module docstring.

    >>> from lostcities import Round
    >>> r = Round.deal(seed=3)
    >>> HeuristicBot(seed=1).choose(r.view(0)) in r.legal_moves()
    True
    """

    name = "heuristic"

    option_softness = 2.5
    """Softness of the option value of an unopened expedition (higher: opens less)."""
    play_bonus = 2.5
    """Small preference for playing over holding (progress)."""
    clog = 0.0
    """Cost per useful card held beyond :attr:`clog_free` (a clogged hand wastes draws)."""
    clog_free = 3
    """Useful cards a hand may hold without cost."""
    deck_draw_value = 2.5
    """What a blind card from the draw pile is worth, against a known discard-pile card."""
    draw_lateness = 0.5
    tempo_weight = 2.0
    """Weight of the tempo term (draw-pile draws when ahead, discard-pile draws when behind)."""
    tempo_horizon = 20.0
    """Draw-pile size below which tempo starts to count."""
    goal_progress = 0.05
    """Share of a race goal's points a step towards it is worth (achievements variant)."""
    goal_race = 0.5
    """Share of a race goal's points that meeting it now is worth (the cards it takes
    usually cost something the estimate does not see)."""
    goal_end = 0.3
    """Share of an end goal's swing (10 each way) that leading it now is worth, at the end
    of the round (less before: :attr:`goal_end` x (0.3 + 0.7 x the share of the draw pile
    drawn))."""
    """Discount on unseen cards: even if drawn they may come too late to play."""

    goals = True
    """Whether the bot values the goals of the achievements variant (spec ``goals=off``:
    it plays as in the classic game, for measuring what goal-aware play is worth)."""

    @classmethod
    def from_options(cls, options: dict[str, str], seed: int | None = None) -> Bot:
        """One option besides ``seed`` (handled by :func:`lostcities.bots.make`):
        ``goals=on|off``.

        :raises BotSpecError: for any other option or value.
        """
        rest = {k: v for k, v in options.items() if k != "goals"}
        if rest:
            bad = ", ".join(sorted(rest))
            raise BotSpecError(f"invalid bot spec: 'heuristic' takes no option {bad} (only goals)")
        bot = cls(seed=seed)
        bot.goals = goals_option("heuristic", options)
        return bot

    # -- the estimate ------------------------------------------------------------------

    def _evaluate(
        self,
        t: _Table,
        hand: list[Card],
        s: list[int],
        w: list[int],
        cnt: list[int],
        top: list[int],
        turns: int,
        deck: int,
    ) -> float:
        """The projected final score of the bot's expeditions for this hand and table,
        with ``turns`` turns left to play cards."""
        n = t.n
        # chance of drawing (in time) any one unseen card
        draws_left = deck / 2.0
        pdraw = self.draw_lateness * draws_left / t.n_unseen if t.n_unseen else 0.0
        if turns <= 1:
            pdraw = 0.0
        hand_ranks: list[list[int]] = [[] for _ in range(n)]
        hand_wagers = [0] * n
        ok = PLAYABLE
        for card in hand:
            col = card.color
            if ok[card.rank][top[col]]:
                if card.rank:
                    hand_ranks[col].append(card.rank)
                else:
                    hand_wagers[col] += 1
        total = 0.0
        needed = 0.0
        marginals: list[float] = []
        for c in range(n):
            ranks = hand_ranks[c]
            started = cnt[c] > 0
            if not ranks and not started and not hand_wagers[c]:
                continue
            low = min(ranks) if ranks else 11
            draw_sum = 0.0
            draw_cnt = 0.0
            up = _PLAYABLE_ON[top[c]]
            for r in t.unseen_ranks[c]:
                if up[r]:
                    # a card below our lowest hand card is only useful if drawn soon
                    f = pdraw if r > low else pdraw * 0.6
                    draw_sum += f * r
                    draw_cnt += f
            hand_sum = sum(ranks)
            base = s[c] + hand_sum
            proj = base + draw_sum
            # wagers: planned only with strength behind them and turns to spare
            x = 0
            if hand_wagers[c]:
                safe = base + 0.5 * draw_sum - 20
                spare = turns - len(ranks) - hand_wagers[c]
                if safe >= 8 + 4 * (w[c]) and spare >= 2:
                    x = hand_wagers[c]
                    if safe < 14:
                        x = min(x, 1)
            mult = w[c] + x + 1
            ncards = cnt[c] + len(ranks) + x + draw_cnt
            bonus = 0.0
            if ncards >= 8:
                bonus = 20.0
            elif ncards >= 6.5:
                bonus = 20.0 * (ncards - 6.5) / 1.5
            value = (proj - 20) * mult + bonus
            if started:
                total += value
                needed += len(ranks) + x
                marginals.extend(r * mult for r in ranks)
            else:
                opt = _softplus(value, self.option_softness * (1 + x))
                total += opt
                if value > 0:
                    needed += len(ranks) + x
                    marginals.extend(r * mult for r in ranks)
        if needed > self.clog_free:
            total -= self.clog * (needed - self.clog_free)
        excess = int(needed) - turns
        if excess > 0:
            marginals.sort()
            total -= sum(marginals[:excess])
        return total

    def _opponent_gain(self, t: _Table, card: Card) -> float:
        """What putting ``card`` on its discard pile may give the opponent."""
        opp = t.me ^ 1
        c = card.color
        if card.rank == 0:
            if t.cnt[opp][c] and playable(0, t.top[opp][c]):
                return 4.0
            return 0.5
        if t.cnt[opp][c]:
            if playable(card.rank, t.top[opp][c]):
                return 0.9 * card.rank * (t.w[opp][c] + 1)
            return 0.0
        # not started: a high card helps them open, more so if they hold the colour
        held = len(t.opp_known[c])
        return (0.15 + 0.1 * held) * card.rank

    def _opponent_projection(self, t: _Table) -> float:
        """A rough estimate of the opponent's final score (public table, known cards,
        their share of the unseen cards)."""
        opp = t.me ^ 1
        share = 0.5 * (8 + t.deck / 2.0) / t.n_unseen if t.n_unseen else 0.0
        total = 0.0
        for c in range(t.n):
            if not t.cnt[opp][c]:
                continue
            up = _PLAYABLE_ON[t.top[opp][c]]
            known = sum(r for r in t.opp_known[c] if up[r])
            extra = share * sum(r for r in t.unseen_ranks[c] if up[r])
            total += (t.s[opp][c] + known + extra - 20) * (t.w[opp][c] + 1)
        return total

    # -- goals (the achievements variant) ----------------------------------------------

    def _goal_value(
        self,
        board: GoalBoard,
        view: PlayerView,
        mine: list[list[Card]],
        discards: int,
        pile_draws: int,
    ) -> float:
        """What the unclaimed goals are worth to the bot (its points minus the opponent's)
        with its expeditions ``mine`` and its counts after a move."""
        me = view.player
        opp = view.expeditions[me ^ 1]
        d = [0, 0]
        pd = [0, 0]
        d[me], d[me ^ 1] = discards, board.discards[me ^ 1]
        pd[me], pd[me ^ 1] = pile_draws, board.pile_draws[me ^ 1]
        exps: list[object] = [None, None]
        exps[me], exps[me ^ 1] = mine, opp
        initial = view.variant.deck_size - 2 * view.variant.hand_size
        lateness = 1.0 - view.deck_size / initial
        total = 0.0
        for g, holder in zip(board.goals, board.claims, strict=True):
            if holder is not None:
                continue
            if g.kind == "race":
                if g.met(mine, discards, pile_draws):
                    total += self.goal_race * GOAL_POINTS
                else:
                    total += (
                        self.goal_progress * GOAL_POINTS * g.progress(mine, discards, pile_draws)
                    )
            else:
                lead = decide_end(g, exps, d, pd)  # type: ignore[arg-type]
                if lead is not None:
                    w = self.goal_end * (0.3 + 0.7 * lateness) * GOAL_POINTS
                    total += w if lead == me else -w
        return total

    def _goal_terms(
        self, view: PlayerView, board: GoalBoard, action: Action, card: Card
    ) -> tuple[float, float]:
        """The goal value gained by playing or discarding ``card``, and the further gain
        of then drawing from a discard pile rather than the draw pile."""
        me = view.player
        mine = [list(e) for e in view.expeditions[me]]
        disc, draws = board.discards[me], board.pile_draws[me]
        before = self._goal_value(board, view, mine, disc, draws)
        if action is Action.PLAY:
            mine[card.color].append(card)
        else:
            disc += 1
        after = self._goal_value(board, view, mine, disc, draws)
        pile = self._goal_value(board, view, mine, disc, draws + 1) - after
        return after - before, pile

    # -- the decision ------------------------------------------------------------------

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        moves = view.legal_moves()
        if not moves:
            raise BotError("heuristic: no legal move (not this bot's turn?)")
        if len(moves) == 1:
            return moves[0]
        return self.rank_moves(view)[0][1]

    def rank_moves(self, view: PlayerView) -> list[tuple[float, Move]]:
        """Each legal card action (play or discard which card) with the draw the bot would
        pick for it and its score, best first (search uses it to choose candidates)."""
        moves = view.legal_moves()
        t = _Table(view)
        me = t.me
        hand = list(view.hand)
        deck = t.deck
        turns_after = deck // 2  # my turns after this one if every draw is from the pile
        base_s, base_w, base_cnt, base_top = t.s[me], t.w[me], t.cnt[me], t.top[me]

        # tempo and stalling
        lead = self._evaluate(t, hand, base_s, base_w, base_cnt, base_top, turns_after + 1, deck)
        lead -= self._opponent_projection(t)
        hist = view.history
        stalls = sum(1 for i in range(len(hist) - 2, -1, -2) if hist[i].draw is not None)
        may_stall = stalls < MAX_STALLS and view.ply < STALL_PLY_LIMIT
        # tempo matters once the end is in sight
        tempo = self.tempo_weight * max(0.0, 1.0 - deck / self.tempo_horizon)
        board = view.achievements if self.goals else None

        scored: list[tuple[float, Move]] = []
        seen_actions: set[tuple[Action, Card]] = set()
        for move in moves:
            key = (move.action, move.card)
            if key in seen_actions:
                continue
            seen_actions.add(key)
            card = move.card
            c = card.color
            new_hand = list(hand)
            new_hand.remove(card)
            s, w, cnt, top = base_s, base_w, base_cnt, base_top
            score = 0.0
            if move.action is Action.PLAY:
                s, w, cnt, top = s[:], w[:], cnt[:], top[:]
                cnt[c] += 1
                if card.rank:
                    s[c] += card.rank
                    top[c] = card.rank
                else:
                    w[c] += 1
                score += self.play_bonus
            else:
                score -= self._opponent_gain(t, card)
            after = self._evaluate(t, new_hand, s, w, cnt, top, turns_after, deck - 1)
            score += after
            pile_goal = 0.0
            if board is not None:
                goal_gain, pile_goal = self._goal_terms(view, board, move.action, card)
                score += goal_gain
            # the draw: the draw pile, or a discard-pile top
            best_draw: float = 0.0
            best_src: Color | None = None
            if view.ply >= STALL_PLY_LIMIT:
                draws: list[Color | None] = [None]
            else:
                draws = moves.draws(move.action, card)
            for src in draws:
                if src is None:
                    continue
                top_card = t.pile_top[src]
                if top_card is None:  # pragma: no cover - legal draws have a card
                    continue
                with_card = self._evaluate(
                    t, [*new_hand, top_card], s, w, cnt, top, turns_after + 1, deck
                )
                gain = with_card - self._evaluate(
                    t, new_hand, s, w, cnt, top, turns_after + 1, deck
                )
                gain -= self.deck_draw_value
                gain += pile_goal
                useful = gain > 0
                denial = self._opponent_gain(t, top_card)
                if denial >= 3:
                    gain += 0.5 * denial
                    useful = useful or gain > 0
                if lead > 5:
                    gain -= tempo * (1.0 + min(lead, 40) / 20)
                elif (
                    lead < -5 and may_stall and len(self._playable(new_hand, top)) > turns_after / 2
                ):
                    gain += tempo * (1.0 + min(-lead, 40) / 20)
                if not useful and not may_stall:
                    continue
                if gain > best_draw:
                    best_draw = gain
                    best_src = src
            score += best_draw
            scored.append((score, _move(move.action, card, best_src)))
        scored.sort(key=lambda sm: -sm[0])
        # exact ties are broken by the seed
        if len(scored) > 1 and scored[0][0] == scored[1][0]:
            tied = [sm for sm in scored if sm[0] == scored[0][0]]
            pick = tied[self.rng.randrange(len(tied))]
            scored.remove(pick)
            scored.insert(0, pick)
        return scored

    @staticmethod
    def _playable(hand: list[Card], top: list[int]) -> list[Card]:
        ok = PLAYABLE
        return [c for c in hand if ok[c.rank][top[c.color]]]


def goals_option(bot: str, options: dict[str, str]) -> bool:
    """The ``goals=on|off`` spec option of the goal-aware bots (``on`` by default).

    :raises BotSpecError: for another value.
    """
    text = options.get("goals", "on").lower()
    if text not in ("on", "off"):
        raise BotSpecError(f"invalid bot spec: {bot} goals must be on or off, not {text!r}")
    return text == "on"


def _move(action: Action, card: Card, src: Color | None) -> Move:
    return Move.play(card, src) if action is Action.PLAY else Move.discard(card, src)
