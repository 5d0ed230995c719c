"""The documentation site's contents: the pages issue 17 asks for, in the nav, and an API
reference (mkdocstrings, from the docstrings) for each public part of the package."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

PAGES = {
    "Getting started": "index.md",
    "The rules": "rules.md",
    "Notation": "notation.md",
    "Records": "records.md",
    "Bot protocol": "protocol.md",
    "Arena": "arena.md",
    "Web app and API": "web.md",
    "RL environments": "rl.md",
    "Training": "training.md",
    "Architecture": "architecture.md",
    "Performance": "performance.md",
}

# the public modules: each has its reference rendered from its docstrings
MODULES = [
    "lostcities.cards",
    "lostcities.rules",
    "lostcities.scoring",
    "lostcities.match",
    "lostcities.record",
    "lostcities.achievements",
    "lostcities.errors",
    "lostcities.svg",
    "lostcities.bots",
    "lostcities.protocol.engine",
    "lostcities.protocol.host",
    "lostcities.arena.engine",
    "lostcities.arena.results",
    "lostcities.arena.report",
    "lostcities.stats",
    "lostcities.envs.encoding",
    "lostcities.envs.pettingzoo",
    "lostcities.envs.gymnasium",
    "lostcities.envs.openspiel",
    "lostcities.envs.vector",
    "lostcities.fast",
    "lostcities.fast.batch",
    "lostcities.nn",
]


def test_the_site_has_the_pages() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for title, page in PAGES.items():
        assert f"  - {title}: {page}\n" in nav, title
        assert (DOCS / page).is_file(), page


def test_the_api_reference_covers_the_public_modules() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    rendered: set[str] = set()
    for page in (DOCS / "api").glob("*.md"):
        assert f"api/{page.name}" in nav, page.name
        rendered.update(re.findall(r"^::: (\S+)", page.read_text(encoding="utf-8"), re.M))
    missing = [m for m in MODULES if m not in rendered]
    assert not missing, missing
    for name in rendered:
        path = ROOT / Path(*name.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), name


@pytest.mark.slow
@pytest.mark.parametrize("link", ["[r](rules.md#no-such-heading)", "[r](no-such-page.md)"])
def test_a_broken_link_fails_the_strict_build(tmp_path: Path, link: str) -> None:
    yaml = pytest.importorskip("yaml")
    pytest.importorskip("mkdocs")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["strict"] is True
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(f"# A\n\nSee {link}.\n", encoding="utf-8")
    (tmp_path / "docs" / "rules.md").write_text("# Rules\n\n## A turn\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        yaml.safe_dump({"site_name": "t", "strict": True, "validation": config["validation"]}),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0, done.stderr
    assert "index.md" in done.stderr
