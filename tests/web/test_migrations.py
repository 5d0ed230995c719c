"""The store's Alembic migrations, on SQLite and (when LOSTCITIES_TEST_POSTGRES_URL is set)
PostgreSQL: every database layout an earlier version made is upgraded with its data, and
the schema then equals the models' (Alembic's compare_metadata finds no difference)."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("alembic")

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from lostcities import Match
from lostcities.web import migrations
from lostcities.web.game_manager import GameManager
from lostcities.web.models.base import Base
from lostcities.web.models.comments import comment_digest
from lostcities.web.repositories.comments import comments_page
from lostcities.web.repositories.games import op_move
from lostcities.web.store import GameStore, StorageError, hash_token

LAYOUTS = [
    "24ae348",
    "94ea810",
    "591e463",
    "6bd1154",
    "3831004",
    "5a1c341",
    "9a4d97d",
    "a2dacbe",
    "14eb189",
]
"""The commits that changed the tables before Alembic, oldest first (``git log -p --
lostcities/web/store.py``); each made the layout below up to its own columns."""

_GAMES = [
    ("id VARCHAR(32) NOT NULL", "24ae348"),
    ("created_at DATETIME NOT NULL", "24ae348"),
    ("updated_at DATETIME NOT NULL", "24ae348"),
    ("variant VARCHAR(16) NOT NULL", "24ae348"),
    ("num_rounds INTEGER NOT NULL", "24ae348"),
    ("seed BIGINT NOT NULL", "24ae348"),
    ("first_starter INTEGER NOT NULL", "24ae348"),
    ("status VARCHAR(16) NOT NULL", "24ae348"),
    ("result VARCHAR(8) NOT NULL", "24ae348"),
    ("level VARCHAR(16)", "24ae348"),
    ("name0 VARCHAR(40) NOT NULL", "24ae348"),
    ("name1 VARCHAR(40) NOT NULL", "24ae348"),
    ("bot0 VARCHAR(80)", "24ae348"),
    ("bot1 VARCHAR(80)", "24ae348"),
    ("mistakes FLOAT NOT NULL", "94ea810"),
    ("token0 VARCHAR(64)", "24ae348"),
    ("token1 VARCHAR(64)", "24ae348"),
    ("invite VARCHAR(64)", "24ae348"),
    ("rematch_of VARCHAR(32)", "24ae348"),
    ("rematch_id VARCHAR(32)", "24ae348"),
    ("rematch_by INTEGER", "591e463"),
    ("tie_break VARCHAR(16)", "3831004"),
    ("younger INTEGER", "3831004"),
    ("hints INTEGER", "5a1c341"),
    ("achievements VARCHAR(16)", "9a4d97d"),
    ("clock INTEGER", "a2dacbe"),
    ("clock_increment INTEGER", "14eb189"),
    ("clock_left0 FLOAT", "14eb189"),
    ("clock_left1 FLOAT", "14eb189"),
]

_TABLES: list[tuple[str, str, list[str], list[str]]] = [
    # (table, the commit that made it, its lines, its indexes' columns)
    ("lc_games", "24ae348", ["PRIMARY KEY (id)"], ["status", "updated_at"]),
    (
        "lc_moves",
        "24ae348",
        [
            "game_id VARCHAR(32) NOT NULL",
            "round_index INTEGER NOT NULL",
            "ply INTEGER NOT NULL",
            "move VARCHAR(8) NOT NULL",
            "created_at DATETIME NOT NULL",
            "PRIMARY KEY (game_id, round_index, ply)",
            "FOREIGN KEY(game_id) REFERENCES lc_games (id) ON DELETE CASCADE",
        ],
        [],
    ),
    (
        "lc_rounds",
        "24ae348",
        [
            "game_id VARCHAR(32) NOT NULL",
            '"index" INTEGER NOT NULL',
            "starter INTEGER NOT NULL",
            "deck TEXT NOT NULL",
            "forfeit INTEGER",
            "forfeit_reason VARCHAR(200)",
            'PRIMARY KEY (game_id, "index")',
            "FOREIGN KEY(game_id) REFERENCES lc_games (id) ON DELETE CASCADE",
        ],
        [],
    ),
    (
        "lc_comments",
        "6bd1154",
        [
            "id SERIAL NOT NULL",
            "created_at DATETIME NOT NULL",
            "nickname VARCHAR(40) NOT NULL",
            "kind VARCHAR(16) NOT NULL",
            "text TEXT NOT NULL",
            "digest VARCHAR(64) NOT NULL",
            "client_hash VARCHAR(64) NOT NULL",
            "hidden BOOLEAN NOT NULL",
            "PRIMARY KEY (id)",
            "UNIQUE (digest)",
        ],
        ["created_at", "hidden"],
    ),
    (
        "lc_analyses",
        "5a1c341",
        [
            "game_id VARCHAR(32) NOT NULL",
            "created_at DATETIME NOT NULL",
            "bot VARCHAR(80) NOT NULL",
            "data TEXT NOT NULL",
            "PRIMARY KEY (game_id)",
            "FOREIGN KEY(game_id) REFERENCES lc_games (id) ON DELETE CASCADE",
        ],
        [],
    ),
]


def old_layout(layout: str, dialect: str) -> list[str]:
    """The CREATE statements the version of commit ``layout`` ran (SQLAlchemy's, as that
    version's models made them on ``dialect``)."""
    upto = LAYOUTS[: LAYOUTS.index(layout) + 1]
    sql: list[str] = []
    for table, since, lines, indexes in _TABLES:
        if since not in upto:
            continue
        if table == "lc_games":
            lines = [c for c, added in _GAMES if added in upto] + lines
        body = ",\n\t".join(lines)
        if dialect == "postgresql":
            body = body.replace("DATETIME", "TIMESTAMP WITHOUT TIME ZONE")
        else:
            body = body.replace("SERIAL", "INTEGER")
        sql.append(f"CREATE TABLE {table} (\n\t{body}\n)")
        sql += [f"CREATE INDEX ix_{table}_{c} ON {table} ({c})" for c in indexes]
    return sql


WHEN = datetime.datetime(2026, 11, 30, 12, 0, 0)


def _insert(conn: sa.Connection, table: str, **values: Any) -> None:
    types = {"created_at": sa.DateTime(), "updated_at": sa.DateTime(), "hidden": sa.Boolean()}
    cols = [sa.column(k, types.get(k)) for k in values]
    conn.execute(sa.insert(sa.table(table, *cols)).values(**values))


def make_old_database(url: str, layout: str) -> list[str]:
    """A database as the version of ``layout`` left it, with a game of 9 moves (and a
    comment and an analysis where it had them); returns the moves."""
    engine = sa.create_engine(url)
    match = Match(1, seed=11, starter=0)
    r = match.new_round()
    moves = []
    for _ in range(9):
        m = r.legal_moves()[0]
        r.push(m)
        moves.append(str(m))
    columns = {c.split()[0] for c, added in _GAMES if LAYOUTS.index(added) <= LAYOUTS.index(layout)}
    game = {
        "id": "old1",
        "created_at": WHEN,
        "updated_at": WHEN,
        "variant": "classic",
        "num_rounds": 1,
        "seed": match.seed,
        "first_starter": 0,
        "status": "active",
        "result": "*",
        "level": "medium",
        "name0": "ann",
        "name1": "Computer",
        "bot0": None,
        "bot1": "heuristic",
        "mistakes": 0.25,
        "token0": hash_token("t0"),
        "token1": None,
        "invite": None,
        "rematch_of": None,
        "rematch_id": None,
        "rematch_by": None,
        "tie_break": None,
        "younger": None,
        "hints": 2,
        "achievements": None,
        "clock": None,
        "clock_increment": None,
        "clock_left0": None,
        "clock_left1": None,
    }
    with engine.begin() as conn:
        for stmt in old_layout(layout, engine.dialect.name):
            conn.exec_driver_sql(stmt)
        _insert(conn, "lc_games", **{k: v for k, v in game.items() if k in columns})
        _insert(
            conn,
            "lc_rounds",
            game_id="old1",
            index=0,
            starter=0,
            deck=" ".join(map(str, r.deal_order)),
            forfeit=None,
            forfeit_reason=None,
        )
        for ply, mv in enumerate(moves):
            _insert(
                conn, "lc_moves", game_id="old1", round_index=0, ply=ply, move=mv, created_at=WHEN
            )
        if LAYOUTS.index(layout) >= LAYOUTS.index("6bd1154"):
            _insert(
                conn,
                "lc_comments",
                created_at=WHEN,
                nickname="ann",
                kind="comment",
                text="kept",
                digest=comment_digest("ann", "comment", "kept"),
                client_hash="h",
                hidden=False,
            )
        if LAYOUTS.index(layout) >= LAYOUTS.index("5a1c341"):
            _insert(conn, "lc_analyses", game_id="old1", created_at=WHEN, bot="ismcts", data="{}")
    engine.dispose()
    return moves


def schema_differences(store: GameStore) -> list[Any]:
    """What Alembic's autogenerate would change to make the database the models'."""
    with store.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(ctx, Base.metadata))


