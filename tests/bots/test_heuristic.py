"""The heuristic bot: its rules in set positions, rounds that always end, and a sanity
check of its strength against the floor bots."""

from __future__ import annotations

import pytest

from lostcities import CLASSIC, Action, Card, Color, Move, PlayerView, Round
from lostcities.bots import Bot, BotSpecError, make
from lostcities.bots.heuristic import MAX_STALLS, STALL_PLY_LIMIT, HeuristicBot


def deal(p0: str, p1: str, pile: str = "") -> Round:
    """A classic round with the given hands; the draw pile starts with ``pile`` (next card
    first) and holds the other cards after it in a fixed order."""
    first = [Card.parse(x) for x in p0.split()] + [Card.parse(x) for x in p1.split()]
    top = [Card.parse(x) for x in pile.split()]
    rest = CLASSIC.deck()
    for c in first + top:
        rest.remove(c)
    return Round.from_deck(first + top + rest[::-1])


def test_never_feeds_the_opponents_expedition_when_a_safe_discard_exists() -> None:
    r = deal("r9 y2 y3 b2 b3 w2 w3 g2", "r3 r4 r5 y10 b10 w10 g10 g9", "y4 rx")
    r.push("-g2.")  # p0 draws y4
    r.push("+r3.")  # p1 starts red, draws rx
    move = HeuristicBot(seed=1).choose(r.view(0))
    assert move.card != Card.parse("r9") or move.action is Action.PLAY


def test_takes_a_discard_that_fits_its_expedition() -> None:
    r = deal("y2 y3 y5 y6 b9 w9 g9 r9", "y4 b2 b3 w2 w3 g2 g3 r2", "b4 b5 b6 b7 b8")
    r.push("+y2.")
    r.push("-y4.")  # p1 throws away the card p0 needs next
    move = HeuristicBot(seed=1).choose(r.view(0))
    # p0 either plays y3 now and takes y4 for later, or takes y4 after another action
    assert move.draw is Color.YELLOW


def test_plays_ascending_without_skipping_its_own_cards() -> None:
    r = deal("y2 y4 y5 y7 y9 y10 b9 w9", "b2 b3 w2 w3 g2 g3 r2 r3", "g4 r4 g5 r5")
    r.push("+y2.")
    r.push("-b2.")
    move = HeuristicBot(seed=1).choose(r.view(0))
    if move.action is Action.PLAY and move.card.color is Color.YELLOW:
        assert move.card == Card.parse("y4")


def test_opens_a_strong_expedition_with_its_lowest_card() -> None:
    r = deal("g3 g5 g6 g8 g9 g10 b2 w2", "b3 b4 w3 w4 y2 y3 r2 r3")
    move = HeuristicBot(seed=1).choose(r.view(0))
    assert move == Move.play("g3") or (move.action is Action.PLAY and move.card.is_wager)


def test_does_not_open_a_weak_expedition() -> None:
    r = deal("yx y2 bx b3 wx w2 g4 r5", "y3 y4 b4 b5 w3 w4 g2 g3")
    move = HeuristicBot(seed=1).choose(r.view(0))
    assert move.action is Action.DISCARD


def test_no_wager_without_strength_behind_it() -> None:
    r = deal("yx y3 b2 b3 w2 w3 g2 r2", "y4 y5 b4 b5 w4 w5 g3 r3")
    move = HeuristicBot(seed=1).choose(r.view(0))
    assert move != Move.play("yx")


class Staller(Bot):
    """Always takes a discard-pile top when it can (tries to make the round last forever)."""

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        moves = list(view.legal_moves())
        for m in moves:
            if m.action is Action.DISCARD and m.draw is not None:
                return m
        return moves[0]


@pytest.mark.parametrize("seed", range(12))
def test_heuristic_against_itself_always_ends(seed: int) -> None:
    for variant in ("classic", "long"):
        r = Round.deal(seed=seed, variant=variant, starter=seed % 2)
        bots = [HeuristicBot(seed=seed), HeuristicBot(seed=seed + 1)]
        while not r.is_over():
            assert r.ply < STALL_PLY_LIMIT + 2 * r.variant.deck_size
            r.push(bots[r.to_move].choose(r.view(r.to_move)))


def test_round_ends_against_a_staller() -> None:
    r = Round.deal(seed=4)
    bots: list[Bot] = [HeuristicBot(seed=1), Staller()]
    while not r.is_over():
        assert r.ply < STALL_PLY_LIMIT + 2 * r.variant.deck_size
        r.push(bots[r.to_move].choose(r.view(r.to_move)))


def test_stall_draws_are_capped() -> None:
    """Without a use for the card, the bot takes discard-pile cards at most MAX_STALLS
    times plus the draws that were useful (never an endless stream)."""
    r = Round.deal(seed=9)
    bots: list[Bot] = [HeuristicBot(seed=1), Staller()]
    while not r.is_over():
        r.push(bots[r.to_move].choose(r.view(r.to_move)))
    mine = [m for i, m in enumerate(r.history) if i % 2 == 0]
    assert sum(1 for m in mine if m.draw is not None) <= MAX_STALLS + len(mine) // 2


def test_options() -> None:
    """The spec's options reach the bot: ``seed`` (over ``make``'s own, and it breaks the
    ties: the round is the one ``HeuristicBot(seed=3)`` plays, not seed 9's), ``goals``
    (on by default), and anything else is refused by name."""

    def history(bot: Bot) -> tuple[Move, ...]:
        r = Round.deal(seed=0)
        bots = [bot, make("random", seed=1)]
        while not r.is_over():
            r.push(bots[r.to_move].choose(r.view(r.to_move)))
        return r.history

    bot = make("heuristic:seed=3", seed=9)
    assert isinstance(bot, HeuristicBot) and bot.seed == 3 and bot.goals
    assert bot.spec == "heuristic:seed=3"
    assert history(bot) == history(HeuristicBot(seed=3)) != history(HeuristicBot(seed=9))
    off = make("heuristic:goals=off")
    assert isinstance(off, HeuristicBot) and not off.goals
    with pytest.raises(BotSpecError, match=r"'heuristic' takes no option depth \(only goals\)"):
        make("heuristic:depth=3")
    with pytest.raises(BotSpecError, match="goals must be on or off, not 'maybe'"):
        make("heuristic:goals=maybe")


def test_beats_the_floor_bots() -> None:
    """A quick sanity check (the real measurement is benchmarks/strength.py)."""
    wins = 0
    rounds = 0
    for seed in range(10):
        for opp in ("random", "discard"):
            for seat in (0, 1):
                r = Round.deal(seed=seed)
                bots = [make(opp, seed=seed), make(opp, seed=seed)]
                bots[seat] = make("heuristic", seed=seed)
                while not r.is_over():
                    r.push(bots[r.to_move].choose(r.view(r.to_move)))
                s = r.scores()
                wins += s[seat] > s[seat ^ 1]
                rounds += 1
    assert wins >= 0.85 * rounds
