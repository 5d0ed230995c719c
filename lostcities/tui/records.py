"""The game record of a terminal match: :mod:`lostcities.record`'s format, with every undo
kept as a ``{undo MOVE}`` comment where the undone move was made (``{take back MOVE and
REPLY}`` for a move taken back with the bot's reply), and an ``Assisted`` tag when the
person asked for hints or took moves back.

A records file holds many games (``docs/records.md``): a save adds the match's record at
the end of the file and never overwrites the others; a later save of the same match (the
unfinished match saved on quitting, then finished after ``--resume``) replaces its own
record where it is (:class:`RecordSlot`).

>>> s = Session(rounds=1, seed=2, opponent="random")
>>> r = s.start_round()
>>> "R1:" in write(build_record(s))
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from lostcities.bots import Bot, make
from lostcities.record import GameRecord, RecordError, read_records
from lostcities.rules import Move
from lostcities.tui.session import Session, UndoRecord

__all__ = [
    "NotARecordsFileError",
    "RecordSlot",
    "ResumeError",
    "build_record",
    "check_records_file",
    "find_unfinished",
    "restore_assistance",
    "resume",
    "save_to",
    "write",
]


NOT_RECORDS = "it holds something other than game records (a save adds its record to those)"
"""Why a save refuses a file (:class:`NotARecordsFileError`)."""


class NotARecordsFileError(ValueError):
    """A save would add a game record to a file that holds something else."""


class ResumeError(ValueError):
    """``--resume FILE`` names no unfinished terminal match that can go on."""


def build_record(session: Session) -> GameRecord:
    """The record of the session's match so far (finished or not), undos included."""
    tags = {"Event": "Hot-seat game" if session.hotseat else "Terminal game"}
    if not session.hotseat:
        tags["Opponent"] = session.opponent
    if session.assisted:
        tags["Assisted"] = session.assistance()
    rec = GameRecord.from_match(session.match, players=session.names, **tags)
    for u in session.undos:
        text = f"undo {u.move}" if u.reply is None else f"take back {u.move} and {u.reply}"
        rec.rounds[u.round_index].comments.append((u.ply, text))
    return rec


def write(record: GameRecord) -> str:
    """The record as text."""
    return str(record)


@dataclasses.dataclass(frozen=True, slots=True)
class RecordSlot:
    """Where a match's record lies in a records file: characters ``start`` to ``start +
    len(text)`` of ``path`` hold ``text``."""

    path: str
    """The file."""
    start: int
    """Where the record begins (characters from the start of the file)."""
    text: str
    """The record's text as written (or read) there."""


def check_records_file(path: str | Path) -> None:
    """Check that a save may add a record to ``path``: it does not exist, is empty, or
    holds game records (readable ones; a file of anything else is never written to).

    :raises NotARecordsFileError: if it holds something else.
    :raises OSError: if it cannot be read.
    """
    p = Path(path)
    if not p.is_file():
        return
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise NotARecordsFileError(NOT_RECORDS) from None
    if not text.strip():
        return
    records = list(read_records(io.StringIO(text)))
    if not records or any(e.move is None for r in records for e in r.errors):
        raise NotARecordsFileError(NOT_RECORDS)


