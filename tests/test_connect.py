"""``lostcities connect`` against a small fake of the bot API (tests/connect_fake.py, which
follows docs/bot-api.md): the challenge policy, whole games with a built-in bot and with a
``cmd:`` program, illegal-move retries, reconnection after dropped, silent and restarted
streams, stopping (finish or resign), bot against bot, refusals.

Every wait is on a condition (the fake's state or a reported event), never a fixed time;
the fake's own players move by a seeded generator.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from connect_fake import FakeBotServer

from lostcities.bots import Bot, register
from lostcities.connect import (
    ChallengePolicy,
    ChallengeRefusedError,
    ChallengeRequest,
    ConnectConfig,
    Connector,
    Reporter,
    ServerRefusedError,
    ServerUnreachableError,
    parse_clocks,
)
from lostcities.rules import Move, PlayerView

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "lct_bot1-secret-token-for-tests-0000000000000"
TOKEN2 = "lct_bot2-secret-token-for-tests-0000000000000"
TIMEOUT = 60.0


class LiarBot(Bot):
    """Always sends a move the rules forbid (discard a card and draw it back)."""

    name = "liar"

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        card = view.hand[0]
        return Move.parse(f"-{card}{str(card)[0]}")


register("liar", lambda options, seed: LiarBot(seed))


@pytest.fixture
def fake() -> Iterator[FakeBotServer]:
    server = FakeBotServer(
        {TOKEN: "bot1", TOKEN2: "bot2", "lct_person-token-000": "ana"},
        bots={"bot1", "bot2"},
        house={"ana", "house"},
    )
    with server:
        yield server


def config(fake: FakeBotServer, **kw: Any) -> ConnectConfig:
    settings: dict[str, Any] = {
        "url": fake.url,
        "token": TOKEN,
        "engine": "heuristic",
        "seed": 1,
        "retry_base": 0.05,
        "retry_max": 0.2,
        "stream_timeout": 5.0,
        "move_time": 1.0,
        **kw,
    }
    return ConnectConfig(**settings)


async def until(cond: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Wait (polling) until ``cond()``; fail saying ``what`` after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def events(reporter: Reporter, event: str, **match: Any) -> list[dict[str, Any]]:
    return [
        r
        for r in reporter.history
        if r["event"] == event and all(r.get(k) == v for k, v in match.items())
    ]


def moves_of(fake: FakeBotServer, account: str) -> list[dict[str, Any]]:
    return [body for who, _, _, body in fake.posted("/move") if who == account]


def round_ply(fake: FakeBotServer, game_id: str) -> tuple[int, int]:
    with fake.lock:
        m = fake.games[game_id].match
        return len(m.rounds), m.rounds[-1].ply


# -- the challenge policy -----------------------------------------------------------------


def challenge(**kw: Any) -> dict[str, Any]:
    base = {
        "variant": "classic",
        "rounds": 3,
        "clock": "300+5",
        "rated": False,
        "challenger": {"name": "ana", "bot": False, "rating": 1500},
    }
    return {**base, **kw}


@pytest.mark.parametrize(
    ("policy", "offer", "reason"),
    [
        (ChallengePolicy(), challenge(), None),
        (ChallengePolicy(variants=frozenset({"long"})), challenge(), "variant"),
        (ChallengePolicy(rated=False), challenge(rated=True), "casual"),
        (ChallengePolicy(casual=False), challenge(), "rated"),
        (ChallengePolicy(clocks=parse_clocks("300..")), challenge(clock="60"), "tooFast"),
        (ChallengePolicy(clocks=parse_clocks("..600")), challenge(clock="3d"), "tooSlow"),
        (ChallengePolicy(clocks=parse_clocks("..600")), challenge(clock=None), "tooSlow"),
        (ChallengePolicy(clocks=parse_clocks("60,3d")), challenge(), "timeControl"),
        (ChallengePolicy(clocks=parse_clocks("300+5")), challenge(clock="300+10"), "timeControl"),
        (ChallengePolicy(clocks=parse_clocks("none")), challenge(clock=None), None),
        (ChallengePolicy(clocks=parse_clocks("correspondence")), challenge(clock="7d"), None),
        (ChallengePolicy(rounds=frozenset({1})), challenge(), "generic"),
        (ChallengePolicy(bots=False), challenge(challenger={"name": "b", "bot": True}), "noBot"),
        (ChallengePolicy(people=False), challenge(), "onlyBot"),
    ],
)
def test_the_policy_gives_the_doc_s_decline_reasons(
    policy: ChallengePolicy, offer: dict[str, Any], reason: str | None
) -> None:
    assert policy.decline_reason(offer, running=0) == reason


def test_a_full_house_declines_later() -> None:
    policy = ChallengePolicy(max_games=2)
    assert policy.decline_reason(challenge(), running=1) is None
    assert policy.decline_reason(challenge(), running=2) == "later"


# -- whole games ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_accepts_a_challenge_and_plays_the_match_with_a_built_in_bot(
    fake: FakeBotServer,
) -> None:
    reporter = Reporter("error")
    fake.offer("ana", "bot1", rounds=3)
    summary = await asyncio.wait_for(Connector(config(fake, games=1), reporter).run(), TIMEOUT)
    assert summary.accepted == 1 and len(summary.results) == 1
    result = summary.results[0]
    game = fake.game(result.id)
    assert game.status == "finished" and game.ending == "normal"
    assert len(game.match.rounds) == 3
    seat = game.players.index("bot1")
    totals = game.match.totals()
    assert result.score == (totals[seat], totals[seat ^ 1])
    winner = game.match.winner()
    assert result.outcome == ("draw" if winner is None else "won" if winner == seat else "lost")
    # every move of bot1 in the record was sent once, with its round and ply
    sent = moves_of(fake, "bot1")
    made = sum(
        1 for r in game.match.rounds for i, _ in enumerate(r.history) if r.starter ^ i % 2 == seat
    )
    assert len(sent) == made
    assert all({"move", "round", "ply"} <= set(body) for body in sent)
    # a progress line per round and the result
    lines = events(reporter, "game", game=result.id)
    assert [line["round"] for line in lines] == [1, 2, 3, 3]
    assert lines[-1]["status"].startswith(result.outcome)
    assert lines[0]["opponent"] == "ana" and lines[0]["variant"] == "classic"


@pytest.mark.asyncio
async def test_a_move_answered_after_its_state_is_seen_through(fake: FakeBotServer) -> None:
    # the real server wakes the game streams before it answers a move: the state after the
    # move (the house has moved too: the bot's turn again) comes before the move's answer,
    # which must still be awaited (not cut off with the turn) and every move reported once
    fake.ack_after_state = True
    fake.offer("ana", "bot1", rounds=1)
    reporter = Reporter("error")
    summary = await asyncio.wait_for(Connector(config(fake, games=1), reporter).run(), TIMEOUT)
    game = fake.game(summary.results[0].id)
    assert game.status == "finished"
    seat = game.players.index("bot1")
    r = game.match.rounds[0]
    made = [str(mv) for i, mv in enumerate(r.history) if r.starter ^ i % 2 == seat]
    reported = [r["move"] for r in events(reporter, "move") if "move" in r and "code" not in r]
    assert reported == made
    assert len(moves_of(fake, "bot1")) == len(made)


@pytest.mark.asyncio
async def test_a_cmd_engine_plays_a_round(fake: FakeBotServer) -> None:
    engine = f"cmd:{sys.executable} {ROOT / 'examples' / 'bot.py'}"
    fake.offer("ana", "bot1", rounds=1, variant="long")
    reporter = Reporter("error")
    summary = await asyncio.wait_for(
        Connector(config(fake, games=1, engine=engine), reporter).run(), TIMEOUT
    )
    game = fake.game(summary.results[0].id)
    assert game.status == "finished" and game.variant == "long"
    assert game.match.rounds[0].is_over()
    assert not events(reporter, "engine"), "the program answered every go"
    assert not events(reporter, "illegal")


@pytest.mark.asyncio
async def test_declines_by_policy_and_accepts_what_it_allows(fake: FakeBotServer) -> None:
    policy = ChallengePolicy(
        variants=frozenset({"classic"}), rated=False, clocks=parse_clocks("180..600")
    )
    declined = {
        fake.offer("ana", "bot1", variant="long"): "variant",
        fake.offer("ana", "bot1", rated=True): "casual",
        fake.offer("ana", "bot1", clock="60"): "tooFast",
        fake.offer("ana", "bot1", clock="1d"): "tooSlow",
    }
    accepted = fake.offer("ana", "bot1", rounds=1, clock="300+5")
    reporter = Reporter("error")
    summary = await asyncio.wait_for(
        Connector(config(fake, policy=policy, games=1), reporter).run(), TIMEOUT
    )
    assert summary.accepted == 1 and summary.declined == 4
    with fake.lock:
        assert {c: fake.challenges[c].get("decline_reason") for c in declined} == declined
        assert fake.challenges[accepted]["status"] == "accepted"
    assert fake.game(summary.results[0].id).status == "finished"


@pytest.mark.asyncio
async def test_more_games_than_max_games_are_declined_later(fake: FakeBotServer) -> None:
    fake.hold = True  # the first game waits on its first move
    first = fake.offer("ana", "bot1", rounds=3)
    connector = Connector(config(fake), Reporter("error"))
    task = asyncio.create_task(connector.run())
    await until(lambda: fake.challenges[first]["status"] == "accepted", "the first accepted")
    second = fake.offer("ana", "bot1", rounds=1)
    await until(lambda: fake.challenges[second]["status"] == "declined", "the second declined")
    assert fake.challenges[second]["decline_reason"] == "later"
    connector.stop(resign=True)
    await asyncio.wait_for(task, TIMEOUT)


# -- illegal moves ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_moves_refused_as_illegal_are_retried(fake: FakeBotServer) -> None:
    fake.refuse_moves = 3
    fake.offer("ana", "bot1", rounds=1)
    reporter = Reporter("error")
    summary = await asyncio.wait_for(Connector(config(fake, games=1), reporter).run(), TIMEOUT)
    assert len(events(reporter, "illegal")) == 3
    assert fake.game(summary.results[0].id).status == "finished"


@pytest.mark.asyncio
async def test_a_move_that_cannot_be_delivered_is_sent_until_it_is(fake: FakeBotServer) -> None:
    # a server away for longer than a few back-offs (restarting): the move is sent again
    # for as long as it takes, not given up after a number of tries and left to the clock
    fake.fail_moves = 12
    fake.offer("ana", "bot1", rounds=1)
    reporter = Reporter("error")
    summary = await asyncio.wait_for(Connector(config(fake, games=1), reporter).run(), TIMEOUT)
    assert fake.game(summary.results[0].id).status == "finished"
    assert len(events(reporter, "reconnect")) == 12
    assert not [r for r in reporter.history if r["level"] == "error"]


@pytest.mark.asyncio
async def test_an_engine_that_sends_illegal_moves_is_covered_by_legal_ones(
    fake: FakeBotServer,
) -> None:
    fake.offer("ana", "bot1", rounds=1)
    reporter = Reporter("error")
    summary = await asyncio.wait_for(
        Connector(config(fake, games=1, engine="liar"), reporter).run(), TIMEOUT
    )
    game = fake.game(summary.results[0].id)
    assert game.status == "finished"
    refused = events(reporter, "illegal")
    sent = moves_of(fake, "bot1")
    assert refused and len(sent) > len(refused)
    # each turn: the engine's illegal move refused once (a repeat is not sent again), then
    # a legal one
    turns: dict[tuple[int, int], list[str]] = {}
    for body in sent:
        turns.setdefault((body["round"], body["ply"]), []).append(body["move"])
    assert all(len(moves) == 2 and moves[0] != moves[1] for moves in turns.values())


# -- reconnection ------------------------------------------------------------------------------


async def _start_and_wait_for_play(
    fake: FakeBotServer, **kw: Any
) -> tuple[Connector, asyncio.Task[Any], str, Reporter]:
    """A connector playing a game that is parked mid-round at the house's turn (the
    test disturbs it, then calls ``fake.release()``)."""
    reporter = Reporter("error")
    fake.hold_after = 6
    fake.offer("ana", "bot1", rounds=kw.pop("rounds", 1))
    connector = Connector(config(fake, **kw), reporter)
    task = asyncio.create_task(connector.run())
    await until(lambda: bool(fake.games), "the game")
    game_id = next(iter(fake.games))
    await until(lambda: fake.parked(game_id), "the game parked")
    assert round_ply(fake, game_id) == (1, 6)
    return connector, task, game_id, reporter


@pytest.mark.asyncio
async def test_dropped_streams_are_reopened_and_the_game_goes_on(fake: FakeBotServer) -> None:
    _connector, task, game_id, reporter = await _start_and_wait_for_play(fake, games=1)
    with fake.lock:
        last_event = fake.events["bot1"][-1]["event_id"]
        opens = len(fake.stream_opens)
    fake.drop_streams()
    await until(lambda: len(fake.stream_opens) >= opens + 2, "the streams reopened")
    fake.release()
    summary = await asyncio.wait_for(task, TIMEOUT)
    assert fake.game(game_id).status == "finished"
    assert summary.results[0].outcome in ("won", "lost", "draw")
    reopened = fake.stream_opens[opens:]
    assert ("bot1", "/api/bot/stream/event", str(last_event)) in reopened
    assert ("bot1", f"/api/bot/game/stream/{game_id}", None) in reopened
    assert events(reporter, "reconnect")


@pytest.mark.asyncio
async def test_a_server_restart_mid_game_is_survived(fake: FakeBotServer) -> None:
    _connector, task, game_id, reporter = await _start_and_wait_for_play(fake, games=1)
    await asyncio.to_thread(fake.restart, 0.5)
    fake.release()
    summary = await asyncio.wait_for(task, TIMEOUT)
    assert fake.game(game_id).status == "finished"
    assert summary.results[0].id == game_id
    assert len(events(reporter, "reconnect")) >= 2  # the event stream and the game's


@pytest.mark.asyncio
async def test_a_silent_stream_is_taken_for_lost(fake: FakeBotServer) -> None:
    _connector, task, game_id, reporter = await _start_and_wait_for_play(
        fake, games=1, stream_timeout=0.3
    )
    with fake.lock:
        opens = len(fake.stream_opens)
        fake.stall = True
    await until(lambda: len(fake.stream_opens) >= opens + 4, "the streams reopened")
    with fake.lock:
        fake.stall = False
    fake.release()
    await asyncio.wait_for(task, TIMEOUT)
    assert fake.game(game_id).status == "finished"
    assert any("ReadTimeout" in r["text"] for r in events(reporter, "reconnect"))


@pytest.mark.asyncio
async def test_a_game_being_played_is_taken_up_on_connect(fake: FakeBotServer) -> None:
    """A connector killed mid-game and started again: the event stream's first lines
    name the game, gameFull says where it stands, and it is played to its end."""
    game_id = fake.start_game(("house", "bot1"), rounds=1)
    with fake.lock:
        r = fake.games[game_id].match.current
        assert r is not None
        # two of bot1's moves made "before the kill"
        for _ in range(2):
            assert r.to_move == 1
            r.push(r.legal_moves()[0])
            fake.games[game_id].version += 1
            # the house answers
            r.push(r.legal_moves()[0])
    summary = await asyncio.wait_for(Connector(config(fake, games=1)).run(), TIMEOUT)
    assert summary.results[0].id == game_id
    assert fake.game(game_id).status == "finished"
    assert moves_of(fake, "bot1")[0]["ply"] == 5


# -- stopping ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_stop_finishes_the_games_and_declines_new_challenges(fake: FakeBotServer) -> None:
    connector, task, game_id, reporter = await _start_and_wait_for_play(fake, rounds=3)
    connector.interrupt()  # Ctrl-C, --on-exit finish
    assert events(reporter, "stopping", mode="finishing", running=1)
    late = fake.offer("ana", "bot1", rounds=1)
    await until(lambda: fake.challenges[late]["status"] == "declined", "the late one declined")
    assert fake.challenges[late]["decline_reason"] == "later"
    fake.release()
    summary = await asyncio.wait_for(task, TIMEOUT)
    game = fake.game(game_id)
    assert game.status == "finished" and game.ending == "normal"
    assert len(game.match.rounds) == 3
    assert summary.interrupted and summary.results[0].outcome != "left"
    assert not fake.posted("/resign")


@pytest.mark.asyncio
async def test_stop_with_resign_resigns_the_games(fake: FakeBotServer) -> None:
    connector, task, game_id, reporter = await _start_and_wait_for_play(
        fake, rounds=3, on_exit="resign"
    )
    connector.interrupt()
    assert events(reporter, "stopping", mode="resigning", running=1)
    summary = await asyncio.wait_for(task, TIMEOUT)
    game = fake.game(game_id)
    assert game.status == "finished" and game.ending == "resigned"
    assert len(fake.posted("/resign")) == 1
    assert summary.results[0].outcome == "lost"


@pytest.mark.asyncio
async def test_a_second_interrupt_resigns_what_the_first_was_finishing(
    fake: FakeBotServer,
) -> None:
    connector, task, game_id, _reporter = await _start_and_wait_for_play(fake, rounds=3)
    connector.interrupt()
    connector.interrupt()
    await asyncio.wait_for(task, TIMEOUT)
    assert fake.game(game_id).ending == "resigned"


@pytest.mark.asyncio
async def test_a_resignation_that_cannot_be_delivered_leaves_the_game(
    fake: FakeBotServer,
) -> None:
    connector, task, game_id, reporter = await _start_and_wait_for_play(fake, rounds=3)
    await asyncio.to_thread(fake.stop)  # the server is gone for good
    connector.stop(resign=True)
    summary = await asyncio.wait_for(task, TIMEOUT)
    assert [r.outcome for r in summary.results] == ["left"]
    assert fake.game(game_id).status == "started"
    assert any("resigning again" in r["text"] for r in events(reporter, "reconnect"))


# -- bot against bot ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_two_connectors_play_a_challenge_to_its_end(fake: FakeBotServer) -> None:
    engine = f"cmd:{sys.executable} {ROOT / 'examples' / 'bot.py'}"
    one = Connector(config(fake, games=1), Reporter("error"))
    two = Connector(
        config(
            fake,
            token=TOKEN2,
            engine=engine,
            games=1,
            challenge=ChallengeRequest("bot1", rounds=3, rated=True),
        ),
        Reporter("error"),
    )
    a, b = await asyncio.wait_for(asyncio.gather(one.run(), two.run()), TIMEOUT * 2)
    (ra,), (rb,) = a.results, b.results
    assert ra.id == rb.id and ra.score == rb.score[::-1]
    assert {ra.outcome, rb.outcome} in ({"won", "lost"}, {"draw"})
    game = fake.game(ra.id)
    assert game.players == ("bot2", "bot1") and game.rated and len(game.match.rounds) == 3


@pytest.mark.asyncio
async def test_a_declined_challenge_ends_the_run_with_its_reason(fake: FakeBotServer) -> None:
    one = Connector(
        config(fake, policy=ChallengePolicy(variants=frozenset({"classic"}))),
        Reporter("error"),
    )
    two = Connector(
        config(fake, token=TOKEN2, challenge=ChallengeRequest("bot1", variant="long")),
        Reporter("error"),
    )
    task = asyncio.create_task(one.run())
    with pytest.raises(ChallengeRefusedError, match=r"bot1 declined the challenge \(variant\)"):
        await asyncio.wait_for(two.run(), TIMEOUT)
    one.stop()
    await asyncio.wait_for(task, TIMEOUT)


# -- refusals ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_refused_token_ends_the_run_with_one_clear_error(fake: FakeBotServer) -> None:
    reporter = Reporter("error")
    with pytest.raises(ServerRefusedError, match="bad_token") as info:
        await asyncio.wait_for(Connector(config(fake, token="lct_wrong"), reporter).run(), 10)
    assert "lct_wrong" not in str(info.value)
    with pytest.raises(ServerRefusedError, match="not a bot account"):
        await asyncio.wait_for(Connector(config(fake, token="lct_person-token-000")).run(), TIMEOUT)


@pytest.mark.asyncio
async def test_an_unreachable_server_at_the_start_is_an_error() -> None:
    fake = FakeBotServer({})  # never started: nothing listens on its port
    with pytest.raises(ServerUnreachableError, match="cannot reach"):
        await asyncio.wait_for(Connector(config(fake)).run(), TIMEOUT)


def test_the_token_is_never_reported(fake: FakeBotServer) -> None:
    out: list[str] = []

    class Sink:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    reporter = Reporter("debug", json_lines=True, out=Sink())  # type: ignore[arg-type]
    fake.offer("ana", "bot1", rounds=1)
    cfg = config(fake, games=1)
    assert TOKEN not in repr(cfg)
    done = threading.Event()

    def drop_once() -> None:
        done.wait(0.2)
        fake.drop_streams()

    threading.Thread(target=drop_once, daemon=True).start()
    asyncio.run(asyncio.wait_for(Connector(cfg, reporter).run(), TIMEOUT))
    done.set()
    text = "".join(out)
    assert TOKEN not in text and "secret" not in text
    assert all(json.loads(line)["event"] for line in text.splitlines())
