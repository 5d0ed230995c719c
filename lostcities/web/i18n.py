"""The web app's languages: JSON catalogues (``static/i18n/{lang}.json``), the choice of
language and the translation of one key.

A page's language is the ``lc_lang`` cookie (the switch in the top bar sets it), else the
browser's ``Accept-Language`` (the list ``navigator.languages`` holds), else English. The
templates call ``t(key, **params)``; the scripts get the same catalogue (``/i18n/{lang}.js``)
and call ``LC.t(key, params)``. A value is a text with ``{name}`` placeholders, or, for a
count, an object of CLDR plural forms (``one``, ``other``...) chosen by the ``n`` parameter.
Keys ending in ``_html`` hold trusted markup (the catalogues are part of the package).

>>> negotiate("de-CH,de;q=0.9,en;q=0.8")
'de'
>>> negotiate("pt-BR, ko;q=0.5")
'ko'
>>> negotiate("", cookie="fr")
'fr'
>>> negotiate("xx")
'en'
>>> translate("fr", "status.waiting_for", name="Ana")
'En attente de Ana'
>>> translate("en", "pile.cards", n=1), translate("en", "pile.cards", n=3)
('1 card', '3 cards')
>>> plural_form("fr", 0), plural_form("en", 0), plural_form("ko", 1)
('one', 'other', 'other')
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

__all__ = [
    "COOKIE",
    "DEFAULT",
    "LANGUAGES",
    "Catalogue",
    "catalogue",
    "negotiate",
    "plural_form",
    "translate",
]

LANGUAGES: dict[str, str] = {
    "en": "English",
    "fr": "Français",
    "de": "Deutsch",
    "es": "Español",
    "ko": "한국어",
}
"""The languages offered, each named in itself (the switch shows these names)."""

DEFAULT = "en"
COOKIE = "lc_lang"
"""The cookie the language switch sets (a language code from ``LANGUAGES``)."""

DIRECTORY = Path(__file__).resolve().parent / "static" / "i18n"

Value = str | dict[str, str]
Catalogue = dict[str, Value]


@cache
def catalogue(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (one of ``LANGUAGES``), read once."""
    if lang not in LANGUAGES:
        raise KeyError(lang)
    data: Catalogue = json.loads((DIRECTORY / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def negotiate(accept_language: str | None, cookie: str | None = None) -> str:
    """The language for a request: the cookie's if it names one we have, else the best
    of ``Accept-Language`` (by its q values, a region falling back to its language), else
    English."""
    if cookie in LANGUAGES:
        return str(cookie)
    choices: list[tuple[float, int, str]] = []
    for i, item in enumerate((accept_language or "").split(",")):
        parts = item.strip().split(";")
        tag = parts[0].strip().lower()
        q = 1.0
        for p in parts[1:]:
            k, _, v = p.strip().partition("=")
            if k == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        base = tag.split("-")[0]
        if base in LANGUAGES and q > 0:
            choices.append((-q, i, base))
    return min(choices)[2] if choices else DEFAULT


def plural_form(lang: str, n: float) -> str:
    """The CLDR plural category of ``n`` in ``lang``, as ``Intl.PluralRules`` gives it (the
    sign does not count: "-1 point"; French takes the singular below 2: "0 point", "1,5 point").

    >>> [plural_form("en", n) for n in (-1, 1.5)], [plural_form("fr", n) for n in (1.5, 2)]
    (['one', 'other'], ['one', 'other'])
    """
    if lang == "ko":
        return "other"
    if lang == "fr":
        return "one" if abs(n) < 2 else "other"
    return "one" if abs(n) == 1 else "other"


def translate(lang: str, key: str, **params: object) -> str:
    """The text of ``key`` in ``lang`` with its ``{placeholders}`` filled in; a key
    missing from ``lang`` falls back to English (a test keeps every catalogue complete)."""
    value = catalogue(lang).get(key)
    if value is None:
        value = catalogue(DEFAULT).get(key, key)
    if isinstance(value, dict):
        n = params.get("n", 0)
        count = n if isinstance(n, (int, float)) else 0
        value = value.get(plural_form(lang, count), value.get("other", key))
    text = value
    for name, v in params.items():
        text = text.replace("{" + name + "}", str(v))
    return text
