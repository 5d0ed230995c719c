"""Packaging's promises: one version number, a changelog that has it, and a wheel check
(scripts/check_wheel.sh, run by CI) that covers every extra the package declares."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import lostcities
from lostcities.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_one_version_number(capsys: pytest.CaptureFixture[str]) -> None:
    project = _pyproject()
    meta = project["project"]
    assert isinstance(meta, dict) and "version" not in meta and meta["dynamic"] == ["version"]
    tool = project["tool"]
    assert isinstance(tool, dict)
    assert tool["setuptools"]["dynamic"]["version"] == {"attr": "lostcities.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", lostcities.__version__)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"lostcities {lostcities.__version__}"
    # the number is written once: nowhere else in the package or its build files
    written = [
        p
        for p in [
            *(ROOT / "lostcities").rglob("*.py"),
            ROOT / "pyproject.toml",
            *(ROOT / "lostcities" / "web").rglob("*.json"),
        ]
        if re.search(
            rf"""["']v?{re.escape(lostcities.__version__)}["']""", p.read_text(encoding="utf-8")
        )
    ]
    assert written == [ROOT / "lostcities" / "__init__.py"]


def test_the_changelog_has_the_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Unreleased"
    releases = [re.fullmatch(r"(\d+\.\d+\.\d+) - (\d{4}-\d{2}-\d{2})", h) for h in headings[1:]]
    assert all(releases), headings  # Keep a Changelog: "## 0.3.0 - 2026-12-02"
    versions = [m.group(1) for m in releases if m]
    assert versions[0] == lostcities.__version__, headings  # the newest release is this one
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)


def test_the_wheel_check_covers_every_extra() -> None:
    script = (ROOT / "scripts" / "check_wheel.sh").read_text(encoding="utf-8")
    table = script.split("declare -A extra_modules=(", 1)[1].split("\n)", 1)[0]
    checked = dict(re.findall(r'\[(\w+)\]="([^"]+)"', table))
    extras = _pyproject()["project"]["optional-dependencies"]  # type: ignore[index]
    assert isinstance(extras, dict)
    assert sorted(checked) == sorted(extras)
    assert all(mods.split() for mods in checked.values())
    assert "scripts/check_wheel.sh" in (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")


def test_the_licence_is_declared_and_shipped() -> None:
    meta = _pyproject()["project"]
    assert isinstance(meta, dict)
    assert meta["license"] == "MIT"  # PEP 639: an SPDX expression (setuptools >= 77)
    assert meta["license-files"] == ["LICENSE"]
    requires = _pyproject()["build-system"]["requires"]  # type: ignore[index]
    assert requires == ["setuptools>=77"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the lostcities developers\n")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Licence" in readme and "[LICENSE](LICENSE)" in readme


def test_the_pre_commit_hooks_are_local_and_run_the_installed_tools() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert [repo["repo"] for repo in config["repos"]] == ["local"]  # nothing to download
    hooks = {hook["id"]: hook for hook in config["repos"][0]["hooks"]}
    assert sorted(hooks) == ["mypy", "ruff", "ruff-format"]
    assert all(hook["language"] == "system" for hook in hooks.values())
    assert hooks["ruff"]["entry"].startswith("python -m ruff check")
    assert hooks["ruff-format"]["entry"].startswith("python -m ruff format")
    assert hooks["mypy"]["entry"] == "python -m mypy" and hooks["mypy"]["pass_filenames"] is False
