"""The web package's layout (issue 38): each name has one home, and tests import it from
there."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import lostcities.web


def test_the_game_manager_module_exports_only_its_own_names() -> None:
    """``lostcities.web.game_manager`` re-exports nothing "from before the split": each name of its
    ``__all__`` is defined there, and the store has no test-only queries."""
    from lostcities.web import game_manager as games
    from lostcities.web.store import GameStore

    for name in games.__all__:
        assert getattr(games, name).__module__ == games.__name__, name
    assert not hasattr(GameStore, "summaries_sync") and not hasattr(GameStore, "count_sync")


def test_web_modules_export_their_own_classes_and_functions() -> None:
    """No web module lists another module's class or function in its ``__all__`` (a
    second home for it)."""
    for info in pkgutil.walk_packages(lostcities.web.__path__, "lostcities.web."):
        mod = importlib.import_module(info.name)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            home = getattr(obj, "__module__", None)
            if not (isinstance(obj, type) or callable(obj)) or home is None:
                continue
            foreign = home.startswith("lostcities.web") and home != info.name
            assert not foreign, f"{info.name}.{name} is {home}'s"


def test_routers_run_no_sql() -> None:
    """A router asks the modules of its area (their queries and ``op_`` writes), never the
    database itself: no router imports SQLAlchemy, save its exceptions."""
    import ast
    from pathlib import Path

    routers = Path(lostcities.web.__file__).parent / "routers"
    for path in sorted(routers.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] == "sqlalchemy":
                    assert name == "sqlalchemy.exc", f"{path.name} imports {name}"


def test_the_models_live_in_their_areas_modules() -> None:
    """Every table's model is defined in ``lostcities.web.models.<area>``, none in the
    store (its writer and queries), and importing the store registers every table."""
    from lostcities.web import store
    from lostcities.web.models.base import Base

    homes = {m.class_.__module__ for m in Base.registry.mappers}
    assert homes == {
        f"lostcities.web.models.{area}"
        for area in ("accounts", "bots", "comments", "games", "lobby", "ratings")
    }
    assert not [
        v
        for v in vars(store).values()
        if isinstance(v, type) and v.__module__ == store.__name__ and issubclass(v, Base)
    ]
    assert len(Base.metadata.tables) == len(Base.registry.mappers) == 23


def test_the_chat_phrases_are_one_list_served_to_the_page(tmp_path: Path) -> None:
    """The quick-chat phrases are ``schemas.ChatPhrase`` alone: ``CHAT_PHRASES`` is read
    from it, the table's page is served the list (``data-chat-phrases``), and game.js
    keeps no copy of it."""
    import html
    import re
    import typing

    from fastapi.testclient import TestClient

    from lostcities.web import schemas
    from lostcities.web.app import create_app
    from tests.web.web_helpers import app_settings, friend_game

    assert typing.get_args(schemas.ChatPhrase) == schemas.CHAT_PHRASES
    with TestClient(create_app(app_settings(f"sqlite:///{tmp_path / 'g.db'}"))) as client:
        gid, *_ = friend_game(client)
        page = client.get(f"/game/{gid}").text
    served = re.search(r'data-chat-phrases="([^"]*)"', page)
    assert served is not None and html.unescape(served.group(1)).split() == list(
        schemas.CHAT_PHRASES
    )
    js = (Path(lostcities.web.__file__).parent / "static" / "js" / "game.js").read_text()
    assert '"good_luck"' not in js and '"well_played"' not in js


def test_one_page_renderer() -> None:
    """Pages are rendered by ``routers.pages.render_page`` alone (the reader's language,
    its headers): no other router renders a template itself."""
    routers = Path(lostcities.web.__file__).parent / "routers"
    for path in sorted(routers.glob("*.py")):
        if path.name != "pages.py":
            assert "TemplateResponse" not in path.read_text(encoding="utf-8"), path.name


DATA_LAYER = ("models", "migrations", "repositories", "store.py", "writer.py")
"""What of ``lostcities/web`` may run SQL: the models, the migrations, the repositories
(one module per area), the store (the engine) and its writer."""

SQLALCHEMY_OK = {
    "sqlalchemy.exc": None,  # (any: its exceptions, e.g. IntegrityError)
    "sqlalchemy.orm": {"Session"},  # the type of the session an op_ write is given
    "sqlalchemy.engine": {"make_url"},  # the database URL, for a LISTEN connection
}
"""What a module outside the data layer may import from SQLAlchemy: no query constructs."""

DRIVER_SQL_OK = {
    "peers.py": "the bots' advisory locks, on a psycopg connection of its own (not SQLAlchemy)",
}
"""Modules that send SQL of their own to the driver, with the reason."""

QUERY_CALLS = {"execute", "exec_driver_sql", "scalar", "scalars", "query", "connect", "begin"}
"""Methods that run SQL (or open a connection or transaction to run it)."""


def sql_outside_the_data_layer(source: str, name: str) -> list[str]:
    """Where the module ``name`` (its ``source``) runs SQL itself: SQLAlchemy's query
    constructs imported (``select``, ``insert``, ``update``, ``delete``, ``text``,
    ``func``, ...), a session opened (``Session(...)``), a query method called
    (``.execute``, ``.scalars``, ``engine.connect()``, ...) or a model row fetched or
    added (``s.get(GameRow, ...)``, ``s.add(GameRow(...))``). A LISTEN on a driver
    connection of its own passes."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            found += [f"{where} imports {a.name}" for a in node.names if a.name == "sqlalchemy"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlalchemy":
            ok = SQLALCHEMY_OK.get(node.module or "", set())
            found += [
                f"{where} imports {node.module}.{a.name}"
                for a in node.names
                if ok is not None and a.name not in ok
            ]
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "Session":
                found.append(f"{where} opens a Session")
            if not isinstance(f, ast.Attribute):
                continue
            first = node.args[0] if node.args else None
            if f.attr in QUERY_CALLS:
                listen = isinstance(first, ast.JoinedStr) and any(
                    isinstance(v, ast.Constant) and str(v.value).startswith("LISTEN ")
                    for v in first.values[:1]
                )
                on_engine = isinstance(f.value, ast.Attribute) and f.value.attr == "engine"
                if f.attr in ("connect", "begin") and not on_engine:
                    continue  # (psycopg.connect, a lock's begin: not the store's engine)
                if not listen and name not in DRIVER_SQL_OK:
                    found.append(f"{where} calls .{f.attr}()")
            elif f.attr == "get" and isinstance(first, ast.Name) and first.id.endswith("Row"):
                found.append(f"{where} fetches a {first.id}")
            elif (
                f.attr in ("add", "delete", "merge")
                and isinstance(first, ast.Call)
                and isinstance(first.func, ast.Name)
                and first.func.id.endswith("Row")
            ):
                found.append(f"{where} adds a {first.func.id}")
    return found


