"""``lostcities connect`` against the real server, end to end (issue 39): two connector
processes, a built-in bot and ``examples/bot.py`` through ``cmd:``, play a rated 3-round
match on two ``lostcities serve`` processes sharing PostgreSQL, rated by the library's
Glicko-2 figures; a connector killed mid-game (SIGKILL) and started again plays the game
on; both server processes restarted mid-game, both connectors resume. The rated match
also runs on one server process with SQLite, so that a run without PostgreSQL covers the
whole path.

Everything is on loopback. The tests wait on conditions (the connectors' ``--log-json``
records, the database), never on a fixed sleep; the deals come from the test servers' deal
seed and the engines are seeded, but nothing asserted depends on who wins.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

from tests.web.web_helpers import PG_ENV, Server, account, ok, pg_schema

ROOT = Path(__file__).resolve().parent.parent
WAIT = 240.0
"""Seconds a step may take before the test fails (a bound for a loaded machine, not a
timing the test depends on)."""
RETRY = ("--retry-base", "0.05", "--retry-max", "0.5")
"""Quick reconnections: the tests wait for them."""

Record = dict[str, Any]


@pytest.fixture(scope="module", autouse=True)
def compiled_search() -> None:
    """The search kernels in numba's cache before a server starts (tests/web/conftest.py)."""
    from lostcities.web.workers import prepare_search

    prepare_search()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh schema of the test PostgreSQL database (skipped when there is none)."""
    if not os.environ.get(PG_ENV):
        pytest.skip(f"{PG_ENV} not set")
    with pg_schema() as url:
        yield url


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    """The servers a test starts (stopped after it)."""
    made: list[Server] = []
    yield made
    for s in made:
        s.stop()


def serve(made: list[Server], db_url: str, tmp: Path) -> Server:
    s = Server(db_url, tmp)
    made.append(s)
    return s.start(timeout=120)


def bot_account(srv: Server, db_url: str, name: str, tmp: Path) -> Path:
    """A bot account ``name`` with a ``bot:play``/``challenge:write`` token: its token file."""
    who = account(db_url, name)
    made = ok(srv, "POST", "/api/account/tokens", {"scopes": ["bot:play", "challenge:write"]}, who)
    ok(srv, "POST", "/api/bot/account/upgrade", {"about": f"{name}: e2e"}, bearer(made["token"]))
    path = tmp / f"{name}.token"
    path.write_text(made["token"] + "\n", encoding="utf-8")
    return path


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Connect:
    """``lostcities connect --log-json --verbose`` as a subprocess: its JSON records read by
    a thread as they come (:meth:`wait_for`), its stderr in a file."""

    def __init__(self, srv: Server, token_file: Path, engine: str, *options: str) -> None:
        self.err_path = token_file.with_suffix(f".{time.monotonic_ns()}.err")
        cmd = [
            sys.executable,
            "-m",
            "lostcities.cli",
            "connect",
            srv.url,
            "--token-file",
            str(token_file),
            "--log-json",
            "--verbose",
            *RETRY,
            *options,
            engine,
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
        with open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=err, env=env, cwd=ROOT, text=True
            )
        self.records: list[Record] = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            record = json.loads(line)
            with self.cond:
                self.records.append(record)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")[-4000:]

    def wait_for(self, pred: Callable[[Record], bool], what: str) -> Record:
        """The first record that satisfies ``pred`` (waited for)."""
        deadline = time.monotonic() + WAIT
        with self.cond:
            while True:
                for r in self.records:
                    if pred(r):
                        return r
                if not self.reader.is_alive():
                    raise AssertionError(f"connect ended before {what}:\n{self.stderr()}")
                left = deadline - time.monotonic()
                assert left > 0, f"no {what} within {WAIT:g} s:\n{self.stderr()}"
                self.cond.wait(left)

    def finish(self) -> int:
        """Wait for the process to end (it stops after its games): its exit code."""
        try:
            code = self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"connect did not stop:\n{self.stderr()}") from None
        self.reader.join(10)
        return code

    def kill(self) -> None:
        """SIGKILL, as in a crash."""
        self.proc.kill()
        self.proc.wait(30)
        self.reader.join(10)

    def results(self) -> list[Record]:
        """The game records of a game's end (``won``, ``lost``, ``draw``, ...)."""
        ends = ("won", "lost", "draw", "aborted", "left")
        return [
            r
            for r in self.records
            if r["event"] == "game" and str(r.get("status", "")).split(" ")[0] in ends
        ]


