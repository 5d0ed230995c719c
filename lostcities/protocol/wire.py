"""The wire format of the bot protocol (LCP): every message, its text form and its parser.

This is the one file a bot author needs next to ``docs/protocol.md``: both sides of the
protocol build and read their lines with these functions, so what the referee sends is
exactly what a bot reads.

Referee to bot (*commands*): ``lcp``, ``isready``, ``newgame <variant> <seat>``,
``seed <n>``, the position lines (:func:`position_lines`; in a match also the ``match``
line, :func:`match_line`), ``go <ms>``,
``moved <seat> <move>``, ``quit``. Bot to referee (*answers*): ``id name <name>``,
``id author <text>``, ``lcpok``, ``readyok``, ``move <move>``, ``info <anything>``.

>>> from lostcities import Round
>>> view = Round.deal(seed=1).view(0)
>>> lines = position_lines(view)
>>> lines[:3]
['ply 0', 'deck 44', 'hand yx y4 y8 b5 b10 wx g6 r10']
>>> reader = PositionReader()
>>> reader.newgame("classic", 0)
>>> for line in lines:
...     reader.feed(line)
>>> reader.view() == view
True
>>> go_line(1.5), parse_go("go 1500".split())
('go 1500', 1500)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from lostcities.achievements import Goal, GoalBoard
from lostcities.cards import Card, Variant, get_variant
from lostcities.errors import (
    InvalidCardError,
    InvalidExpeditionError,
    InvalidGoalError,
    InvalidMoveError,
)
from lostcities.rules import MatchContext, Move, PlayerView
from lostcities.scoring import check_expedition

__all__ = [
    "ANSWERS",
    "COMMANDS",
    "POSITION_KEYWORDS",
    "PositionError",
    "PositionReader",
    "go_line",
    "goal_lines",
    "handshake_lines",
    "match_line",
    "move_line",
    "moved_line",
    "newgame_line",
    "parse_go",
    "parse_match",
    "parse_move_answer",
    "parse_moved",
    "parse_newgame",
    "parse_number",
    "parse_seed",
    "position_lines",
    "seed_line",
]

POSITION_KEYWORDS = frozenset(
    {
        "ply",
        "deck",
        "hand",
        "expeditions",
        "discards",
        "known",
        "moves",
        "lastmove",
        "maxturns",
        "goal",
        "tally",
        "match",
    }
)
"""The first words of the position lines (``goal`` and ``tally`` only in the achievements
variant, ``match`` only in a round of a match)."""
COMMANDS = (
    frozenset({"lcp", "isready", "newgame", "seed", "go", "moved", "quit"}) | POSITION_KEYWORDS
)
"""The first words of the referee's commands (a bot ignores any other)."""
ANSWERS = frozenset({"id", "lcpok", "readyok", "move", "info"})
"""The first words of a bot's answers (the referee warns about any other)."""


class PositionError(ValueError):
    """A command line the bot side cannot understand (``'hand y11'``, ``'go soon'``)."""


# -- numbers and cards ---------------------------------------------------------------------


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def _line(keyword: str, rest: str) -> str:
    return f"{keyword} {rest}" if rest else keyword


def _parse_cards(text: Sequence[str], keyword: str) -> tuple[Card, ...]:
    try:
        return tuple(Card.parse(t) for t in text)
    except InvalidCardError as e:
        raise PositionError(f"bad {keyword} line: {e}") from None


def parse_number(words: Sequence[str], keyword: str) -> int:
    """The one non-negative whole number after a keyword (``['44']`` of ``deck 44``).

    :raises PositionError: for none, several, a non-number or a negative number.
    """
    if len(words) != 1:
        raise PositionError(f"bad {keyword} line: expected one number")
    try:
        n = int(words[0])
    except ValueError:
        raise PositionError(f"bad {keyword} line: {words[0]!r} is not a number") from None
    if n < 0:
        raise PositionError(f"bad {keyword} line: {n} is negative")
    return n


# -- commands (referee to bot) -------------------------------------------------------------


def newgame_line(variant: Variant | str, seat: int) -> str:
    """``newgame <variant> <seat>``: a round starts, the bot plays ``seat``.

    >>> newgame_line("long", 1)
    'newgame long 1'
    """
    return f"newgame {get_variant(variant).name} {seat}"


