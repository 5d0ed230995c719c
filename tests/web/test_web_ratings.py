"""Glicko-2 ratings (lostcities/web/ratings.py): the figures are the glicko2 package's, a
rated result is settled exactly once (a retry, a second process, a transaction that dies
midway), an aborted match changes nothing, bots are rated from games against people."""

from __future__ import annotations

import asyncio
import threading
import types
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("glicko2")

import glicko2
import webharness  # benchmarks/ (on sys.path: web_helpers.py)
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from lostcities import Match
from lostcities.web import ratings
from lostcities.web.models.base import utcnow
from lostcities.web.models.games import GameRow, MoveRow, RoundRow
from lostcities.web.models.ratings import RatingChangeRow, RatingResultRow, RatingRow
from lostcities.web.store import GameStore


@pytest.fixture(scope="session", autouse=True)
def compiled_search() -> None:
    """No search here (the conftest's compiles it for the servers' bots)."""


# -- the figures ------------------------------------------------------------------------------


def library(a: ratings.Rating, b: ratings.Rating, score: float) -> tuple[float, float, float]:
    p = glicko2.Player(a.rating, a.rd, a.vol)
    p.update_player([b.rating], [b.rd], [score])
    return p.rating, p.rd, p.vol


def test_a_known_figure() -> None:
    """1500/200 beats 1400/30 (the first game of Glickman's example): 1563.56, RD 175.40."""
    a, b = ratings.rate_pair(
        ratings.Rating(1500.0, 200.0, 0.06), ratings.Rating(1400.0, 30.0, 0.06), 1.0
    )
    assert (round(a.rating, 2), round(a.rd, 2)) == (1563.56, 175.40)
    assert (round(b.rating, 2), round(b.rd, 2)) == (1398.14, 31.67)


rating_st = st.builds(
    ratings.Rating,
    st.floats(800, 2600),
    st.floats(30, 350),
    st.floats(0.04, 0.09),
)


@settings(max_examples=60, deadline=None)
@given(rating_st, rating_st, st.sampled_from([0.0, 0.5, 1.0]))
def test_rate_pair_is_the_library_both_ways(
    a: ratings.Rating, b: ratings.Rating, score: float
) -> None:
    na, nb = ratings.rate_pair(a, b, score)
    assert (na.rating, na.rd, na.vol) == library(a, b, score)
    assert (nb.rating, nb.rd, nb.vol) == library(b, a, 1.0 - score)


def test_a_bad_score_is_refused() -> None:
    with pytest.raises(ValueError, match="invalid score"):
        ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 2.0)


def test_speeds_of_the_clocks() -> None:
    cases = {
        (None, None): "untimed",
        (60, None): "blitz",
        (180, None): "rapid",
        (300, 5): "blitz",
        (600, 10): "rapid",
        (86400, None): "correspondence",
        (7 * 86400, None): "correspondence",
    }
    for (clock, inc), speed in cases.items():
        assert ratings.speed_of(clock, inc) == speed


# -- settling a game --------------------------------------------------------------------------


@pytest.fixture
def store(db_url: str) -> Iterator[GameStore]:
    s = GameStore(db_url)
    s.create_tables()
    yield s
    s.close()


def account(store: GameStore, name: str) -> int:
    return webharness.new_account(store, name)


def finished_game(
    store: GameStore,
    game_id: str,
    *,
    accounts: tuple[int | None, int | None],
    result: str = "1-0",
    moves: int = 10,
    rated: bool = True,
    bot1: str | None = None,
    clock: int | None = None,
    ended: Any = None,
) -> None:
    """A finished 1-round game with ``moves`` moves stored (a replay of a fixed deal) that
    ended at ``ended`` (naive UTC; default: now)."""
    m = Match(1, seed=7)
    r = m.new_round()
    played = []
    for _ in range(moves):
        mv = r.legal_moves()[0]
        r.push(mv)
        played.append(str(mv))
    row = GameRow(
        id=game_id,
        variant="classic",
        num_rounds=1,
        seed=7,
        first_starter=m.first_starter,
        status="finished",
        result=result,
        level="medium" if bot1 else None,
        name0="ann",
        name1="bob",
        bot1=bot1,
        mistakes=0.0,
        account0=accounts[0],
        account1=accounts[1],
        rated=rated,
        clock=clock,
    )
    row.created_at = row.updated_at = ended or utcnow()

    def fn(s: Any) -> None:
        s.add(row)
        s.flush()
        s.add(
            RoundRow(
                game_id=game_id, index=0, starter=r.starter, deck=" ".join(map(str, r.deal_order))
            )
        )
        s.flush()
        for ply, mv in enumerate(played):
            s.add(MoveRow(game_id=game_id, round_index=0, ply=ply, move=mv))

    store.write_sync(fn)


