"""The achievements variant (seed 001): goal cards laid out face up, 10 points each.

"Five goal cards are laid out at the start, and each achievement won is worth 10 points."
No public text of the publisher's goal cards exists (``RULES.md``), so the goals here are
**this project's own**, and they are data: :data:`DEFAULT_GOALS` is the pool written for
this library, and a user may write a goal set in the line format below and load it with
:func:`load_goals` (or :meth:`GoalSet.parse`).

Two kinds of goal, each card says which:

* ``race``: the first player whose turn ends with the condition met claims it, for good
  (only the first; it stays claimed whatever happens later).
* ``end``: decided when the round ends: the player with strictly more (``most``) or
  fewer (``fewest``) of a measure claims it; a tie gives it to nobody.

Every condition reads only public information: a player's expeditions, how many cards that
player discarded and how many it drew from discard piles. Goals and claims are in every
:class:`~lostcities.PlayerView` (:attr:`~lostcities.PlayerView.achievements`).

The goal-set file format (UTF-8 text, one goal per line; blank lines and lines starting with ``#`` are ignored)::

    # id | kind | name | condition | text
    trailblazer | race | Trailblazer | expeditions >= 3 | Start three expeditions.
    cartographer | end | Cartographer | most expeditions | Most expeditions started.

A race condition is ``MEASURE OP NUMBER``, several joined by ``and``
(``OP``: ``>=``, ``>``, ``==``, ``<=``, ``<``); an end condition is ``most MEASURE`` or
``fewest MEASURE``. The measures are :data:`MEASURES`. Fields hold no ``|`` and no ``;``
(records join goals with ``;``); ids are lowercase letters, digits and ``-``.

>>> g = Goal.parse("pair | race | Pair of Wagers | wagers_in_one >= 2 | Two wagers on one.")
>>> g.kind, g.met([[Card.parse("rx"), Card.parse("rx")]], 0, 0)
('race', True)
>>> str(g) == "pair | race | Pair of Wagers | wagers_in_one >= 2 | Two wagers on one."
True
>>> len(DEFAULT_GOALS), len(DEFAULT_GOALS.draw(7))
(16, 5)
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lostcities.cards import Card
from lostcities.errors import InvalidGoalError
from lostcities.scoring import GOAL_POINTS, raw_score

__all__ = [
    "DEFAULT_GOALS",
    "GOAL_POINTS",
    "GOALS_PER_ROUND",
    "MEASURES",
    "Condition",
    "Goal",
    "GoalBoard",
    "GoalKind",
    "GoalSet",
    "decide_end",
    "goal_pool",
    "load_goals",
    "measure",
    "resolve_goals",
]

GOALS_PER_ROUND = 5
"""Goal cards laid out per round (seed 001)."""

GoalKind = Literal["race", "end"]
"""``race``: first to meet it claims it; ``end``: decided when the round ends."""

Expeditions = Sequence[Sequence[Card]]


# -- measures: what a condition counts, for one player, from public information -----------


def _started(exps: Expeditions, discards: int, draws: int) -> int:
    return sum(1 for e in exps if e)


def _cards(exps: Expeditions, discards: int, draws: int) -> int:
    return sum(len(e) for e in exps)


def _longest(exps: Expeditions, discards: int, draws: int) -> int:
    return max((len(e) for e in exps), default=0)


def _wagers(exps: Expeditions, discards: int, draws: int) -> int:
    return sum(1 for e in exps for c in e if not c.rank)


def _wagers_in_one(exps: Expeditions, discards: int, draws: int) -> int:
    return max((sum(1 for c in e if not c.rank) for e in exps), default=0)


def _scores(exps: Expeditions) -> list[int]:
    out = []
    for e in exps:
        if e:
            w = sum(1 for c in e if not c.rank)
            out.append(raw_score(sum(c.rank for c in e), w, len(e)))
    return out


def _best(exps: Expeditions, discards: int, draws: int) -> int:
    return max(_scores(exps), default=0)


def _score(exps: Expeditions, discards: int, draws: int) -> int:
    return sum(_scores(exps))


def _positive(exps: Expeditions, discards: int, draws: int) -> int:
    return sum(1 for s in _scores(exps) if s > 0)


def _tens(exps: Expeditions, discards: int, draws: int) -> int:
    return sum(1 for e in exps if any(c.rank == 10 for c in e))


def _bonus(exps: Expeditions, discards: int, draws: int) -> int:
    return sum(1 for e in exps if len(e) >= 8)


def _run(exps: Expeditions, discards: int, draws: int) -> int:
    best = 0
    for e in exps:
        prev, length = -1, 0
        for c in e:
            if not c.rank:
                continue
            length = length + 1 if c.rank == prev + 1 else 1
            prev = c.rank
            best = max(best, length)
    return best


def _number_sum(exps: Expeditions, discards: int, draws: int) -> int:
    return max((sum(c.rank for c in e) for e in exps), default=0)


def _discards(exps: Expeditions, discards: int, draws: int) -> int:
    return discards


def _pile_draws(exps: Expeditions, discards: int, draws: int) -> int:
    return draws


MEASURES: dict[str, tuple[str, Callable[[Expeditions, int, int], int]]] = {
    "expeditions": ("expeditions started", _started),
    "cards": ("cards in all expeditions, wagers included", _cards),
    "longest": ("cards in the longest expedition", _longest),
    "wagers": ("wagers in all expeditions", _wagers),
    "wagers_in_one": ("the most wagers on one expedition", _wagers_in_one),
    "best": ("the score of the best expedition (0 with none)", _best),
    "score": ("the expeditions' total score (goals not counted)", _score),
    "positive": ("expeditions scoring more than 0", _positive),
    "tens": ("expeditions holding their 10", _tens),
    "bonus": ("expeditions of 8 or more cards", _bonus),
    "run": ("the longest run of consecutive numbers in one expedition (2 3 4: 3)", _run),
    "number_sum": ("the highest sum of number cards in one expedition", _number_sum),
    "discards": ("cards the player discarded", _discards),
    "pile_draws": ("cards the player drew from discard piles", _pile_draws),
}
"""Every measure a condition may use: ``name -> (what it counts, function)``. The function
takes the player's expeditions (cards in play order per colour), discards and pile draws."""


