"""The five languages: every catalogue complete, every key the pages use defined, no
English text baked into a template, the language chosen from the cookie or the browser."""

from __future__ import annotations

import html.parser
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from lostcities.web import i18n
from lostcities.web.app import create_app
from lostcities.web.deps import Settings

WEB = Path(i18n.__file__).resolve().parent
PLACEHOLDER = re.compile(r"\{(\w+)\}")
FORMS = {
    "en": {"one", "other"},
    "fr": {"one", "other"},
    "de": {"one", "other"},
    "es": {"one", "other"},
    "ko": {"other"},
}


def _texts(value: i18n.Value) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    en = i18n.catalogue("en")
    for lang in i18n.LANGUAGES:
        cat = i18n.catalogue(lang)
        assert set(cat) == set(en), (lang, set(en) ^ set(cat))
        for key, value in cat.items():
            assert all(t.strip() for t in _texts(value)), (lang, key)
            want = {p for t in _texts(en[key]) for p in PLACEHOLDER.findall(t)} - {"n"}
            for t in _texts(value):
                assert set(PLACEHOLDER.findall(t)) - {"n"} == want, (lang, key, t)
            if isinstance(value, dict):
                assert FORMS[lang] <= set(value), (lang, key)
            if key.endswith("_html"):
                assert value.count("<") == en[key].count("<"), (lang, key)  # type: ignore[union-attr]


def test_every_key_the_templates_and_scripts_use_is_defined() -> None:
    en = i18n.catalogue("en")
    used: set[str] = set()
    for f in (WEB / "templates").glob("*.html"):
        used |= set(re.findall(r"""\bt\(\s*["']([\w.]+)["']""", f.read_text()))
    for f in (WEB / "static" / "js").glob("*.js"):
        used |= set(re.findall(r"""\b(?:LC\.)?t\(\s*["']([\w.]+)["']""", f.read_text()))
    assert used, "no keys found"
    missing = sorted(k for k in used - {"key"} if k not in en)  # "key": the example in common.js
    assert not missing, missing


class _Text(html.parser.HTMLParser):
    """Visible text and the attributes people read (title, aria-label, placeholder)."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "code"):
            self.skip += 1
        for k, v in attrs:
            if (
                k
                in (
                    "title",
                    "aria-label",
                    "placeholder",
                    "data-classic",
                    "data-long",
                    "data-about",
                    "content",
                )
                and v
            ):
                self.out.append(v)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "code"):
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data)


PAGES = ["/", "/rules", "/calculator", "/game/{g}", "/join/{g}", "/replay/{g}", "/analysis/{g}"]
"""The pages checked in Korean (``{g}``: a game's id); ``/nope`` is the page saying there
is no such page (404)."""


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app(Settings(db_url="sqlite://", bot_executor="thread"))) as c:
        yield c  # type: ignore[misc]


def test_the_korean_pages_have_no_english_left(client: TestClient) -> None:
    # Korean shares no words with English: any Latin word left on a page is baked-in text
    allowed = {
        "lostcities",
        "score",
        "totals",
        "x",
        "SVG",
        "viewport",
        "width",
        "device",
        "initial",
        "scale",
        "utf",
    }
    allowed |= {
        "English",
        "Fran",
        "ais",
        "Deutsch",
        "Espa",
        "ol",
    }  # the language switch (non-ASCII letters split words)
    gid = client.post("/api/games", json={"opponent": "friend", "rounds": 1}).json()["id"]
    for path in [*(p.format(g=gid) for p in PAGES), "/nope"]:
        r = client.get(path, cookies={i18n.COOKIE: "ko"})
        assert r.status_code == (404 if path == "/nope" else 200), path
        assert r.headers["content-language"] == "ko"
        p = _Text()
        p.feed(r.text)
        words = {w for t in p.out for w in re.findall(r"[A-Za-z]{2,}", t)}
        words -= allowed
        assert not words, (path, sorted(words))


def test_the_language_comes_from_the_cookie_then_the_browser(client: TestClient) -> None:
    r = client.get("/", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
    assert r.headers["content-language"] == "de" and '<html lang="de">' in r.text
    assert "Neue Partie" in r.text and '<script src="/i18n/de.js">' in r.text
    r = client.get("/", headers={"Accept-Language": "de"}, cookies={i18n.COOKIE: "es"})
    assert r.headers["content-language"] == "es" and "Nueva partida" in r.text
    assert client.get("/", cookies={i18n.COOKIE: "zz"}).headers["content-language"] == "en"
    js = client.get("/i18n/fr.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    body = js.text.split("window.LC_MESSAGES = ", 1)[1].rstrip().rstrip(";")
    assert json.loads(body) == i18n.catalogue("fr")
    assert client.get("/i18n/xx.js").status_code == 404


@pytest.mark.parametrize(
    ("lang", "n", "form"),
    [
        ("en", 1, "one"),
        ("en", 0, "other"),
        ("fr", 0, "one"),
        ("fr", 2, "other"),
        ("de", 1, "one"),
        ("es", 2, "other"),
        ("ko", 1, "other"),
    ],
)
def test_plural_forms(lang: str, n: int, form: str) -> None:
    assert i18n.plural_form(lang, n) == form
    assert str(n) in i18n.translate(lang, "pile.cards", n=n)
