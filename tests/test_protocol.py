"""The bot protocol: position lines, the async core over a scripted transport, the
blocking wrapper, the bot side, and real bot programs (well and badly behaved)."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lostcities import Match, Move, PlayerView, Round, get_variant
from lostcities.bots import (
    BotError,
    BotSpecError,
    BotTerminatedError,
    BotTimeoutError,
    make,
)
from lostcities.bots.external import ExternalBot, split_command
from lostcities.protocol import (
    BotProtocol,
    MockTransport,
    PositionError,
    PositionReader,
    ProgramError,
    SimpleBot,
    position_lines,
    run_engine,
    serve,
    wire,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "bot.py"
BADBOT = ROOT / "tests" / "bots" / "misbehaving" / "badbot.py"
PY = sys.executable
ENGINE_RANDOM = f"{PY} -m lostcities.cli bot random"


def played(seed: int, plies: int, variant: str = "classic", max_turns: int | None = None) -> Round:
    """A round after ``plies`` random moves (fewer if it ends first)."""
    rng = random.Random(seed)
    r = Round.deal(seed=seed, variant=variant, starter=seed & 1, max_turns=max_turns)
    for _ in range(plies):
        if r.is_over():
            break
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    return r


def read_back(lines: list[str], variant: str, seat: int) -> object:
    reader = PositionReader()
    reader.newgame(variant, seat)
    for line in lines:
        reader.feed(line)
    return reader.view()


# -- position lines ---------------------------------------------------------------------------


@given(
    seed=st.integers(0, 10**6),
    plies=st.integers(0, 120),
    variant=st.sampled_from(["classic", "long"]),
    cap=st.sampled_from([None, 200]),
)
def test_position_lines_round_trip_the_view(
    seed: int, plies: int, variant: str, cap: int | None
) -> None:
    r = played(seed, plies, variant, cap)
    if r.is_over():
        r.pop()
    p = r.to_move
    view = r.view(p)
    assert read_back(position_lines(view), variant, p) == view


def test_position_lines_show_only_what_the_player_may_know() -> None:
    for seed in range(30):
        r = played(seed, 40)
        if r.is_over():
            continue
        p = r.to_move
        text = " ".join(position_lines(r.view(p)))
        secret = set(map(str, r.hands[p ^ 1])) - set(map(str, r.known_cards(p ^ 1)))
        visible = set(map(str, r.hands[p]))
        for e in (*r.expeditions[0].values(), *r.expeditions[1].values()):
            visible |= set(map(str, e))
        for pile in r.discard_piles.values():
            visible |= set(map(str, pile))
        for m in r.history:
            visible.add(str(m.card))
        hidden = secret - visible
        tokens = set(text.split())
        assert not hidden & tokens, f"seed {seed}: leaked {hidden & tokens}"
        draw_pile_order = " ".join(map(str, r.draw_pile))
        assert draw_pile_order not in text


def test_position_lines_are_a_function_of_the_view() -> None:
    # Two different deals that look the same to player 0 give the same lines.
    r = played(7, 6)
    view = r.view(r.to_move)
    twin = view.sample_round(random.Random(1))
    assert twin.view(view.player).hand == view.hand
    assert position_lines(twin.view(view.player))[:8] == position_lines(view)[:8]


@pytest.mark.parametrize(
    "line",
    ["hand y11", "deck -3", "deck many", "expeditions 2 y3", "known x", "moves +y7", "lastmove *"],
)
def test_position_reader_rejects_bad_lines(line: str) -> None:
    reader = PositionReader()
    reader.newgame("classic", 0)
    reader.feed("hand y3")
    with pytest.raises(PositionError):
        reader.feed(line)
    assert reader.fields == {"hand": (reader.fields["hand"][0],)}


def test_position_reader_needs_newgame_and_a_full_position() -> None:
    reader = PositionReader()
    with pytest.raises(PositionError, match="no newgame"):
        reader.view()
    with pytest.raises(PositionError, match="seat"):
        reader.newgame("classic", 2)
    with pytest.raises(PositionError, match="variant"):
        reader.newgame("short", 0)
    reader.newgame("classic", 1)
    reader.feed("hand y3 y4")
    with pytest.raises(PositionError, match="no ply, deck"):
        reader.view()


# -- the other messages ------------------------------------------------------------------------


def test_every_message_parses_back() -> None:
    for variant in ("classic", "long"):
        for seat in (0, 1):
            line = wire.newgame_line(variant, seat)
            assert wire.parse_newgame(line.split()) == (get_variant(variant), seat)
    assert wire.parse_seed(wire.seed_line(42).split()) == 42
    for text in ("+y7.", "-r10b", "+gxw"):
        m = Move.parse(text)
        for p in (0, 1):
            assert wire.parse_moved(wire.moved_line(p, m).split()) == (p, m)
        assert wire.parse_move_answer(wire.move_line(m).split()) == (m, ())
    assert wire.parse_move_answer(["move", "+y7.", "ponder"]) == (Move.parse("+y7."), ("ponder",))
    for seconds, ms in ((1.5, 1500), (0.0001, 1), (10.0, 10000)):
        assert wire.go_line(seconds) == f"go {ms}"
        assert wire.parse_go(wire.go_line(seconds).split()) == ms
    assert wire.handshake_lines("x") == ["id name x", "lcpok"]
    assert {line.split()[0] for line in wire.handshake_lines("x", "y")} <= wire.ANSWERS
    parse = {"newgame": wire.parse_newgame, "moved": wire.parse_moved, "go": wire.parse_go}
    for line in [
        "newgame classic",
        "newgame classic 2",
        "newgame short 0",
        "moved 2 +y7.",
        "go soon",
    ]:
        words = line.split()
        with pytest.raises(PositionError):
            parse[words[0]](words)


# -- the async core over a scripted transport ----------------------------------------------------


def script_position(
    mock: MockTransport, view: object, ms: int, responses: list[str | bytes], **kw: object
) -> None:
    lines = position_lines(view)  # type: ignore[arg-type]
    mock.expect_many(lines)
    mock.expect(f"go {ms}", responses, **kw)  # type: ignore[arg-type]


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_handshake_collects_id_and_skips_info(caplog: pytest.LogCaptureFixture) -> None:
    mock = MockTransport()
    mock.expect("lcp", ["info starting up", "id name My Bot", "id author Ann", "lcpok"])
    mock.expect("isready", ["readyok"])

    async def go() -> BotProtocol:
        bot = BotProtocol(mock)
        await bot.initialize()
        await bot.ping()
        return bot

    with caplog.at_level(logging.INFO, "lostcities.protocol"):
        bot = run(go())
    assert isinstance(bot, BotProtocol)
    assert bot.id == {"name": "My Bot", "author": "Ann"}
    assert bot.name == "My Bot"
    assert list(bot.infos) == ["starting up"]
    assert "starting up" in caplog.text
    mock.assert_done()


def test_play_returns_the_move_after_warning_about_junk(caplog: pytest.LogCaptureFixture) -> None:
    r = played(3, 4)
    view = r.view(r.to_move)
    legal = view.legal_moves()[0]
    mock = MockTransport()
    script_position(
        mock, view, 1500, ["bestmove e2e4", b"\xff\xfe junk", "", "info nodes 7", f"move {legal}"]
    )

    with caplog.at_level(logging.WARNING, "lostcities.protocol"):
        move = run(BotProtocol(mock).play(view, 1.5))
    assert move == legal
    assert "unexpected line 'bestmove e2e4'" in caplog.text
    assert "undecodable" in caplog.text
    mock.assert_done()


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("move banana", "bad move: invalid move: 'banana'"),
        ("move", "bad move"),
        ("move +y7", "bad move"),
        ("move + y7.", "bad move"),
    ],
)
def test_bad_notation_is_a_bot_error(answer: str, message: str) -> None:
    view = Round.deal(seed=1).view(0)
    mock = MockTransport()
    script_position(mock, view, 100, [answer])
    with pytest.raises(BotError, match=message):
        run(BotProtocol(mock).play(view, 0.1))


def test_illegal_move_is_a_bot_error_with_the_rules_reason() -> None:
    r = Round.deal(seed=1)
    view = r.view(0)
    missing = next(c for c in r.variant.deck() if c not in view.hand and not c.is_wager)
    mock = MockTransport()
    script_position(mock, view, 100, [f"move +{missing}."])
    with pytest.raises(
        BotError, match=f"illegal move: '\\+{missing}.' \\({missing} is not in player 0's hand\\)"
    ):
        run(BotProtocol(mock).play(view, 0.1))


def test_dead_bot_is_terminated_error_with_exit_code() -> None:
    view = Round.deal(seed=1).view(0)
    mock = MockTransport()
    script_position(mock, view, 100, ["info dying"], exit=3)
    with pytest.raises(BotTerminatedError, match="exit code 3"):
        run(BotProtocol(mock).play(view, 0.1))
    with pytest.raises(BotTerminatedError):
        run(BotProtocol(mock).inform(Move.parse("+y7."), 0))


def test_mock_checks_the_script() -> None:
    mock = MockTransport()
    mock.expect("lcp", ["lcpok"])
    with pytest.raises(AssertionError, match="expected 'lcp', got 'isready'"):
        run(BotProtocol(mock).ping())
    mock2 = MockTransport()
    mock2.expect("lcp")
    with pytest.raises(AssertionError, match="still expects"):
        mock2.assert_done()


def test_newgame_seed_and_inform_lines() -> None:
    mock = MockTransport()
    mock.expect("newgame long 1")
    mock.expect("seed 42")
    mock.expect("moved 0 -r10b")

    async def go() -> None:
        bot = BotProtocol(mock)
        await bot.newgame("long", 1, seed=42)
        await bot.inform(Move.parse("-r10b"), 0)

    run(go())
    mock.assert_done()


def test_simple_bot_times_out_and_marks_itself_out_of_sync() -> None:
    view = Round.deal(seed=1).view(0)
    mock = MockTransport()
    script_position(mock, view, 50, [b"\xff", "hmm"])
    bot = SimpleBot.from_transport(mock, grace=0.05)
    try:
        # the mock never answers: only the deadline (time limit + grace, the message's
        # 0.1 s) ends the call, so its returning is the test, whatever the machine's speed
        with pytest.raises(
            BotTimeoutError,
            match=re.escape("within 0.1 s; 1 undecodable line dropped; 1 unknown line dropped"),
        ):
            bot.play(view, 0.05)
        assert bot.out_of_sync
    finally:
        bot.close()
    with pytest.raises(BotTerminatedError, match="closed"):
        bot.play(view, 0.05)


# -- the bot side ----------------------------------------------------------------------------


def engine_transcript(lines: list[str], spec: str = "random") -> list[str]:
    out = io.StringIO()
    code = run_engine(
        lambda seed: make(spec, seed=seed), stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out
    )
    assert code == 0
    return out.getvalue().splitlines()


def test_engine_side_handshake_and_move() -> None:
    r = played(11, 10)
    view = r.view(r.to_move)
    lines = [
        "lcp",
        "isready",
        f"newgame classic {view.player}",
        "seed 5",
        *position_lines(view),
        "go 1000",
        "quit",
        "go 1",
    ]
    out = engine_transcript(lines)
    assert out[:4] == ["id name lostcities", "id author the lostcities project", "lcpok", "readyok"]
    assert len(out) == 5 and out[4].startswith("move ")
    assert r.is_legal(out[4].split()[1])
    # the seed makes it reproducible
    assert engine_transcript(lines) == out


def test_engine_side_answers_bad_lines_with_info_and_goes_on() -> None:
    out = engine_transcript(["hello", "hand y99", "newgame classic 7", "isready"])
    assert out[0] == "info error unknown command 'hello' ignored"
    assert out[1].startswith("info error bad hand line")
    assert out[2].startswith("info error bad newgame line")
    assert out[3] == "readyok"


def test_serve_takes_any_player() -> None:
    class First:  # choose only: no restart, inform or close
        def choose(self, view: object, time_limit: float | None = None) -> Move:
            return view.legal_moves()[0]  # type: ignore[attr-defined, no-any-return]

    r = played(4, 6)
    view = r.view(r.to_move)
    lines = [
        f"newgame classic {view.player}",
        "seed 3",
        "moved 0 +y7.",
        *position_lines(view),
        "go 50",
    ]
    out = io.StringIO()
    assert serve(First(), name="first", stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out) == 0
    assert out.getvalue() == f"move {view.legal_moves()[0]}\n"


def test_engine_side_refuses_to_move_without_a_position() -> None:
    out = engine_transcript(["newgame classic 0", "hand y3 y4", "go 100", "isready"])
    assert out == [
        "info error position incomplete before go: no ply, deck, expeditions 0, expeditions 1,"
        " discards lines",
        "readyok",  # and goes on
    ]


def _position(view: PlayerView, **lines: str) -> list[str]:
    """``view``'s position lines with some replaced, by keyword (``expeditions_1=...``)."""
    out = position_lines(view)
    for key, text in lines.items():
        kw = key.replace("_", " ")
        out = [text if line == kw or line.startswith(kw + " ") else line for line in out]
    return out