def ratings_of(store: GameStore) -> dict[str, tuple[float, float, float, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(select(RatingRow)).all()
    return {r.player: (r.rating, r.rd, r.vol, r.games) for r in rows}


def changes_of(store: GameStore) -> list[Any]:
    with store.engine.connect() as conn:
        return list(conn.execute(select(RatingChangeRow).order_by(RatingChangeRow.seat)).all())


def test_a_rated_game_is_settled_once_by_the_library_figures(store: GameStore) -> None:
    a, b = account(store, "ann"), account(store, "bob")
    finished_game(store, "g1", accounts=(a, b), result="1-0")
    assert store.write_sync(ratings.op_rate_game("g1")) == "rated"
    want_a, want_b = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 1.0)
    got = ratings_of(store)
    assert got[f"a:{a}"] == (want_a.rating, want_a.rd, want_a.vol, 1)
    assert got[f"a:{b}"] == (want_b.rating, want_b.rd, want_b.vol, 1)
    ch = changes_of(store)
    assert [(c.player, c.score, c.rating_after) for c in ch] == [
        (f"a:{a}", 1.0, want_a.rating),
        (f"a:{b}", 0.0, want_b.rating),
    ]
    # a retry (a second process, the sweep) changes nothing
    assert store.write_sync(ratings.op_rate_game("g1")) == "done"
    assert ratings_of(store) == got and len(changes_of(store)) == 2
    # the next game starts from the new ratings
    finished_game(store, "g2", accounts=(a, b), result="1/2-1/2")
    assert store.write_sync(ratings.op_rate_game("g2")) == "rated"
    again_a, again_b = ratings.rate_pair(want_a, want_b, 0.5)
    got = ratings_of(store)
    assert got[f"a:{a}"][:3] == (again_a.rating, again_a.rd, again_a.vol)
    assert got[f"a:{b}"][:3] == (again_b.rating, again_b.rd, again_b.vol)
    assert got[f"a:{a}"][3] == 2


@pytest.mark.parametrize("stage", ["marked", "computed", "seat0", "seat1"])
def test_an_update_that_dies_midway_leaves_nothing(store: GameStore, stage: str) -> None:
    a, b = account(store, "ann"), account(store, "bob")
    finished_game(store, "g1", accounts=(a, b), result="0-1")

    class Died(Exception):
        pass

    def die(at: str) -> None:
        if at == stage:
            raise Died(at)

    with pytest.raises(Died):
        store.write_sync(ratings.op_rate_game("g1", step=die))
    assert ratings_of(store) == {} and changes_of(store) == []
    assert ratings.unsettled_sync(store) == ["g1"]  # the sweep finds it
    assert store.write_sync(ratings.op_rate_game("g1")) == "rated"
    assert ratings.unsettled_sync(store) == []
    _, want_b = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 0.0)
    assert ratings_of(store)[f"a:{b}"] == (want_b.rating, want_b.rd, want_b.vol, 1)


