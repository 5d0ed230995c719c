"""A move is checked once where it comes in and made once (issue 38 item 2): the server
parses and checks it (:meth:`Round.parse_move`), learns what it leads to without making
it (:meth:`Round.ends_round`; only a round's last move is probed, for the round's scores),
and the referee makes it trusting the check. One ``NotYourTurnError``."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import lostcities.errors
from lostcities import Round
from lostcities.web import errors, schemas
from lostcities.web.game_manager import GameManager, ManagerSettings
from lostcities.web.store import GameStore
from lostcities.web.workers import BotRunner


def _counting(calls: Counter[str], name: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return f(*args, **kwargs)

    return wrapper


def test_a_move_is_checked_once_and_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through a 3-round match, each move is parsed and checked once and made once
    (``push_unchecked``, never the checking ``push``); a round's last move alone is made
    and taken back once more before it is stored (its scores decide the next round)."""
    calls: Counter[str] = Counter()
    for name in ("parse_move", "push", "push_unchecked", "pop"):
        monkeypatch.setattr(Round, name, _counting(calls, name, getattr(Round, name)))

    async def play() -> None:
        store = GameStore(f"sqlite:///{tmp_path / 'g.db'}")
        store.create_tables()
        store.start()
        mgr = GameManager(store, BotRunner("thread", 1, []), ManagerSettings(deal_seed=3))
        g, _, invite = await mgr.create(schemas.CreateGame(opponent="friend", rounds=3))
        assert invite is not None
        await mgr.join(g.id, invite, "B")
        rng = random.Random(5)
        ends = 0
        while not g.is_over():
            r = g.round
            legal = r.legal_moves()
            move = legal[rng.randrange(len(legal))]
            last = r.ends_round(move)
            calls.clear()
            await g.play(r.to_move, g.round_index, r.ply, str(move))
            assert r.history[-1] == move
            assert r.is_over() == last
            ends += last
            once = {"parse_move": 1, "push_unchecked": 1}
            want = {"parse_move": 1, "push_unchecked": 2, "pop": 1} if last else once
            assert {k: v for k, v in calls.items() if v} == want
        assert ends == 3
        assert g.row.status == "finished" and g.row.result == g.match.result()
        store.close()

    asyncio.run(play())


def test_one_not_your_turn_error(tmp_path: Path) -> None:
    """A move by the seat not to move is refused once, by the server, with the error that
    is also the rules core's :class:`lostcities.errors.NotYourTurnError`; nothing changes."""

    async def play() -> None:
        store = GameStore(f"sqlite:///{tmp_path / 'g.db'}")
        store.create_tables()
        store.start()
        mgr = GameManager(store, BotRunner("thread", 1, []), ManagerSettings(deal_seed=3))
        g, _, invite = await mgr.create(schemas.CreateGame(opponent="friend", rounds=1))
        assert invite is not None
        await mgr.join(g.id, invite, "B")
        r = g.round
        other = 1 - r.to_move
        with pytest.raises(lostcities.errors.NotYourTurnError, match="not your turn") as e:
            await g.play(other, 0, 0, str(r.legal_moves()[0]))
        assert isinstance(e.value, errors.GameError) and e.value.code == "not_your_turn"
        assert r.ply == 0
        store.close()

    asyncio.run(play())
    assert issubclass(errors.NotYourTurnError, lostcities.errors.NotYourTurnError)
