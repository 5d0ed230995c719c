"""Plural and number formats in the five languages, and the home page's level notes (a level
that cannot play here, one playing its fallback) in the reader's language."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from lostcities.web import i18n
from lostcities.web.levels import LEVELS, Level
from tests.web.web_helpers import make_client

# what Intl.PluralRules(lang).select(n) gives in Chromium (and Node) for these numbers
INTL = {
    "en": {-20: "other", -1: "one", 0: "other", 1: "one", 1.5: "other", 2: "other"},
    "fr": {-20: "other", -1: "one", 0: "one", 1: "one", 1.5: "one", 2: "other"},
    "de": {-20: "other", -1: "one", 0: "other", 1: "one", 1.5: "other", 2: "other"},
    "es": {-20: "other", -1: "one", 0: "other", 1: "one", 1.5: "other", 2: "other"},
    "ko": {-20: "other", -1: "other", 0: "other", 1: "other", 1.5: "other", 2: "other"},
}


@pytest.mark.parametrize("lang", sorted(INTL))
def test_the_servers_plural_forms_are_the_browsers(lang: str) -> None:
    assert {n: i18n.plural_form(lang, n) for n in INTL[lang]} == INTL[lang]


# a number a text puts beside a counted word must choose its plural form ("1 point", "-1 point")
COUNTED = re.compile(r"\{(\w+)\}\s*(points?|Punkte?|puntos?|cartes?|cards?|Karten?|cartas?)\b")


@pytest.mark.parametrize("lang", sorted(INTL))
def test_a_number_beside_a_counted_word_is_a_plural_form(lang: str) -> None:
    plain = sorted(
        key
        for key, value in i18n.catalogue(lang).items()
        if isinstance(value, str)
        and any(m.group(1) in ("n", "score", "count", "loss") for m in COUNTED.finditer(value))
    )
    assert not plain, plain
    for key in ("exp.label_yours", "exp.label_theirs"):
        one = i18n.translate(lang, key, exp="x", cards="1 2", n=-1)
        many = i18n.translate(lang, key, exp="x", cards="1 2", n=-20)
        assert "-1" in one and "-20" in many
        if lang == "en":
            assert one.endswith("-1 point") and many.endswith("-20 points")


def _unplayable(tmp_path: Path, lang: str) -> str:
    broken = {**LEVELS, "hard": Level("no_such_bot_for_this_test", "Hard", about="x")}
    with make_client(tmp_path, broken) as c:
        return str(c.get("/", cookies={i18n.COOKIE: lang}).text)


@pytest.mark.parametrize("lang", sorted(INTL))
def test_a_level_that_cannot_play_here_says_so_in_the_readers_language(
    tmp_path: Path, lang: str
) -> None:
    page = _unplayable(tmp_path, lang)
    label = page.split('value="hard"')[0].rsplit("<label", 1)[1]
    assert (
        'class="unavailable"' in label
        and f'title="{i18n.translate(lang, "home.unavailable")}"' in label
    )
    assert "disabled" in page.split('value="hard"')[1].split(">")[0]
    assert "no_such_bot_for_this_test" not in page  # the technical reason is /api/levels'


def test_a_level_playing_its_fallback_names_it_in_the_readers_language(tmp_path: Path) -> None:
    no_numba = dataclasses.replace(LEVELS["expert"], requires=("no_such_module_for_this_test",))
    with make_client(tmp_path, {**LEVELS, "expert": no_numba}) as c:
        page = c.get("/", cookies={i18n.COOKIE: "fr"}).text
    about = page.split('value="expert" data-about="')[1].split('"')[0]
    # it plays the hard level's bot: said with that level's name (no bot spec on a French page)
    assert about.endswith(i18n.translate("fr", "level.instead_level", level="Difficile")), about
    assert about.startswith(i18n.translate("fr", "level.expert.about"))
