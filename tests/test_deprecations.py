"""Deprecated names: each warns with its removal version, the changelog's Deprecated section
names it, and none outlives that version. The warnings of ``ismcts:rollout=fast`` and of
``lostcities.fast.action_of`` / ``move_of`` are checked beside their code
(``tests/bots/test_ismcts.py``, ``tests/fast/test_batch.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import lostcities

ROOT = Path(__file__).resolve().parent.parent

DEPRECATED = {
    "lostcities.cli.format_score_table": "0.4.0",
    "ismcts:rollout=fast": "0.4.0",
    "lostcities.fast.action_of": "0.4.0",
    "lostcities.fast.move_of": "0.4.0",
}
"""Every deprecated name and the version that removes it."""


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_no_deprecated_name_outlives_its_removal_version() -> None:
    late = [
        name
        for name, gone in DEPRECATED.items()
        if _version(lostcities.__version__) >= _version(gone)
    ]
    assert not late, f"remove these before releasing {lostcities.__version__}: {late}"


def test_the_changelog_names_each_deprecation_and_its_removal() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.split(r"^### Deprecated$", text, flags=re.M)[1:]
    deprecated = "\n".join(s.split("\n## ", 1)[0].split("\n### ", 1)[0] for s in sections)
    for name, gone in DEPRECATED.items():
        entry = next((e for e in deprecated.split("\n- ") if f"`{name}`" in e), None)
        assert entry is not None, f"{name} is not in a Deprecated section"
        assert f"removed in {gone}" in entry, entry


def test_format_score_table_from_the_cli_module_is_deprecated() -> None:
    import lostcities.cli as cli
    from lostcities.presentation import format_score_table

    with pytest.warns(
        DeprecationWarning, match=r"removed in 0\.4\.0: import it from lostcities\.presentation"
    ):
        assert cli.format_score_table is format_score_table
    with pytest.warns(DeprecationWarning):
        from lostcities.cli import format_score_table as old
    assert old is format_score_table
    assert "format_score_table" not in cli.__all__
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        cli.no_such_name  # noqa: B018
