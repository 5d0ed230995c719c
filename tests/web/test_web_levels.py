"""The computer levels: what each plays, the expert level, its fallback, the warm-up."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lostcities.web.levels import LEVELS
from tests.web.web_helpers import make_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HAVE_NUMBA = importlib.util.find_spec("numba") is not None


@pytest.fixture
def fast_expert(tmp_path: Path) -> Iterator[Any]:
    """A TestClient whose expert level searches briefly (the real level keeps its fallback)."""
    levels = {**LEVELS, "expert": dataclasses.replace(LEVELS["expert"], spec="expert:iters=40")}
    with make_client(tmp_path, levels) as c:
        yield c


def test_the_default_levels() -> None:
    assert LEVELS["easy"].spec == "heuristic" and LEVELS["easy"].mistakes == 0.4
    assert LEVELS["medium"].spec == "heuristic" and LEVELS["medium"].mistakes == 0
    assert LEVELS["hard"].spec == "ismcts:time=1"
    expert = LEVELS["expert"]
    assert (expert.spec, expert.label, expert.fallback) == (
        "expert:time=1",
        "Expert",
        "ismcts:time=1",
    )
    assert expert.requires == ("numba",)
    assert all(lv.about for lv in LEVELS.values())


def test_api_levels_say_what_each_plays(client: Any) -> None:
    levels = {x["level"]: x for x in client.get("/api/levels").json()}
    assert all(x["available"] for x in levels.values())
    assert all(
        levels[n]["about"] == LEVELS[n].about for n in ("medium", "hard")
    )  # easy: random here
    assert levels["hard"]["bot"] == "ismcts:time=1"
    assert levels["expert"]["bot"] == ("expert:time=1" if HAVE_NUMBA else "ismcts:time=1")
    assert "network" in levels["expert"]["about"]


def test_the_home_page_says_what_each_level_plays(tmp_path: Path) -> None:
    with make_client(tmp_path, dict(LEVELS)) as c:
        page = c.get("/").text
    for name, lv in LEVELS.items():
        assert f'value="{name}"' in page and lv.about in page
    assert (
        'value="medium" data-about' in page and "checked" in page.split('value="medium"')[1][:200]
    )


def test_expert_falls_back_without_numba(tmp_path: Path) -> None:
    no_numba = dataclasses.replace(
        LEVELS["expert"], spec="expert:iters=20", requires=("no_such_module_for_this_test",)
    )
    with make_client(tmp_path, {**LEVELS, "expert": no_numba}) as c:
        info = {x["level"]: x for x in c.get("/api/levels").json()}["expert"]
        assert info["available"] and info["bot"] == "ismcts:time=1"
        assert "instead" in info["about"] and "no_such_module_for_this_test" in info["about"]
        r = c.post("/api/games", json={"opponent": "computer", "level": "expert", "rounds": 1})
        assert r.status_code == 201
        game = c.app.state.manager.games[r.json()["id"]]
        assert game.bot_spec(1) == "ismcts:time=1"


def test_the_expert_level_plays_legal_moves(fast_expert: Any) -> None:
    c = fast_expert
    r = c.post("/api/games", json={"opponent": "computer", "level": "expert", "rounds": 1})
    assert r.status_code == 201, r.text
    g = r.json()
    assert c.app.state.manager.games[g["id"]].bot_spec(1) == "expert:iters=40"
    bot_moves = 0
    with c.websocket_connect(f"/ws/games/{g['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
        before: dict[str, Any] | None = None
        while bot_moves < 3:
            m = json.loads(ws.receive_text())
            if m["type"] != "state":
                continue
            v = m["view"]
            if before is not None and before["to_move"] == 1 and v["ply"] == before["ply"] + 1:
                bot_moves += 1  # the computer (seat 1) moved
            before = v
            if v["to_move"] == 0 and v["legal"]:
                move = {"type": "move", "move": v["legal"][0], "round": m["round"], "ply": v["ply"]}
                ws.send_text(json.dumps(move))
    assert c.post(f"/api/games/{g['id']}/resign", json={"token": g["token"]}).status_code == 200
    # the record replays through the rules core: every move the expert made was legal
    import io

    from lostcities.record import read_record

    rec = read_record(io.StringIO(c.get(f"/api/games/{g['id']}/record").text))
    assert rec is not None and len(rec.replay().rounds[0].history) >= 5


def test_the_expert_level_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from lostcities.web.deps import Settings

    monkeypatch.setenv("LOSTCITIES_LEVEL_EXPERT", "expert:iters=30")
    s = Settings.from_env("sqlite://")
    assert s.levels["expert"].spec == "expert:iters=30" and s.levels["expert"].label == "Expert"
    assert s.levels["expert"].about == "the bot expert:iters=30"


def test_bot_workers_warm_up_before_the_first_move() -> None:
    from lostcities import Round
    from lostcities.web.workers import BotRunner

    runner = BotRunner("process", 1, ["expert:iters=30"])
    r = Round.deal(seed=4)
    view = r.view(r.to_move)

    async def go() -> str:
        await runner.warm_up()
        return str(await runner.choose("expert:iters=30", 1, view, None))

    try:
        move = asyncio.run(go())
    finally:
        runner.close()
    assert r.is_legal(r.parse_move(move))


def test_serve_says_first_start_only_only_at_a_first_start(server: Any) -> None:
    """The tests' numba cache is warm (conftest's compiled_search): the server loads the
    search before it answers and says nothing of a first start (tests/web/test_web_first_start.py:
    a cold cache)."""
    log = server.log.read_text()
    assert "Lost Cities: http://" in log and "first start" not in log, log
    status, levels = server.request("GET", "/api/levels")
    assert status == 200 and not any(lv["warming_up"] for lv in levels), levels