def test_aborted_casual_and_guest_games_change_nothing(store: GameStore) -> None:
    a, b = account(store, "ann"), account(store, "bob")
    finished_game(store, "early", accounts=(a, b), moves=1)  # resigned before the 2nd move
    finished_game(store, "casual", accounts=(a, b), rated=False)
    finished_game(store, "guest", accounts=(a, None))
    for gid, state in (("early", "aborted"), ("casual", "casual"), ("guest", "unrated")):
        assert store.write_sync(ratings.op_rate_game(gid)) == state
    assert ratings_of(store) == {}
    # a forfeit after the second move counts
    finished_game(store, "two", accounts=(a, b), moves=2, result="0-1")
    assert store.write_sync(ratings.op_rate_game("two")) == "rated"


def test_a_bot_is_rated_from_games_against_people(store: GameStore) -> None:
    a = account(store, "ann")
    finished_game(store, "g1", accounts=(a, None), bot1="ismcts:iters=10", result="0-1", clock=None)
    assert store.write_sync(ratings.op_rate_game("g1")) == "rated"
    got = ratings_of(store)
    assert set(got) == {f"a:{a}", "bot:medium"}
    assert got["bot:medium"][0] > 1500.0 > got[f"a:{a}"][0]
    with store.engine.connect() as conn:
        speeds = set(conn.scalars(select(RatingRow.speed)).all())
    assert speeds == {"untimed"}