@pytest.mark.parametrize(
    ("lines", "why"),
    [
        ({"hand": "hand"}, "bad hand line: 0 cards, a hand has 8"),
        ({"hand": "hand y2 y3 y4 y5 y6 y7 y8 y9 y10"}, "bad hand line: 9 cards"),
        (
            {"hand": "hand p5 y2 y3 y4 y5 y6 y7 y8"},
            "bad hand line: p5 is not a card of the classic variant",
        ),
        ({"deck": "deck 0"}, "bad deck line: 0 cards: the round is over"),
        ({"deck": "deck 30"}, "bad deck line: 30 cards, where the cards on the table leave 44"),
        (
            {"expeditions_1": "expeditions 1 HANDCARD"},
            "times (the hand and expeditions 1 lines), the deck has 1",
        ),
        (
            {"expeditions_0": "expeditions 0 b5 b3"},
            "bad expeditions 0 line: invalid expedition: b3 is lower",
        ),
        ({"known_0": "known 0 NOTINHAND"}, "bad known 0 line: it names cards not in your hand"),
        # issue 37 item 24: a moves line that contradicts ply, a ply no round reaches, a cap
        # of 0
        ({"ply": "ply 5"}, "bad moves line: 0 moves, where the ply line says 5"),
        ({"ply": "ply 99999999"}, "bad moves line: 0 moves, where the ply line says 99999999"),
        ({"moves": "moves -y2."}, "bad moves line: 1 move, where the ply line says 0"),
        ({"maxturns": "maxturns 0"}, "bad maxturns line: 0: a round needs at least 1 move"),
        (
            {
                "ply": "ply 0",
                "expeditions_0": "expeditions 0 y2",
                "deck": "deck 43",
                "moves": "moves",
            },
            "bad ply line: 0 moves cannot have laid the 1 card on the table",
        ),
    ],
)
def test_engine_side_answers_an_impossible_position_with_info_and_goes_on(
    lines: dict[str, str], why: str
) -> None:
    # issue 26: an empty hand crashed the bot (no legal move), a purple card in the classic
    # game crashed it (IndexError); a 9-card hand, deck 0, a card twice went through
    view = Round.deal(seed=3, starter=0).view(0)
    hand = view.hand
    card = next(c for c in hand if not c.is_wager)
    other = next(c for c in view.variant.deck() if c not in hand and not c.is_wager)
    lines = {
        k: v.replace("HANDCARD", str(card)).replace("NOTINHAND", str(other))
        for k, v in lines.items()
    }
    bad = _position(view, **lines)
    assert bad != position_lines(view)
    out = engine_transcript(
        ["newgame classic 0", *bad, "go 100", "isready", *position_lines(view), "go 100"],
        spec="heuristic",
    )
    assert len(out) == 3 and out[0].startswith("info error ") and why in out[0], out
    assert out[1] == "readyok" and Move.parse(out[2].split()[1]) in view.legal_moves()  # it goes on


