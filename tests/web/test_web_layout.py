"""The web package's layout (issue 38): each name has one home, and tests import it from
there."""

from __future__ import annotations

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