def parse_newgame(words: Sequence[str]) -> tuple[Variant, int]:
    """The variant and seat of the words of a ``newgame`` line.

    :raises PositionError: for a seat other than 0 or 1, or an unknown variant.
    """
    if len(words) != 3 or words[0] != "newgame":
        raise PositionError("bad newgame line: expected newgame <variant> <seat>")
    if words[2] not in ("0", "1"):
        raise PositionError(f"bad newgame line: the seat is 0 or 1, not {words[2]!r}")
    try:
        variant = get_variant(words[1])
    except ValueError as e:
        raise PositionError(f"bad newgame line: {e}") from None
    return variant, int(words[2])


def seed_line(seed: int) -> str:
    """``seed <n>``: what the bot may seed its random choices with."""
    return f"seed {seed}"


def parse_seed(words: Sequence[str]) -> int:
    """The number of the words of a ``seed`` line.

    :raises PositionError: if it is not one non-negative number.
    """
    return parse_number(words[1:], "seed")


def moved_line(player: int, move: Move) -> str:
    """``moved <seat> <move>``: ``player`` made ``move``."""
    return f"moved {player} {move}"


def parse_moved(words: Sequence[str]) -> tuple[int, Move]:
    """The seat and move of the words of a ``moved`` line.

    :raises PositionError: for a bad seat.
    :raises InvalidMoveError: for a bad move.
    """
    if len(words) != 3 or words[1] not in ("0", "1"):
        raise PositionError("bad moved line: expected moved <seat> <move>")
    return int(words[1]), Move.parse(words[2])


def go_line(seconds: float) -> str:
    """``go <ms>``: the bot is to move within ``seconds`` (at least 1 ms is sent)."""
    return f"go {max(1, round(seconds * 1000))}"


def parse_go(words: Sequence[str]) -> int:
    """The milliseconds of the words of a ``go`` line.

    :raises PositionError: if they are not one non-negative number.
    """
    return parse_number(words[1:], "go")


# -- answers (bot to referee) --------------------------------------------------------------


def handshake_lines(name: str, author: str | None = None) -> list[str]:
    """A bot's answer to ``lcp``: its ``id`` lines, then ``lcpok``.

    >>> handshake_lines("mybot", "Ann")
    ['id name mybot', 'id author Ann', 'lcpok']
    """
    lines = [f"id name {name}"]
    if author:
        lines.append(f"id author {author}")
    return [*lines, "lcpok"]


def move_line(move: Move) -> str:
    """``move <move>``: a bot's answer to ``go``."""
    return f"move {move}"


def parse_move_answer(words: Sequence[str]) -> tuple[Move, tuple[str, ...]]:
    """The move of the words of a ``move`` answer, and the words after it (to ignore).

    :raises InvalidMoveError: if the word after ``move`` is missing or not a move.
    """
    move = Move.parse(words[1] if len(words) > 1 else "")
    return move, tuple(words[2:])


# -- position lines <-> PlayerView ---------------------------------------------------------


def position_lines(view: PlayerView) -> list[str]:
    """The protocol's position lines for ``view`` (sent before every ``go``).

    Piles and expeditions are written colour by colour, each in play order (bottom to
    top), so grouping the cards of a line by colour gives them back.

    >>> from lostcities import Round
    >>> r = Round.deal(seed=5)
    >>> for m in "+y7. -r9. -r6. +y10. -r7. -g8r".split():
    ...     r.push(m)
    >>> for line in position_lines(r.view(0)):
    ...     print(line)
    ply 6
    deck 39
    hand y8 b8 w10 gx gx g6 rx r5
    expeditions 0 y7
    expeditions 1 y10
    discards g8 r9 r6
    known 0
    known 1 r7
    moves +y7. -r9. -r6. +y10. -r7. -g8r
    lastmove -g8r
    maxturns none

    In the achievements variant two more kinds of line follow: one ``goal <i> <holder>
    <goal>`` per goal card (holder ``-``, ``0`` or ``1``; the goal in its file-line form)
    and ``tally <discards of 0> <of 1> <pile draws of 0> <of 1>``:

    >>> from lostcities.achievements import DEFAULT_GOALS
    >>> v = Round.deal(seed=5, achievements=list(DEFAULT_GOALS[:1])).view(0)
    >>> position_lines(v)[11:]
    ['goal 0 - trailblazer | race | Trailblazer | expeditions >= 3 | Be first to have three expeditions started.', 'tally 0 0 0 0']

    A round of a match ends with its ``match`` line (:func:`match_line`):

    >>> from lostcities import Match
    >>> m = Match(rounds=3, seed=5)
    >>> _ = m.new_round()
    >>> position_lines(m.view(0))[-1]
    'match 1 3 0 0 draw'
    """
    me = view.player
    last = "none"
    if view.history and view.ply > 0 and view.to_move == me:
        last = str(view.history[-1])
    return [
        f"ply {view.ply}",
        f"deck {view.deck_size}",
        _line("hand", _cards(view.hand)),
        _line("expeditions 0", _cards(c for e in view.expeditions[0] for c in e)),
        _line("expeditions 1", _cards(c for e in view.expeditions[1] for c in e)),
        _line("discards", _cards(c for pile in view.discard_piles for c in pile)),
        _line("known 0", _cards(view.own_known if me == 0 else view.opponent_known)),
        _line("known 1", _cards(view.own_known if me == 1 else view.opponent_known)),
        _line("moves", " ".join(str(m) for m in view.history)),
        f"lastmove {last}",
        f"maxturns {'none' if view.max_turns is None else view.max_turns}",
        *goal_lines(view.achievements),
        *([] if view.match is None else [match_line(view.match)]),
    ]


