"""``lostcities play``'s opponent: expert by default (ismcts where it cannot run), and the
search prepared before the screen starts, never inside the bot's first move."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from lostcities import bots
from lostcities.cli import build_parser, main
from lostcities.tui import app as tui_app
from lostcities.tui.app import DEFAULT_OPPONENT, FALLBACK_OPPONENT, LostCitiesApp

HAVE_NUMBA = importlib.util.find_spec("numba") is not None


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[LostCitiesApp]:
    """Apps ``lostcities play`` would run (not run: the screen is not started)."""
    apps: list[LostCitiesApp] = []

    def run(self: LostCitiesApp, *args: Any, **kwargs: Any) -> int:
        apps.append(self)
        return 0

    monkeypatch.setattr(LostCitiesApp, "run", run)
    return apps


def test_the_default_opponent_is_expert() -> None:
    assert DEFAULT_OPPONENT == "expert:time=1" and FALLBACK_OPPONENT == "ismcts:time=1"
    assert build_parser().parse_args(["play"]).opponent == DEFAULT_OPPONENT


def test_play_help_names_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "default: expert:time=1" in out and "ismcts:time=1" in out


def test_play_prepares_the_search_before_the_screen(
    ran: list[LostCitiesApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--rounds", "1", "--seed", "3"]) == 0
    (app,) = ran
    assert app.session.bot is not None and app.session.bot.name == "expert"
    out = capsys.readouterr().out
    if HAVE_NUMBA:
        assert "preparing the search engine (first start only) ..." in out and "ready in" in out
    else:
        assert "numba is not installed" in out


def test_play_without_a_search_bot_prepares_nothing(
    ran: list[LostCitiesApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--opponent", "random", "--rounds", "1"]) == 0
    assert main(["play", "--hotseat", "--rounds", "1"]) == 0
    assert len(ran) == 2 and capsys.readouterr().out == ""


def test_the_default_falls_back_to_ismcts(
    ran: list[LostCitiesApp], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(bots.BUILTIN, "expert", "lostcities.bots.no_such_module:Expert")
    monkeypatch.setattr(tui_app, "prepare_search", lambda progress=None: 0.0)
    assert main(["play", "--rounds", "1"]) == 0
    (app,) = ran
    assert app.session.bot is not None and app.session.bot.name == "ismcts"
    assert "playing ismcts:time=1" in capsys.readouterr().out
    # a named expert that cannot be built is an error, not a silent substitute
    assert main(["play", "--opponent", "expert:time=0.5"]) == 2