def test_old_layouts_are_each_of_a_version() -> None:
    """The transcription: each layout adds what its commit added (and 14eb189 is the
    baseline revision's, with no column left out)."""
    engine = sa.create_engine("sqlite://")
    migrations.upgrade(engine, "0001")
    insp = sa.inspect(engine)
    tables = {
        t: {c["name"] for c in insp.get_columns(t)}
        for t in insp.get_table_names()
        if t != "alembic_version"
    }
    engine.dispose()
    assert len(old_layout(LAYOUTS[-1], "sqlite")) == 5 + 4  # tables, indexes
    assert {c.split()[0] for c, _ in _GAMES} == tables["lc_games"]
    assert {t for t, *_ in _TABLES} == set(tables)
    grown = [len("\n".join(old_layout(lay, "sqlite"))) for lay in LAYOUTS]
    assert grown == sorted(set(grown))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_old_database_is_upgraded_with_its_data(db_url: str, layout: str) -> None:
    moves = make_old_database(db_url, layout)
    store = GameStore(db_url)
    assert store.schema_revision() is None
    done = store.create_tables()
    assert done.adopted and done.before is None and done.after == migrations.head()
    assert store.schema_revision() == migrations.head()
    assert schema_differences(store) == []
    # the data is all there, and the game replays and goes on
    loaded = store.load_sync("old1")
    assert loaded is not None
    row = loaded.row
    assert (row.name0, row.bot1, row.level, row.created_at) == ("ann", "heuristic", "medium", WHEN)
    assert row.mistakes == (0.0 if layout == "24ae348" else 0.25)
    assert row.hints == (2 if LAYOUTS.index(layout) >= LAYOUTS.index("5a1c341") else None)
    assert row.clock is None and row.clock_left0 is None and row.achievements is None
    assert loaded.rounds[0].moves == moves
    match = GameManager.build(loaded)
    nxt = match.rounds[0].legal_moves()[0]
    store.write_sync(op_move("old1", 0, 9, str(nxt), clock_left=(1.5, 2.5)))
    again = store.load_sync("old1")
    assert again is not None and again.rounds[0].moves == [*moves, str(nxt)]
    assert again.row.clock_left1 == 2.5
    if LAYOUTS.index(layout) >= LAYOUTS.index("6bd1154"):
        rows, total = comments_page(store.engine, 1, 10)
        assert total == 1 and rows[0].text == "kept"
    if LAYOUTS.index(layout) >= LAYOUTS.index("5a1c341"):
        assert store.analysis_sync("old1") == "{}"
    # once upgraded, a start changes nothing
    assert not store.create_tables().changed
    store.close()


