"""Dependencies point one way: the core imports nothing else of the project (and nothing
outside the standard library); the parts import the core, never each other without reason."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "lostcities"
CORE = {"__init__", "cards", "errors", "match", "record", "rules", "scoring", "cli"}
# which parts each part may import (besides the core)
ALLOWED: dict[str, set[str]] = {
    "bots": {"bots", "fast"},  # search uses the fast path when it is there
    "fast": {"fast"},
    "protocol": {"bots"},
    "stats": set(),
    "arena": {"bots", "protocol", "stats"},
    "web": {"web", "bots"},
    "tui": {"tui", "bots"},
    "envs": {"envs", "bots", "fast"},
}
# single modules with a reason of their own
EXTRA: dict[str, set[str]] = {
    "lostcities.bots.external": {"protocol"},  # the cmd: bot speaks the protocol
    "lostcities.fast.bench": {"bots"},  # `lostcities bench` times the search bots too
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_core_imports_only_the_standard_library_and_itself() -> None:
    stdlib = set(sys.stdlib_module_names)
    for name in CORE:
        path = PKG / f"{name}.py"
        for mod in _imports(path):
            top = mod.split(".")[0]
            if top == "lostcities":
                part = _part(mod)
                if name == "cli":
                    continue  # the CLI dispatches to every part, lazily (checked below)
                assert part in CORE, f"core module {name}.py imports {mod}"
            else:
                assert top in stdlib, f"core module {name}.py imports {mod}"


def test_parts_import_only_the_core_and_what_they_may() -> None:
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        module = ".".join(rel.parts)
        part = _part(module)
        if part in CORE:
            continue
        allowed = ALLOWED.get(part, {part}) | CORE | {part} | EXTRA.get(module, set())
        for mod in _imports(path):
            if mod.split(".")[0] != "lostcities":
                continue
            assert _part(mod) in allowed, f"{module} imports {mod}"


def test_import_lostcities_loads_only_the_core() -> None:
    code = (
        "import sys, lostcities\n"
        "print(' '.join(sorted(m for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    ours = {m for m in loaded if m.startswith("lostcities")}
    assert ours <= {f"lostcities.{n}" for n in CORE} | {"lostcities"}, ours
    for heavy in ["numpy", "numba", "fastapi", "textual", "sqlalchemy", "rich", "pyspiel"]:
        assert heavy not in loaded, heavy


def test_cli_help_imports_no_extra() -> None:
    code = (
        "import sys\nfrom lostcities.cli import build_parser\nbuild_parser().format_help()\n"
        "print(' '.join(sorted(m for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    for heavy in ["numpy", "numba", "fastapi", "textual", "sqlalchemy", "pyspiel"]:
        assert heavy not in loaded, heavy