def moves_made(c: Connect, n: int) -> Callable[[Record], bool]:
    """A record of the connector's ``n``-th move (or later) sent in the first round."""

    def pred(r: Record) -> bool:
        return r["event"] == "move" and r.get("round") == 1 and int(r.get("ply", -1)) >= n

    return pred


def stop_all(*conns: Connect) -> None:
    for c in conns:
        if c.proc.poll() is None:
            c.kill()


def game_row(db_url: str, game_id: str) -> Any:
    """The game's row and its rating changes, from the database."""
    import sqlalchemy
    from sqlalchemy.orm import Session

    from lostcities.web.models.games import GameRow
    from lostcities.web.store import normalize_db_url

    engine = sqlalchemy.create_engine(normalize_db_url(db_url))
    try:
        with Session(engine) as s:
            row = s.get(GameRow, game_id)
            assert row is not None
            s.expunge(row)
            return row
    finally:
        engine.dispose()


def moves_of(db_url: str, game_id: str) -> list[tuple[int, int, str]]:
    """The game's stored moves: (round from 1, ply, move)."""
    import sqlalchemy

    from lostcities.web.models.games import MoveRow
    from lostcities.web.store import normalize_db_url

    engine = sqlalchemy.create_engine(normalize_db_url(db_url))
    try:
        with engine.connect() as cx:
            q = sqlalchemy.select(MoveRow.round_index, MoveRow.ply, MoveRow.move).where(
                MoveRow.game_id == game_id
            )
            return sorted((r + 1, p, m) for r, p, m in cx.execute(q))
    finally:
        engine.dispose()


def sent_moves(c: Connect) -> list[tuple[int, int, str]]:
    """The moves the connector reported taken (``--verbose``): (round, ply, move)."""
    return [
        (int(r["round"]), int(r["ply"]), str(r["move"]))
        for r in c.records
        if r["event"] == "move" and "move" in r and "code" not in r
    ]


def ratings_of(db_url: str, game_id: str) -> tuple[dict[int, Any], dict[str, Any]]:
    """The game's rating changes by seat, and every stored rating by player key (waited for:
    a match is rated just after its end)."""
    import sqlalchemy
    from sqlalchemy.orm import Session

    from lostcities.web.models.ratings import RatingChangeRow, RatingRow
    from lostcities.web.store import normalize_db_url

    engine = sqlalchemy.create_engine(normalize_db_url(db_url))
    deadline = time.monotonic() + WAIT
    try:
        while True:
            with Session(engine) as s:
                q = sqlalchemy.select(RatingChangeRow).where(RatingChangeRow.game_id == game_id)
                changes = {c.seat: c for c in s.scalars(q)}
                rows = {r.player: r for r in s.scalars(sqlalchemy.select(RatingRow))}
                for x in [*changes.values(), *rows.values()]:
                    s.expunge(x)
            if len(changes) == 2:
                return changes, rows
            assert time.monotonic() < deadline, "the match was not rated"
            time.sleep(0.1)
    finally:
        engine.dispose()