def measure(name: str, expeditions: Expeditions, discards: int = 0, pile_draws: int = 0) -> int:
    """One player's value of measure ``name``.

    >>> measure("run", [[Card.parse("y2"), Card.parse("y3"), Card.parse("y5")]])
    2

    :raises KeyError: for an unknown measure.
    """
    return MEASURES[name][1](expeditions, discards, pile_draws)


_OPS: dict[str, Callable[[int, int], bool]] = {
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "==": lambda a, b: a == b,
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
}
_CLAUSE_RE = re.compile(r"^([a-z_]+)\s*(>=|<=|==|>|<)\s*(-?[0-9]+)$")
_END_RE = re.compile(r"^(most|fewest)\s+([a-z_]+)$")
_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True, slots=True)
class Condition:
    """One clause of a race condition: ``measure op value``."""

    measure: str
    """A name of :data:`MEASURES`."""
    op: str
    """``>=``, ``>``, ``==``, ``<=`` or ``<``."""
    value: int
    """The number compared with."""

    def __str__(self) -> str:
        return f"{self.measure} {self.op} {self.value}"


@dataclass(frozen=True, slots=True)
class Goal:
    """One goal card: its id, kind, name, condition and text (:meth:`parse`, ``str()``)."""

    id: str
    """Short unique name (lowercase letters, digits, ``-``)."""
    kind: GoalKind
    """``race`` or ``end``."""
    name: str
    """The card's title."""
    text: str
    """What the card says, in words."""
    conditions: tuple[Condition, ...] = ()
    """A race goal's clauses, all to be met."""
    compare: Literal["most", "fewest", ""] = ""
    """An end goal's comparison."""
    measure: str = ""
    """An end goal's measure."""

    @classmethod
    def parse(cls, line: str, lineno: int | None = None) -> Goal:
        """Parse one line ``id | kind | name | condition | text``.

        :raises InvalidGoalError: saying what is wrong (with ``lineno`` when given).
        """
        where = f"line {lineno}: " if lineno is not None else ""

        def bad(why: str) -> InvalidGoalError:
            return InvalidGoalError(f"invalid goal: {where}{why} in {line.strip()!r}")

        if ";" in line:
            raise bad("';' is not allowed in a goal")
        fields = [f.strip() for f in line.split("|")]
        if len(fields) != 5:
            raise bad(f"expected 5 fields 'id | kind | name | condition | text', got {len(fields)}")
        gid, kind, name, cond, text = fields
        if not _ID_RE.match(gid):
            raise bad(f"bad id {gid!r} (lowercase letters, digits and '-')")
        if not name:
            raise bad("empty name")
        if not text:
            raise bad("empty text")
        if kind == "race":
            clauses = []
            for part in re.split(r"\s+and\s+", cond):
                m = _CLAUSE_RE.match(part.strip())
                if not m:
                    raise bad(f"bad race condition {part.strip()!r} (expected e.g. 'longest >= 8')")
                if m.group(1) not in MEASURES:
                    raise bad(f"unknown measure {m.group(1)!r} (known: {', '.join(MEASURES)})")
                clauses.append(Condition(m.group(1), m.group(2), int(m.group(3))))
            return cls(gid, "race", name, text, conditions=tuple(clauses))
        if kind == "end":
            m = _END_RE.match(cond)
            if not m:
                raise bad(
                    f"bad end condition {cond!r} (expected 'most MEASURE' or 'fewest MEASURE')"
                )
            if m.group(2) not in MEASURES:
                raise bad(f"unknown measure {m.group(2)!r} (known: {', '.join(MEASURES)})")
            compare: Literal["most", "fewest"] = "most" if m.group(1) == "most" else "fewest"
            return cls(gid, "end", name, text, compare=compare, measure=m.group(2))
        raise bad(f"bad kind {kind!r} (expected race or end)")

    @property
    def condition(self) -> str:
        """The condition as the file writes it."""
        if self.kind == "race":
            return " and ".join(map(str, self.conditions))
        return f"{self.compare} {self.measure}"

    def met(self, expeditions: Expeditions, discards: int = 0, pile_draws: int = 0) -> bool:
        """Whether a race goal's condition holds for a player (always ``False`` for an end
        goal, which is :func:`decide_end`'s)."""
        if self.kind != "race":
            return False
        for c in self.conditions:
            if not _OPS[c.op](MEASURES[c.measure][1](expeditions, discards, pile_draws), c.value):
                return False
        return True

    def progress(self, expeditions: Expeditions, discards: int = 0, pile_draws: int = 0) -> float:
        """How near a player is to a race goal, ``0.0 .. 1.0`` (1: met): the least of its
        clauses', a ``>=``/``>`` clause counting ``value / target``, any other 0 or 1.
        For an end goal, 0 (who leads is :func:`decide_end`'s). For bots and observations.

        >>> g = Goal.parse("t | race | T | expeditions >= 4 | Four.")
        >>> g.progress([[Card.parse("y2")], [Card.parse("b3")]])
        0.5
        """
        if self.kind != "race":
            return 0.0
        out = 1.0
        for c in self.conditions:
            v = MEASURES[c.measure][1](expeditions, discards, pile_draws)
            if c.op in (">=", ">"):
                target = c.value + (1 if c.op == ">" else 0)
                p = 1.0 if target <= 0 else max(0.0, min(1.0, v / target))
            else:
                p = 1.0 if _OPS[c.op](v, c.value) else 0.0
            out = min(out, p)
        return out

    def __str__(self) -> str:
        return f"{self.id} | {self.kind} | {self.name} | {self.condition} | {self.text}"

    def __repr__(self) -> str:
        return f"Goal.parse({str(self)!r})"


