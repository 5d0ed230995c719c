"""A MkDocs hook: the pages' positions drawn by ``lostcities.svg`` when the site is built.

A page names a position in a fenced block of language ``position``; on the site the block
becomes the picture, an SVG file made at build time (``img/positions/NAME.svg``), so the
pictures never go stale and none is committed. On the forge the block reads as what it is::

    ```position
    deal: 3                  # Round.deal(seed=3)
    moves: +y9. -b4.         # pushed in order, each checked (several moves: lines may repeat)
    view: 0                  # optional: player 0's view (the opponent's hand as card backs)
    caption: After two moves  # optional: the picture's text
    ```

Other keys: ``variant`` (``classic``, ``long``), ``starter`` (0 or 1), ``size`` (the width in
pixels), ``name`` (the file's name; default: the page's path and the block's number). A
block that does not parse, a move the rules refuse, or two blocks with one name is a warning,
so ``mkdocs build --strict`` fails on it. Loaded by mkdocs.yml
(``hooks: [docs_hooks/positions.py]``).
"""

from __future__ import annotations

import logging
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from mkdocs.structure.files import File, Files

from lostcities import PlayerView, Round, svg

log = logging.getLogger("mkdocs.hooks.positions")

DIR = "img/positions"
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w-]*)")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_KEYS = ("deal", "variant", "starter", "moves", "view", "size", "caption", "name")


class PositionSpecError(ValueError):
    """A ``position`` block that does not name a position."""


@dataclass(frozen=True)
class Spec:
    """A position named in a page: a deal, the moves pushed on it, whose view."""

    deal: int
    variant: str = "classic"
    starter: int = 0
    moves: tuple[str, ...] = ()
    view: int | None = None
    size: int | None = None
    caption: str = ""
    name: str = ""

    def position(self) -> Round | PlayerView:
        """The round after the moves, or the named player's view of it."""
        r = self.round()
        return r if self.view is None else r.view(self.view)

    def round(self) -> Round:
        """The round after the moves (each checked by ``Round.push``).

        :raises PositionSpecError: for a variant or move the library refuses.
        """
        try:
            r = Round.deal(seed=self.deal, variant=self.variant, starter=self.starter)
            for n, move in enumerate(self.moves, 1):
                try:
                    r.push(move)
                except ValueError as e:
                    raise PositionSpecError(f"move {n} of {len(self.moves)}: {e}") from None
        except PositionSpecError:
            raise
        except ValueError as e:
            raise PositionSpecError(str(e)) from None
        return r

    def svg(self) -> str:
        """The picture, as ``lostcities.svg.position`` draws it."""
        return svg.position(self.position(), size=self.size)


def _int(key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise PositionSpecError(f"{key}: {value!r} is not a whole number") from None


def parse_spec(text: str) -> Spec:
    """The position a block's text names.

    >>> parse_spec("deal: 3\\nmoves: +y9.\\nview: 0").view
    0

    :raises PositionSpecError: for an unknown key, a missing ``deal`` or a bad number.
    """
    values: dict[str, str] = {}
    moves: list[str] = []
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if not key or key.startswith("#"):
            continue
        if not sep or key not in _KEYS:
            raise PositionSpecError(
                f"{line.strip()!r}: not one of {', '.join(k + ':' for k in _KEYS)}"
            )
        value = (value if key == "caption" else value.split("#", 1)[0]).strip()
        if key == "moves":
            moves.extend(value.split())
        elif key in values:
            raise PositionSpecError(f"{key}: given twice")
        else:
            values[key] = value
    if "deal" not in values:
        raise PositionSpecError("no 'deal: SEED' line")
    view = _int("view", values["view"]) if "view" in values else None
    starter = _int("starter", values.get("starter", "0"))
    if view not in (None, 0, 1) or starter not in (0, 1):
        raise PositionSpecError("view and starter are players: 0 or 1")
    name = values.get("name", "")
    if name and not _NAME.match(name):
        raise PositionSpecError(f"name: {name!r} is not lower-case letters, digits and '-'")
    return Spec(
        deal=_int("deal", values["deal"]),
        variant=values.get("variant", "classic"),
        starter=starter,
        moves=tuple(moves),
        view=view,
        size=_int("size", values["size"]) if "size" in values else None,
        caption=values.get("caption", ""),
        name=name,
    )


@dataclass
class Block:
    """A ``position`` block of a page: its lines (``start`` to ``end``, the fences
    included) and its text."""

    start: int
    end: int
    text: str
    spec: Spec | None = field(default=None)
    uri: str = ""


def blocks(markdown: str) -> list[Block]:
    """The ``position`` blocks of a page, in order (not those inside other code blocks)."""
    found: list[Block] = []
    lines = markdown.split("\n")
    n = 0
    while n < len(lines):
        m = _FENCE.match(lines[n].lstrip())
        if not m:
            n += 1
            continue
        fence, start = m.group(1), n
        n += 1
        while n < len(lines) and not lines[n].lstrip().startswith(fence):
            n += 1
        if m.group(2) == "position":
            found.append(Block(start, n, "\n".join(lines[start + 1 : n])))
        n += 1
    return found


def default_name(src_uri: str, number: int) -> str:
    """``tutorials/play.md``'s second block: ``tutorials-play-2``."""
    return f"{src_uri.removesuffix('.md').replace('/', '-').lower()}-{number}"


drawn_blocks: dict[str, list[Block]] = {}
"""Each page's blocks as the last build drew them (on_files fills it, on_page_markdown reads it)."""


def on_files(files: Files, config: Any) -> Files:
    """Draw every page's positions, each as a file ``img/positions/NAME.svg`` of the site."""
    drawn_blocks.clear()
    taken: dict[str, str] = {}
    for f in list(files.documentation_pages()):
        text = f.content_string
        found = blocks(text)
        if not found:
            continue
        drawn_blocks[f.src_uri] = found
        for number, block in enumerate(found, 1):
            where = f"{f.src_uri}:{block.start + 1}"
            try:
                spec = parse_spec(block.text)
                picture = spec.svg()
            except PositionSpecError as e:
                log.warning("%s: position: %s", where, e)
                continue
            name = spec.name or default_name(f.src_uri, number)
            if name in taken:
                log.warning("%s: position name %r is also used at %s", where, name, taken[name])
                continue
            taken[name] = where
            uri = f"{DIR}/{name}.svg"
            if files.get_file_from_path(uri) is not None:
                log.warning("%s: %s is a file of docs/ already", where, uri)
                continue
            block.spec, block.uri = spec, uri
            files.append(File.generated(config, uri, content=picture))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Put each drawn position's picture where its block was."""
    drawn = drawn_blocks.get(page.file.src_uri, [])
    lines = markdown.split("\n")
    for block, done in reversed(list(zip(blocks(markdown), drawn, strict=False))):
        spec = done.spec
        if spec is None:
            continue  # warned about in on_files; the block stays as code
        link = posixpath.relpath(done.uri, posixpath.dirname(page.file.src_uri) or ".")
        alt = re.sub(r"[\[\]*_`]", "", spec.caption) or f"a position of deal {spec.deal}"
        indent = lines[block.start][: len(lines[block.start]) - len(lines[block.start].lstrip())]
        image = [f"{indent}![{alt}]({link})"]
        if spec.caption:
            image += ["", f"{indent}*{spec.caption}*"]
        lines[block.start : block.end + 1] = image  # indented as the block was (in a list)
    return "\n".join(lines)
