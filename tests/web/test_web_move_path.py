"""The per-move path's shortcuts (issue 28): each gives what the general code it replaced
gives. The writer's driver-SQL move insert reads back through the ORM as the ORM wrote it
(SQLite and, when LOSTCITIES_TEST_POSTGRES_URL is set, PostgreSQL); the state's expedition
scores are the score sheet's; a broadcast's states are the states made alone, the hand's
reasons the core's, card by card."""

from __future__ import annotations

import asyncio
import datetime
import json
import random
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from lostcities import Match, Round
from lostcities.scoring import score_expedition
from lostcities.web import abandon, schemas
from lostcities.web.clocks import clock_choice
from lostcities.web.conns import Conn
from lostcities.web.live_game import LiveGame
from lostcities.web.models.base import utcnow
from lostcities.web.models.games import GameRow, MoveRow, RoundRow
from lostcities.web.peers import SingleProcess
from lostcities.web.presence import Presence
from lostcities.web.presenter import BroadcastMemo
from lostcities.web.repositories.games import op_insert_game, op_move
from lostcities.web.store import GameStore, hash_token


def _insert(store: GameStore, gid: str) -> Round:
    m = Match(1, seed=11, starter=0)
    r = m.new_round()
    old = datetime.datetime(2020, 1, 2, 3, 4, 5, 6)
    row = GameRow(
        id=gid,
        variant="classic",
        num_rounds=1,
        seed=m.seed,
        first_starter=0,
        status="active",
        result="*",
        name0="a",
        name1="b",
        token0=hash_token("t0"),
        created_at=old,
        updated_at=old,
    )
    deck = " ".join(map(str, r.deal_order))
    store.write_sync(op_insert_game(row, [RoundRow(game_id=gid, index=0, starter=0, deck=deck)]))
    return r


def test_batched_moves_read_back_as_the_orm_writes_them(db_url: str) -> None:
    """Moves stored by the writer's batch (driver SQL) load and replay, their times read back
    as the datetimes the ORM writes, and each touched game's ``updated_at`` is the batch's."""
    store = GameStore(db_url)
    store.create_tables()
    store.start()
    rounds = {gid: _insert(store, gid) for gid in ("m0", "m1", "m2")}
    before = utcnow()

    async def play() -> None:
        async def one(gid: str, r: Round) -> None:
            for _ in range(4):
                m = r.legal_moves()[-1]
                await store.write(op_move(gid, 0, r.ply, str(m)))
                r.push(m)

        await asyncio.gather(*(one(g, r) for g, r in rounds.items()))

    asyncio.run(play())
    with Session(store.engine) as s:
        moves = s.scalars(select(MoveRow).order_by(MoveRow.game_id, MoveRow.ply)).all()
        games = {g.id: g for g in s.scalars(select(GameRow)).all()}
        assert len(moves) == 12
        for mv in moves:
            assert isinstance(mv.created_at, datetime.datetime)
            assert before <= mv.created_at <= utcnow()
        for gid, r in rounds.items():
            stamps = [mv.created_at for mv in moves if mv.game_id == gid]
            assert games[gid].updated_at == max(stamps)  # the last batch's time, to the µs
            loaded = store.load_sync(gid)
            assert loaded is not None and loaded.rounds[0].moves == [str(m) for m in r.history]
    store.close()


def test_a_write_resolves_after_its_commit_and_a_cancelled_one_is_dropped(db_url: str) -> None:
    """The writer hands a whole batch back to the event loop at once: a coroutine's write
    returns only once its batch committed, a failing write fails alone, and a write whose
    coroutine was cancelled before the writer took it is not stored."""
    store = GameStore(db_url)
    store.create_tables()
    store.start()
    rounds = {gid: _insert(store, gid) for gid in ("w0", "w1", "w2")}
    held, gate = threading.Event(), threading.Event()

    def hold(_s: Session) -> str:
        held.set()
        gate.wait(30)
        return "held"

    async def play() -> None:
        blocker = asyncio.create_task(store.write(hold))
        assert await asyncio.to_thread(held.wait, 30)
        first = [str(rounds[g].legal_moves()[-1]) for g in ("w0", "w1", "w2")]
        move = asyncio.create_task(store.write(op_move("w0", 0, 0, first[0])))
        dropped = asyncio.create_task(store.write(op_move("w1", 0, 0, first[1])))
        failing = asyncio.create_task(store.write(op_move("nope", 0, 0, first[2])))
        await asyncio.sleep(0.05)
        assert not (move.done() or dropped.done() or failing.done())  # nothing committed yet
        dropped.cancel()
        await asyncio.sleep(0)
        gate.set()
        assert await blocker == "held"
        assert await move is None
        with pytest.raises(IntegrityError):  # (no such game: the foreign key)
            await failing
        assert dropped.cancelled()

    asyncio.run(play())
    stored = {g: store.load_sync(g) for g in rounds}
    assert [len(x.rounds[0].moves) if x else None for x in stored.values()] == [1, 0, 0]
    store.close()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 200))
