"""A MkDocs hook: the pages' links to the repository's own files work on the site too.

The pages in docs/ are read on the forge as well, where ``[bot.py](../examples/bot.py)`` is
the file itself. MkDocs only knows docs/, so this hook publishes each repository file a page
links to under ``source/`` on the site (its text, as it is) and points the link there. A link
to a file that does not exist, or to a path outside the repository, is a warning, so
``mkdocs build --strict`` fails on it as on any broken link.
Loaded by mkdocs.yml (``hooks: [docs_hooks/source_links.py]``).
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.source_links")

_LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")
_SOURCE = "source"


def _outside_links(text: str) -> list[tuple[int, re.Match[str]]]:
    """Links in ``text`` outside fenced code, with the line number of each."""
    found: list[tuple[int, re.Match[str]]] = []
    fenced = False
    for n, line in enumerate(text.split("\n")):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            found.extend((n, m) for m in _LINK.finditer(line) if "://" not in m.group(2))
    return found


def _target(docs: Path, src_uri: str, link: str) -> Path:
    return (docs / posixpath.dirname(src_uri) / link).resolve()


def on_files(files: Files, config: Any) -> Files:
    """Publish under ``source/`` every repository file outside docs/ that a page links to."""
    docs = Path(config["docs_dir"]).resolve()
    root = docs.parent
    published: set[str] = set()
    for f in list(files.documentation_pages()):
        text = Path(f.abs_src_path or "").read_text(encoding="utf-8")
        for _, m in _outside_links(text):
            target = _target(docs, f.src_uri, m.group(2))
            if target.is_relative_to(docs):
                continue  # MkDocs checks these itself
            if not target.is_relative_to(root) or not target.is_file():
                log.warning(
                    "%s links to %r, which is not a file of the repository", f.src_uri, m.group(2)
                )
                continue
            rel = target.relative_to(root).as_posix()
            if rel not in published:
                published.add(rel)
                files.append(File.generated(config, f"{_SOURCE}/{rel}", abs_src_path=str(target)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point the page's links to repository files at their copies under ``source/``."""
    docs = Path(config["docs_dir"]).resolve()
    root = docs.parent
    src_uri: str = page.file.src_uri
    lines = markdown.split("\n")
    for n, m in reversed(_outside_links(markdown)):
        target = _target(docs, src_uri, m.group(2))
        if target.is_relative_to(docs) or not target.is_relative_to(root):
            continue
        rel = target.relative_to(root).as_posix()
        new = posixpath.relpath(f"{_SOURCE}/{rel}", posixpath.dirname(src_uri) or ".")
        line = lines[n]
        lines[n] = line[: m.start(2)] + new + line[m.end(2) :]
    return "\n".join(lines)
