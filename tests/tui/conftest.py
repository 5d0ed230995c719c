"""The terminal UI's tests run headless: ``lostcities play`` called in-process (its app's
``run`` replaced) finds no terminal on stdin, so its check for one says yes here; the check
itself is tested through a real process (``test_play_without_a_terminal_says_so``)."""

from __future__ import annotations

import pytest

from lostcities.tui import app as tui_app


@pytest.fixture(autouse=True)
def _a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tui_app, "terminal_attached", lambda: True)
