"""The architecture, checked: dependencies point one way, no module reaches into another
module's underscore names, and there are no import circles, between parts nor between
modules (docs/architecture.md).

- The rules core imports nothing else of the project and nothing outside the standard
  library; ``import lostcities`` loads only the core.
- Each part imports the core and only the parts :data:`ALLOWED` names, each with a reason.
- No ``obj._name`` where ``_name`` is not defined in the same file, no ``from m import _x``
  and no ``getattr(obj, "_x")`` inside ``lostcities/`` (framework hooks and documented
  standard-library names are listed in :data:`PRIVATE_OK` with a reason). Tests may use the
  privates of the module they test (the one named like the test file) and their own.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "lostcities"
TESTS = ROOT / "tests"

CORE = {
    "__init__",
    "achievements",
    "cards",
    "errors",
    "match",
    "netinput",  # the network input's named offsets, shared by nn and fast (stdlib only)
    "record",
    "referee",
    "rules",
    "scoring",
    "svg",  # positions as pictures, stdlib only; Round._repr_svg_ imports it when drawn
}
"""The rules core: depends on nothing in the project."""

ALLOWED: dict[str, dict[str, str]] = {
    # part: {part it may import: why}
    "cli": {"*": "the command line dispatches to every part, lazily (checked below)"},
    "presentation": {},
    "stats": {},
    "nn": {},
    "fast": {
        "nn": "network rollouts play the policy network (fast.netsearch; warmed up by fast.warmup)"
    },
    "protocol": {},
    "bots": {
        "fast": "search bots run their inner loop compiled when numba is there",
        "nn": "the net and expert bots evaluate the policy network",
        "protocol": "the cmd: bot speaks the bot protocol (lostcities.bots.external only)",
    },
    "arena": {
        "bots": "the arena makes bots from their specs",
        "stats": "ratings and CIs",
        "presentation": "the progress bar its commands share with `lostcities analyse`",
    },
    "bench": {"bots": "`lostcities bench` times the search bots", "fast": "and the fast path"},
    "envs": {"bots": "the opponent policies are bots", "fast": "batched environments"},
    "train": {
        "nn": "it trains the network the bots play",
        "bots": "self-play and gating play bots",
        "fast": "the search teacher runs compiled",
        "arena": "gating is a duplicate-deal match",
        "stats": "confidence intervals",
        "presentation": "the progress bar its commands share with `lostcities analyse`",
    },
    "replay": {},  # `lostcities replay`: the core's records checked, printed, exit codes
    "review": {
        "bots": "`lostcities analyse`: the search bots evaluate the moves",
        "presentation": "the analysis table",
    },
    "tui": {
        "bots": "the opponent",
        "presentation": "the score table",
        "fast": "the compiled search is warmed up before the first move (fast.warmup only)",
    },
    "connect": {
        "bots": "`lostcities connect` plays an engine made from its spec",
        "protocol": "the server's position lines rebuild the engine's view (PositionReader)",
    },
    "web": {
        "bots": "the computer levels",
        "presentation": "the score table",
        "fast": "the compiled search is warmed up at start-up (fast.warmup only)",
        "protocol": "the bot API's game stream sends the protocol's position lines",
    },
}
"""Which parts each part may import besides the core and itself, with the reason."""

ONLY_IN: dict[tuple[str, str], set[str]] = {
    ("bots", "protocol"): {"lostcities.bots.external"},
    ("arena", "presentation"): {"lostcities.arena.report"},  # the commands, not the engine
    ("tui", "fast"): {"lostcities.tui.app"},
    ("web", "fast"): {"lostcities.web.workers"},
    ("web", "protocol"): {"lostcities.web.bot_api"},
    ("fast", "nn"): {
        "lostcities.fast.netsearch",
        "lostcities.fast.warmup",
    },  # prepare_search: the worker pool's start-up
}
"""Part-to-part imports allowed only in the modules named."""

PRIVATE_OK: dict[str, str] = {
    "_repr_svg_": "IPython's display hook: notebooks draw positions (lostcities.svg)",
    "_accumulate_rewards": "PettingZoo's AECEnv hook for subclasses",
    "_was_dead_step": "PettingZoo's AECEnv hook for subclasses",
    "_cumulative_rewards": "PettingZoo's AECEnv attribute for subclasses",
    "_exit": "os._exit, the documented exit without cleanup (forked workers)",
    "_fields": "namedtuple's public field list",
    "_replace": "namedtuple's public copy-with-changes",
    "_asdict": "namedtuple's public dict view",
    "_name_": "enum's documented member name",
    "_value_": "enum's documented member value",
    "_missing_": "enum's documented hook",
    "_generate_next_value_": "enum's documented hook",
}
"""Underscore names that are public API of a framework or the standard library."""


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _part(module: str) -> str:
    parts = module.split(".")
    if parts[1:] == ["__main__"]:
        return "cli"  # ``python -m lostcities``: the command line's other door
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(tree: ast.AST, module: str) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level] if node.level else []
                out.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                out.add(node.module)
    return out


def _defined(tree: ast.AST) -> set[str]:
    """Names a file defines: functions, classes, assigned names and attributes,
    parameters, ``__slots__`` entries."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id == "__slots__":
                    for c in ast.walk(node.value):
                        if isinstance(c, ast.Constant) and isinstance(c.value, str):
                            names.add(c.value)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.asname)
    return names


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in PRIVATE_OK


