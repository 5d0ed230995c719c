"""The documentation site's promises: its tutorials run as written, and it builds strictly.

A page's code is run in order, in a fresh directory, as a reader would type it:

- ```` ```python ```` blocks run in one namespace per page;
- ```` ```sh ```` blocks run line by line in bash (``lostcities`` is this checkout's CLI);
- a block whose first line is ``# file: NAME`` (any language) is written to ``NAME``
  instead of run;
- ```` ```console ```` blocks are shown, not run (interactive or long commands): each
  ``$ lostcities ...`` line in them must parse with the real CLI's arguments.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lostcities.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [
    "index.md",
    "rules.md",
    *sorted(p.relative_to(DOCS).as_posix() for p in DOCS.glob("tutorials/*.md")),
]

_BLOCK = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(page: str) -> list[tuple[str, str]]:
    """The fenced blocks of ``page``: (language, code), in order."""
    return [(m.group(1), m.group(2)) for m in _BLOCK.finditer((DOCS / page).read_text("utf-8"))]


def commands(code: str) -> list[str]:
    """The commands of a shell block (``\\`` continues a line; ``#`` lines are comments)."""
    out: list[str] = []
    for line in code.replace("\\\n", " ").splitlines():
        line = line.strip().removeprefix("$ ")
        if line and not line.startswith("#"):
            out.append(line)
    return out


def run_page(page: str, where: Path) -> None:
    """Run the code of ``page`` in the directory ``where``, as its reader would."""
    bin_dir = where / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "lostcities"
    shim.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -c "import sys; from lostcities.cli import main; '
        'sys.exit(main())" "$@"\n'
    )
    shim.chmod(0o755)
    env = dict(
        os.environ,
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    namespace: dict[str, object] = {"__name__": "__main__"}
    cwd, saved = os.getcwd(), dict(os.environ)
    os.chdir(where)
    os.environ.update(env)  # for the subprocesses of python blocks too
    try:
        for lang, code in blocks(page):
            first = code.split("\n", 1)[0]
            name = re.match(r"^(?:#|//)\s*file:\s*(\S+)\s*$", first)
            if name:
                (where / name.group(1)).write_text(code, encoding="utf-8")
            elif lang == "python":
                exec(compile(code, f"docs/{page}", "exec"), namespace)
            elif lang == "sh":
                for cmd in commands(code):
                    done = subprocess.run(
                        ["bash", "-c", cmd],
                        cwd=where,
                        env=env,
                        capture_output=True,
                        text=True,
                        timeout=600,
                    )
                    assert done.returncode == 0, f"docs/{page}: {cmd!r} failed:\n{done.stderr}"
            elif lang == "console":
                for cmd in commands(code):
                    words = shlex.split(cmd)
                    if words[0] == "lostcities":
                        build_parser().parse_args(words[1:])
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_page_runs_as_written(page: str, tmp_path: Path) -> None:
    run_page(page, tmp_path)


def test_every_tutorial_is_in_the_site_and_has_code() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    tutorials = [p for p in PAGES if p.startswith("tutorials/")]
    assert len(tutorials) == 4
    for page in tutorials:
        assert page in nav
        assert any(lang in ("python", "sh") for lang, _ in blocks(page)), page


def test_shell_blocks_are_split_into_commands() -> None:
    assert commands("# a comment\nlostcities match a \\\n  b\n\n$ ls\n") == [
        "lostcities match a    b",
        "ls",
    ]


def test_docstrings_read_as_markdown_on_the_site() -> None:
    pytest.importorskip("griffe")
    sys.path.insert(0, str(ROOT / "docs_hooks"))
    try:
        from griffe_docstrings import markdown
    finally:
        sys.path.pop(0)
    text = "Deal.\n\n>>> [str(c) for c in d]\n['yx', 'y2']\n\n:raises ValueError: if bad.\n"
    assert markdown(text + "See :meth:`~lostcities.Round.push` or :class:`Round`.") == (
        "Deal.\n\n```pycon\n>>> [str(c) for c in d]\n['yx', 'y2']\n```\n\n"
        "**Raises** `ValueError`: if bad.\nSee `push` or `Round`."
    )
    fenced = "```python\n>>> 1\n:class:`X`\n```"
    assert markdown(fenced) == fenced
