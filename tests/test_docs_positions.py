"""The site's pictures of positions (docs_hooks/positions.py): drawn by lostcities.svg when the
site is built, from a deal and its moves named in the pages, so they cannot go stale."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lostcities import svg

pytest.importorskip("mkdocs")

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def hook() -> Iterator[ModuleType]:
    sys.path.insert(0, str(ROOT / "docs_hooks"))
    try:
        import positions  # type: ignore[import-not-found]  # docs_hooks/ is no package
    finally:
        sys.path.pop(0)
    yield positions


def page_blocks(hook: ModuleType) -> dict[str, list[Any]]:
    found = {}
    for page in sorted(DOCS.rglob("*.md")):
        blocks = hook.blocks(page.read_text(encoding="utf-8"))
        if blocks:
            found[page.relative_to(DOCS).as_posix()] = blocks
    return found


def test_a_block_names_a_position(hook: ModuleType) -> None:
    spec = hook.parse_spec(
        "deal: 12   # the seed\nvariant: long\nmoves: +y4.\n\nmoves: -b2. \nview: 1\n"
        "caption: a # is kept in a caption\nname: long-one\nsize: 300\n"
    )
    assert spec == hook.Spec(
        deal=12,
        variant="long",
        moves=("+y4.", "-b2."),
        view=1,
        size=300,
        caption="a # is kept in a caption",
        name="long-one",
    )
    text = "```position\ndeal: 1\n```\n\n````md\n```position\ndeal: 2\n```\n````\n"
    assert [b.text for b in hook.blocks(text)] == ["deal: 1"]  # not the one shown as code


@pytest.mark.parametrize(
    "text, why",
    [
        ("moves: +y4.", "no 'deal: SEED' line"),
        ("deal: 3\ncolour: red", "'colour: red': not one of deal:"),
        ("deal: three", "deal: 'three' is not a whole number"),
        ("deal: 3\nview: 2", "view and starter are players"),
        ("deal: 3\ndeal: 4", "deal: given twice"),
        ("deal: 3\nname: Rules 1", "name: 'Rules 1' is not lower-case"),
    ],
)
def test_a_bad_block_says_why(hook: ModuleType, text: str, why: str) -> None:
    with pytest.raises(hook.PositionSpecError, match=re.escape(why)):
        hook.parse_spec(text)


def test_a_move_the_rules_refuse_is_an_error(hook: ModuleType) -> None:
    with pytest.raises(hook.PositionSpecError, match=r"^move 2 of 2: illegal move: '\+y9\.'"):
        hook.parse_spec("deal: 3\nmoves: +y9. +y9.").round()
    with pytest.raises(hook.PositionSpecError, match="variant"):
        hook.parse_spec("deal: 3\nvariant: short").round()


def test_the_pages_show_positions(hook: ModuleType) -> None:
    pages = page_blocks(hook)
    for page in ("index.md", "rules.md", "notation.md", "tutorials/play.md", "api/svg.md"):
        assert page in pages, page
    for page, blocks in pages.items():
        for block in blocks:
            spec = hook.parse_spec(block.text)
            assert spec.svg() == svg.position(spec.position(), size=spec.size), page
    views = [hook.parse_spec(b.text) for bs in pages.values() for b in bs]
    assert any(s.view is None for s in views) and any(s.view is not None for s in views)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site: scripts/test.sh's strict build of this tree when it made one just
    before pytest (``LOSTCITIES_DOCS_SITE``), so the site is built once a run; else a build."""
    built = os.environ.get("LOSTCITIES_DOCS_SITE")
    if built and (Path(built) / "index.html").is_file():
        return Path(built)
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return out


def _html(site: Path, page: str) -> str:
    if page == "index.md":
        return (site / "index.html").read_text(encoding="utf-8")
    return (site / page.removesuffix(".md") / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_built_site_holds_the_pictures(hook: ModuleType, site: Path) -> None:
    for page, blocks in page_blocks(hook).items():
        html = _html(site, page)
        assert "language-position" not in html, page  # every block became its picture
        for number, block in enumerate(blocks, 1):
            spec = hook.parse_spec(block.text)
            name = spec.name or hook.default_name(page, number)
            picture = site / "img" / "positions" / f"{name}.svg"
            assert picture.read_text(encoding="utf-8") == spec.svg(), name
            assert ET.fromstring(spec.svg()).tag == f"{NS}svg"
            depth = page.count("/") + (page != "index.md")
            assert f'src="{"../" * depth}img/positions/{name}.svg"' in html, (page, name)


@pytest.mark.slow
def test_a_view_on_the_site_shows_no_hidden_card(hook: ModuleType, site: Path) -> None:
    checked = 0
    for page, blocks in page_blocks(hook).items():
        for number, block in enumerate(blocks, 1):
            spec = hook.parse_spec(block.text)
            if spec.view is None:
                continue
            r, view = spec.round(), spec.position()
            name = spec.name or hook.default_name(page, number)
            root = ET.fromstring((site / "img" / "positions" / f"{name}.svg").read_text("utf-8"))
            shown = Counter(g.get("data-card") for g in root.iter(f"{NS}g") if g.get("data-card"))
            visible = Counter(str(c) for c in view.hand)
            for side in view.expeditions:
                for exp in side:
                    visible.update(str(c) for c in exp)
            visible.update(str(pile[-1]) for pile in view.discard_piles if pile)
            assert shown == visible, name
            opp = next(g for g in root.iter(f"{NS}g") if g.get("id") == f"hand-{spec.view ^ 1}")
            assert not [g for g in opp.iter(f"{NS}g") if g.get("data-card")], name
            backs = [g for g in opp.iter(f"{NS}g") if g.get("class") == "card back"]
            assert len(backs) == len(r.hands[spec.view ^ 1]), name
            checked += 1
    assert checked >= 2


def test_a_block_becomes_its_picture_where_it_was(hook: ModuleType) -> None:
    class Page:
        class file:  # the shape of mkdocs' Page.file
            src_uri = "tutorials/x.md"

    text = "1. A list:\n\n    ```position\n    deal: 3\n    caption: C\n    ```\n\nEnd.\n"
    found = hook.blocks(text)
    found[0].spec, found[0].uri = hook.parse_spec(found[0].text), "img/positions/x-1.svg"
    hook.drawn_blocks["tutorials/x.md"] = found
    try:
        out = hook.on_page_markdown(text, Page, {}, None)
    finally:
        hook.drawn_blocks.clear()
    assert out == "1. A list:\n\n    ![C](../img/positions/x-1.svg)\n\n    *C*\n\nEnd.\n"


@pytest.mark.slow
def test_a_strict_build_fails_on_a_bad_position(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# A\n\n```position\ndeal: 3\nmoves: +y9. +y9.\n```\n", encoding="utf-8"
    )
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: t\nhooks:\n  - {ROOT / 'docs_hooks' / 'positions.py'}\n", encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0
    assert "index.md:3: position: move 2 of 2: illegal move: '+y9.'" in done.stderr