def save_to(session: Session, path: str | Path, slot: RecordSlot | None = None) -> RecordSlot:
    """Save the session's record in ``path``: in place of the record at ``slot`` when the
    file still holds it there (the same match saved before), else added at the end of the
    file, after the records already in it (one blank line between). The file is replaced
    in one step (a temporary file renamed over it), so a failed save changes nothing.
    Returns where the record now lies.

    :raises NotARecordsFileError: if ``path`` holds something other than game records.
    :raises OSError: if the file cannot be read or written.
    """
    text = write(build_record(session))
    p = Path(path)
    old = p.read_text(encoding="utf-8") if p.is_file() else ""
    same = slot is not None and os.path.abspath(slot.path) == os.path.abspath(p)
    if same and slot is not None and old[slot.start : slot.start + len(slot.text)] == slot.text:
        start = slot.start
        rest = old[slot.start + len(slot.text) :]
        new = old[:start] + text + rest
    else:
        check_records_file(p)
        body = old.rstrip("\n")
        head = body + "\n\n" if body else ""
        start = len(head)
        new = head + text
    _replace(p, new)
    return RecordSlot(str(path), start, text)


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, renamed over
    it (keeping the old file's permissions)."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        with contextlib.suppress(OSError):
            os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def find_unfinished(path: str | Path) -> tuple[GameRecord, RecordSlot]:
    """The last unfinished match of the records file ``path`` that the terminal saved (an
    ``Event`` of ``Terminal game`` or ``Hot-seat game``), with where it lies.

    :raises ResumeError: if the file holds none (or it does not replay), saying why.
    :raises OSError: if the file cannot be read.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ResumeError(f"{str(path)!r} is not a game records file") from None
    records = list(read_records(io.StringIO(text)))
    if not records:
        raise ResumeError(f"{str(path)!r} holds no game record")
    starts = _line_starts(text)
    for k in range(len(records) - 1, -1, -1):
        rec = records[k]
        if rec.tags.get("Event") not in ("Terminal game", "Hot-seat game"):
            continue
        if rec.result != "*":
            continue
        try:
            rec.replay()
        except RecordError as e:
            raise ResumeError(f"{path}: game {k + 1} does not replay: {e}") from None
        begin = starts[max(rec.line - 1, 0)]
        end = starts[records[k + 1].line - 1] if k + 1 < len(records) else len(text)
        chunk = text[begin:end]
        own = chunk.rstrip("\n") + "\n"  # the blank lines before the next record stay
        return rec, RecordSlot(str(path), begin, own)
    raise ResumeError(
        f"{str(path)!r} holds no unfinished match of lostcities play"
        " (a match saved on quitting: lostcities play --save FILE, or s when asked to quit)"
    )


def _line_starts(text: str) -> list[int]:
    """The character offset of each line's start (line ``n`` from 1 at index ``n - 1``),
    and of the end."""
    out = [0]
    for m in re.finditer("\n", text):
        out.append(m.end())
    return out


def restore_assistance(session: Session, record: GameRecord) -> None:
    """Give a resumed session the help recorded in ``record``: its undos (the ``undo`` and
    ``take back`` comments) and its hints (the ``Assisted`` tag), so that the record saved
    again says the same."""
    for k, rr in enumerate(record.rounds):
        for ply, comment in rr.comments:
            if m := re.fullmatch(r"undo (\S+)", comment):
                session.undos.append(UndoRecord(k, ply, _move(m.group(1))))
            elif m := re.fullmatch(r"take back (\S+) and (\S+)", comment):
                session.undos.append(UndoRecord(k, ply, _move(m.group(1)), _move(m.group(2))))
    if m := re.search(r"(\d+) hints?\b", record.tags.get("Assisted", "")):
        session.hints = int(m.group(1))


def _move(text: str) -> Move:
    return Move.parse(text)


def resume(
    path: str | Path, bot_factory: Callable[[str, int | None], Bot] = make
) -> tuple[Session, RecordSlot]:
    """The last unfinished match saved in ``path`` (:func:`find_unfinished`), ready to go
    on where it stopped: its rounds replayed, the bot (the record's ``Opponent``) told the
    current round's moves, its undos and hints restored; with where its record lies, so
    that saving it again replaces it.

    :raises ResumeError: if there is none, saying why.
    :raises BotSpecError: if the recorded opponent cannot be built here.
    :raises OSError: if the file cannot be read.
    """
    record, slot = find_unfinished(path)
    match = record.replay()
    hotseat = record.tags.get("Event") == "Hot-seat game"
    opponent = record.tags.get("Opponent", "")
    if not hotseat and not opponent:
        raise ResumeError(f"{path}: the unfinished match names no Opponent")
    session = Session.resumed(match, opponent=opponent, hotseat=hotseat, bot_factory=bot_factory)
    restore_assistance(session, record)
    return session, slot