def decide_end(
    goal: Goal,
    expeditions: Sequence[Expeditions],
    discards: Sequence[int] = (0, 0),
    pile_draws: Sequence[int] = (0, 0),
) -> int | None:
    """Who claims end goal ``goal`` when the round ends: 0, 1, or ``None`` on a tie.

    >>> g = Goal.parse("c | end | Cartographer | most expeditions | Most started.")
    >>> decide_end(g, [[[Card.parse("y2")], []], [[], []]])
    0
    >>> decide_end(g, [[[], []], [[], []]]) is None
    True
    """
    fn = MEASURES[goal.measure][1]
    a = fn(expeditions[0], discards[0], pile_draws[0])
    b = fn(expeditions[1], discards[1], pile_draws[1])
    if a == b:
        return None
    first_more = a > b
    return 0 if first_more == (goal.compare == "most") else 1


@dataclass(frozen=True, slots=True)
class GoalBoard:
    """The goal cards of a round and who claimed them: public, in every view.

    ``claims[i]`` is the player holding goal ``i``: race goals once claimed, end goals
    only once the round is over (:attr:`decided`); ``None`` otherwise.
    """

    goals: tuple[Goal, ...]
    """The goal cards laid out, in order."""
    claims: tuple[int | None, ...]
    """Who holds each goal (0, 1 or ``None``)."""
    discards: tuple[int, int] = (0, 0)
    """Cards each player discarded this round (public; some goals count them)."""
    pile_draws: tuple[int, int] = (0, 0)
    """Cards each player drew from discard piles this round (public)."""
    decided: bool = False
    """Whether the round is over, so the end goals are decided."""

    def points(self, player: int) -> int:
        """``player``'s goal points (10 per claimed goal)."""
        return GOAL_POINTS * sum(1 for c in self.claims if c == player)

    def claimed(self, player: int) -> tuple[Goal, ...]:
        """The goals ``player`` holds."""
        return tuple(g for g, c in zip(self.goals, self.claims, strict=True) if c == player)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict: each goal's fields and claim, the counters."""
        return {
            "goals": [
                {
                    "id": g.id,
                    "kind": g.kind,
                    "name": g.name,
                    "condition": g.condition,
                    "text": g.text,
                    "claimed_by": c,
                }
                for g, c in zip(self.goals, self.claims, strict=True)
            ],
            "discards": list(self.discards),
            "pile_draws": list(self.pile_draws),
            "decided": self.decided,
        }