def play_rated_match(
    made: list[Server], db_url: str, tmp: Path, processes: int, clock: str | None
) -> None:
    """The rated 3-round match of two connectors (on ``processes`` server processes, with
    ``clock``), to its end; both bot-pool ratings moved by
    :func:`lostcities.web.ratings.rate_pair`."""
    from lostcities.web.ratings import DEFAULT, outcome, rate_pair

    one = serve(made, db_url, tmp)
    two = serve(made, db_url, tmp) if processes == 2 else one
    alpha = bot_account(one, db_url, "alpha", tmp)
    beta = bot_account(two, db_url, "beta", tmp)
    a = Connect(one, alpha, "heuristic", "--games", "1", "--seed", "1")
    b: Connect | None = None
    try:
        a.wait_for(lambda r: r["event"] == "connected", "a connection")
        b = Connect(
            two,
            beta,
            f"cmd:{sys.executable} examples/bot.py",
            "--games",
            "1",
            "--seed",
            "2",
            "--challenge",
            "alpha",
            "--challenge-rounds",
            "3",
            "--challenge-clock",
            clock or "none",
            "--challenge-rated",
        )
        assert b.finish() == 0, b.stderr()
        assert a.finish() == 0, a.stderr()
    finally:
        stop_all(a, *([b] if b else []))
    accepted = a.wait_for(lambda r: r.get("decision") == "accepted", "the acceptance")
    gid = str(accepted["game"])
    row = game_row(db_url, gid)
    assert row.status == "finished" and row.rated and row.num_rounds == 3
    assert (row.name0, row.name1) == ("beta", "alpha")  # the challenger sits in seat 0
    score = outcome(row.result)
    assert score is not None
    # each connector saw the game to its end, with the server's totals (its own first)
    (end_a,) = a.results()
    (end_b,) = b.results()
    assert end_a["game"] == end_b["game"] == gid
    assert end_a["round"] == end_b["round"] == 3
    assert end_a["score"] == end_b["score"][::-1]
    want = {1.0: ("lost", "won"), 0.0: ("won", "lost"), 0.5: ("draw", "draw")}[score]
    assert (end_a["status"], end_b["status"]) == (f"{want[0]} (normal)", f"{want[1]} (normal)")
    assert end_a["clock"] == end_b["clock"] == clock
    assert a.records[-1]["event"] == b.records[-1]["event"] == "stopped"
    # nothing went wrong on the way: no error, and no warning (a position the connector
    # could not read, an engine covered by a fallback move, a reconnection, a refusal)
    bad = [r for r in a.records + b.records if r["level"] in ("warning", "error")]
    assert not bad, bad
    # every move acknowledged: the moves the connectors saw taken are the game's moves
    assert sorted(sent_moves(a) + sent_moves(b)) == moves_of(db_url, gid)
    assert len(moves_of(db_url, gid)) >= 3 * 44  # (three whole rounds)
    assert not [r for r in a.records + b.records if r["event"] == "illegal"]
    changes, rows = ratings_of(db_url, gid)
    want_ratings = rate_pair(DEFAULT, DEFAULT, score)
    for seat, acc in enumerate((row.account0, row.account1)):
        key = f"b:{acc}"
        assert changes[seat].player == key and rows[key].games == 1
        assert rows[key].rating == pytest.approx(want_ratings[seat].rating, abs=1e-9)
        assert rows[key].rd == pytest.approx(want_ratings[seat].rd, abs=1e-9)
        assert rows[key].vol == pytest.approx(want_ratings[seat].vol, abs=1e-12)
    assert not [k for k in rows if k.startswith("a:")]


@pytest.mark.slow
def test_a_rated_match_on_two_processes_and_postgresql(
    servers: list[Server], pg_url: str, tmp_path: Path
) -> None:
    play_rated_match(servers, pg_url, tmp_path, processes=2, clock=None)


def test_a_rated_match_on_one_process_and_sqlite(servers: list[Server], tmp_path: Path) -> None:
    # (with a match clock: its readings in the state, and the time given to each move; ten
    # minutes and ten seconds a move are far more than these engines take, even loaded)
    db = f"sqlite:///{tmp_path / 'e2e.db'}"
    play_rated_match(servers, db, tmp_path, processes=1, clock="600+10")


def casual_game(one: Server, two: Server, db_url: str, tmp: Path) -> tuple[Connect, Connect, Path]:
    """``alpha`` (the heuristic bot, on ``one``) and ``beta`` (``examples/bot.py``, on
    ``two``, the challenger) start a casual one-round game: both connectors, and alpha's
    token file."""
    alpha = bot_account(one, db_url, "alpha", tmp)
    beta = bot_account(two, db_url, "beta", tmp)
    a = Connect(one, alpha, "heuristic", "--games", "1", "--seed", "1")
    a.wait_for(lambda r: r["event"] == "connected", "a connection")
    b = Connect(
        two,
        beta,
        f"cmd:{sys.executable} examples/bot.py",
        "--games",
        "1",
        "--challenge",
        "alpha",
        "--challenge-rounds",
        "1",
        "--challenge-clock",
        "none",
    )
    return a, b, alpha