def reach_ins(path: Path, allowed_names: set[str] | None = None) -> list[str]:
    """Every use in ``path`` of an underscore name that the file does not define (nor
    ``allowed_names``): ``obj._x``, ``from m import _x``, ``getattr(obj, "_x")``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ok = _defined(tree) | (allowed_names or set())
    found: list[str] = []
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in ok:
            name = f".{node.attr}"
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if _private(a.name) and a.name not in (allowed_names or set()):
                    name = f"import {a.name} from {node.module}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
            and node.args[1].value not in ok
        ):
            name = f"{node.func.id}(..., {node.args[1].value!r})"
        if name is not None:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            found.append(f"{where}:{getattr(node, 'lineno', 0)}: {name}")
    return found


# -- dependencies ----------------------------------------------------------------------------


def test_core_imports_only_the_standard_library_and_itself() -> None:
    stdlib = set(sys.stdlib_module_names)
    for module, path in _modules():
        if _part(module) not in CORE:
            continue
        for mod in _imports(ast.parse(path.read_text(encoding="utf-8")), module):
            top = mod.split(".")[0]
            if top == "lostcities":
                assert _part(mod) in CORE, f"core module {module} imports {mod}"
            else:
                assert top in stdlib or top == "__future__", f"core module {module} imports {mod}"


def _part_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in _modules():
        part = _part(module)
        for mod in _imports(ast.parse(path.read_text(encoding="utf-8")), module):
            if mod.split(".")[0] != "lostcities" or mod == "lostcities":
                continue
            other = _part(mod)
            if other != part and other not in CORE:
                graph.setdefault(part, set()).add(other)
    return graph


def test_parts_import_only_the_core_and_what_they_may() -> None:
    bad: list[str] = []
    for module, path in _modules():
        part = _part(module)
        if part in CORE:
            continue
        allowed = ALLOWED.get(part)
        assert allowed is not None, (
            f"part {part!r} ({module}) is not in ALLOWED: add it with reasons"
        )
        for mod in _imports(ast.parse(path.read_text(encoding="utf-8")), module):
            if mod.split(".")[0] != "lostcities" or mod == "lostcities":
                continue
            other = _part(mod)
            if other in CORE or other == part or "*" in allowed:
                continue
            if other not in allowed:
                bad.append(f"{module} imports {mod}")
            elif (part, other) in ONLY_IN and module not in ONLY_IN[(part, other)]:
                bad.append(f"{module} imports {mod} (only {sorted(ONLY_IN[(part, other)])} may)")
    assert not bad, "sideways imports:\n" + "\n".join(bad)


def test_no_import_circles_between_parts() -> None:
    graph = _part_graph()
    graph.pop("cli", None)  # the dispatcher imports everything and nothing imports it
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                raise AssertionError("import circle: " + " -> ".join([*stack, node, nxt]))
            if nxt not in state:
                visit(nxt, [*stack, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


LAZY_CYCLE_OK: dict[tuple[str, str], str] = {
    ("lostcities.rules", "lostcities.svg"): (
        "Round._repr_svg_ draws the position when a notebook displays it; svg draws rules' "
        "positions, so the import waits for the first picture"
    ),
}
"""Module imports (function-level, lazy) allowed to close a circle, each with its reason."""

KNOWN_CIRCLE_EDGES: dict[tuple[str, str], str] = {}
"""Edges of circles known and being removed, each naming the work that removes it; unlike
:data:`LAZY_CYCLE_OK` an entry whose edge is gone does not fail (the removal may land
first), but it should go with that work."""


def module_imports(tree: ast.AST, module: str, known: set[str]) -> set[str]:
    """The project modules ``module`` imports anywhere: at the top, inside a function
    (lazily) or under ``if TYPE_CHECKING:`` (a circle of types is still a circle: the two
    modules cannot be understood, tested or moved apart); ``from pkg import sub`` counts
    as ``pkg.sub``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.update(f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in node.names)
    return {m for m in out if m in known and m != module}


