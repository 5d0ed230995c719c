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
import json
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
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
    "replay_files",
    "write_record",
]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
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

    def _replay(
        self, deferred: dict[tuple[int, int], RecordError], holder: list[Match]
    ) -> Match:
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
                raise RecordError(f"round {k}: an achievements game with no Goals{k} tag", self.line)
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
        if result != match.result():
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


def _round_record(r: Round) -> RoundRecord:
    outcome = r.outcome()
    term = ""
    scores = None
    if outcome is not None:
        scores = outcome.scores
        if outcome.termination is Termination.FORFEIT:
            loser = 1 - outcome.winner if outcome.winner is not None else 0
            term = f"forfeit by player {loser}" + (f": {outcome.reason}" if outcome.reason else "")
        elif outcome.termination is Termination.TURN_LIMIT:
            term = Termination.TURN_LIMIT.value
    rr = RoundRecord(r.starter, r.deal_order, list(r.history), scores, term)
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
    line = rd.next_line()
    while line is not None and not line.strip():
        line = rd.next_line()
    if line is None:
        return None
    rec = GameRecord(line=rd.lineno)
    starters: dict[int, tuple[str, int]] = {}
    decks: dict[int, tuple[str, int]] = {}
    scores: dict[int, tuple[str, int]] = {}
    terms: dict[int, str] = {}
    goal_tags: dict[int, tuple[str, int]] = {}
    claim_tags: dict[int, tuple[str, int]] = {}

    def error(msg: str, at: int | None = None, move: tuple[int, int] | None = None) -> None:
        rec.errors.append(RecordError(msg, rd.lineno if at is None else at, move))

    # tag section
    while line is not None and line.strip().startswith("["):
        m = _TAG_RE.match(line.strip())
        if not m:
            error(f"malformed tag pair: {line.strip()!r}")
        else:
            key, value = m.group(1), _unescape(m.group(2))
            rm = _ROUND_TAG_RE.match(key)
            if rm:
                kind, k = rm.group(1), int(rm.group(2))
                target = {
                    "Starter": starters,
                    "Deck": decks,
                    "Score": scores,
                    "Goals": goal_tags,
                    "Claims": claim_tags,
                }.get(kind)
                if target is not None:
                    target[k] = (value, rd.lineno)
                else:
                    terms[k] = value
            else:
                if key in rec.tags:
                    error(f"tag {key} given twice")
                rec.tags[key] = value
                rec.tag_lines[key] = rd.lineno
        line = rd.next_line()
    if "Variant" in rec.tags:
        try:
            get_variant(rec.tags["Variant"])
        except ValueError as e:
            error(str(e), rec.line)
    variant = _safe_variant(rec.tags.get("Variant", "classic"))

    # rounds from the tags
    n_rounds = max([0, *starters, *decks, *scores])
    for k in range(1, n_rounds + 1):
        st_text, st_line = starters.get(k, ("0", rec.line))
        if k not in starters:
            error(f"round {k} has no Starter{k} tag", rec.line)
        if st_text not in ("0", "1"):
            error(f"Starter{k} must be 0 or 1, not {st_text!r}", st_line)
        deck: tuple[Card, ...] = ()
        if k not in decks:
            error(f"round {k} has no Deck{k} tag", rec.line)
        else:
            text, at = decks[k]
            try:
                deck = tuple(parse_cards(text))
                Round.from_deck(deck, 0, variant)
            except (InvalidCardError, ValueError) as e:
                error(f"Deck{k}: {e}", at)
        sc: tuple[int, int] | None = None
        if k in scores:
            text, at = scores[k]
            parts = text.split()
            try:
                if len(parts) != 2:
                    raise ValueError
                sc = (int(parts[0]), int(parts[1]))
            except ValueError:
                error(f"Score{k} must be two whole numbers, not {text!r}", at)
        rr = RoundRecord(1 if st_text == "1" else 0, deck, [], sc, terms.get(k, ""))
        for kind, tags in (
            ("Starter", starters), ("Deck", decks), ("Score", scores),
            ("Goals", goal_tags), ("Claims", claim_tags),
        ):
            if k in tags:
                rr.tag_lines[kind] = tags[k][1]
        if k in goal_tags:
            text, at = goal_tags[k]
            try:
                rr.goals = tuple(Goal.parse(part) for part in text.split(";"))
            except InvalidGoalError as e:
                error(f"Goals{k}: {e}", at)
        if k in claim_tags:
            text, at = claim_tags[k]
            parts = text.split()
            if not all(c in ("-", "0", "1") for c in parts) or (
                rr.goals is not None and len(parts) != len(rr.goals)
            ):
                error(f"Claims{k} must be one of '-', '0', '1' per goal, not {text!r}", at)
            else:
                rr.claims = tuple(None if c == "-" else int(c) for c in parts)
        rec.rounds.append(rr)

    # movetext, up to the result token
    current: RoundRecord | None = None
    round_no = 0
    shadow: Round | None = None
    done = False
    while line is not None and not done:
        stripped = line.strip()
        if stripped.startswith("[") and _TAG_RE.match(stripped):
            error("tag pair after the moves (missing result token?)")
            rd.push_back(line)
            break
        for tok in _TOKEN_RE.findall(line):
            if tok.startswith("{"):
                if current is not None:
                    current.comments.append((len(current.moves), tok[1:-1].strip()))
                continue
            if tok in RESULTS:
                if tok != rec.tags.get("Result", "*"):
                    error(f"result token {tok!r} differs from the Result tag")
                done = True
                break
            rm2 = re.fullmatch(r"R([1-9][0-9]*):", tok)
            if rm2:
                round_no = int(rm2.group(1))
                if round_no != (rec.rounds.index(current) + 2 if current else 1):
                    error(f"round marker {tok!r} out of order")
                if round_no > len(rec.rounds):
                    error(f"round marker {tok!r} has no Deck{round_no}/Starter{round_no} tags")
                    current = None
                    shadow = None
                    continue
                current = rec.rounds[round_no - 1]
                try:
                    shadow = Round.from_deck(current.deck, current.starter, variant)
                except ValueError:
                    shadow = None
                continue
            if current is None:
                error(f"move {tok!r} before a round marker such as 'R1:'")
                continue
            try:
                move = Move.parse(tok)
            except InvalidMoveError as e:
                error(str(e))
                shadow = None
                continue
            if shadow is not None:
                try:
                    shadow.push(move)
                except ValueError as e:
                    n = len(current.moves) + 1
                    error(f"round {round_no}, move {n}: {e}", move=(round_no, n))
                    shadow = None
            current.moves.append(move)
        if not done:
            line = rd.next_line()
    if not done and not any("missing result" in str(e) for e in rec.errors):
        error("unexpected end of file (missing result token)")
    return rec


