"""The web server's refusals have one home and one table (issue 38): every ``GameError``
class lives in ``lostcities.web.errors``, :data:`~lostcities.web.errors.ERRORS` holds each
code once with its class, and docs/web.md lists the same codes with the same statuses."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import lostcities.web
from lostcities.web import errors
from lostcities.web.errors import ERRORS, GameError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "web.md"


def _subclasses(cls: type[GameError]) -> list[type[GameError]]:
    out: list[type[GameError]] = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def _every_refusal() -> list[type[GameError]]:
    """Every ``GameError`` class, once every web module is imported."""
    for info in pkgutil.walk_packages(lostcities.web.__path__, "lostcities.web."):
        if ".migrations" not in info.name:
            importlib.import_module(info.name)
    return [GameError, *_subclasses(GameError)]


def _documented() -> dict[str, str]:
    """docs/web.md's error codes: code -> its status cell."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("### Error codes", 1)[1].split("\n\n| method, path |", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]+) \|", section, re.M)
    assert len(rows) == len({c for c, _ in rows}), "a code listed twice"
    return {code: status.strip() for code, status in rows}


def test_every_refusal_class_lives_in_the_errors_module() -> None:
    homes = {cls.__name__: cls.__module__ for cls in _every_refusal()}
    assert {n: m for n, m in homes.items() if m != errors.__name__} == {}
    assert "RateLimitedError" in homes and "UsernameRuleError" in homes


def test_the_table_holds_each_code_once_with_the_class_that_names_it() -> None:
    naming = [cls for cls in _every_refusal() if "code" in vars(cls)]
    codes = [cls.code for cls in naming]
    assert sorted(codes) == sorted(set(codes)), "two classes name one code"
    assert {cls.code: cls for cls in naming} == ERRORS
    assert list(ERRORS) == sorted(ERRORS)
    # a class that keeps its parent's code answers as its parent's row
    assert ERRORS[errors.BadGameIdsError.code] is errors.InvalidRequestError
    for cls in _every_refusal():
        assert issubclass(cls, ERRORS[cls.code]) and isinstance(cls.status, int), cls


def test_the_documented_codes_are_the_table() -> None:
    documented = _documented()
    assert set(documented) == set(ERRORS)
    wrong = {c: s for c, s in documented.items() if s != str(ERRORS[c].status)}
    assert wrong == {}


@pytest.mark.parametrize("code", ["rate_limited", "not_your_turn", "invalid_username"])
def test_a_refusal_answers_with_its_code_and_message(code: str) -> None:
    cls = ERRORS[code]
    e = errors.RateLimitedError("slow down", 1.5) if code == "rate_limited" else cls("no")
    assert e.body()["error"] == code and e.body()["message"] == str(e)
    assert ("Retry-After" in e.headers()) == (code == "rate_limited")