class GoalSet(Sequence[Goal]):
    """A pool of goals (distinct ids) to draw each round's cards from.

    >>> s = GoalSet.parse("a | race | A | cards >= 3 | Three cards.\\n# note\\n", name="mine")
    >>> s.name, [g.id for g in s]
    ('mine', ['a'])
    >>> GoalSet.parse("a | race | A | cards >= 3 | x\\nb | race | B | warp >= 1 | y")
    Traceback (most recent call last):
    ...
    lostcities.errors.InvalidGoalError: invalid goal: line 2: unknown measure 'warp' ...
    """

    __slots__ = ("_goals", "name")

    def __init__(self, goals: Iterable[Goal], name: str = "custom") -> None:
        self._goals = tuple(goals)
        self.name = name
        """What the set is called (``default`` for :data:`DEFAULT_GOALS`)."""
        seen: set[str] = set()
        for g in self._goals:
            if g.id in seen:
                raise InvalidGoalError(f"invalid goal set: the id {g.id!r} is used twice")
            seen.add(g.id)
        if not self._goals:
            raise InvalidGoalError("invalid goal set: no goals")

    @classmethod
    def parse(cls, text: str, name: str = "custom") -> GoalSet:
        """Parse the line format (blank lines and ``#`` comments ignored).

        :raises InvalidGoalError: for the first bad line, with its number.
        """
        goals: list[Goal] = []
        seen: dict[str, int] = {}
        for n, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            g = Goal.parse(line, n)
            if g.id in seen:
                raise InvalidGoalError(
                    f"invalid goal: line {n}: the id {g.id!r} is already used on line {seen[g.id]}"
                )
            seen[g.id] = n
            goals.append(g)
        if not goals:
            raise InvalidGoalError("invalid goal set: no goals (every line is blank or a comment)")
        return cls(goals, name)

    def draw(self, seed: int | str, k: int = GOALS_PER_ROUND) -> tuple[Goal, ...]:
        """``k`` goals drawn from the pool by ``seed`` (all of them if the pool is smaller),
        in drawn order: the same seed always draws the same cards."""
        rng = random.Random(f"lostcities:goals:{seed}")
        return tuple(rng.sample(self._goals, min(k, len(self._goals))))

    def get(self, goal_id: str) -> Goal | None:
        """The goal with that id, if any."""
        for g in self._goals:
            if g.id == goal_id:
                return g
        return None

    def __getitem__(self, index: int) -> Goal:  # type: ignore[override]
        return self._goals[index]

    def __len__(self) -> int:
        return len(self._goals)

    def __iter__(self) -> Iterator[Goal]:
        return iter(self._goals)

    def __str__(self) -> str:
        return "".join(f"{g}\n" for g in self._goals)

    def __repr__(self) -> str:
        return f"<GoalSet {self.name!r}: {len(self._goals)} goals>"