def _round_text(r: Round) -> str:
    """``12:-30``, with a forfeit named: ``0:0 forfeit by player 1``."""
    text = f"{r.scores()[0]}:{r.scores()[1]}"
    outcome = r.outcome()
    if outcome is not None and outcome.termination is Termination.FORFEIT:
        text += f" {_termination_text(outcome)}"
    return text


def _safe_variant(name: str) -> Variant:
    try:
        return get_variant(name)
    except ValueError:
        return CLASSIC


def write_record(record: GameRecord, stream: TextIO) -> None:
    """Append ``record`` to ``stream``, followed by a blank line."""
    stream.write(str(record))
    stream.write("\n")


# -- the ``lostcities replay`` command ----------------------------------------------------


def replay_files(paths: Iterable[str], *, as_json: bool = False, quiet: bool = False) -> int:
    """Check every record in ``paths``; print each game's result. Exit code 0 if all
    replay exactly, 2 otherwise."""
    bad = 0
    for path in paths:
        try:
            stream: IO[str] = (
                sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
            )
        except OSError as e:
            print(f"{path}: error: {e.strerror or e}", file=sys.stderr)
            bad += 1
            continue
        try:
            n = 0
            for n, rec in enumerate(read_records(stream), 1):
                bad += _report(path, n, rec, as_json=as_json, quiet=quiet)
            if n == 0:
                print(f"{path}: error: no game record in the file", file=sys.stderr)
                bad += 1
        except UnicodeDecodeError:
            print(f"{path}: error: not a UTF-8 text file", file=sys.stderr)
            bad += 1
        finally:
            if stream is not sys.stdin:
                stream.close()
    return 2 if bad else 0


def _round_summary(r: Round | None) -> dict[str, object]:
    """A replayed round as ``--json`` gives it: only what the replay reached."""
    outcome = r.outcome() if r is not None else None
    return {
        "moves": r.ply if r is not None else 0,
        "scores": list(r.scores()) if r is not None and outcome is not None else None,
        "termination": _termination_text(outcome),
    }


def _termination_text(outcome: RoundOutcome | None) -> str | None:
    if outcome is None:
        return None
    if outcome.termination is Termination.FORFEIT:
        loser = 1 - outcome.winner if outcome.winner is not None else 0
        return f"forfeit by player {loser}" + (f": {outcome.reason}" if outcome.reason else "")
    text: str = outcome.termination.value
    return text


def _report(path: str, n: int, rec: GameRecord, *, as_json: bool, quiet: bool) -> int:
    match, error = rec.replay_until_error()
    if as_json:
        out = rec.to_dict()
        out["file"] = path
        out["game"] = n
        out["ok"] = error is None
        replayed = match.rounds if match is not None else []
        rounds: list[dict[str, object]] = []
        for i, rr in enumerate(rec.rounds):
            entry: dict[str, object] = {"starter": rr.starter}
            entry.update(_round_summary(replayed[i] if i < len(replayed) else None))
            entry["recorded_moves"] = len(rr.moves)
            rounds.append(entry)
        out["rounds"] = rounds
        if error is not None:
            out["errors"] = [str(error)]
        else:
            assert match is not None
            out["totals"] = list(match.totals())
        print(json.dumps(out))
        return 0 if error is None else 1
    if error is not None:
        where = f"{path}:{error.line}" if error.line is not None else path
        print(f"{where}: error: game {n}: {error.reason}", file=sys.stderr)
        return 1
    if not quiet:
        assert match is not None
        a, b = rec.players
        per_round = ", ".join(_round_text(r) for r in match.rounds)
        t = match.totals()
        print(
            f"{path}: game {n}: {a} vs {b}, {match.variant.name}, "
            f"{len(match.rounds)}/{match.num_rounds} rounds ({per_round}), "
            f"totals {t[0]}:{t[1]}, result {match.result()}"
        )
    return 0

