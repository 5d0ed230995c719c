"""A first start (numba's cache cold) does not keep the server from answering (issue 26,
web 2): the compile runs in a child process, the levels that run the compiled search say
"warming up" (page and ``/api/levels``) and open once it is done; the others play at once.
The wording "(first start only)" is said only at a first start."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.web_helpers import app_settings

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="needs numba")


class HeldCompile:
    """Stands in for :class:`lostcities.fast.warmup.WarmUpProcess`: its compile lasts until
    the test lets it end (:attr:`done`), so every check below runs *during* the warm-up."""

    done = threading.Event()
    started = threading.Event()

    def __init__(self) -> None:
        HeldCompile.started.set()

    def wait(self) -> float:
        assert HeldCompile.done.wait(120), "the test never let the compile end"
        return 12.5

    def close(self) -> None:
        HeldCompile.done.set()


def levels_of(client: Any) -> dict[str, dict[str, Any]]:
    return {lv["level"]: lv for lv in client.get("/api/levels").json()}


@needs_numba
def test_a_first_start_answers_at_once_and_opens_the_levels_when_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from lostcities.fast import warmup
    from lostcities.web import app as web_app

    HeldCompile.done.clear()
    HeldCompile.started.clear()
    monkeypatch.setattr(web_app, "search_first_start", lambda: True)
    monkeypatch.setattr(warmup, "WarmUpProcess", HeldCompile)
    said: list[str] = []
    app = web_app.create_app(app_settings(f"sqlite:///{tmp_path / 'g.db'}"), say=said.append)
    with TestClient(app) as client:
        assert HeldCompile.started.wait(30)
        # the compile is still going on (HeldCompile.done is not set): the server answers
        assert client.get("/").status_code == 200
        levels = levels_of(client)
        for name in ("hard", "expert"):
            assert levels[name]["warming_up"] and not levels[name]["available"], levels[name]
            assert "warming up" in levels[name]["reason"]
        for name in ("easy", "medium"):
            assert levels[name]["available"] and not levels[name]["warming_up"]
        page = client.get("/").text  # hard and expert say so in the picker, disabled
        assert page.count('<small class="warming-note">warming up…</small>') == 2
        assert page.count('class="unavailable warming"') == 2
        fr = client.get("/", headers={"Cookie": "lc_lang=fr"}).text
        assert fr.count('<small class="warming-note">en préparation…</small>') == 2
        hard = client.post("/api/games", json={"opponent": "computer", "level": "hard"})
        assert hard.status_code == 503 and hard.json()["error"] == "warming_up", hard.text
        # a level without the compiled search plays at once, its bot included
        g = client.post(
            "/api/games", json={"opponent": "computer", "level": "medium", "rounds": 1}
        ).json()
        s = client.get(f"/api/games/{g['id']}/state", headers={"X-Seat-Token": g["token"]})
        v = s.json()["view"]
        if v["to_move"] == 0:
            move = v["legal"][0]
            r = client.post(
                f"/api/games/{g['id']}/moves",
                json={"token": g["token"], "move": move, "round": 0, "ply": v["ply"]},
            )
            assert r.status_code == 200, r.text
        deadline = time.monotonic() + 60
        while client.get(f"/api/games/{g['id']}").json()["to_move"] != 0:
            assert time.monotonic() < deadline, "the medium bot never moved"
            time.sleep(0.02)
        # the hint runs the compiled search: it waits for the warm-up too
        h = client.post(f"/api/games/{g['id']}/hint", json={"token": g["token"]})
        assert h.status_code == 503 and h.json()["error"] == "warming_up", h.text
        assert said == [web_app.WARMING_UP]
        assert "(first start only)" in web_app.WARMING_UP
        HeldCompile.done.set()  # the compile ends: the levels open
        deadline = time.monotonic() + 60
        while levels_of(client)["hard"]["warming_up"]:
            assert time.monotonic() < deadline, "the levels never opened"
            time.sleep(0.02)
        levels = levels_of(client)
        assert all(lv["available"] and not lv["warming_up"] for lv in levels.values()), levels
        assert "warming up" not in client.get("/").text
        hard = client.post(
            "/api/games", json={"opponent": "computer", "level": "hard", "rounds": 1}
        )
        assert hard.status_code == 201, hard.text
        assert said == [web_app.WARMING_UP, "search engine ready in 12.5 s: every level plays"]


@needs_numba
def test_a_warm_start_says_nothing_of_a_first_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from lostcities.web import app as web_app

    monkeypatch.setattr(web_app, "search_first_start", lambda: False)
    said: list[str] = []
    app = web_app.create_app(app_settings(f"sqlite:///{tmp_path / 'g.db'}"), say=said.append)
    with TestClient(app) as client:
        levels = levels_of(client)
        assert all(lv["available"] and not lv["warming_up"] for lv in levels.values())
    assert said == []


def test_a_bot_of_the_compiled_search_waits_for_the_warm_up() -> None:
    """A game's bot that runs the compiled search (a game resumed at start) waits for the
    warm-up instead of compiling inside its move; other bots never wait."""
    from lostcities.web.levels import Levels

    async def go() -> list[str]:
        levels = Levels()
        levels.start_warming()
        order: list[str] = []

        async def bot(spec: str) -> None:
            await levels.until_ready(spec)
            order.append(spec)

        tasks = [asyncio.create_task(bot(s)) for s in ("ismcts:time=1", "heuristic")]
        await asyncio.sleep(0.05)
        order.append("ready")
        levels.search_ready()
        await asyncio.gather(*tasks)
        return order

    order = asyncio.run(go())
    if HAVE_NUMBA:
        assert order == ["heuristic", "ready", "ismcts:time=1"]
    else:  # no compiled search: nothing waits
        assert order[:2] == ["heuristic", "ismcts:time=1"]


@needs_numba
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_server_on_a_cold_cache_answers_before_the_compile_ends(
    server_factory: Any, tmp_path: Path
) -> None:
    """The real thing: ``lostcities serve`` with an empty numba cache folder (a fresh
    install). It answers while the hard and expert levels still say they are warming up,
    they open once the child process has compiled, and it says "(first start only)" then;
    started again on the same cache it says nothing of the kind, and no level warms up."""
    cache = tmp_path / "numba-cache"
    env = {"NUMBA_CACHE_DIR": str(cache)}
    s = server_factory(**env)
    # it answers, and the compile is not done: ordering, not a stopwatch
    status, levels = s.request("GET", "/api/levels")
    assert status == 200
    warming = {lv["level"] for lv in levels if lv["warming_up"]}
    assert warming == {"hard", "expert"}, levels
    assert s.request("GET", "/")[0] == 200
    deadline = time.monotonic() + 1100
    while warming:
        assert time.monotonic() < deadline, "the warm-up never ended:\n" + s.log_tail()
        time.sleep(0.5)
        warming = {lv["level"] for lv in s.request("GET", "/api/levels")[1] if lv["warming_up"]}
    log = s.log.read_text()
    assert log.count("(first start only)") == 1, log
    assert log.index("Lost Cities: http://") < log.index("(first start only)")
    assert "search engine ready in" in log
    status, g = s.request("POST", "/api/games", {"opponent": "computer", "level": "hard"})
    assert status == 201, g
    s.stop()
    size = len(s.log.read_text())
    s.start()
    status, levels = s.request("GET", "/api/levels")
    assert not any(lv["warming_up"] for lv in levels), levels
    again = s.log.read_text()[size:]
    assert "Lost Cities: http://" in again and "first start" not in again, again
