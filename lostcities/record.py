"""Game records: a PGN-like text format, with a streaming reader and a writer.

A record is a match of one or more rounds. Tag pairs come first, then each round's moves::

    [Event "Casual game"]
    [Date "2026.11.30"]
    [Variant "classic"]
    [Seed "42"]
    [Players "alice; bob"]
    [Rounds "1"]
    [Result "1-0"]
    [Scores "12:-30"]
    [Starter1 "0"]
    [Deck1 "gx w2 wx b7 ..."]
    [Score1 "12 -30"]

    R1: +b7. +g8. -gx. {a comment} ...
    1-0

``DeckN`` is round N's whole deck in dealing order (as :meth:`Round.from_deck` takes it), so a
record replays without this library's random numbers. ``R1:`` starts round 1's moves;
``{...}`` is a comment; the result token (``1-0``, ``0-1``, ``1/2-1/2``, ``*``) ends the game.
See ``docs/records.md``.

>>> import io
>>> r = Round.deal(seed=3)
>>> for _ in range(4):
...     r.push(r.legal_moves()[0])
>>> text = str(GameRecord.from_round(r, players=("ann", "bob")))
>>> rec = next(read_records(io.StringIO(text)))
>>> rec.rounds[0].moves == list(r.history)
True
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, TextIO

from lostcities.achievements import Goal
from lostcities.cards import CLASSIC, Card, Variant, get_variant, parse_cards
from lostcities.errors import InvalidCardError, InvalidGoalError, InvalidMoveError
from lostcities.match import Match
from lostcities.rules import Move, Round, RoundOutcome, Termination

__all__ = [
    "GameRecord",
    "RecordError",
    "RoundRecord",
    "read_record",
    "read_records",
    "termination_tag",
    "write_record",
]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
ENDED_OFF_BOARD = ("abandoned", "adjudication")
"""The match-level ``Termination`` tags (PGN's words) of a match that ended off the board,
unfinished: its ``Result`` was decided so (a claim after a player left), not by the rounds."""
_TAG_RE = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_TOKEN_RE = re.compile(r"\{[^}]*\}|\S+")
_FORFEIT_RE = re.compile(r"^forfeit by player ([01])(?::\s*(.*))?$", re.DOTALL)
_ROUND_TAG_RE = re.compile(r"^(Starter|Deck|Score|Termination|Goals|Claims)([1-9][0-9]*)$")


class RecordError(ValueError):
    """A record that is malformed or does not replay; ``line`` is where (1-based); ``move``
    is ``(round, move)`` (both 1-based) for a move the rules refuse."""

    def __init__(
        self, message: str, line: int | None = None, move: tuple[int, int] | None = None
    ) -> None:
        super().__init__(f"line {line}: {message}" if line is not None else message)
        self.line = line
        self.reason = message
        self.move = move


@dataclass
class RoundRecord:
    """One round of a record."""

    starter: int
    """Who moved first."""
    deck: tuple[Card, ...]
    """The whole deck in dealing order."""
    moves: list[Move] = field(default_factory=list)
    """The moves in order."""
    scores: tuple[int, int] | None = None
    """The recorded final scores (``None`` if the round is unfinished)."""
    termination: str = ""
    """``""`` for the normal end; ``turn limit``; ``forfeit by player N: reason``."""
    comments: list[tuple[int, str]] = field(default_factory=list)
    """``(ply, text)``: a comment written after the first ``ply`` moves."""
    goals: tuple[Goal, ...] | None = None
    """The achievements variant's goal cards of the round (``None``: classic)."""
    claims: tuple[int | None, ...] | None = None
    """The recorded claims, one per goal (``None`` where nobody holds it)."""
    tag_lines: dict[str, int] = field(default_factory=dict)
    """The line each of the round's tags was read from (``"Starter"``, ``"Score"``, ...),
    for errors that name the tag's line."""


@dataclass
class GameRecord:
    """A recorded game (a match of one or more rounds) with its tags."""

    tags: dict[str, str] = field(default_factory=dict)
    """Tag pairs in order (round tags are kept in :attr:`rounds`)."""
    rounds: list[RoundRecord] = field(default_factory=list)
    """The rounds in order."""
    errors: list[RecordError] = field(default_factory=list)
    """Problems found while reading (the reader collects rather than raises)."""
    line: int = 0
    """The line this record starts on in its file."""
    tag_lines: dict[str, int] = field(default_factory=dict)
    """The line each tag of :attr:`tags` was read from (empty for a record built here)."""

    @property
    def variant(self) -> Variant:
        """The variant named by the ``Variant`` tag (classic by default)."""
        return get_variant(self.tags.get("Variant", "classic"))

    @property
    def players(self) -> tuple[str, str]:
        """Both player names from the ``Players`` tag (``?`` when unknown)."""
        names = [n.strip() for n in self.tags.get("Players", "?; ?").split(";")]
        names += ["?"] * (2 - len(names))
        return (names[0] or "?", names[1] or "?")

    @property
    def result(self) -> str:
        """The ``Result`` tag: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``."""
        return self.tags.get("Result", "*")

    # -- building ----------------------------------------------------------------------

    @classmethod
    def from_match(
        cls, match: Match, players: Sequence[str] = ("?", "?"), **tags: str
    ) -> GameRecord:
        """The record of a match (finished or not)."""
        rec = cls(tags=_base_tags(match.variant, match.seed, players, tags))
        rec.tags["Rounds"] = str(match.num_rounds)
        rec.tags["Result"] = match.result()
        if match.max_turns is not None:
            rec.tags["MaxTurns"] = str(match.max_turns)
        if match.achievements is not None:
            rec.tags["Achievements"] = match.achievements.name
        if match.tie_break != "draw":
            rec.tags["TieBreak"] = match.tie_break
            rec.tags["Younger"] = str(match.younger)
        rec.rounds = [_round_record(r) for r in match.rounds]
        _fill_scores(rec)
        return rec

    @classmethod
    def from_round(
        cls, round: Round, players: Sequence[str] = ("?", "?"), **tags: str
    ) -> GameRecord:
        """The record of a single round (a one-round match)."""
        rec = cls(tags=_base_tags(round.variant, round.seed, players, tags))
        rec.tags["Rounds"] = "1"
        outcome = round.outcome()
        rec.tags["Result"] = outcome.result() if outcome is not None else "*"
        if round.max_turns is not None:
            rec.tags["MaxTurns"] = str(round.max_turns)
        if round.achievements is not None:
            rec.tags["Achievements"] = "goals"
        rec.rounds = [_round_record(round)]
        _fill_scores(rec)
        return rec

    # -- replay ------------------------------------------------------------------------

    def replay(self) -> Match:
        """Replay every round with the rules and check the recorded starters, scores (the
        ``ScoreN`` and ``Scores`` tags), claims and result.

        :raises RecordError: naming the first problem (with its line when known: the
            tag's line for a tag that disagrees with the moves, the move's line for an
            illegal move).
        """
        match, error = self.replay_until_error()
        if error is not None:
            raise error
        assert match is not None
        return match

    def replay_until_error(self) -> tuple[Match | None, RecordError | None]:
        """Replay as :meth:`replay` does, but return ``(match, error)`` instead of raising:
        on an error, ``match`` holds what replayed before it (the failing round with the
        moves made before the bad one), or is ``None`` when the record could not be
        replayed at all (malformed tags or notation)."""
        structural = [e for e in self.errors if e.move is None]
        if structural:
            return None, structural[0]
        deferred: dict[tuple[int, int], RecordError] = {}
        for e in self.errors:
            if e.move is not None:
                deferred.setdefault(e.move, e)
        holder: list[Match] = []
        try:
            match = self._replay(deferred, holder)
        except RecordError as e:
            return (holder[0] if holder else None), e
        if deferred:  # pragma: no cover - the reader refused a move the replay allowed
            return match, next(iter(deferred.values()))
        return match, None

    def _line(self, tag: str) -> int:
        return self.tag_lines.get(tag, self.line)

    def _replay(self, deferred: dict[tuple[int, int], RecordError], holder: list[Match]) -> Match:
        try:
            num = int(self.tags.get("Rounds", str(len(self.rounds) or 1)))
            seed = int(self.tags["Seed"]) if self.tags.get("Seed", "?") != "?" else 0
            max_turns = int(self.tags["MaxTurns"]) if "MaxTurns" in self.tags else None
            younger = int(self.tags["Younger"]) if "Younger" in self.tags else None
        except ValueError as e:
            raise RecordError(f"bad tag value ({e})", self.line) from None
        if len(self.rounds) > num:
            raise RecordError(f"{len(self.rounds)} rounds recorded, but Rounds is {num}", self.line)
        first = self.rounds[0].starter if self.rounds else 0
        try:
            match = Match(
                num,
                variant=self.variant,
                seed=seed,
                starter=first,
                max_turns=max_turns,
                tie_break=self.tags.get("TieBreak", "draw"),
                younger=younger,
                achievements=any(rr.goals is not None for rr in self.rounds)
                or "Achievements" in self.tags,
            )
        except ValueError as e:
            raise RecordError(str(e), self.line) from None
        holder.append(match)
        for k, rr in enumerate(self.rounds, 1):
            if match.is_over():
                raise RecordError(f"round {k} recorded after the match was over", self.line)
            expected = match.next_starter()
            if rr.starter != expected:
                raise RecordError(
                    f"round {k}: starter is player {rr.starter}, but the rules say player "
                    f"{expected} starts",
                    rr.tag_lines.get("Starter", self.line),
                )
            if match.achievements is not None and rr.goals is None:
                raise RecordError(
                    f"round {k}: an achievements game with no Goals{k} tag", self.line
                )
            try:
                r = match.new_round(rr.deck, goals=rr.goals)
            except ValueError as e:
                raise RecordError(f"round {k}: {e}", self.line) from None
            for i, move in enumerate(rr.moves):
                try:
                    r.push(move)
                except ValueError as e:
                    known = deferred.pop((k, i + 1), None)  # the reader has the move's line
                    if known is not None:
                        raise known from None
                    raise RecordError(f"round {k}, move {i + 1}: {e}", self.line) from None
            m = _FORFEIT_RE.match(rr.termination)
            if m:
                r.forfeit(int(m.group(1)), m.group(2) or "")
            elif rr.termination == Termination.TURN_LIMIT.value and not r.truncated:
                raise RecordError(f"round {k}: recorded as truncated but it is not", self.line)
            if rr.scores is not None:
                at = rr.tag_lines.get("Score", self.line)
                if not r.is_over():
                    raise RecordError(f"round {k}: has a score but is not over", at)
                if r.scores() != rr.scores:
                    raise RecordError(
                        f"round {k}: recorded score {rr.scores[0]} {rr.scores[1]}, but the "
                        f"moves score {r.scores()[0]} {r.scores()[1]}",
                        at,
                    )
            elif r.is_over():
                raise RecordError(f"round {k}: is over but has no Score{k} tag", self.line)
            if rr.claims is not None and rr.claims != r.claims:
                raise RecordError(
                    f"round {k}: recorded claims {_claims_text(rr.claims)!r}, but the moves "
                    f"give {_claims_text(r.claims)!r}",
                    rr.tag_lines.get("Claims", self.line),
                )
        if "Scores" in self.tags:
            given = self.tags["Scores"].split()
            moves_give = [
                f"{r.scores()[0]}:{r.scores()[1]}" if r.is_over() else "*" for r in match.rounds
            ]
            if given != moves_give:
                raise RecordError(
                    f"Scores is {self.tags['Scores']!r}, but the rounds give "
                    f"{' '.join(moves_give)!r}",
                    self._line("Scores"),
                )
        result = self.tags.get("Result", "*")
        adjudged = match.result() == "*" and self.tags.get("Termination") in ENDED_OFF_BOARD
        if result != match.result() and not adjudged:
            raise RecordError(
                f"Result is {result!r}, but the rounds give {match.result()!r}",
                self._line("Result"),
            )
        return match

    # -- writing -----------------------------------------------------------------------

    def __str__(self) -> str:
        lines = [f'[{k} "{_escape(v)}"]' for k, v in self.tags.items()]
        for k, rr in enumerate(self.rounds, 1):
            lines.append(f'[Starter{k} "{rr.starter}"]')
            lines.append(f'[Deck{k} "{" ".join(map(str, rr.deck))}"]')
            if rr.scores is not None:
                lines.append(f'[Score{k} "{rr.scores[0]} {rr.scores[1]}"]')
            if rr.termination:
                lines.append(f'[Termination{k} "{_escape(rr.termination)}"]')
            if rr.goals is not None:
                lines.append(f'[Goals{k} "{_escape(" ; ".join(map(str, rr.goals)))}"]')
            if rr.claims is not None:
                lines.append(f'[Claims{k} "{_claims_text(rr.claims)}"]')
        lines.append("")
        for k, rr in enumerate(self.rounds, 1):
            tokens = [f"R{k}:"]
            comments = sorted(rr.comments)
            ci = 0
            for ply in range(len(rr.moves) + 1):
                while ci < len(comments) and comments[ci][0] == ply:
                    tokens.append("{" + comments[ci][1].replace("}", ")") + "}")
                    ci += 1
                if ply < len(rr.moves):
                    tokens.append(str(rr.moves[ply]))
            lines.extend(_wrap(tokens))
        lines.append(self.tags.get("Result", "*"))
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready summary (tags, per-round scores, errors)."""
        return {
            "line": self.line,
            "tags": dict(self.tags),
            "rounds": [
                {
                    "starter": rr.starter,
                    "moves": len(rr.moves),
                    "scores": list(rr.scores) if rr.scores else None,
                    "termination": rr.termination or "draw pile empty",
                }
                for rr in self.rounds
            ],
            "errors": [str(e) for e in self.errors],
        }


def _claims_text(claims: Sequence[int | None]) -> str:
    return " ".join("-" if c is None else str(c) for c in claims)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _wrap(tokens: list[str], width: int = 79) -> list[str]:
    out: list[str] = []
    line = ""
    for t in tokens:
        if line and len(line) + 1 + len(t) > width:
            out.append(line)
            line = t
        else:
            line = f"{line} {t}" if line else t
    if line:
        out.append(line)
    return out


def _base_tags(
    variant: Variant, seed: int | None, players: Sequence[str], extra: dict[str, str]
) -> dict[str, str]:
    if len(players) != 2:
        raise ValueError(f"invalid players: {players!r} (expected two names)")
    tags = {
        "Event": extra.pop("Event", "Casual game"),
        "Date": extra.pop("Date", datetime.date.today().strftime("%Y.%m.%d")),
        "Variant": variant.name,
        "Seed": "?" if seed is None else str(seed),
        "Players": "; ".join(p.replace(";", ",").strip() or "?" for p in players),
    }
    for k, v in extra.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", k) or _ROUND_TAG_RE.match(k):
            raise ValueError(f"invalid tag name: {k!r}")
        tags[k] = str(v)
    return tags


def termination_tag(outcome: RoundOutcome | None) -> str:
    """The ``TerminationN`` tag of a round that ended so (:attr:`RoundRecord.termination`):
    ``""`` for the rules' ending (or a round not over), ``turn limit``, or ``forfeit by
    player N`` with the reason after a colon.

    >>> r = Round.deal(seed=1)
    >>> r.forfeit(0, "timed out")
    >>> termination_tag(r.outcome())
    'forfeit by player 0: timed out'
    """
    if outcome is None:
        return ""
    if outcome.termination is Termination.FORFEIT:
        loser = 1 - outcome.winner if outcome.winner is not None else 0
        return f"forfeit by player {loser}" + (f": {outcome.reason}" if outcome.reason else "")
    if outcome.termination is Termination.TURN_LIMIT:
        return Termination.TURN_LIMIT.value
    return ""


def _round_record(r: Round) -> RoundRecord:
    outcome = r.outcome()
    scores = outcome.scores if outcome is not None else None
    rr = RoundRecord(r.starter, r.deal_order, list(r.history), scores, termination_tag(outcome))
    if r.achievements is not None:
        rr.goals = r.goals
        rr.claims = r.claims
    return rr


def _fill_scores(rec: GameRecord) -> None:
    rec.tags["Scores"] = " ".join(
        f"{rr.scores[0]}:{rr.scores[1]}" if rr.scores else "*" for rr in rec.rounds
    )


# -- reading ------------------------------------------------------------------------------


class _Reader:
    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.lineno = 0
        self.pending: str | None = None

    def next_line(self) -> str | None:
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        line = self.stream.readline()
        if not line:
            return None
        self.lineno += 1
        return line

    def push_back(self, line: str) -> None:
        self.pending = line


def read_record(stream: IO[str]) -> GameRecord | None:
    """Read the first record of ``stream`` (``None`` if there is none). To read many, use
    :func:`read_records`, which streams them with correct line numbers."""
    return next(read_records(stream), None)


def read_records(stream: IO[str]) -> Iterator[GameRecord]:
    """Stream every record of ``stream``, one at a time."""
    reader = _Reader(stream)
    while True:
        rec = _read_one(reader)
        if rec is None:
            return
        yield rec


def _read_one(rd: _Reader) -> GameRecord | None:
    """The next record of ``rd`` (``None`` at the end): its tag section, the rounds its
    tags describe, then its movetext up to the result token. Problems are collected in
    :attr:`GameRecord.errors`, in the order they are met."""
    line = rd.next_line()
    while line is not None and not line.strip():
        line = rd.next_line()
    if line is None:
        return None
    parser = _RecordParser(rd, GameRecord(line=rd.lineno))
    line = parser.read_tags(line)
    variant = parser.check_variant()
    parser.build_rounds(variant)
    parser.read_movetext(line, variant)
    return parser.rec


_ROUND_TAGS = ("Starter", "Deck", "Score", "Goals", "Claims")
"""The round tags kept with the line they were read from (``TerminationN`` is kept bare)."""


class _RecordParser:
    """The state of reading one record: the record so far, each round tag by round number
    (its value and line), and in the movetext the round being read."""

    def __init__(self, rd: _Reader, rec: GameRecord) -> None:
        self.rd = rd
        self.rec = rec
        self.round_tags: dict[str, dict[int, tuple[str, int]]] = {k: {} for k in _ROUND_TAGS}
        self.terms: dict[int, str] = {}
        self.current: RoundRecord | None = None
        self.round_no = 0
        self.shadow: Round | None = None
        """The round being read, replayed move by move to find an illegal move's line."""

    def error(self, msg: str, at: int | None = None, move: tuple[int, int] | None = None) -> None:
        """Collect a problem, on line ``at`` (default: the line being read)."""
        self.rec.errors.append(RecordError(msg, self.rd.lineno if at is None else at, move))

    # -- the tag section

    def read_tags(self, line: str | None) -> str | None:
        """Read the tag pairs from ``line`` on; returns the first line after them."""
        while line is not None and line.strip().startswith("["):
            self._tag(line.strip())
            line = self.rd.next_line()
        return line

    def _tag(self, text: str) -> None:
        m = _TAG_RE.match(text)
        if not m:
            self.error(f"malformed tag pair: {text!r}")
            return
        key, value = m.group(1), _unescape(m.group(2))
        rm = _ROUND_TAG_RE.match(key)
        if rm:
            kind, k = rm.group(1), int(rm.group(2))
            if kind in self.round_tags:
                self.round_tags[kind][k] = (value, self.rd.lineno)
            else:
                self.terms[k] = value
            return
        if key in self.rec.tags:
            self.error(f"tag {key} given twice")
        self.rec.tags[key] = value
        self.rec.tag_lines[key] = self.rd.lineno

    def check_variant(self) -> Variant:
        """The variant the tags name (classic when unknown, after an error)."""
        if "Variant" in self.rec.tags:
            try:
                get_variant(self.rec.tags["Variant"])
            except ValueError as e:
                self.error(str(e), self.rec.line)
        return _safe_variant(self.rec.tags.get("Variant", "classic"))

    # -- the rounds the tags describe

    def build_rounds(self, variant: Variant) -> None:
        """One :class:`RoundRecord` per round that has a Starter, Deck or Score tag."""
        t = self.round_tags
        n_rounds = max([0, *t["Starter"], *t["Deck"], *t["Score"]])
        for k in range(1, n_rounds + 1):
            self.rec.rounds.append(self._round(k, variant))

    def _round(self, k: int, variant: Variant) -> RoundRecord:
        starters = self.round_tags["Starter"]
        st_text, st_line = starters.get(k, ("0", self.rec.line))
        if k not in starters:
            self.error(f"round {k} has no Starter{k} tag", self.rec.line)
        if st_text not in ("0", "1"):
            self.error(f"Starter{k} must be 0 or 1, not {st_text!r}", st_line)
        deck = self._deck(k, variant)
        score = self._score(k)
        rr = RoundRecord(1 if st_text == "1" else 0, deck, [], score, self.terms.get(k, ""))
        for kind in _ROUND_TAGS:
            if k in self.round_tags[kind]:
                rr.tag_lines[kind] = self.round_tags[kind][k][1]
        self._goals(k, rr)
        self._claims(k, rr)
        return rr

    def _deck(self, k: int, variant: Variant) -> tuple[Card, ...]:
        if k not in self.round_tags["Deck"]:
            self.error(f"round {k} has no Deck{k} tag", self.rec.line)
            return ()
        text, at = self.round_tags["Deck"][k]
        deck: tuple[Card, ...] = ()
        try:
            deck = tuple(parse_cards(text))
            Round.from_deck(deck, 0, variant)
        except (InvalidCardError, ValueError) as e:
            self.error(f"Deck{k}: {e}", at)
        return deck

    def _score(self, k: int) -> tuple[int, int] | None:
        if k not in self.round_tags["Score"]:
            return None
        text, at = self.round_tags["Score"][k]
        parts = text.split()
        try:
            if len(parts) != 2:
                raise ValueError
            return (int(parts[0]), int(parts[1]))
        except ValueError:
            self.error(f"Score{k} must be two whole numbers, not {text!r}", at)
            return None

    def _goals(self, k: int, rr: RoundRecord) -> None:
        if k not in self.round_tags["Goals"]:
            return
        text, at = self.round_tags["Goals"][k]
        try:
            rr.goals = tuple(Goal.parse(part) for part in text.split(";"))
        except InvalidGoalError as e:
            self.error(f"Goals{k}: {e}", at)

    def _claims(self, k: int, rr: RoundRecord) -> None:
        if k not in self.round_tags["Claims"]:
            return
        text, at = self.round_tags["Claims"][k]
        parts = text.split()
        if not all(c in ("-", "0", "1") for c in parts) or (
            rr.goals is not None and len(parts) != len(rr.goals)
        ):
            self.error(f"Claims{k} must be one of '-', '0', '1' per goal, not {text!r}", at)
        else:
            rr.claims = tuple(None if c == "-" else int(c) for c in parts)

    # -- the movetext, up to the result token

    def read_movetext(self, line: str | None, variant: Variant) -> None:
        """Read the moves from ``line`` on, up to and with the result token (a tag pair
        before it is left for the next record)."""
        done = False
        while line is not None and not done:
            stripped = line.strip()
            if stripped.startswith("[") and _TAG_RE.match(stripped):
                self.error("tag pair after the moves (missing result token?)")
                self.rd.push_back(line)
                break
            for tok in _TOKEN_RE.findall(line):
                if self._token(tok, variant):
                    done = True
                    break
            if not done:
                line = self.rd.next_line()
        if not done and not any("missing result" in str(e) for e in self.rec.errors):
            self.error("unexpected end of file (missing result token)")

    def _token(self, tok: str, variant: Variant) -> bool:
        """Read one movetext token; true for the result token, which ends the record."""
        if tok.startswith("{"):
            if self.current is not None:
                self.current.comments.append((len(self.current.moves), tok[1:-1].strip()))
            return False
        if tok in RESULTS:
            if tok != self.rec.tags.get("Result", "*"):
                self.error(f"result token {tok!r} differs from the Result tag")
            return True
        marker = re.fullmatch(r"R([1-9][0-9]*):", tok)
        if marker:
            self._round_marker(tok, int(marker.group(1)), variant)
        elif self.current is None:
            self.error(f"move {tok!r} before a round marker such as 'R1:'")
        else:
            self._move(tok, self.current)
        return False

    def _round_marker(self, tok: str, round_no: int, variant: Variant) -> None:
        rounds, current = self.rec.rounds, self.current
        self.round_no = round_no
        if round_no != (rounds.index(current) + 2 if current else 1):
            self.error(f"round marker {tok!r} out of order")
        if round_no > len(rounds):
            self.error(f"round marker {tok!r} has no Deck{round_no}/Starter{round_no} tags")
            self.current = None
            self.shadow = None
            return
        self.current = rounds[round_no - 1]
        try:
            self.shadow = Round.from_deck(self.current.deck, self.current.starter, variant)
        except ValueError:
            self.shadow = None

    def _move(self, tok: str, current: RoundRecord) -> None:
        try:
            move = Move.parse(tok)
        except InvalidMoveError as e:
            self.error(str(e))
            self.shadow = None
            return
        if self.shadow is not None:
            try:
                self.shadow.push(move)
            except ValueError as e:
                n = len(current.moves) + 1
                self.error(f"round {self.round_no}, move {n}: {e}", move=(self.round_no, n))
                self.shadow = None
        current.moves.append(move)


def _safe_variant(name: str) -> Variant:
    try:
        return get_variant(name)
    except ValueError:
        return CLASSIC


def write_record(record: GameRecord, stream: TextIO) -> None:
    """Append ``record`` to ``stream``, followed by a blank line."""
    stream.write(str(record))
    stream.write("\n")
