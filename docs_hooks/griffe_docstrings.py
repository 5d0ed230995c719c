"""A Griffe extension: the project's docstrings read as Markdown on the documentation site.

The docstrings are written for ``help()`` and doctest: bare ``>>>`` examples, Sphinx roles
(``:class:`Round```) and ``:raises X:`` lines. Markdown would read a doctest's output as
text (``['yx', 'y2']`` as a reference link) and show the roles raw, so before mkdocstrings
parses a docstring this extension

- fences each run of doctest lines (the prompt lines and their output) as ``pycon`` code;
- turns a role into a code span (``:meth:`deal``` -> ```deal```; ``~a.b`` -> ``b``);
- turns ``:raises X: why`` into ``**Raises** `X`: why``.

Code blocks already fenced, or indented under an ``Examples:`` section, are left alone.
Loaded by mkdocs.yml (``extensions: [docs_hooks/griffe_docstrings.py]``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:meth|class|func|attr|mod|data|exc|obj|const):`~?([^`]+)`")
_RAISES = re.compile(r"^(\s*):raises ([^:]+):\s*(.*)$")


def _role(m: re.Match[str]) -> str:
    target = m.group(1)
    if m.group(0).split("`", 1)[1].startswith("~"):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown(text: str) -> str:
    """The docstring ``text`` with its doctests fenced and its roles as code spans.

    >>> print(markdown("Deal.\\n\\n>>> [1]\\n[1]\\n\\nSee :class:`~a.Round`."))
    Deal.
    <BLANKLINE>
    ```pycon
    >>> [1]
    [1]
    ```
    <BLANKLINE>
    See `Round`.
    """
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    fenced = False
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
        if not fenced and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        if not fenced:
            line = _ROLE.sub(_role, line)
            m = _RAISES.match(line)
            if m:
                line = f"{m.group(1)}**Raises** `{m.group(2).strip()}`: {m.group(3)}"
        out.append(line)
        i += 1
    return "\n".join(out)


class MarkdownDocstrings(griffe.Extension):
    """Rewrites every docstring with :func:`markdown` before mkdocstrings parses it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
