"""A match: several rounds (3 by default) whose scores add up.

Round 1's starter is given or drawn from the seed; later, the player with the higher
running total starts, and on equal totals the player who did not start the previous round.
Equal match totals are a draw, unless the match is played with ``tie_break="youngest"``
(seed 001: "on a tie, the youngest player wins"): then the seat marked ``younger`` wins.

>>> m = Match(rounds=1, seed=5, starter=0)
>>> r = m.new_round()
>>> while not r.is_over():
...     r.push(r.legal_moves()[0])
>>> m.is_over(), m.totals() == r.scores()
(True, True)

>>> m = Match(rounds=1, seed=5, tie_break="youngest", younger=1)
>>> m.tie_break, m.younger
('youngest', 1)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Literal

from lostcities.achievements import DEFAULT_GOALS, Goal, GoalSet
from lostcities.cards import CLASSIC, Card, Variant, get_variant
from lostcities.errors import TieBreakError
from lostcities.rules import MatchContext, PlayerView, Round, Termination

__all__ = [
    "TIE_BREAKS",
    "TIE_BROKEN",
    "Match",
    "MatchContext",
    "TieBreak",
    "check_tie_break",
    "round_seed",
]

TieBreak = Literal["draw", "youngest"]
"""How equal match totals end: ``draw`` (the default, RULES.md) or ``youngest``."""
TIE_BREAKS: tuple[TieBreak, ...] = ("draw", "youngest")
"""The tie-break rules, the default first."""
TIE_BROKEN = "tie broken: the younger player wins"
""":meth:`Match.reason` of a tied match won by the younger seat."""


def check_tie_break(tie_break: str, younger: int | None) -> tuple[TieBreak, int | None]:
    """Check a tie-break setting; return it typed.

    ``youngest`` needs the younger seat (0 or 1); ``draw`` takes none.

    >>> check_tie_break("youngest", 0)
    ('youngest', 0)
    >>> check_tie_break("youngest", None)
    Traceback (most recent call last):
    ...
    lostcities.errors.TieBreakError: invalid tie-break: 'youngest' needs the younger seat (0 or 1)

    :raises TieBreakError: for an unknown rule, a missing or bad seat, or a seat with ``draw``.
    """
    if tie_break == "draw":
        if younger is not None:
            raise TieBreakError(
                f"invalid tie-break: 'draw' takes no younger seat (got {younger!r}); "
                "use tie_break='youngest'"
            )
        return "draw", None
    if tie_break == "youngest":
        if younger not in (0, 1) or isinstance(younger, bool):
            raise TieBreakError(
                "invalid tie-break: 'youngest' needs the younger seat (0 or 1)"
                + ("" if younger is None else f", not {younger!r}")
            )
        return "youngest", younger
    raise TieBreakError(f"invalid tie-break: {tie_break!r} (expected draw or youngest)")


def round_seed(match_seed: int, index: int) -> int:
    """The deal seed of round ``index`` (0-based) of a match seeded ``match_seed``."""
    return random.Random(f"lostcities:{match_seed}:{index}").randrange(2**63)


class Match:
    """Rounds played one after another, with running totals and a result."""

    variant: Variant
    """The variant of every round."""
    num_rounds: int
    """How many rounds the match has."""
    seed: int
    """The match seed; round ``i`` is dealt from :func:`round_seed` ``(seed, i)``."""
    first_starter: int
    """Who starts round 1."""
    max_turns: int | None
    """A turn cap for every round (automated play only)."""
    tie_break: TieBreak
    """How equal totals end: ``draw`` or ``youngest`` (the :attr:`younger` seat wins)."""
    younger: int | None
    """The seat marked as the younger player (``youngest`` only), else ``None``."""
    achievements: GoalSet | None
    """The achievements variant's goal pool (each round draws 5 from it by its round
    seed), or ``None`` for the classic game."""
    rounds: list[Round]
    """The rounds dealt so far, the current one last."""
    forfeit_ends_match: bool
    """Whether a forfeited round ends the match, lost by the forfeiting player (the
    default). ``False``: a forfeit ends only its round (won by the other player, scored as
    the expeditions stand, as the arena scores it) and the match goes on; the winner is
    then decided by the totals.

    >>> m = Match(rounds=2, seed=1, forfeit_ends_match=False)
    >>> m.new_round().forfeit(1, "the bot crashed")
    >>> m.is_over(), m.forfeited_by(), len(m.rounds)
    (False, None, 1)
    """

    def __init__(
        self,
        rounds: int = 3,
        *,
        variant: str | Variant = CLASSIC,
        seed: int | None = None,
        starter: int | None = None,
        max_turns: int | None = None,
        tie_break: str = "draw",
        younger: int | None = None,
        achievements: bool | GoalSet | Sequence[Goal] | None = None,
        forfeit_ends_match: bool = True,
    ) -> None:
        if rounds < 1:
            raise ValueError(f"invalid number of rounds: {rounds!r} (expected at least 1)")
        if starter not in (None, 0, 1):
            raise ValueError(f"invalid starter: {starter!r} (expected 0 or 1)")
        self.variant = get_variant(variant)
        self.num_rounds = rounds
        self.seed = random.SystemRandom().randrange(2**63) if seed is None else seed
        if starter is None:
            starter = random.Random(f"lostcities:{self.seed}:starter").randrange(2)
        self.first_starter = starter
        self.max_turns = max_turns
        self.tie_break, self.younger = check_tie_break(tie_break, younger)
        if achievements is True:
            achievements = DEFAULT_GOALS
        elif achievements is False:
            achievements = None
        elif achievements is not None and not isinstance(achievements, GoalSet):
            achievements = GoalSet(achievements)  # a list of goals: the pool
        self.achievements = achievements
        self.forfeit_ends_match = forfeit_ends_match
        self.rounds = []

    @property
    def current(self) -> Round | None:
        """The round in progress, or ``None``."""
        if self.rounds and not self.rounds[-1].is_over():
            return self.rounds[-1]
        return None

    def totals(self) -> tuple[int, int]:
        """Running totals over the finished rounds."""
        a = b = 0
        for r in self.rounds:
            if r.is_over():
                s = r.scores()
                a += s[0]
                b += s[1]
        return (a, b)

    def context(self, player: int) -> MatchContext:
        """Where the current (or last) round stands in the match, seen from ``player``'s
        seat: its number, the totals of the rounds before it, the tie-break.

        >>> m = Match(rounds=3, seed=2)
        >>> r = m.new_round()
        >>> while not r.is_over():
        ...     r.push(r.legal_moves()[0])
        >>> _ = m.new_round()
        >>> c = m.context(1)
        >>> c.round, c.rounds_left, c.totals == r.scores(), c.lead == r.scores()[1] - r.scores()[0]
        (2, 1, True, True)

        :raises ValueError: before the first round is dealt, or for a bad ``player``.
        """
        if not self.rounds:
            raise ValueError("no round has been dealt yet")
        if player not in (0, 1):
            raise ValueError(f"invalid player: {player!r} (expected 0 or 1)")
        a = b = 0
        for r in self.rounds[:-1]:
            s = r.scores()
            a += s[0]
            b += s[1]
        return MatchContext(
            round=len(self.rounds),
            rounds=self.num_rounds,
            totals=(a, b),
            player=player,
            tie_break=self.tie_break,
            younger=self.younger,
        )

    def view(self, player: int) -> PlayerView:
        """``player``'s view of the current (or last) round with the match's context
        (:attr:`PlayerView.match`): what a player of the match may know.

        >>> m = Match(rounds=3, seed=2)
        >>> _ = m.new_round()
        >>> v = m.view(0)
        >>> v.match.round, v.match.rounds, v.match.totals, v.hand == m.rounds[0].view(0).hand
        (1, 3, (0, 0), True)

        :raises ValueError: before the first round is dealt, or for a bad ``player``.
        """
        if not self.rounds:
            raise ValueError("no round has been dealt yet")
        return replace(self.rounds[-1].view(player), match=self.context(player))

    def next_starter(self) -> int:
        """Who starts the next round under the rules."""
        if not self.rounds:
            return self.first_starter
        a, b = self.totals()
        if a != b:
            return 0 if a > b else 1
        return self.rounds[-1].starter ^ 1

    def new_round(
        self, deck: Iterable[Card | str] | None = None, *, goals: Sequence[Goal] | None = None
    ) -> Round:
        """Deal the next round (from the match seed, or from an explicit ``deck``).

        In the achievements variant the round's goals are drawn from the pool by the round
        seed, or are ``goals`` when given (a record replaying its rounds).

        >>> m = Match(rounds=1, seed=5, achievements=True)
        >>> [g.id for g in m.new_round().goals] == [g.id for g in Match(rounds=1, seed=5,
        ...     achievements=True).new_round().goals]
        True

        :raises ValueError: if a round is still in progress or the match is over, or
            ``goals`` are given in a classic match.
        """
        if goals is not None and self.achievements is None:
            raise ValueError("cannot lay out goals: the match is not played with achievements")
        if self.current is not None:
            raise ValueError("cannot start a new round: the current round is not over")
        if self.is_over():
            raise ValueError(f"cannot start a new round: the match of {self.num_rounds} is over")
        starter = self.next_starter()
        laid: tuple[Goal, ...] | None = None
        if self.achievements is not None:
            laid = (
                tuple(goals)
                if goals is not None
                else self.achievements.draw(round_seed(self.seed, len(self.rounds)))
            )
        if deck is None:
            r = Round.deal(
                round_seed(self.seed, len(self.rounds)),
                self.variant,
                starter,
                max_turns=self.max_turns,
                achievements=laid,
            )
        else:
            r = Round.from_deck(
                deck, starter, self.variant, max_turns=self.max_turns, achievements=laid
            )
        self.rounds.append(r)
        return r

    def forfeited_by(self) -> int | None:
        """The player who forfeited a round (and so the match), if any; always ``None``
        when a forfeit ends only its round (:attr:`forfeit_ends_match`)."""
        if not self.forfeit_ends_match:
            return None
        for r in self.rounds:
            o = r.outcome()
            if o is not None and o.termination is Termination.FORFEIT:
                return o.winner ^ 1 if o.winner is not None else None
        return None

    def is_over(self) -> bool:
        """Whether all rounds are played (or a player forfeited)."""
        if self.forfeited_by() is not None:
            return True
        return len(self.rounds) == self.num_rounds and self.rounds[-1].is_over()

    def winner(self) -> int | None:
        """0 or 1 once the match is over with a winner; ``None`` for a draw or while it goes on."""
        if not self.is_over():
            return None
        f = self.forfeited_by()
        if f is not None:
            return f ^ 1
        a, b = self.totals()
        if a == b and self.tie_break == "youngest":
            return self.younger
        return 0 if a > b else 1 if b > a else None

    def reason(self) -> str:
        """Why the match ended as it did (``""`` while it goes on): ``higher total``,
        ``equal totals: a draw``, :data:`TIE_BROKEN`, or ``player N forfeited``.

        >>> m = Match(rounds=1, seed=1, tie_break="youngest", younger=0)
        >>> r = m.new_round()
        >>> r.forfeit(1, "resigned")
        >>> m.winner(), m.reason()
        (0, 'player 1 forfeited')
        """
        if not self.is_over():
            return ""
        f = self.forfeited_by()
        if f is not None:
            return f"player {f} forfeited"
        a, b = self.totals()
        if a != b:
            return "higher total"
        return TIE_BROKEN if self.tie_break == "youngest" else "equal totals: a draw"

    def result(self) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` while the match goes on."""
        if not self.is_over():
            return "*"
        return {0: "1-0", 1: "0-1", None: "1/2-1/2"}[self.winner()]

    def __repr__(self) -> str:
        return (
            f"<Match {self.variant.name} {len(self.rounds)}/{self.num_rounds} rounds, "
            f"totals {self.totals()}, {self.result()}>"
        )