def test_only_the_data_layer_runs_sql() -> None:
    """Issue 38: the SQL of the web app lives in its data layer (models, migrations, one
    repository module per area, the store and its writer); services and routers call
    repository functions and never build a query, open a session or run SQL."""
    web = Path(lostcities.web.__file__).parent
    found: list[str] = []
    for path in sorted(web.rglob("*.py")):
        rel = path.relative_to(web)
        if rel.parts[0] in DATA_LAYER:
            continue
        found += sql_outside_the_data_layer(path.read_text(encoding="utf-8"), rel.as_posix())
    assert found == []


def test_the_sql_checker_finds_sql() -> None:
    """The checker above finds each kind of SQL it names (it would pass nothing
    otherwise), and lets the allowed imports and a LISTEN pass."""
    bad = (
        "from sqlalchemy import select, update\n"
        "import sqlalchemy\n"
        "from sqlalchemy.orm import Session, aliased\n"
        "with Session(store.engine) as s:\n"
        "    s.execute(select(GameRow))\n"
        "    s.scalars(q)\n"
        "    s.get(GameRow, 'x')\n"
        "    s.add(ChatRow(game_id='x'))\n"
        "with store.engine.connect() as conn:\n"
        "    pass\n"
    )
    assert sorted(sql_outside_the_data_layer(bad, "m.py")) == [
        "m.py:1 imports sqlalchemy.select",
        "m.py:1 imports sqlalchemy.update",
        "m.py:2 imports sqlalchemy",
        "m.py:3 imports sqlalchemy.orm.aliased",
        "m.py:4 opens a Session",
        "m.py:5 calls .execute()",
        "m.py:6 calls .scalars()",
        "m.py:7 fetches a GameRow",
        "m.py:8 adds a ChatRow",
        "m.py:9 calls .connect()",
    ]
    good = (
        "from sqlalchemy.exc import IntegrityError\n"
        "from sqlalchemy.orm import Session\n"
        "from sqlalchemy.engine import make_url\n"
        "conn.execute(f'LISTEN {CHANNEL}')\n"
        "psycopg.connect(url)\n"
        "repo.load(store.engine, game_id)\n"
    )
    assert sql_outside_the_data_layer(good, "m.py") == []


def test_the_repositories_depend_only_on_the_models() -> None:
    """A repository imports, of the web app, only the models and other repositories: no
    service (the rules stay above the data layer) and not the store (reads take its
    engine), so the data layer has no way back up into the app."""
    web = Path(lostcities.web.__file__).parent
    found: list[str] = []
    for path in sorted((web / "repositories").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            found += [
                f"{path.name}:{node.lineno} imports {name}"
                for name in names
                if name.startswith("lostcities.")
                and not name.startswith(("lostcities.web.models.", "lostcities.web.repositories."))
            ]
    assert found == []