def test_state_expedition_scores_are_the_score_sheets(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    r = Round.deal(seed=seed)
    for _ in range(plies):
        if r.is_over():
            break
        legal = r.legal_moves()
        r.push(legal[rng.randrange(len(legal))])
    for seat in (0, 1):
        view = r.view(seat)
        out = schemas.view_out(view, reveal_hand=True)
        want = [
            [score_expedition(e, check=False).score for e in view.expeditions[p]] for p in (0, 1)
        ]
        assert out.expedition_scores == want
        assert out.scores == list(view.scores())


def _illegal_reference(r: Round, seat: int) -> dict[str, str]:
    """The hand's reasons as first written: ``is_legal`` first, then the core's message."""
    if r.is_over() or r.to_move != seat:
        return {}
    out: dict[str, str] = {}
    for card in r.hands[seat]:
        text = f"+{card}."
        if not r.is_legal(text):
            try:
                r.parse_move(text)
            except ValueError as e:
                msg = str(e)
                if "(" in msg and msg.endswith(")"):
                    msg = msg[msg.index("(") + 1 : -1]
                out[str(card)] = msg
    return out


def _summary_reference(g: LiveGame, seat: int | None) -> schemas.GameSummary:
    """The game summary as first written: the model, every field read off the row."""
    row = g.row
    connected = [False, False]
    for c in g.conns:
        if c.seat is not None and c.alive:
            connected[c.seat] = True
    players = []
    for s in (0, 1):
        bot = g.bot_spec(s)
        players.append(
            schemas.PlayerOut(
                name=row.name0 if s == 0 else row.name1,
                kind="bot" if bot else "human",
                level=row.level if bot else None,
                joined=bool(bot) or (row.token0 if s == 0 else row.token1) is not None,
                connected=True if bot else connected[s],
                account=bot is None and (row.account0, row.account1)[s] is not None,
                away=g.host.presence.away_for(g, s),
            )
        )
    over = g.match.is_over()
    to_move = None if over else g.round.to_move
    return schemas.GameSummary(
        id=row.id,
        variant=row.variant,
        colors=[c.letter for c in g.match.variant.colors],
        num_rounds=row.num_rounds,
        status=row.status,
        result=g.match.result(),
        players=players,
        round=g.round_index,
        totals=list(g.match.totals()),
        to_move=to_move,
        seat=seat,
        your_turn=seat is not None and to_move == seat and row.status != "waiting",
        updated_at=row.updated_at.isoformat() + "Z" if row.updated_at else None,
        rematch_id=row.rematch_id,
        assisted=bool(row.hints),
        hints=row.hints or 0,
        clock=clock_choice(row),
        clock_left=g.clock_left(),
        clock_times=g.clock_times(),
        abortable=not over and abandon.abortable(g.match),
        claim_after=None if over else g.host.presence.claim_after(g),
        ending=row.ending,
    )


def _state_reference(g: LiveGame, seat: int | None, ack: int | str | None = None) -> str:
    """The state message as first written: every part made for each seat, through the
    pydantic models (the documented schema)."""
    r = g.round
    if seat is None:
        view = schemas.view_out(r.view(0), reveal_hand=False)
    else:
        illegal = _illegal_reference(r, seat)
        view = schemas.view_out(r.view(seat), reveal_hand=True, illegal=illegal)
    m = g.match
    rounds = [schemas.round_summary(i, x) for i, x in enumerate(m.rounds) if x.is_over()]
    match = schemas.MatchOut(
        totals=list(m.totals()),
        rounds=rounds,
        over=m.is_over(),
        result=m.result(),
        winner=m.winner(),
        reason=m.reason(),
        tie_break=m.tie_break,
        younger=m.younger,
        achievements=m.achievements is not None,
    )
    msg = schemas.StateOut(
        game=_summary_reference(g, seat),
        seat=seat,
        round=g.round_index,
        starter=r.starter,
        view=view,
        match=match,
        ack=ack,
    )
    return msg.model_dump_json()


def test_states_sharing_their_public_part_are_the_full_ones(tmp_path: Path) -> None:
    """Through a whole match (3 rounds, goals, a forfeit at the end) every seat's and a
    spectator's state, made with one broadcast's shared parts, is the state made alone."""
    from lostcities.web.game_manager import GameManager, ManagerSettings
    from lostcities.web.workers import BotRunner

    async def play() -> None:
        store = GameStore(f"sqlite:///{tmp_path / 'g.db'}")
        store.create_tables()
        store.start()
        mgr = GameManager(store, BotRunner("thread", 1, []), ManagerSettings())
        frozen = mgr.now()  # (how long a player has been away is the same in both states)
        mgr.now = lambda: frozen
        req = schemas.CreateGame(opponent="friend", rounds=3, achievements=True)
        g, _, invite = await mgr.create(req)
        assert invite is not None
        await mgr.join(g.id, invite, "B")
        rng = random.Random(7)
        while not g.is_over():
            memo = BroadcastMemo()
            for seat in (None, 0, 1, 1, 0):
                want = _state_reference(g, seat, 5 if seat == 0 else None)
                assert g.presenter.state(seat, 5 if seat == 0 else None, memo=memo) == want
            assert g.presenter.state(1) == _state_reference(g, 1)
            for seat in (0, 1):  # the hand's reasons, the core's card by card
                got = json.loads(g.presenter.state(seat))["view"]["illegal"]
                assert got == _illegal_reference(g.round, seat)
                assert (
                    got
                    or g.round.to_move != seat
                    or all(g.round.is_legal(f"+{c}.") for c in g.round.hands[seat])
                )
            r = g.round
            if g.round_index == 2 and r.ply == 30:
                await g.resign(r.to_move)
                continue
            legal = r.legal_moves()
            move = legal[rng.randrange(len(legal))]
            await g.play(r.to_move, g.round_index, r.ply, str(move))
        for seat in (None, 0, 1):
            assert g.presenter.state(seat, memo=BroadcastMemo()) == _state_reference(g, seat)
        store.close()

    asyncio.run(play())


class _Clockless:
    """What a live game asks of its manager to write a state: the time (fixed), and who is
    at the table (one process)."""

    def __init__(self, now: datetime.datetime) -> None:
        self.now = lambda: now
        self.peers = SingleProcess()
        self.presence = Presence(self)  # type: ignore[arg-type]


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    plies=st.lists(st.integers(0, 130), min_size=1, max_size=3),
    variant=st.sampled_from(["classic", "long"]),
    achievements=st.booleans(),
    num_rounds=st.sampled_from([1, 3]),
    clock=st.sampled_from([None, (60, None), (300, 5), (3 * 86400, None)]),
    forfeit=st.booleans(),
    names=st.tuples(_TEXT, _TEXT),
    seats=st.lists(st.sampled_from([None, 0, 1]), max_size=4),
    acks=st.lists(st.one_of(st.none(), st.integers(-(2**70), 2**70), _TEXT), min_size=3),
    extras=st.tuples(
        st.sampled_from(["waiting", "active", "finished"]),
        st.one_of(st.none(), st.integers(0, 9)),
        st.one_of(st.none(), _TEXT),
        st.sampled_from([None, "random", "smart"]),
        st.one_of(st.none(), st.integers(0, 500), st.floats(0, 500)),
        st.integers(0, 10**6),
    ),
)
def test_state_json_is_the_models(
    seed: int,
    plies: list[int],
    variant: str,
    achievements: bool,
    num_rounds: int,
    clock: tuple[int, int | None] | None,
    forfeit: bool,
    names: tuple[str, str],
    seats: list[int | None],
    acks: list[int | str | None],
    extras: tuple[str, int | None, str | None, str | None, float | None, int],
) -> None:
    """The state message written as JSON text from its parts is, byte for byte, the
    pydantic models' (the documented schema) for random positions: both variants, goals,
    finished and forfeited rounds, either clock, odd names, bots, spectators, any ack."""
    status, hints, rematch, bot, left0, micros = extras
    rng = random.Random(seed)
    m = Match(num_rounds, variant=variant, seed=seed, achievements=achievements)
    for i, n in enumerate(plies[:num_rounds]):
        r = m.new_round()
        for _ in range(n):
            if r.is_over():
                break
            legal = r.legal_moves()
            r.push(legal[rng.randrange(len(legal))])
        if forfeit and i == len(plies[:num_rounds]) - 1 and not r.is_over():
            r.forfeit(rng.randrange(2), "resigned")
        if not r.is_over() or m.is_over():
            break
    now = datetime.datetime(2026, 12, 2, 10, 0, 0, micros % 10**6)
    row = GameRow(
        id="g" + str(seed),
        variant=variant,
        num_rounds=num_rounds,
        seed=seed,
        first_starter=0,
        status=status,
        result="*",
        level="hard" if bot else None,
        name0=names[0],
        name1=names[1],
        bot1=bot,
        token0=hash_token("t0"),
        token1=None if bot or status == "waiting" else hash_token("t1"),
        hints=hints,
        rematch_id=rematch,
        clock=None if clock is None else clock[0],
        clock_increment=None if clock is None else clock[1],
        clock_left0=None if clock is None or clock[1] is None else left0,
        updated_at=now - datetime.timedelta(seconds=micros / 1e4),
    )
    g = LiveGame(row, m, _Clockless(now))  # type: ignore[arg-type]
    g.conns = [Conn(sender=None, seat=s, alive=bool(i % 2)) for i, s in enumerate(seats)]  # type: ignore[arg-type]
    memo = BroadcastMemo()
    for i, seat in enumerate([None, 0, 1, *seats]):
        ack = acks[i % len(acks)]
        assert g.presenter.state(seat, ack, memo=memo) == _state_reference(g, seat, ack)
        assert g.summary(seat) == _summary_reference(g, seat)
        assert g.is_over() == m.is_over()