def match_line(context: MatchContext) -> str:
    """``match <round> <rounds> <total of 0> <total of 1> <tie>``: where the round stands in
    its match (the round from 1, the totals of the rounds before it by seat); ``<tie>`` is
    ``draw``, or the seat that wins on equal totals (the ``youngest`` tie-break).

    >>> match_line(MatchContext(round=2, rounds=3, totals=(45, -12), player=1))
    'match 2 3 45 -12 draw'
    >>> match_line(MatchContext(3, 3, (0, 0), 0, tie_break="youngest", younger=1))
    'match 3 3 0 0 1'
    """
    c = context
    tie = "draw" if c.younger is None else str(c.younger)
    return f"match {c.round} {c.rounds} {c.totals[0]} {c.totals[1]} {tie}"


def parse_match(words: Sequence[str], seat: int) -> MatchContext:
    """The match context of the words of a ``match`` line, seen from ``seat``.

    >>> parse_match("match 2 3 45 -12 draw".split(), 0).lead
    57

    :raises PositionError: for missing words, bad numbers or a round outside the match.
    """
    if len(words) != 6 or words[0] != "match" or words[5] not in ("draw", "0", "1"):
        raise PositionError(
            "bad match line: expected match <round> <rounds> <total 0> <total 1> <draw|0|1>"
        )
    try:
        rnd, rounds, t0, t1 = (int(w) for w in words[1:5])
    except ValueError:
        raise PositionError(f"bad match line: {' '.join(words[1:5])!r} are not numbers") from None
    younger = None if words[5] == "draw" else int(words[5])
    try:
        return MatchContext(
            round=rnd,
            rounds=rounds,
            totals=(t0, t1),
            player=seat,
            tie_break="draw" if younger is None else "youngest",
            younger=younger,
        )
    except ValueError as e:
        raise PositionError(f"bad match line: {e}") from None


def goal_lines(board: GoalBoard | None) -> list[str]:
    """The achievements variant's position lines (none in the classic game): ``goal <i>
    <holder> <goal line>`` for each goal card, then ``tally d0 d1 p0 p1`` (discards and
    discard-pile draws of each seat, which some goals count)."""
    if board is None:
        return []
    lines = [
        f"goal {i} {'-' if c is None else c} {g}"
        for i, (g, c) in enumerate(zip(board.goals, board.claims, strict=True))
    ]
    d, p = board.discards, board.pile_draws
    return [*lines, f"tally {d[0]} {d[1]} {p[0]} {p[1]}"]


