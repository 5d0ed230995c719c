"""Chaos for the ratings: rated matches end (a resignation after two moves) and the server
that ended each is killed with SIGKILL at once, often while it settles the ratings; it is
started again, and at the end every rated result must be counted exactly once.

With PostgreSQL two server processes share the database (the match is made on one and
ended on the other; the survivor's sweep settles what a dead one left); with SQLite one
server is killed and restarted. The check (:func:`check`): one ``lc_rating_results`` row
per finished rated game; each player's rating history is one unbroken chain from the
newcomer's rating (every change starts from the previous one's result: none lost, none
counted twice), each step the glicko2 package's figure, and the chain's end is the stored
rating.

    python benchmarks/ratings_chaos.py --db postgresql://... --matches 20
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import webharness

from lostcities.web import ratings
from lostcities.web.models.games import GameRow
from lostcities.web.models.ratings import RatingChangeRow, RatingResultRow, RatingRow
from lostcities.web.store import GameStore


def accounts(store: GameStore, names: list[str]) -> dict[str, dict[str, str]]:
    """Accounts with a session each: the headers of each one's browser."""
    return {name: webharness.signed_in(store, name) for name in names}


def call(srv: webharness.Server, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
    status, out = srv.request(method, path, body, headers)
    if status >= 400:
        raise RuntimeError(f"{method} {path}: {status} {out}")
    return out


def play_match(
    a: webharness.Server, b: webharness.Server, ha: dict[str, str], hb: dict[str, str]
) -> str:
    """A rated one-round match: opened on ``a``, joined on ``b``, two moves, then the
    player to move resigns on ``b``; returns the game id."""
    t = call(a, "POST", "/api/lobby/tables", {"rounds": 1, "rated": True}, ha)
    g = call(b, "POST", f"/api/lobby/{t['id']}/join", {}, hb)
    tokens = {0: t["token"], 1: g["token"]}
    for _ in range(2):
        st = call(b, "GET", f"/api/games/{g['id']}/state", None, {"X-Seat-Token": tokens[0]})
        seat = st["view"]["to_move"]
        mine = call(b, "GET", f"/api/games/{g['id']}/state", None, {"X-Seat-Token": tokens[seat]})
        body = {
            "token": tokens[seat],
            "round": mine["round"],
            "ply": mine["view"]["ply"],
            "move": mine["view"]["legal"][0],
        }
        call(b, "POST", f"/api/games/{g['id']}/moves", body, {})
    st = call(b, "GET", f"/api/games/{g['id']}/state", None, {"X-Seat-Token": tokens[0]})
    loser = st["view"]["to_move"]
    call(b, "POST", f"/api/games/{g['id']}/resign", {"token": tokens[loser]}, {})
    return str(g["id"])


def check(store: GameStore, game_ids: list[str]) -> list[str]:
    """What is wrong with the settled ratings (module docs); empty when all is right."""
    problems = []
    with store.engine.connect() as conn:
        results = {r.game_id: r.state for r in conn.execute(sorted_results()).all()}
        changes = conn.execute(RatingChangeRow.__table__.select()).all()
        stored = {r.player: r for r in conn.execute(RatingRow.__table__.select()).all()}
        games = {
            r.id: r
            for r in conn.execute(GameRow.__table__.select().where(GameRow.id.in_(game_ids)))
        }
    for gid in game_ids:
        if games[gid].status != "finished":
            problems.append(f"{gid}: not finished")
        if results.get(gid) != "rated":
            problems.append(f"{gid}: settled as {results.get(gid)!r}")
    by_game: dict[str, dict[int, Any]] = {}
    for c in changes:
        by_game.setdefault(c.game_id, {})[c.seat] = c
    for gid, seats in by_game.items():
        if set(seats) != {0, 1}:
            problems.append(f"{gid}: changes of seats {sorted(seats)}")
            continue
        a, b = seats[0], seats[1]
        want_a, want_b = ratings.rate_pair(
            ratings.Rating(a.rating_before, a.rd_before, _vol_before(changes, a)),
            ratings.Rating(b.rating_before, b.rd_before, _vol_before(changes, b)),
            a.score,
        )
        if (round(want_a.rating, 6), round(want_b.rating, 6)) != (
            round(a.rating_after, 6),
            round(b.rating_after, 6),
        ):
            problems.append(f"{gid}: not the glicko2 figures")
    for player, row in stored.items():
        mine = [c for c in changes if c.player == player]
        here = (ratings.DEFAULT.rating, ratings.DEFAULT.rd)
        left = list(mine)
        while left:
            nxt = [c for c in left if (c.rating_before, c.rd_before) == here]
            if len(nxt) != 1:
                problems.append(f"{player}: {len(nxt)} changes start from {here}")
                break
            left.remove(nxt[0])
            here = (nxt[0].rating_after, nxt[0].rd_after)
        if here != (row.rating, row.rd) or row.games != len(mine):
            problems.append(f"{player}: the stored rating is not its history's end")
    return problems


def sorted_results() -> Any:
    return RatingResultRow.__table__.select()


def _vol_before(changes: list[Any], c: Any) -> float:
    """The volatility before a change: the previous change's result (or the newcomer's)."""
    for p in changes:
        if p.player == c.player and (p.rating_after, p.rd_after) == (c.rating_before, c.rd_before):
            return float(p.vol_after)
    return ratings.DEFAULT.vol


def run(db_url: str, *, matches: int, seed: int, log_dir: Path | None = None) -> dict[str, Any]:
    """Play ``matches`` rated matches, killing the ending server after most; the check's
    result and counts."""
    rng = random.Random(seed)
    store = GameStore(db_url)
    store.create_tables()
    heads = accounts(store, ["ann", "bob", "cy"])
    two = not store.is_sqlite
    env = {"LOSTCITIES_BOT_EXECUTOR": "thread"}

    def server(i: int) -> webharness.Server:
        log = None if log_dir is None else log_dir / f"chaos-{i}.log"
        return webharness.Server(db_url, log, env)

    servers = [server(0).start(timeout=120)]
    if two:
        servers.append(server(1).start(timeout=120))
    kills = 0
    ids = []
    try:
        for k in range(matches):
            x, y = rng.sample(["ann", "bob", "cy"], 2)
            a, b = servers[k % len(servers)], servers[(k + 1) % len(servers)]
            ids.append(play_match(a, b, heads[x], heads[y]))
            if rng.random() < 0.7:  # the server that ended it dies at once
                port = b.port
                b.kill()
                kills += 1
                b.start_on(port)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and ratings.unsettled_sync(store):
            time.sleep(0.5)
        problems = check(store, ids)
    finally:
        for s in servers:
            s.stop()
        store.close()
    return {"matches": matches, "kills": kills, "servers": len(servers), "problems": problems}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--db", required=True, help="an empty database (sqlite:///FILE or postgresql://...)"
    )
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    out = run(args.db, matches=args.matches, seed=args.seed)
    print(json.dumps(out, indent=1))
    return 0 if not out["problems"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