def load_goals(path: str | Path) -> GoalSet:
    """Read a goal-set file (named after the file's stem).

    :raises InvalidGoalError: for an unreadable file or the first bad line (``path:
        line N: ...``).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidGoalError(f"invalid goal set: cannot read {str(p)!r} ({e})") from None
    try:
        return GoalSet.parse(text, name=p.stem)
    except InvalidGoalError as e:
        raise InvalidGoalError(f"{p}: {e}") from None


DEFAULT_GOALS = GoalSet.parse(
    """
# The lostcities project's own goal cards (not the publisher's: no public text of those exists).
trailblazer | race | Trailblazer | expeditions >= 3 | Be first to have three expeditions started.
grand-tour | race | Grand Tour | expeditions >= 5 | Be first to have five expeditions started.
long-march | race | Long March | longest >= 8 | Be first to lay an expedition of 8 or more cards.
double-stake | race | Double Stake | wagers_in_one >= 2 | Be first to put two wagers on one expedition.
all-in | race | All In | wagers_in_one >= 3 | Be first to put three wagers on one expedition.
treasure | race | Treasure Trove | best >= 30 | Be first to have one expedition worth 30 or more.
three-summits | race | Three Summits | tens >= 3 | Be first to reach the 10 in three expeditions.
stepping-stones | race | Stepping Stones | run >= 5 | Be first to lay five consecutive numbers in one expedition (e.g. 4 5 6 7 8).
heavy-packs | race | Heavy Packs | cards >= 16 | Be first to have 16 cards in your expeditions.
in-the-black | race | In the Black | positive >= 3 | Be first to have three expeditions each worth more than 0.
scavenger | race | Scavenger | pile_draws >= 4 | Be first to draw four cards from discard piles.
cartographer | end | Cartographer | most expeditions | At the end of the round: the most expeditions started.
high-ground | end | High Ground | most best | At the end of the round: the highest-scoring single expedition.
tidy-camp | end | Tidy Camp | fewest discards | At the end of the round: the fewest cards discarded.
high-roller | end | High Roller | most wagers | At the end of the round: the most wagers in play.
deep-pockets | end | Deep Pockets | most number_sum | At the end of the round: the highest number sum in one expedition.
""",
    name="default",
)
"""The default pool: 16 goals written by this project (11 race, 5 end)."""


def resolve_goals(achievements: object, seed: int | str) -> tuple[Goal, ...] | None:
    """The goals a round lays out for an ``achievements=`` argument: ``None``/``False``
    (classic: none), ``True`` (5 drawn from :data:`DEFAULT_GOALS` by ``seed``), a
    :class:`GoalSet` (5 drawn from it), or a sequence of :class:`Goal` (exactly these).

    :raises InvalidGoalError: for anything else, an empty sequence or repeated ids.
    """
    if achievements is None or achievements is False:
        return None
    if achievements is True:
        return DEFAULT_GOALS.draw(seed)
    if isinstance(achievements, GoalSet):
        return achievements.draw(seed)
    if isinstance(achievements, Sequence) and not isinstance(achievements, str):
        goals = tuple(achievements)
        if not all(isinstance(g, Goal) for g in goals):
            raise InvalidGoalError("invalid achievements: expected Goal objects")
        GoalSet(goals)  # distinct ids, not empty
        return goals
    raise InvalidGoalError(
        f"invalid achievements: {achievements!r} (expected True, a GoalSet or a list of goals)"
    )


def goal_pool(achievements: bool | str | GoalSet | None) -> GoalSet | None:
    """The goal pool of an ``achievements`` option: ``None``/``False`` (classic), ``True``
    or ``"default"`` (the default pool), a goal file's path, or a ``GoalSet``.

    >>> goal_pool("default").name, goal_pool(None)
    ('default', None)

    :raises InvalidGoalError: for a goal file that cannot be read, saying which line.
    """
    if achievements is None or achievements is False:
        return None
    if achievements is True or achievements == "default":
        return DEFAULT_GOALS
    if isinstance(achievements, GoalSet):
        return achievements
    return load_goals(achievements)