def _check_cards(f: Mapping[str, Any], var: Variant, me: int) -> None:
    """That the position lines' cards can be a round of ``var`` at seat ``me``'s turn: a
    full hand, a card left to draw, the variant's colours only, expeditions in an order
    they can be laid, no card more often than the deck has it, and a draw pile of the size
    the other cards leave (the opponent's hand is always full too).

    :raises PositionError: naming the first line that cannot be.
    """
    hand: tuple[Card, ...] = f["hand"]
    if len(hand) != var.hand_size:
        n = len(hand)
        raise PositionError(
            f"bad hand line: {n} card{'s' if n != 1 else ''}, a hand has {var.hand_size} at your turn"
        )
    if f["deck"] < 1:
        raise PositionError("bad deck line: 0 cards: the round is over, no move to make")
    lines = {"hand": hand, "discards": f["discards"]}
    for key in ("expeditions0", "expeditions1", "known0", "known1"):
        lines[f"{key[:-1]} {key[-1]}"] = f.get(key, ())
    for line, cards in lines.items():
        odd = next((c for c in cards if c.color not in var.colors), None)
        if odd is not None:
            raise PositionError(f"bad {line} line: {odd} is not a card of the {var.name} variant")
    for seat in (0, 1):
        for col in var.colors:
            try:
                check_expedition(c for c in f[f"expeditions{seat}"] if c.color == col)
            except InvalidExpeditionError as e:
                raise PositionError(f"bad expeditions {seat} line: {e}") from None
    own, theirs = f.get(f"known{me}", ()), f.get(f"known{me ^ 1}", ())
    if any(own.count(c) > hand.count(c) for c in own):
        raise PositionError(f"bad known {me} line: it names cards not in your hand")
    if len(theirs) > var.hand_size:
        raise PositionError(f"bad known {me ^ 1} line: more cards than a hand holds")
    seen = [*hand, *theirs, *f["discards"], *f["expeditions0"], *f["expeditions1"]]
    deck = var.deck()
    for c in set(seen):
        if seen.count(c) > deck.count(c):
            where = [line for line, cards in lines.items() if c in cards and line != f"known {me}"]
            lines_s = "s" if len(where) > 1 else ""
            raise PositionError(
                f"bad position: {c} {seen.count(c)} times (the {' and '.join(where)} line{lines_s}),"
                f" the deck has {deck.count(c)}"
            )
    table = len(f["discards"]) + len(f["expeditions0"]) + len(f["expeditions1"])
    left = var.deck_size - 2 * var.hand_size - table
    if f["deck"] != left:
        n = f["deck"]
        raise PositionError(
            f"bad deck line: {n} card{'s' if n != 1 else ''}, where the cards on the table leave {left}"
        )
    _check_ply(f, table)


def _check_ply(f: Mapping[str, Any], table: int) -> None:
    """That the ``ply``, ``moves`` and ``maxturns`` lines agree: the moves line (when sent)
    holds ``ply`` moves, every card on the table took a move to lay (a draw from a discard
    pile takes one back, so there are at least as many moves as cards on the table), and
    a cap leaves a move to make.

    :raises PositionError: naming the line that cannot be.
    """
    ply: int = f["ply"]
    moves: tuple[Move, ...] | None = f.get("moves")
    if moves is not None and len(moves) != ply:
        n = len(moves)
        raise PositionError(
            f"bad moves line: {n} move{'s' if n != 1 else ''}, where the ply line says {ply}"
        )
    if ply < table:
        raise PositionError(
            f"bad ply line: {ply} moves cannot have laid the {table} card{'s' if table != 1 else ''}"
            " on the table"
        )
    cap: int | None = f.get("maxturns")
    if cap is not None and cap < 1:
        raise PositionError(f"bad maxturns line: {cap}: a round needs at least 1 move")
    if cap is not None and ply >= cap:
        raise PositionError(
            f"bad ply line: {ply} moves made, and maxturns {cap} ended the round at {cap}"
        )


