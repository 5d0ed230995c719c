"""Coverage-guided fuzzing with atheris (issue 14), beside the Hypothesis targets of the suite:
the parsers a user reaches in the rules core (card and move notation, score sheets and
``--totals`` sheets, the record reader and replay), with the suite's property: the documented
error with a one-line message, no state change, no other exception (atheris reports any other
exception as a crash, with its input).

atheris is optional (``pip install atheris``; a binary wheel for CPython on Linux x86_64):

    python benchmarks/fuzz_atheris.py records -- -max_total_time=600 -print_final_stats=1 CORPUS_DIR
    python benchmarks/fuzz_atheris.py notation -- -max_total_time=60
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import atheris  # type: ignore[import-untyped, import-not-found, unused-ignore]

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests.fuzzprops
with atheris.instrument_imports():
    # the suite's properties, one body each (tests/fuzzprops.py); the core instrumented
    from tests.fuzzprops import (
        RECORD,
        check_card,
        check_move,
        check_record_text,
        check_score_sheets,
    )


def notation(data: bytes) -> None:
    text = atheris.FuzzedDataProvider(data).ConsumeUnicodeNoSurrogates(64)
    check_card(text)
    check_move(text)


def score(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    args = [fdp.ConsumeUnicodeNoSurrogates(16) for _ in range(fdp.ConsumeIntInRange(0, 6))]
    check_score_sheets(args, "long" if fdp.ConsumeBool() else "classic")


def records(data: bytes) -> None:
    # a corpus folder given on the command line starts with a valid record (see main)
    check_record_text(data.decode("utf-8", "replace"))


TARGETS: dict[str, Callable[[bytes], None]] = {
    "notation": notation,
    "score": score,
    "records": records,
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: fuzz_atheris.py {{{','.join(TARGETS)}}} [-- libFuzzer options]")
    target = TARGETS[sys.argv[1]]
    rest = sys.argv[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    for folder in (a for a in rest if not a.startswith("-")):  # libFuzzer's corpus folders
        os.makedirs(folder, exist_ok=True)
        if sys.argv[1] == "records" and not os.listdir(folder):
            with open(os.path.join(folder, "record.txt"), "w") as f:
                f.write(RECORD)  # start from a valid record
    atheris.Setup([sys.argv[0], *rest], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