def test_two_settlers_at_once_count_it_once(store: GameStore) -> None:
    """Two processes settling the same game together (threads here, each its own
    transaction): one rates it, the other finds it done or fails on the key."""
    a, b = account(store, "ann"), account(store, "bob")
    finished_game(store, "g1", accounts=(a, b))
    go = threading.Barrier(2)
    outcomes: list[str] = []

    def settle() -> None:
        go.wait()
        try:
            with Session(store.engine) as s, s.begin():  # each its own transaction
                outcomes.append(ratings.op_rate_game("g1")(s))
        except IntegrityError:
            outcomes.append("refused")

    threads = [threading.Thread(target=settle) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(outcomes) in (["done", "rated"], ["rated", "refused"])
    assert ratings_of(store)[f"a:{a}"][3] == 1
    with store.engine.connect() as conn:
        assert len(conn.execute(select(RatingResultRow)).all()) == 1


class _Manager:
    """What a :class:`ratings.Settler` uses of the game manager: the store, and tasks."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.tasks: list[asyncio.Task[object]] = []

    def background(self, work: Any) -> None:
        self.tasks.append(asyncio.get_running_loop().create_task(work))


def test_a_sweep_leaves_alone_what_the_hook_settles_meanwhile(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The match-end hook and the periodic sweep on one process: the sweep's query finds
    the game unsettled, the hook settles it before the sweep gets to it; the sweep must not
    settle it again (a second write would only find it ``done``). Both orders: the hook
    already finished when the sweep reaches the game, and still in flight."""
    a, b = account(store, "ann"), account(store, "bob")
    real = ratings.unsettled_sync
    queried, go_on = threading.Event(), threading.Event()

    def query(st: GameStore, limit: int = 100) -> list[str]:
        ids = real(st, limit)
        queried.set()
        go_on.wait(30)
        return ids

    monkeypatch.setattr(ratings, "unsettled_sync", query)

    async def scenario(gid: str, hook_first: bool) -> None:
        mgr = _Manager(store)
        settler = ratings.Settler(mgr)  # type: ignore[arg-type]
        sweep = asyncio.ensure_future(settler.sweep())
        assert await asyncio.to_thread(queried.wait, 30)
        game = types.SimpleNamespace(id=gid, row=types.SimpleNamespace(rated=True))
        settler.on_match_end(game)  # type: ignore[arg-type]
        if hook_first:
            await asyncio.gather(*mgr.tasks)
        go_on.set()
        assert await sweep == 0
        await asyncio.gather(*mgr.tasks)
        assert list(settler.settled) == [(gid, "rated")]

    for gid, hook_first in (("g1", True), ("g2", False)):
        finished_game(store, gid, accounts=(a, b))
        queried.clear()
        go_on.clear()
        asyncio.run(scenario(gid, hook_first))
    with store.engine.connect() as conn:
        assert len(conn.execute(select(RatingResultRow)).all()) == 2


# -- an idle player's deviation grows ----------------------------------------------------------


@pytest.mark.parametrize("periods", [1, 2, 7, 30, 365])
def test_idle_is_the_library_step_once_a_period(periods: int) -> None:
    r = ratings.Rating(1630.0, 62.5, 0.0601)
    p = glicko2.Player(r.rating, r.rd, r.vol)
    for _ in range(periods):
        p.did_not_compete()
    got = ratings.idle(r, periods)
    assert got.rating == r.rating and got.vol == r.vol
    assert got.rd == pytest.approx(min(350.0, p.rd), abs=1e-9)
    assert ratings.idle(r, 0) == r and ratings.idle(r, 10**7).rd == 350.0


def test_idle_periods_are_whole_utc_days_without_a_match() -> None:
    import datetime as dt

    last = dt.datetime(2026, 3, 1, 12, 0)
    days = [(dt.timedelta(hours=1), 0), (dt.timedelta(hours=13), 0), (dt.timedelta(days=1), 0)]
    days += [(dt.timedelta(hours=36), 1), (dt.timedelta(days=10, hours=-12), 9)]
    for later, n in days:
        assert ratings.idle_periods(last, last + later) == n, later
    assert ratings.idle_periods(last, last - dt.timedelta(days=3)) == 0  # a clock set back


def test_an_idle_rating_grows_when_read_and_is_counted_once(store: GameStore) -> None:
    import datetime as dt

    from lostcities.web import profiles
    from lostcities.web.lobby import Player, rating_of

    a, b = account(store, "ann"), account(store, "bob")
    t0 = dt.datetime(2026, 3, 1, 12, 0)
    finished_game(store, "g1", accounts=(a, b), result="1-0")
    assert store.write_sync(ratings.op_rate_game("g1", now=t0)) == "rated"
    won, lost = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 1.0)
    stored = ratings_of(store)

    # ten days on (nine whole days without a match): shown with the grown deviation
    t1 = t0 + dt.timedelta(days=10)
    want_a, want_b = ratings.idle(won, 9), ratings.idle(lost, 9)
    assert want_a.rd > won.rd
    for _ in range(2):  # read twice: the same, and nothing is stored
        board = profiles.leaderboard_sync(store, "classic", "untimed", now=t1)
        assert [(p["name"], p["rd"]) for p in board] == [
            ("ann", round(want_a.rd)),
            ("bob", round(want_b.rd)),
        ]
        prof = profiles.profile_sync(store, a, "ann", now=t1)
        assert prof.ratings[0]["rd"] == round(want_a.rd)
        with Session(store.engine) as s:
            got = rating_of(s, Player.account(a, "ann"), "classic", "untimed", t1)
        assert got == want_a
    assert ratings_of(store) == stored

    # the next match starts from the grown deviations, then counts from its own day
    finished_game(store, "g2", accounts=(a, b), result="0-1")
    assert store.write_sync(ratings.op_rate_game("g2", now=t1)) == "rated"
    after_a, after_b = ratings.rate_pair(want_a, want_b, 0.0)
    got2 = ratings_of(store)
    assert got2[f"a:{a}"][:3] == (after_a.rating, after_a.rd, after_a.vol)
    assert got2[f"a:{b}"][:3] == (after_b.rating, after_b.rd, after_b.vol)
    rd_before = {c.player: c.rd_before for c in changes_of(store) if c.game_id == "g2"}
    assert rd_before == {f"a:{a}": want_a.rd, f"a:{b}": want_b.rd}
    # the same day, and the day after: no period over yet; two days on: one
    for later, n in (
        (dt.timedelta(hours=5), 0),
        (dt.timedelta(days=1), 0),
        (dt.timedelta(days=2), 1),
    ):
        board = profiles.leaderboard_sync(store, "classic", "untimed", now=t1 + later)
        assert board[0]["name"] == "bob"
        assert board[0]["rd"] == round(ratings.idle(after_b, n).rd)


