"""``lostcities replay``: check game records and print each game's result.

The command's output and exit codes; reading, writing and replaying records is
:mod:`lostcities.record`, in the rules core. Each game that replays exactly prints one line
(``--quiet``: none); a game that does not prints ``FILE:LINE: error: game N: reason`` on
stderr; ``--json`` prints one JSON object per game instead. The exit code is 0 when every
game of every file replays, 2 otherwise (a file that cannot be read, or holds no record,
counts as bad).

>>> import io
>>> from unittest import mock
>>> from lostcities import Round
>>> from lostcities.record import GameRecord
>>> r = Round.deal(seed=3)
>>> r.forfeit(1, "timed out")
>>> text = str(GameRecord.from_round(r, players=("ann", "bob")))
>>> with mock.patch("sys.stdin", io.StringIO(text)):
...     replay_files(["-"])
-: game 1: ann vs bob, classic, 1/1 rounds (0:0 forfeit by player 1: timed out), totals 0:0, result 1-0
0
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import IO

from lostcities.record import GameRecord, read_records, termination_tag
from lostcities.rules import Round, RoundOutcome, Termination

__all__ = ["cli_main", "replay_files"]


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities replay FILE... [--json] [--quiet]`` (``-`` reads stdin)."""
    return replay_files(args.files, as_json=args.json, quiet=args.quiet)


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


def _report(path: str, n: int, rec: GameRecord, *, as_json: bool, quiet: bool) -> int:
    """Replay game ``n`` of file ``path`` and print its result (or its first error, on
    stderr); returns 1 if it does not replay exactly, else 0."""
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


def _round_text(r: Round) -> str:
    """``12:-30``, with a forfeit named: ``0:0 forfeit by player 1``."""
    text = f"{r.scores()[0]}:{r.scores()[1]}"
    outcome = r.outcome()
    if outcome is not None and outcome.termination is Termination.FORFEIT:
        text += f" {termination_tag(outcome)}"
    return text


def _round_summary(r: Round | None) -> dict[str, object]:
    """A replayed round as ``--json`` gives it: only what the replay reached."""
    outcome = r.outcome() if r is not None else None
    return {
        "moves": r.ply if r is not None else 0,
        "scores": list(r.scores()) if r is not None and outcome is not None else None,
        "termination": _termination_text(outcome),
    }


def _termination_text(outcome: RoundOutcome | None) -> str | None:
    """How the round ended, in words (``None`` while it runs)."""
    if outcome is None:
        return None
    return termination_tag(outcome) or outcome.termination.value