def check_finished(db_url: str, gid: str, *conns: Connect) -> None:
    """The game ended normally, every connector saw its end and stopped cleanly, and every
    move a connector saw taken is the game's."""
    row = game_row(db_url, gid)
    assert row.status == "finished" and row.ending is None and row.result != "*"
    stored = moves_of(db_url, gid)
    assert len(stored) >= 44 and stored[-1][0] == 1  # (a whole round)
    reported = [m for c in conns for m in sent_moves(c)]
    assert len(set(reported)) == len(reported) and set(reported) <= set(stored)
    # reconnections warn; nothing else may (the engines played every move, none refused)
    bad = [
        r
        for c in conns
        for r in c.records
        if r["level"] == "error" or r["event"] in ("engine", "illegal")
    ]
    assert not bad, bad


@pytest.mark.slow
def test_a_connector_killed_mid_game_reconnects_and_the_game_finishes(
    servers: list[Server], pg_url: str, tmp_path: Path
) -> None:
    one, two = serve(servers, pg_url, tmp_path), serve(servers, pg_url, tmp_path)
    a, b, alpha = casual_game(one, two, pg_url, tmp_path)
    again: Connect | None = None
    try:
        gid = str(a.wait_for(moves_made(a, 10), "alpha's moves")["game"])
        a.kill()  # (its engine, in the process, dies with it)
        row = game_row(pg_url, gid)
        assert row.status == "active"  # (at most one move of beta's since: a round has 44)
        # started again (on the other server process): the game is found and played on
        again = Connect(two, alpha, "heuristic", "--games", "1", "--seed", "1")
        taken = again.wait_for(lambda r: r["event"] == "game", "the game taken up")
        assert taken["game"] == gid and taken["status"] == "started"
        assert again.finish() == 0, again.stderr()
        assert b.finish() == 0, b.stderr()
    finally:
        stop_all(a, b, *([again] if again else []))
    (end_b,) = b.results()
    (end_again,) = again.results()
    assert end_b["game"] == end_again["game"] == gid
    assert end_again["score"] == end_b["score"][::-1]
    assert not [r for r in b.records if r["event"] == "reconnect"]  # (beta never lost a thing)
    check_finished(pg_url, gid, a, again, b)
    assert sent_moves(again)  # (the restarted connector played)


@pytest.mark.slow
def test_both_server_processes_restarted_mid_game_and_both_connectors_resume(
    servers: list[Server], pg_url: str, tmp_path: Path
) -> None:
    one, two = serve(servers, pg_url, tmp_path), serve(servers, pg_url, tmp_path)
    a, b, _ = casual_game(one, two, pg_url, tmp_path)
    try:
        gid = str(a.wait_for(moves_made(a, 10), "alpha's moves")["game"])
        one.stop()  # as Ctrl-C stops it
        two.kill()  # as a crash does
        for c in (a, b):
            c.wait_for(lambda r: r["event"] == "reconnect", "a reconnection attempt")
        assert game_row(pg_url, gid).status == "active"
        one.start(timeout=120)  # (on the same ports)
        two.start(timeout=120)
        assert a.finish() == 0, a.stderr()
        assert b.finish() == 0, b.stderr()
    finally:
        stop_all(a, b)
    (end_a,) = a.results()
    (end_b,) = b.results()
    assert end_a["game"] == end_b["game"] == gid
    assert end_a["score"] == end_b["score"][::-1]
    for c in (a, b):  # both streams were reopened, and the game played on after
        reopened = c.records.index(
            c.wait_for(lambda r: r.get("text") == "event stream reopened", "reopened")
        )
        assert [m for m in c.records[reopened:] if m["event"] == "move"]
    check_finished(pg_url, gid, a, b)
