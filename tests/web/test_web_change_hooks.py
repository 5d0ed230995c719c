"""The game manager's change hooks (turn alerts, the bot API's streams): a hook that fails
is logged and the others are still told."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from lostcities.web.game_manager import GameManager, ManagerSettings
from lostcities.web.store import GameStore
from lostcities.web.workers import BotRunner


@pytest.mark.allow_error_logs
def test_a_failing_hook_is_logged_and_the_others_still_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = GameStore(f"sqlite:///{tmp_path / 'hooks.db'}")
    store.create_tables()
    mgr = GameManager(store, BotRunner("thread", 1, []), ManagerSettings())
    told: list[str] = []

    def broken(arg: str) -> None:
        raise RuntimeError(f"no {arg}")

    mgr.on_game_change += [broken, told.append]
    mgr.on_bot_notice += [told.append, broken, told.append]
    with caplog.at_level(logging.ERROR):
        mgr.game_changed("g1")
        mgr.bot_notice("ev:7")
    assert told == ["g1", "ev:7", "ev:7"]
    assert [r.getMessage() for r in caplog.records] == [
        "game-change hook failed for game g1: no g1",
        "bot hook failed for ev:7: no ev:7",
    ]
    store.close()
