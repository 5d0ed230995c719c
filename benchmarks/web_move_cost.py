"""The server's own work per move, in-process: no uvicorn, no WebSocket framing, no TCP.

Plays ``--moves`` moves in ``--games`` friend games of 3 rounds at once (random legal
moves, seeded), each move through :meth:`LiveGame.play <lostcities.web.live_game.LiveGame.play>`
with two fake connections per game: the checks, the commit through the writer thread (a
temp SQLite file, ``synchronous=FULL``), the referee, both players' states, the clock. It
prints the CPU time per move (this process, every thread) and the bytes of state sent.

The load-proof figure is the instruction count (docs/performance.md, "Web server"; its
history: docs/history/performance-2026-12-web.md, "Server CPU per move"): run it under
callgrind for two move counts and take the difference, so that the start-up, imports and
game creation cancel out::

    for n in 300 900; do PYTHONHASHSEED=0 valgrind --tool=callgrind \\
        --callgrind-out-file=/tmp/cg.$n python benchmarks/web_move_cost.py --moves $n; done
    # instructions per move: (total of cg.900 - total of cg.300) / 600

``PYTHONPATH=DIR`` runs another checkout's server code (a before/after in one session).
Nothing here opens a socket.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from lostcities.web import schemas
from lostcities.web.conns import Conn
from lostcities.web.game_manager import GameManager, ManagerSettings
from lostcities.web.live_game import LiveGame
from lostcities.web.store import GameStore
from lostcities.web.workers import BotRunner


class FakeSocket:
    """A connection that keeps the size of what it is sent."""

    def __init__(self) -> None:
        self.sent = 0
        self.messages = 0

    async def send_text(self, data: str) -> None:
        self.sent += len(data)
        self.messages += 1


async def new_game(mgr: GameManager, sockets: list[FakeSocket]) -> LiveGame:
    """A friend game of 3 rounds, both seats joined and connected."""
    g, _, invite = await mgr.create(schemas.CreateGame(opponent="friend", rounds=3))
    assert invite is not None
    await mgr.join(g.id, invite, "B")
    for seat in (0, 1):
        s = FakeSocket()
        sockets.append(s)
        g.conns.append(Conn(s, seat))
    return g


async def play(games: int, moves: int, seed: int, db: str) -> dict[str, float]:
    store = GameStore(db)
    store.create_tables()
    store.start()
    mgr = GameManager(store, BotRunner("thread", 1, []), ManagerSettings(deal_seed=seed))
    sockets: list[FakeSocket] = []
    live = [await new_game(mgr, sockets) for _ in range(games)]
    rng = random.Random(seed)
    played = 0

    async def one(g: LiveGame) -> None:
        nonlocal played
        while played < moves and not g.is_over():
            r = g.round
            legal = r.legal_moves()
            move = legal[rng.randrange(len(legal))]
            played += 1
            await g.play(r.to_move, g.round_index, r.ply, str(move), ack_conn=g.conns[0])

    cpu0, t0 = time.process_time(), time.perf_counter()
    while played < moves:
        await asyncio.gather(*(one(g) for g in live))
        if played < moves:  # every match over: more games
            live = [await new_game(mgr, sockets) if g.is_over() else g for g in live]
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - t0
    store.close()
    return {
        "moves": played,
        "cpu_ms_per_move": round(1000 * cpu / played, 4),
        "wall_ms_per_move": round(1000 * wall / played, 4),
        "bytes_sent_per_move": round(sum(s.sent for s in sockets) / played, 1),
        "batches": store.batches,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=8, help="games played at once (8)")
    ap.add_argument("--moves", type=int, default=900, help="moves in all (900)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lc-move-cost-") as tmp:
        out = asyncio.run(
            play(args.games, args.moves, args.seed, f"sqlite:///{Path(tmp) / 'g.db'}")
        )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