def _module_graph() -> dict[str, set[str]]:
    paths = dict(_modules())
    known = set(paths)
    return {
        m: module_imports(ast.parse(p.read_text(encoding="utf-8")), m, known)
        for m, p in paths.items()
    }


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: list[str] = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_circles_between_modules() -> None:
    """No module imports itself round a circle, not even lazily inside a function or under
    ``if TYPE_CHECKING:`` (the allowed edges of :data:`LAZY_CYCLE_OK` and the known ones of
    :data:`KNOWN_CIRCLE_EDGES` aside); each allowed edge still exists."""
    graph = _module_graph()
    for (a, b), why in LAZY_CYCLE_OK.items():
        assert b in graph.get(a, set()), (
            f"LAZY_CYCLE_OK lists {a} -> {b} ({why}), which is gone: drop it"
        )
        graph[a].discard(b)
    for a, b in KNOWN_CIRCLE_EDGES:
        graph.get(a, set()).discard(b)
    circles = import_circles(graph)
    assert not circles, "import circles between modules:\n" + "\n".join(
        " <-> ".join(c) for c in circles
    )


def test_the_checker_finds_lazy_and_type_checking_circles() -> None:
    """The circle check sees imports inside functions and under ``if TYPE_CHECKING:``: the
    shape of the old ``bots.base`` <-> ``bots.analysis`` circle (a lazy import one way, a
    typing one the other) is found."""
    known = {"p.a", "p.b", "p.c"}
    a = ast.parse("def f():\n    from p import b\n")
    b = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import p.a\n")
    c = ast.parse("import typing\nif typing.TYPE_CHECKING:\n    from p.b import X\n")
    graph = {
        "p.a": module_imports(a, "p.a", known),
        "p.b": module_imports(b, "p.b", known),
        "p.c": module_imports(c, "p.c", known),
    }
    assert graph == {"p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": {"p.b"}}
    assert import_circles(graph) == [["p.a", "p.b"]]


def test_nothing_imports_the_cli() -> None:
    for module, path in _modules():
        if _part(module) == "cli":
            continue
        for mod in _imports(ast.parse(path.read_text(encoding="utf-8")), module):
            assert mod != "lostcities.cli", f"{module} imports the CLI"


def test_import_lostcities_loads_only_the_core() -> None:
    code = "import sys, lostcities\nprint(' '.join(sorted(m for m in sys.modules)))"
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
    for heavy in ["numpy", "numba", "fastapi", "textual", "sqlalchemy", "pyspiel", "torch"]:
        assert heavy not in loaded, heavy


# -- privates ----------------------------------------------------------------------------------


def test_no_module_touches_another_modules_underscore_names() -> None:
    found = [hit for _, path in _modules() for hit in reach_ins(path)]
    assert not found, "private reach-ins:\n" + "\n".join(found)


def _tested_modules(test: Path) -> list[Path]:
    stem = test.stem.removeprefix("test_")
    return [
        p
        for p in PKG.rglob("*.py")
        if p.stem == stem or (p.stem == "__init__" and p.parent.name == stem)
    ]


def test_tests_use_only_the_privates_of_the_module_they_test() -> None:
    found: list[str] = []
    for test in sorted(TESTS.rglob("*.py")):
        if "data" in test.relative_to(TESTS).parts:
            continue
        names: set[str] = set()
        for mod in _tested_modules(test):
            names |= _defined(ast.parse(mod.read_text(encoding="utf-8")))
        found += reach_ins(test, names)
    assert not found, "tests reaching into other modules' privates:\n" + "\n".join(found)


def test_the_checker_finds_a_reach_in(tmp_path: Path) -> None:
    """The reach-in check can fail (a test that cannot fail is a defect)."""
    bad = tmp_path / "probe.py"
    bad.write_text(
        "from lostcities.rules import Round, _move_key\n"
        "def f(r: Round) -> object:\n"
        "    r._mine = 1\n"
        "    return r._deck, getattr(r, '_hands'), r._mine\n",
        encoding="utf-8",
    )
    hits = reach_ins(bad)
    assert len(hits) == 3, hits