def test_a_late_settlement_rates_the_match_as_of_its_end(store: GameStore) -> None:
    """The sweep after a restart days later: the players were idle until the match ended,
    not until it was settled; and a match settled after a newer one of the same player
    neither grows that player's deviation nor moves their last update back."""
    import datetime as dt

    from lostcities.web import profiles

    a, b, c = account(store, "ann"), account(store, "bob"), account(store, "cyd")
    day = dt.timedelta(days=1)
    t0 = dt.datetime(2026, 3, 1, 12, 0)
    finished_game(store, "g1", accounts=(a, b), result="1-0", ended=t0)
    assert store.write_sync(ratings.op_rate_game("g1", now=t0)) == "rated"
    won, lost = ratings.rate_pair(ratings.DEFAULT, ratings.DEFAULT, 1.0)

    # g2 ends 5 days on (4 idle days), the server is down, the sweep settles it 20 days on
    finished_game(store, "g2", accounts=(a, b), result="0-1", ended=t0 + 5 * day)
    # meanwhile bob's match against cyd ended later and was settled first
    finished_game(store, "g3", accounts=(b, c), result="1-0", ended=t0 + 7 * day)
    assert store.write_sync(ratings.op_rate_game("g3", now=t0 + 7 * day)) == "rated"
    b3, _ = ratings.rate_pair(ratings.idle(lost, 6), ratings.DEFAULT, 1.0)
    assert store.write_sync(ratings.op_rate_game("g2", now=t0 + 25 * day)) == "rated"
    rd_before = {c.player: c.rd_before for c in changes_of(store) if c.game_id == "g2"}
    assert rd_before == {f"a:{a}": ratings.idle(won, 4).rd, f"a:{b}": b3.rd}
    after_a, after_b = ratings.rate_pair(ratings.idle(won, 4), b3, 0.0)
    got = ratings_of(store)
    assert got[f"a:{a}"][:3] == (after_a.rating, after_a.rd, after_a.vol)
    assert got[f"a:{b}"][:3] == (after_b.rating, after_b.rd, after_b.vol)
    # read on the settlement's day: ann idle since g2's end, bob since g3's (not g2's)
    board = {
        p["name"]: p["rd"]
        for p in profiles.leaderboard_sync(store, "classic", "untimed", now=t0 + 25 * day)
    }
    assert board["ann"] == round(ratings.idle(after_a, 19).rd)
    assert board["bob"] == round(ratings.idle(after_b, 17).rd)
    when = {c.player: c.created_at for c in changes_of(store) if c.game_id == "g2"}
    assert set(when.values()) == {t0 + 5 * day}  # the history plot dates it at its end


def test_a_long_absence_makes_a_rating_provisional_again(store: GameStore) -> None:
    import datetime as dt

    from lostcities.web import profiles

    a = account(store, "ann")

    def settled(rating: float, rd: float, at: dt.datetime) -> None:
        def fn(s: Any) -> None:
            s.add(
                RatingRow(
                    player=f"a:{a}",
                    account_id=a,
                    variant="classic",
                    speed="untimed",
                    rating=rating,
                    rd=rd,
                    vol=0.06,
                    games=40,
                    wins=20,
                    draws=0,
                    losses=20,
                    updated_at=at,
                )
            )

        store.write_sync(fn)

    t0 = dt.datetime(2026, 1, 1, 9, 0)
    settled(1700.0, 60.0, t0)
    assert not profiles.leaderboard_sync(store, "classic", "untimed", now=t0)[0]["provisional"]
    # phi^2 + n sigma^2 > 110^2 after n > (110^2 - 60^2) / (0.06 * 173.7178)^2 = 78.3 periods
    day = dt.timedelta(days=1)
    at_78 = profiles.leaderboard_sync(store, "classic", "untimed", now=t0 + 79 * day)[0]
    at_79 = profiles.leaderboard_sync(store, "classic", "untimed", now=t0 + 80 * day)[0]
    assert (at_78["provisional"], at_79["provisional"]) == (False, True)
    years = profiles.leaderboard_sync(store, "classic", "untimed", now=t0 + 4000 * day)[0]
    assert years["rd"] == 350 and years["rating"] == 1700