def test_engine_side_says_a_failing_player_and_goes_on() -> None:
    class Broken:
        def __init__(self) -> None:
            self.calls = 0

        def choose(self, view: object, time_limit: float | None = None) -> Move:
            self.calls += 1
            if self.calls == 1:
                raise IndexError("list index out of range")
            return view.legal_moves()[0]  # type: ignore[attr-defined, no-any-return]

        def inform(self, move: Move, player: int) -> None:
            raise RuntimeError("confused")

    view = played(4, 6).view(played(4, 6).to_move)
    lines = [
        f"newgame classic {view.player}",
        *position_lines(view),
        "go 50",
        "moved 0 +y7.",
        "go 50",
    ]
    out = io.StringIO()
    assert serve(Broken(), stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out) == 0
    assert out.getvalue().splitlines() == [
        "info error no move: the bot failed (IndexError: list index out of range)",
        "info error the bot failed on inform (RuntimeError: confused)",
        f"move {view.legal_moves()[0]}",
    ]


def test_lostcities_bot_survives_bad_input_without_a_traceback() -> None:
    script = "newgame classic 0\nply 0\ndeck 44\nhand\nexpeditions 0\nexpeditions 1\ndiscards\ngo 100\nisready\n"
    p = subprocess.run(
        [PY, "-m", "lostcities.cli", "bot", "random"],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert p.stdout.splitlines() == [
        "info error bad hand line: 0 cards, a hand has 8 at your turn",
        "readyok",
    ]


# -- real programs ------------------------------------------------------------------------------


def referee(bot0: object, bot1: object, seed: int, time_limit: float = 2.0) -> Round:
    from lostcities.arena import play_round

    return play_round([bot0, bot1], Round.deal(seed=seed, starter=seed & 1), time_limit=time_limit)  # type: ignore[list-item]


def test_example_bot_plays_full_rounds_legally() -> None:
    bot = make(f"cmd:{PY} {EXAMPLE}")
    try:
        assert bot.id == {"name": "examplebot", "author": "the lostcities project"}  # type: ignore[attr-defined]
        total = 0
        for seed in range(6):
            r = referee(bot, make("random", seed=seed), seed)
            outcome = r.outcome()
            assert outcome is not None and outcome.termination.name == "DRAW_PILE_EMPTY", outcome
            total += outcome.scores[0] - outcome.scores[1]
        assert total > 0  # it beats random
    finally:
        bot.close()


def test_example_bot_is_short_and_stdlib_only() -> None:
    text = EXAMPLE.read_text()
    assert len(text.splitlines()) < 80
    imports = [line for line in text.splitlines() if line.startswith(("import", "from"))]
    assert imports == ["import sys"]


def test_builtin_bot_over_the_protocol_is_reproducible() -> None:
    a = make(f"cmd:{ENGINE_RANDOM}", seed=9)
    b = make(f"cmd:{ENGINE_RANDOM}", seed=9)
    try:
        assert a.id["name"] == "lostcities random"  # type: ignore[attr-defined]
        r1 = referee(a, make("random", seed=1), 4)
        r2 = referee(b, make("random", seed=1), 4)
        assert r1.history == r2.history
        assert r1.outcome() is not None and r1.outcome().termination.name == "DRAW_PILE_EMPTY"  # type: ignore[union-attr]
        # the same seed over the protocol plays exactly like the built-in bot
        r3 = referee(make("random", seed=9), make("random", seed=1), 4)
        assert r3.history == r1.history
    finally:
        a.close()
        b.close()


def test_crashed_bot_is_restarted_for_the_next_round() -> None:
    bot = make(f"cmd:{PY} {BADBOT} crash 2")
    try:
        pid = bot.engine.protocol.transport.process.pid  # type: ignore[attr-defined]
        r = referee(bot, make("random", seed=1), 1, time_limit=0.5)
        outcome = r.outcome()
        assert outcome is not None and outcome.winner == 1
        assert (
            "crash: bot 'badbot-crash' process died (exit code 3; stderr: badbot: crashing on purpose)"
            in outcome.reason
        )
        r = referee(bot, make("random", seed=1), 2, time_limit=0.5)
        assert bot.engine.protocol.transport.process.pid != pid  # type: ignore[attr-defined]
        assert r.ply >= 2  # it played again before crashing again
    finally:
        bot.close()


def test_close_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    bot = make(f"cmd:{PY} {BADBOT} spawn 99 {pidfile}")
    grandchild = int(pidfile.read_text())
    os.kill(grandchild, 0)  # alive
    bot.close()
    deadline = time.monotonic() + 60  # a safety net: the loop ends when the child is gone
    while time.monotonic() < deadline:
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the bot's child survived close()")


def test_handshake_timeout_and_missing_program() -> None:
    with pytest.raises(BotTimeoutError, match="handshake"):
        ExternalBot(f"{PY} {BADBOT} silent", start_timeout=0.5)
    with pytest.raises(BotSpecError, match="cannot run bot"):
        make("cmd:./no/such/bot --x")
    with pytest.raises(BotSpecError, match="No closing quotation"):
        make("cmd:python 'unbalanced")


def test_a_missing_program_is_a_program_error() -> None:
    with pytest.raises(ProgramError, match="cannot run bot"):
        SimpleBot.popen(["./no/such/bot"])


def test_split_command_resolves_relative_programs() -> None:
    assert split_command("./bot --fast") == [os.path.abspath("bot"), "--fast"]
    assert split_command("python my.py") == ["python", "my.py"]


def test_cli_bot_rejects_external_and_bad_specs() -> None:
    for spec in ["cmd:python x.py", "nosuch"]:
        p = subprocess.run(
            [PY, "-m", "lostcities.cli", "bot", spec],
            capture_output=True,
            text=True,
            input="",
            timeout=60,
        )
        assert p.returncode == 2
        assert len(p.stderr.strip().splitlines()) == 1
        assert p.stderr.startswith("lostcities bot: error:")


def test_the_documented_transcript_is_true() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text()
    block = text.split("## A full example", 1)[1].split("```", 2)[1]
    lines = [line for line in block.splitlines() if line.startswith(("<< ", ">> "))]
    sent = [line[3:] for line in lines if line.startswith("<< ")]
    answers = [line[3:] for line in lines if line.startswith(">> ")]
    # the referee's lines are what position_lines gives for that deal
    r = Round.deal(seed=2024, starter=1, max_turns=6)
    for line in sent:
        if line.startswith("moved "):
            r.push(line.split()[2])
    positions = [i for i, line in enumerate(sent) if line.startswith("ply ")]
    replay = Round.deal(seed=2024, starter=1, max_turns=6)
    for start in positions:
        ply = int(sent[start].split()[1])
        while replay.ply < ply:
            replay.push(r.history[replay.ply])
        assert sent[start : start + 11] == position_lines(replay.view(0))
    # and examples/bot.py answers exactly so
    p = subprocess.run(
        [PY, str(EXAMPLE)], input="\n".join(sent) + "\n", capture_output=True, text=True, timeout=30
    )
    assert p.stdout.splitlines() == answers


def test_words_after_the_move_are_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    r = Round.deal(seed=2)
    view = r.view(0)
    legal = view.legal_moves()[-1]
    mock = MockTransport()
    script_position(mock, view, 100, [f"move {legal} ponder +y7."])
    with caplog.at_level(logging.WARNING, "lostcities.protocol"):
        assert run(BotProtocol(mock).play(view, 0.1)) == legal
    assert "ignored words after the move: 'ponder +y7.'" in caplog.text


def test_async_api_against_a_real_bot() -> None:
    async def session() -> Move:
        bot = await BotProtocol.popen([PY, str(EXAMPLE)])
        try:
            assert bot.id["name"] == "examplebot"
            r = Round.deal(seed=3)
            await bot.newgame("classic", 0)
            await bot.ping()
            return await asyncio.wait_for(bot.play(r.view(0), 1.0), 5.0)
        finally:
            await bot.quit()

    move = asyncio.run(session())
    assert Round.deal(seed=3).is_legal(move)


# -- the match line ----------------------------------------------------------------------------


def match_view(seed: int, rounds: int, round_no: int, plies: int, **kw: Any) -> Any:
    """A view of round ``round_no`` of a match, ``plies`` random moves in (rounds before it
    played out at random)."""
    rng = random.Random(seed)
    m = Match(rounds=rounds, seed=seed, **kw)
    while True:
        r = m.new_round()
        target = 10**9 if len(m.rounds) < round_no else plies
        while not r.is_over() and r.ply < target:
            moves = r.legal_moves()
            r.push(moves[rng.randrange(len(moves))])
        if len(m.rounds) == round_no:
            if r.is_over():
                r.pop()
            return m.view(r.to_move)


@pytest.mark.parametrize(
    ("seed", "rounds", "round_no", "kw"),
    [
        (1, 3, 1, {}),
        (2, 3, 2, {}),
        (3, 3, 3, {"tie_break": "youngest", "younger": 1}),
        (4, 5, 4, {}),
    ],
)
def test_the_match_line_round_trips_the_view_in_a_match(
    seed: int, rounds: int, round_no: int, kw: dict[str, Any]
) -> None:
    view = match_view(seed, rounds, round_no, 9, **kw)
    lines = position_lines(view)
    c = view.match
    assert (
        lines[-1]
        == wire.match_line(c)
        == (f"match {round_no} {rounds} {c.totals[0]} {c.totals[1]} {kw.get('younger', 'draw')}")
    )
    assert read_back(lines, "classic", view.player) == view
    # a lone round sends the eleven lines and no match line
    assert not [
        line for line in position_lines(Round.deal(seed=seed).view(0)) if line.startswith("match")
    ]


@pytest.mark.parametrize(
    "line",
    [
        "match",
        "match 1 3 0 0",
        "match 4 3 0 0 draw",
        "match 0 3 0 0 draw",
        "match 1 3 x 0 draw",
        "match 1 3 0 0 2",
        "match 1 3 0 0 draw extra",
    ],
)
def test_a_bad_match_line_is_refused(line: str) -> None:
    reader = PositionReader()
    reader.newgame("classic", 0)
    with pytest.raises(PositionError, match="bad match line"):
        reader.feed(line)


def test_the_host_sends_the_match_line_before_go_and_an_old_bot_still_plays() -> None:
    view = match_view(5, 3, 2, 6)
    legal = view.legal_moves()[0]
    mock = MockTransport()
    lines = position_lines(view)
    assert lines[-1].startswith("match 2 3 ")
    # a bot from before the match line answers it as an unknown command, then moves
    mock.expect_many(lines[:-1])
    mock.expect(lines[-1], ["info error unknown command 'match' ignored"])
    mock.expect("go 500", [f"move {legal}"])
    bot = SimpleBot.from_transport(mock)
    try:
        assert bot.play(view, 0.5) == legal
    finally:
        bot.close()
    mock.assert_done()


def test_the_engine_side_gives_its_player_the_match_context() -> None:
    seen: list[Any] = []

    class First:
        def choose(self, view: Any, time_limit: float | None = None) -> Move:
            seen.append(view.match)
            return view.legal_moves()[0]  # type: ignore[no-any-return]

    view = match_view(6, 3, 3, 4, tie_break="youngest", younger=0)
    lines = [f"newgame classic {view.player}", *position_lines(view), "go 50"]
    out = io.StringIO()
    assert serve(First(), stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out) == 0
    assert out.getvalue() == f"move {view.legal_moves()[0]}\n"
    assert (
        seen == [view.match]
        and seen[0].last_round
        and seen[0].tie_value == (1 if view.player == 0 else -1)
    )


def test_a_bot_program_in_a_match_reads_the_match_line(tmp_path: Path) -> None:
    script = tmp_path / "matchbot.py"
    log = tmp_path / "seen.txt"
    script.write_text(
        "import sys\n"
        "from lostcities.protocol import serve\n"
        "class First:\n"
        "    def choose(self, view, time_limit=None):\n"
        f"        with open({str(log)!r}, 'a') as f:\n"
        "            c = view.match\n"
        "            f.write(f'{c.round} {c.rounds} {c.totals[0]} {c.totals[1]} {c.player}\\n')\n"
        "        return view.legal_moves()[0]\n"
        "serve(First(), name='matchbot')\n"
    )
    from lostcities.referee import Referee, RoundStarted

    bot = make(f"cmd:{PY} {script}")
    m = Match(rounds=2, seed=8, starter=1)
    started: list[tuple[int, int]] = []
    try:
        ref = Referee(m, [make("random", seed=1), bot], time_limit=5.0)
        ref.subscribe(lambda e: started.append(m.totals()) if isinstance(e, RoundStarted) else None)
        ref.play_match()
    finally:
        bot.close()
    rows = {tuple(int(w) for w in line.split()) for line in log.read_text().splitlines()}
    assert rows == {(i + 1, 2, *t, 1) for i, t in enumerate(started)}


def test_the_engine_warms_up_once_before_its_first_answer() -> None:
    # issue 37 item 24: expert's first go spent 0.7 s getting ready, past a tight limit
    out = io.StringIO()
    seen: list[str] = []

    def warm() -> None:
        seen.append(out.getvalue())

    class First:
        def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
            return view.legal_moves()[0]

    lines = "lcp\nisready\nisready\nquit\n"
    run_engine(lambda seed: First(), stdin=io.StringIO(lines), stdout=out, warm_up=warm)
    assert seen == [""]  # once, before the handshake's answer
    assert out.getvalue().splitlines()[-2:] == ["readyok", "readyok"]


def test_a_failed_warm_up_is_said_and_the_engine_goes_on() -> None:
    out = io.StringIO()

    def warm() -> None:
        raise RuntimeError("no cache")

    class First:
        def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
            return view.legal_moves()[0]

    run_engine(lambda seed: First(), stdin=io.StringIO("isready\n"), stdout=out, warm_up=warm)
    said = out.getvalue().splitlines()
    assert said[0].startswith("info error warm-up failed (RuntimeError: no cache)")
    assert said[1] == "readyok"


def test_lostcities_bot_warms_up_its_search_bots_only() -> None:
    from lostcities.cli import search_warm_up

    assert search_warm_up("heuristic") is None and search_warm_up("random") is None
    warm = search_warm_up("ismcts:iters=20")
    assert warm is not None
    warm()  # a short throwaway move: the served bot's generator is untouched
