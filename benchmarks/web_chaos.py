"""Chaos benchmark of ``lostcities serve`` (issue 14): SIGKILL the server at random moments
while scripted friend and bot games are played, restart it, and check that

- no acknowledged move is lost: every move any client saw in a state (its own acknowledged
  moves, the other seat's, the bot's) is in the finished game's record, in its place;
- no move is duplicated: the database holds exactly one row per move of the record;
- no process is orphaned: every process of a killed server (its bot workers) is gone within
  seconds;
- every game is resumable: after the last kill each game is played to its end and its record
  replays exactly (``GameRecord.replay``).

    python benchmarks/web_chaos.py --kills 50                       # SQLite
    python benchmarks/web_chaos.py --kills 50 --db postgresql+psycopg://...
    python benchmarks/web_chaos.py --kills 50 --json

The suite runs a 5-kill version (tests/web/test_web_chaos.py) through :func:`run`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopback import on_loopback
from webharness import Server, alive
from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

from lostcities.record import read_records


@dataclass
class Game:
    """One scripted game: its seats' tokens (``None``: the bot's seat) and every move seen."""

    id: str
    tokens: list[str | None]
    seen: dict[int, list[str]] = field(default_factory=dict)
    """Per round, the longest history any client was sent."""
    friend: bool = True
    moves_sent: int = 0
    reconnects: int = 0
    over: bool = False
    replaced: bool = False

    def saw(self, state: dict[str, Any]) -> None:
        hist = list(state["view"]["history"])
        old = self.seen.get(state["round"], [])
        if len(hist) >= len(old):
            assert hist[: len(old)] == old, f"game {self.id}: history went back: {old} -> {hist}"
            self.seen[state["round"]] = hist
        else:
            assert old[: len(hist)] == hist, (
                f"game {self.id}: a seen move was lost: {old} -> {hist}"
            )
        if state["match"]["over"]:
            self.over = True


class Driver(threading.Thread):
    """Plays one game to its end through every crash: each seat with a token has a socket;
    a dropped socket is reopened (the server may be down for a while)."""

    def __init__(
        self, ws_url: str, game: Game, seed: int, stop: threading.Event, think: float = 0.0
    ) -> None:
        super().__init__(daemon=True)
        self.ws_url, self.game, self.rng, self.stop = ws_url, game, random.Random(seed), stop
        self.think = think
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set() and not self.game.over:
                try:
                    self.play()
                except (OSError, WebSocketException, TimeoutError):  # the server went away
                    self.game.reconnects += 1
                    time.sleep(0.05)
        except BaseException as e:  # reported by the harness
            self.error = e

    def connect(self, token: str | None) -> tuple[Any, dict[str, Any]]:
        ws = connect(
            f"{self.ws_url}/ws/games/{self.game.id}", open_timeout=5, max_size=2**22
        ).__enter__()
        ws.send(json.dumps({"type": "hello", "token": token}))
        while True:
            m = json.loads(ws.recv(timeout=10))
            if m["type"] == "state":
                self.game.saw(m)
                return ws, m

    def play(self) -> None:
        seats = [i for i, t in enumerate(self.game.tokens) if t is not None]
        conns: dict[int, Any] = {}
        states: dict[int, dict[str, Any]] = {}

        def key(m: dict[str, Any]) -> tuple[int, int]:
            return (m["round"], m["view"]["ply"])

        def recv(i: int) -> dict[str, Any]:
            m: dict[str, Any] = json.loads(conns[i].recv(timeout=15))
            if m["type"] == "state":
                states[i] = m
                self.game.saw(m)
            return m

        try:
            for i in seats:
                conns[i], states[i] = self.connect(self.game.tokens[i])
            while not self.stop.is_set() and not self.game.over:
                now = max(states.values(), key=key)
                for i in seats:  # every seat catches up with the latest position
                    while key(states[i]) < key(now) and not states[i]["match"]["over"]:
                        recv(i)
                p = now["game"]["to_move"]
                if p not in conns or not states[p]["view"]["legal"]:
                    recv(seats[0])  # the bot (or a round change) moves next: wait for it
                    continue
                v = states[p]["view"]
                if self.think:
                    time.sleep(self.rng.uniform(0, 2 * self.think))
                self.game.moves_sent += 1
                mid = self.game.moves_sent
                conns[p].send(
                    json.dumps(
                        {
                            "type": "move",
                            "move": self.rng.choice(v["legal"]),
                            "round": states[p]["round"],
                            "ply": v["ply"],
                            "id": mid,
                        }
                    )
                )
                while True:
                    m = recv(p)
                    if m["type"] == "error" or (
                        m["type"] == "state" and (m.get("ack") == mid or key(m) != key(now))
                    ):
                        break  # acknowledged (or refused after a restart: the state follows)
        finally:
            for ws in conns.values():
                with contextlib.suppress(Exception):
                    ws.close()


def count_move_rows(db: str, game_ids: list[str]) -> dict[str, int]:
    import sqlalchemy

    from lostcities.web.store import normalize_db_url

    engine = sqlalchemy.create_engine(normalize_db_url(db))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sqlalchemy.text("SELECT game_id, COUNT(*) FROM lc_moves GROUP BY game_id")
            ).fetchall()
    finally:
        engine.dispose()
    counts = {str(g): int(n) for g, n in rows}
    return {g: counts.get(g, 0) for g in game_ids}


def run(
    db: str | None = None,
    kills: int = 5,
    friend_games: int = 4,
    bot_games: int = 2,
    seed: int = 1,
    between: tuple[float, float] = (0.3, 1.5),
    workers: int = 1,
    log_dir: Path | None = None,
    think: float = 0.01,
) -> dict[str, Any]:
    """Play, kill ``kills`` times, check; returns the figures (``problems`` lists failures)."""
    rng = random.Random(seed)
    tmp = Path(log_dir or tempfile.mkdtemp(prefix="lc-chaos-"))
    db = db or f"sqlite:///{tmp / 'chaos.db'}"
    env = {
        "LOSTCITIES_BOT_EXECUTOR": "process",
        "LOSTCITIES_BOT_WORKERS": str(workers),
        "LOSTCITIES_LEVEL_EASY": "random",
    }
    server = Server(db, tmp / "server.log", env)  # restarted on the same port after each kill
    t0 = time.monotonic()
    server.start(timeout=120)
    games: list[Game] = []
    drivers: list[Driver] = []
    stop = threading.Event()
    ws_url = server.url.replace("http", "ws", 1)

    def new_game(friend: bool) -> None:
        if friend:
            _, g = server.request("POST", "/api/games", {"opponent": "friend", "rounds": 3})
            invite = g["invite_url"].split("#", 1)[1]
            _, j = server.request("POST", f"/api/games/{g['id']}/join", {"invite": invite})
            game = Game(g["id"], [g["token"], j["token"]], friend=True)
        else:
            _, g = server.request(
                "POST", "/api/games", {"opponent": "computer", "level": "easy", "rounds": 3}
            )
            game = Game(g["id"], [g["token"], None], friend=False)
        games.append(game)
        d = Driver(ws_url, game, seed * 1000 + len(games), stop, think)
        drivers.append(d)
        d.start()

    for i in range(friend_games + bot_games):
        new_game(i < friend_games)
    problems: list[str] = []
    orphans = 0
    restart_s: list[float] = []
    for k in range(kills):
        for g in [g for g in games if g.over and not g.replaced]:  # keep the traffic going
            g.replaced = True
            new_game(g.friend)
        time.sleep(rng.uniform(*between))
        kids = server.kill()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(p) for p in kids):
            time.sleep(0.05)
        left = [p for p in kids if alive(p)]
        orphans += len(left)
        for p in left:
            problems.append(f"kill {k + 1}: process {p} outlived the server")
            os.kill(p, signal.SIGKILL)
        t = time.monotonic()
        server.start(timeout=120)
        restart_s.append(time.monotonic() - t)
    kills_done = len(restart_s)
    # every game resumable: play each to its end on the last server
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not all(g.over for g in games):
        time.sleep(0.2)
    stop.set()
    for d in drivers:
        d.join(30)
        if d.error is not None:
            problems.append(f"game {d.game.id}: {d.error!r}")
    lost = 0
    moves_total = 0
    for g in games:
        if not g.over:
            problems.append(f"game {g.id} did not finish")
            continue
        status, text = server.request("GET", f"/api/games/{g.id}/record")
        if status != 200:
            problems.append(f"game {g.id}: record {status}")
            continue
        rec = next(read_records(io.StringIO(text)))
        try:
            rec.replay()
        except ValueError as e:
            problems.append(f"game {g.id}: the record does not replay: {e}")
        for rnd, seen in g.seen.items():
            final = [str(m) for m in rec.rounds[rnd].moves] if rnd < len(rec.rounds) else []
            if [m.lower() for m in final[: len(seen)]] != [m.lower() for m in seen]:
                lost += 1
                problems.append(
                    f"game {g.id} round {rnd + 1}: a move seen by a client is not in the record"
                )
        g_total = sum(len(r.moves) for r in rec.rounds)
        moves_total += g_total
        g.seen["total"] = [str(g_total)]  # type: ignore[index]
    server.stop()
    rows = count_move_rows(db, [g.id for g in games])
    duplicated = 0
    for g in games:
        total = int(g.seen.get("total", ["-1"])[0])  # type: ignore[call-overload]
        if total >= 0 and rows[g.id] != total:
            duplicated += abs(rows[g.id] - total)
            problems.append(f"game {g.id}: {rows[g.id]} move rows for {total} moves")
    return {
        "db": "postgresql" if db.startswith("postgres") else "sqlite",
        "kills": kills_done,
        "games": len(games),
        "friend_games": friend_games,
        "bot_games": bot_games,
        "moves": moves_total,
        "connection_attempts_failed": sum(g.reconnects for g in games),
        "lost_moves": lost,
        "duplicated_moves": duplicated,
        "orphan_processes": orphans,
        "unfinished_games": sum(not g.over for g in games),
        "restart_s_mean": round(sum(restart_s) / max(1, len(restart_s)), 2),
        "seconds": round(time.monotonic() - t0, 1),
        "problems": problems,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--db", default=None, help="database URL (a temp SQLite file)")
    ap.add_argument("--friend-games", type=int, default=6)
    ap.add_argument("--bot-games", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1, help="bot worker processes (1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = run(
        args.db, args.kills, args.friend_games, args.bot_games, args.seed, workers=args.workers
    )
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0 if not out["problems"] else 1


if __name__ == "__main__":
    sys.exit(on_loopback(main))