def test_a_fresh_database_is_the_models_and_downgrades_to_empty(db_url: str) -> None:
    store = GameStore(db_url)
    done = store.create_tables()
    assert done.changed and not done.adopted and str(done) == f"made at revision {done.after}"
    assert schema_differences(store) == []
    with store.engine.connect() as conn:
        if conn.dialect.name == "sqlite":  # the migrations turn foreign keys off, then on again
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    assert migrations.downgrade(store.engine, "base").after is None  # no tables
    assert set(sa.inspect(store.engine).get_table_names()) <= {"alembic_version"}
    assert store.create_tables().after == migrations.head()
    assert schema_differences(store) == []
    store.close()


def test_tables_of_another_program_are_left_alone(db_url: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE lc_games (id VARCHAR(32) PRIMARY KEY, name0 VARCHAR(40))"
        )
    engine.dispose()
    store = GameStore(db_url)
    with pytest.raises(StorageError, match="table lc_games has no column created_at"):
        store.create_tables()
    # one transaction: nothing was made
    assert set(sa.inspect(store.engine).get_table_names()) == {"lc_games"}
    store.close()


def test_a_database_of_a_newer_version_is_refused(db_url: str) -> None:
    store = GameStore(db_url)
    store.create_tables()
    with store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = 'f00dfeed'")
    with pytest.raises(
        StorageError, match="revision f00dfeed, which this lostcities does not know"
    ):
        store.create_tables()
    store.close()