class PositionReader:
    """The bot side's picture of the round, built from position lines.

    Call :meth:`newgame`, :meth:`feed` each position line, then :meth:`view` for the
    :class:`~lostcities.PlayerView` to choose a move from.
    """

    KEYWORDS = POSITION_KEYWORDS
    """The keywords of position lines."""

    def __init__(self) -> None:
        self.variant: Variant | None = None
        """The variant of the round (``None`` before :meth:`newgame`)."""
        self.seat = 0
        """The bot's seat."""
        self._fields: dict[str, Any] = {}

    @property
    def fields(self) -> Mapping[str, Any]:
        """What the position lines since :meth:`newgame` said, by keyword (read only)."""
        return MappingProxyType(self._fields)

    def newgame(self, variant: Variant | str, seat: int) -> None:
        """Forget the old round: a new one of ``variant`` starts, this bot in ``seat``.

        :raises PositionError: for an unknown variant or a seat other than 0 or 1.
        """
        try:
            self.variant = get_variant(variant)
        except ValueError as e:
            raise PositionError(f"bad newgame line: {e}") from None
        if seat not in (0, 1):
            raise PositionError(f"bad newgame line: seat {seat!r} is not 0 or 1")
        self.seat = seat
        self._fields = {}

    def feed(self, line: str) -> None:
        """Take one position line.

        :raises PositionError: if it cannot be understood; nothing changes.
        """
        words = line.split()
        if not words:
            raise PositionError("empty position line")
        keyword, *rest = words
        f = self._fields
        if keyword == "ply" or keyword == "deck":
            f[keyword] = parse_number(rest, keyword)
        elif keyword == "maxturns":
            f[keyword] = None if rest == ["none"] else parse_number(rest, keyword)
        elif keyword == "hand" or keyword == "discards":
            f[keyword] = _parse_cards(rest, keyword)
        elif keyword == "expeditions" or keyword == "known":
            if not rest or rest[0] not in ("0", "1"):
                raise PositionError(f"bad {keyword} line: expected a seat 0 or 1 first")
            f[f"{keyword}{rest[0]}"] = _parse_cards(rest[1:], keyword)
        elif keyword == "moves":
            try:
                f[keyword] = tuple(Move.parse(t) for t in rest)
            except InvalidMoveError as e:
                raise PositionError(f"bad moves line: {e}") from None
        elif keyword == "goal":
            if len(rest) < 3 or not rest[0].isdigit() or rest[1] not in ("-", "0", "1"):
                raise PositionError("bad goal line: expected goal <index> <holder> <goal>")
            try:
                goal = Goal.parse(line.split(None, 3)[3])
            except InvalidGoalError as e:
                raise PositionError(f"bad goal line: {e}") from None
            goals = dict(f.get("goals", {}))
            goals[int(rest[0])] = (goal, None if rest[1] == "-" else int(rest[1]))
            f["goals"] = goals
        elif keyword == "tally":
            if len(rest) != 4 or not all(w.isdigit() for w in rest):
                raise PositionError("bad tally line: expected four numbers")
            f[keyword] = tuple(int(w) for w in rest)
        elif keyword == "match":
            f[keyword] = parse_match(words, self.seat)
        elif keyword == "lastmove":
            if rest != ["none"]:
                try:
                    Move.parse(" ".join(rest))
                except InvalidMoveError as e:
                    raise PositionError(f"bad lastmove line: {e}") from None
        else:
            raise PositionError(f"unknown position line: {line!r}")

    def view(self) -> PlayerView:
        """The bot's view: it is this bot's turn.

        :raises PositionError: if no game was started, a position line is missing, or the
            lines cannot be a position of the variant at this bot's turn (a hand that is not
            full, an empty draw pile, a card twice, ...).
        """
        if self.variant is None:
            raise PositionError("no newgame before go")
        f = self._fields
        need = {
            "ply": "ply",
            "deck": "deck",
            "hand": "hand",
            "expeditions0": "expeditions 0",
            "expeditions1": "expeditions 1",
            "discards": "discards",
        }
        missing = [line for k, line in need.items() if k not in f]
        if missing:
            s = "s" if len(missing) > 1 else ""
            raise PositionError(f"position incomplete before go: no {', '.join(missing)} line{s}")
        me = self.seat
        var = self.variant
        _check_cards(f, var, me)

        def by_colour(cards: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
            return tuple(tuple(c for c in cards if c.color == col) for col in var.colors)

        history: tuple[Move, ...] = f.get("moves", ())
        board: GoalBoard | None = None
        if "goals" in f:
            goals: dict[int, tuple[Goal, int | None]] = f["goals"]
            if sorted(goals) != list(range(len(goals))):
                raise PositionError("position incomplete before go: goal lines are not 0, 1, ...")
            d0, d1, p0, p1 = f.get("tally", (0, 0, 0, 0))
            board = GoalBoard(
                tuple(goals[i][0] for i in range(len(goals))),
                tuple(goals[i][1] for i in range(len(goals))),
                (d0, d1),
                (p0, p1),
            )
        return PlayerView(
            variant=var,
            player=me,
            hand=tuple(sorted(f["hand"])),
            expeditions=(by_colour(f["expeditions0"]), by_colour(f["expeditions1"])),
            discard_piles=by_colour(f["discards"]),
            deck_size=f["deck"],
            to_move=me,
            history=history,
            opponent_known=tuple(sorted(f.get(f"known{me ^ 1}", ()))),
            ply=f["ply"],
            over=False,
            max_turns=f.get("maxturns"),
            own_known=tuple(sorted(f.get(f"known{me}", ()))),
            achievements=board,
            match=f.get("match"),
        )
