"""What the server says that a player reads is shown in the player's language: every error
code the server sends has a catalogue entry (``error.code.CODE``; the completeness test in
test_web_i18n.py then requires it in all five languages), and so has every goal card of the
default pool (``goals.ID.name``, ``goals.ID.text``, the English ones the core's own words)."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from lostcities.achievements import DEFAULT_GOALS
from lostcities.web import errors, i18n
from lostcities.web import game_manager as games

WEB = Path(games.__file__).resolve().parent
PASS_THROUGH = {"invalid"}
"""Codes whose text is the core's or the CLI's own words about the input (the calculator)."""


def _subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def _import_the_web_modules() -> None:
    """Import every module of the web app (its routers too), so that every error class is
    defined whichever tests ran before in this process."""
    for pkg in ("lostcities.web", "lostcities.web.routers"):
        path = importlib.import_module(pkg).__path__
        for mod in pkgutil.iter_modules(path):
            if not mod.ispkg:
                importlib.import_module(f"{pkg}.{mod.name}")


def scanned_error_codes() -> set[str]:
    """The codes the server's handlers, routers and WebSocket write out as text."""
    codes: set[str] = set()
    patterns = (
        r'_error\(\s*"([a-z_]+)"',  # app.py's HTTP errors
        r'error_message\(\s*"([a-z_]+)"',  # the WebSocket's
        r'\{"error": "([a-z_]+)"',  # a router's own JSON error
        r'\d{3}: "([a-z_]+)"',  # the HTTP status -> code table
    )
    for path in [WEB / "app.py", *sorted((WEB / "routers").glob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        for p in patterns:
            codes |= set(re.findall(p, text))
    return codes


def server_error_codes() -> set[str]:
    """Every code of an error the server answers over HTTP or the WebSocket: the table's."""
    _import_the_web_modules()
    return {c.code for c in _subclasses(errors.GameError)} | set(errors.ERRORS)


def test_the_scan_finds_the_server_codes() -> None:
    scanned = scanned_error_codes()
    assert {"too_large", "bad_message", "spectator", "method_not_allowed", "invalid"} <= scanned
    assert scanned <= set(errors.ERRORS), sorted(scanned - set(errors.ERRORS))
    codes = server_error_codes()
    assert {"not_your_turn", "rate_limited"} <= codes
    assert len(codes) >= 20, sorted(codes)


def test_every_error_code_has_a_text_in_every_language() -> None:
    for lang in i18n.LANGUAGES:
        cat = i18n.catalogue(lang)
        missing = sorted(
            c for c in server_error_codes() - PASS_THROUGH if f"error.code.{c}" not in cat
        )
        assert not missing, (lang, missing)


def test_every_default_goal_has_its_name_and_text_in_every_language() -> None:
    en = i18n.catalogue("en")
    for g in DEFAULT_GOALS:
        assert en[f"goals.{g.id}.name"] == g.name and en[f"goals.{g.id}.text"] == g.text
    for lang in i18n.LANGUAGES:
        cat = i18n.catalogue(lang)
        for g in DEFAULT_GOALS:
            assert cat.get(f"goals.{g.id}.name") and cat.get(f"goals.{g.id}.text"), (lang, g.id)
        if lang != "en":  # translated, not copied
            same = [g.id for g in DEFAULT_GOALS if cat[f"goals.{g.id}.text"] == g.text]
            assert not same, (lang, same)


def test_every_reason_of_a_refusal_has_a_text_in_every_language() -> None:
    """A refusal that says what exactly is wrong (``reason``) is read in the page's words
    (``error.code.CODE.REASON``), as is each field problem of an invalid request
    (``error.field.REASON``)."""
    from lostcities.web import schemas

    _import_the_web_modules()
    keys = {f"error.code.{c.code}.{r}" for c in _subclasses(errors.GameError) for r in c.reasons}
    keys |= {f"error.field.{r}" for r in schemas.VALIDATION_REASONS}
    assert "error.code.invalid_password.common" in keys
    for lang in i18n.LANGUAGES:
        cat = i18n.catalogue(lang)
        assert not sorted(keys - set(cat)), lang