_STARTER = """
import json, sys
from lostcities.web.store import GameStore
store = GameStore(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
done = store.create_tables()
print(json.dumps([done.before, done.after, done.changed]), flush=True)
store.close()
"""


def test_processes_starting_together_upgrade_once(db_url: str) -> None:
    """Server processes starting together (``serve --workers N``, or several hosts) on one
    old database: each waits on the upgrade lock, one does the work, the others find it done."""
    moves = make_old_database(db_url, "94ea810")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _STARTER, db_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    try:
        for p in procs:  # all loaded; then all go at once
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        results = []
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            results.append(json.loads(out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert sorted(r[2] for r in results) == [False, False, True]
    assert {r[1] for r in results} == {migrations.head()}
    store = GameStore(db_url)
    assert schema_differences(store) == []
    loaded = store.load_sync("old1")
    assert loaded is not None and loaded.rounds[0].moves == moves
    store.close()


def test_threads_migrate_one_at_a_time(tmp_path: Path) -> None:
    """Alembic keeps its ``op`` in a module global: stores of one process, on one database
    or on several, migrate in turn."""
    urls = [f"sqlite:///{tmp_path / name}" for name in ("a.db", "a.db", "b.db", "c.db")]
    make_old_database(urls[-1], "591e463")
    stores = [GameStore(u) for u in urls]
    start = threading.Barrier(len(stores))
    results: list[Any] = [None] * len(stores)

    def run(i: int) -> None:
        start.wait()
        try:
            results[i] = stores[i].create_tables()
        except Exception as e:  # reported below
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(stores))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert all(isinstance(r, migrations.Upgrade) for r in results), results
        assert sum(r.changed for r in results) == 3  # a.db once, b.db, c.db
        assert all(schema_differences(s) == [] for s in stores)
    finally:
        for s in stores:
            s.close()


def test_the_command_upgrades_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lostcities.web.migrations.__main__ import main

    url = f"sqlite:///{tmp_path / 'old.db'}"
    make_old_database(url, "3831004")
    assert main(["current", "--db", url]) == 0
    assert capsys.readouterr().out.startswith("none")
    assert main(["upgrade", "--db", url]) == 0
    head = migrations.head()
    assert f"before the migrations, upgraded to revision {head}" in capsys.readouterr().out
    assert main(["current", "--db", url]) == 0
    assert capsys.readouterr().out.strip() == head
    assert main(["history"]) == 0
    assert capsys.readouterr().out.startswith(f"{head}  ")
    assert main(["upgrade", "--db", url, "nosuchrev"]) == 2
    assert "nosuchrev" in capsys.readouterr().err
    assert main(["current", "--db", "mysql://x/y"]) == 2
    assert capsys.readouterr().err.startswith("error: unsupported database")
    assert main(["current", "--db", "sqlite:////nonexistent-dir/x.db"]) == 2
    assert capsys.readouterr().err.startswith("error: database")
