"""Storage on SQLite and (when LOSTCITIES_TEST_POSTGRES_URL is set) PostgreSQL."""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy.exc import IntegrityError

from lostcities import Match, Round
from lostcities.web.game_manager import GameManager
from lostcities.web.models.base import utcnow
from lostcities.web.models.games import GameRow, RoundRow
from lostcities.web.repositories.games import op_claim_seat, op_insert_game, op_move
from lostcities.web.store import GameStore, StorageError, hash_token, normalize_db_url
from tests.web.web_helpers import game_row


def _game(gid: str, seed: int = 5) -> tuple[GameRow, Round]:
    m = Match(1, seed=seed, starter=0)
    r = m.new_round()
    row = GameRow(
        id=gid,
        variant="classic",
        num_rounds=1,
        seed=m.seed,
        first_starter=0,
        status="waiting",
        result="*",
        level=None,
        name0="a",
        name1="b",
        bot0=None,
        bot1=None,
        token0=hash_token("t0"),
        token1=None,
        invite="inv",
        created_at=utcnow(),
        updated_at=utcnow(),
    )
    return row, r


def _insert(store: GameStore, gid: str, seed: int = 5) -> Round:
    row, r = _game(gid, seed)
    deck = " ".join(map(str, r.deal_order))
    store.write_sync(op_insert_game(row, [RoundRow(game_id=gid, index=0, starter=0, deck=deck)]))
    return r


def test_urls_are_checked_and_mapped() -> None:
    assert normalize_db_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_db_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(StorageError, match="unsupported database"):
        normalize_db_url("mysql://u@h/db")
    with pytest.raises(StorageError, match="invalid database URL"):
        normalize_db_url("not a url")


def test_moves_round_trip_and_replay(db_url: str) -> None:
    store = GameStore(db_url)
    store.create_tables()
    r = _insert(store, "g1")
    rng = random.Random(1)
    while not r.is_over():
        moves = r.legal_moves()
        m = moves[rng.randrange(len(moves))]
        store.write_sync(op_move("g1", 0, r.ply, str(m)))
        r.push(m)
    store.close()
    # a new store (a restarted server) replays the game exactly
    store2 = GameStore(db_url)
    loaded = store2.load_sync("g1")
    assert loaded is not None
    match = GameManager.build(loaded)
    again = match.rounds[0]
    assert again.history == r.history
    assert again.scores() == r.scores()
    assert again.is_over()
    assert store2.load_sync("nope") is None
    store2.close()


def test_a_ply_is_stored_once(db_url: str) -> None:
    store = GameStore(db_url)
    store.create_tables()
    r = _insert(store, "g2")
    m = str(r.legal_moves()[0])
    store.write_sync(op_move("g2", 0, 0, m))
    with pytest.raises(IntegrityError):
        store.write_sync(op_move("g2", 0, 0, m))
    loaded = store.load_sync("g2")
    assert loaded is not None and loaded.rounds[0].moves == [m]
    store.close()


def test_invite_claims_once(db_url: str) -> None:
    store = GameStore(db_url)
    store.create_tables()
    _insert(store, "g3")
    assert store.write_sync(op_claim_seat("g3", 1, "wrong", hash_token("x"), "c")) == 0
    assert store.write_sync(op_claim_seat("g3", 1, "inv", hash_token("x"), "c")) == 1
    assert store.write_sync(op_claim_seat("g3", 1, "inv", hash_token("y"), "d")) == 0
    row = game_row(store, "g3")
    assert row.token1 == hash_token("x") and row.name1 == "c" and row.status == "active"
    store.close()


def test_group_commit_under_concurrency(db_url: str) -> None:
    """Many coroutines writing at once: every write commits, in few transactions, and a
    failing write fails alone."""
    store = GameStore(db_url)
    store.create_tables()
    store.start()
    rounds = {f"c{i}": _insert(store, f"c{i}", seed=i) for i in range(40)}

    async def play() -> None:
        async def one(gid: str, r: Round) -> None:
            for _ in range(5):
                m = r.legal_moves()[0]
                await store.write(op_move(gid, 0, r.ply, str(m)))
                r.push(m)

        await asyncio.gather(*(one(g, r) for g, r in rounds.items()))
        # a duplicate ply, batched with a good write: only the bad one fails
        bad, good = await asyncio.gather(
            store.write(op_move("c0", 0, 0, "+y2.")),
            store.write(op_move("c1", 0, 5, str(rounds["c1"].legal_moves()[0]))),
            return_exceptions=True,
        )
        assert isinstance(bad, IntegrityError)
        assert good is None

    asyncio.run(play())
    assert store.writes >= 40 * 5
    for gid, r in rounds.items():
        loaded = store.load_sync(gid)
        assert loaded is not None
        n = 6 if gid == "c1" else 5
        assert len(loaded.rounds[0].moves) == n, gid
        assert loaded.rounds[0].moves[:5] == [str(m) for m in r.history[:5]]
    store.close()


def test_bad_database_is_a_clear_error(tmp_path: object) -> None:
    store = GameStore("sqlite:////nonexistent-dir/x/y.db")
    with pytest.raises(StorageError, match="cannot open database"):
        store.create_tables()
