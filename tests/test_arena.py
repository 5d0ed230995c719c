"""The arena: the referee loop, duplicate deals, forfeits of misbehaving bots, determinism
across worker counts, SPRT stops, records, tournaments and the command line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from lostcities import Move, PlayerView, Round
from lostcities.arena import (
    MatchResult,
    deal_seed,
    play_match,
    play_round,
    play_tournament,
)
from lostcities.bots import Bot, make
from lostcities.cli import main
from lostcities.record import read_records

ROOT = Path(__file__).resolve().parent.parent
BADBOT = ROOT / "tests" / "bots" / "misbehaving" / "badbot.py"
PY = sys.executable
JSON_FIELDS = {
    "a", "b", "rounds", "a_wins", "b_wins", "draws", "a_win_rate", "a_win_rate_ci95",
    "mean_margin", "mean_margin_ci95", "elo", "elo_ci95", "forfeits",
}  # fmt: skip


def comparable(result: MatchResult) -> dict[str, Any]:
    d = result.to_dict(games=True)
    d.pop("seconds")
    for g in d["games"]:  # wall-clock thinking times
        g.pop("a_seconds")
        g.pop("b_seconds")
    return d


# -- the referee -------------------------------------------------------------------------------


class Spy(Bot):
    """Plays like ``random`` and remembers everything it was given."""

    name = "spy"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.seen: list[object] = []
        self.informed: list[tuple[Move, int]] = []
        self.seat: int | None = None

    def restart(self, variant: object, seat: int) -> None:
        self.seat = seat

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        self.seen.append(view)
        moves = view.legal_moves()
        return moves[self.rng.randrange(len(moves))]

    def inform(self, move: Move, player: int) -> None:
        self.informed.append((move, player))


class Broken(Bot):
    name = "broken"

    def __init__(self, behaviour: str) -> None:
        super().__init__(0)
        self.behaviour = behaviour

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        if self.behaviour == "raise":
            raise ZeroDivisionError("oops")
        if self.behaviour == "none":
            return None  # type: ignore[return-value]
        if self.behaviour == "slow":
            time.sleep(0.3)
            return view.legal_moves()[0]
        card = next(c for c in view.variant.deck() if c not in view.hand and not c.is_wager)
        return Move.play(card)


def test_referee_gives_views_only_and_informs_both() -> None:
    a, b = Spy(1), Spy(2)
    r = play_round([a, b], Round.deal(seed=5, starter=1))
    assert r.is_over() and a.seat == 0 and b.seat == 1
    assert all(type(v) is PlayerView and v.player == 0 for v in a.seen)
    assert all(type(v) is PlayerView and v.player == 1 for v in b.seen)
    assert len(a.seen) + len(b.seen) == r.ply
    expected = [(m, (1 + i) % 2) for i, m in enumerate(r.history)]
    assert a.informed == expected and b.informed == expected


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("raise", "crash: ZeroDivisionError: oops"),
        ("none", "illegal move: bot returned None, not a Move"),
        ("illegal", "illegal move: illegal move: '+"),
        ("slow", "timeout: bot 'broken' took"),
    ],
)
def test_referee_forfeits_a_failing_bot(behaviour: str, reason: str) -> None:
    r = play_round(
        [make("random", seed=1), Broken(behaviour)], Round.deal(seed=2), time_limit=0.1, grace=0.05
    )
    outcome = r.outcome()
    assert outcome is not None
    assert outcome.termination.name == "FORFEIT" and outcome.winner == 0
    assert outcome.reason.startswith(reason)


class Unready(Spy):
    def restart(self, variant: object, seat: int) -> None:
        raise RuntimeError(f"seat {seat} not ready")


def test_a_bot_that_cannot_get_ready_forfeits_before_any_move() -> None:
    for bots, loser in (([Spy(1), Unready(2)], 1), ([Unready(1), Unready(2)], 0)):
        r = play_round(bots, Round.deal(seed=4))
        outcome = r.outcome()
        assert outcome is not None and r.ply == 0
        assert outcome.winner == loser ^ 1
        assert outcome.reason == f"crash: RuntimeError: seat {loser} not ready"


def test_turn_cap_truncates_and_scores_as_it_stands() -> None:
    res = play_match("random", "random", deals=2, seed=3, jobs=1, max_turns=5)
    assert res.truncated == 4
    assert all(g.plies == 5 and g.termination == "turn_limit" for g in res.games)


# -- matches -------------------------------------------------------------------------------------


def test_duplicate_deals_swap_seats_on_the_same_cards() -> None:
    res = play_match("random", "discard", deals=3, seed=8, jobs=1)
    assert [(g.deal, g.a_seat) for g in res.games] == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
    ]
    for first, second in zip(res.games[::2], res.games[1::2], strict=True):
        assert first.seed == second.seed and first.starter == second.starter
        assert (first.seed, first.starter) == deal_seed(8, first.deal)
    assert len({g.seed for g in res.games}) == 3
    assert res.b_wins + res.draws == 6 or res.a_wins > 0
    assert all(g.b_score == 0 for g in res.games)  # discard never scores


def test_same_seed_same_results_whatever_the_jobs() -> None:
    one = play_match("random", f"cmd:{PY} -m lostcities.cli bot random", deals=3, seed=11, jobs=1)
    two = play_match("random", f"cmd:{PY} -m lostcities.cli bot random", deals=3, seed=11, jobs=2)
    assert comparable(one) == comparable(two)
    other = play_match("random", f"cmd:{PY} -m lostcities.cli bot random", deals=1, seed=12, jobs=1)
    assert comparable(other)["games"] != comparable(one)["games"][:2]


def test_thinking_time_and_moves_per_side() -> None:
    res = play_match("random", "heuristic", deals=2, seed=5, jobs=1)
    for g in res.games:
        assert g.a_seconds >= 0 and g.b_seconds >= 0
        b_moves = g.plies - g.a_moves
        assert abs(g.a_moves - b_moves) <= 1
        assert (g.a_moves > b_moves) == (g.starter == g.a_seat and g.plies % 2 == 1)
    assert sum(g.b_seconds for g in res.games) > 0


def test_summary_numbers_are_consistent() -> None:
    res = play_match("random", "random:seed=4", deals=6, seed=2, jobs=1)
    assert res.rounds == 12 and res.deals == 6
    assert res.a_wins + res.b_wins + res.draws == 12
    assert res.a_win_rate == pytest.approx((res.a_wins + res.draws / 2) / 12)
    assert res.mean_margin == pytest.approx(sum(g.a_score - g.b_score for g in res.games) / 12)
    lo, hi = res.a_win_rate_ci95
    assert 0 <= lo <= res.a_win_rate <= hi <= 1
    lo, hi = res.mean_margin_ci95
    assert lo <= res.mean_margin <= hi
    lo, hi = res.elo_ci95
    assert lo <= res.elo <= hi
    assert sum(res.pentanomial) == 6


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "crash: bot 'badbot-crash' process died (exit code 3"),
        ("sleep", "timeout: bot 'badbot-sleep' timed out: no answer to go within 1 s"),
        ("garbage", "illegal move: bot 'badbot-garbage' sent a bad move: invalid move: 'banana'"),
        ("illegal", "illegal move: bot 'badbot-illegal' sent an illegal move: '+"),
        (
            "nonutf8",
            "timeout: bot 'badbot-nonutf8' timed out: no answer to go within 1 s; 2 undecodable lines dropped",
        ),
    ],
)
def test_misbehaving_bot_forfeits_and_the_match_goes_on(mode: str, reason: str) -> None:
    res = play_match(
        "random", f"cmd:{PY} {BADBOT} {mode} 2", deals=1, seed=1, jobs=1, time_limit=0.5
    )
    assert res.rounds == 2
    assert res.b_forfeits == 2 and res.a_forfeits == 0 and res.a_wins == 2
    for g in res.games:
        assert g.forfeit == "b" and g.reason.startswith(reason), g.reason
        assert g.plies >= 1  # it played a legal move before misbehaving


def test_sprt_stops_early_in_deal_order() -> None:
    res = play_match("discard", "random", deals=200, seed=1, jobs=1, sprt="elo0=0,elo1=20")
    assert res.stopped_early
    assert res.sprt is not None and res.sprt["result"] == "H1"
    assert res.deals == 10  # first checked at SPRT_MIN_DEALS, and it is a sweep
    assert res.sprt["llr"] >= res.sprt["upper"]
    two = play_match("discard", "random", deals=200, seed=1, jobs=2, sprt="elo0=0,elo1=20")
    assert comparable(two) == comparable(res)  # the stop does not depend on the workers
    res0 = play_match("random", "discard", deals=200, seed=1, jobs=1, sprt="elo0=0,elo1=20")
    assert res0.sprt is not None and res0.sprt["result"] == "H0"


def test_records_are_written_and_replay() -> None:
    out = io.StringIO()
    res = play_match(
        "random", f"cmd:{PY} {BADBOT} crash 3", deals=2, seed=4, jobs=1, records=out, time_limit=0.5
    )
    recs = list(read_records(io.StringIO(out.getvalue())))
    assert len(recs) == res.rounds == 4
    for rec, g in zip(recs, res.games, strict=True):
        assert rec.tags["Deal"] == str(g.deal + 1)
        names = rec.players
        assert names[g.a_seat] == "random"
        match = rec.replay()
        assert match.rounds[0].scores() == (
            (g.a_score, g.b_score) if g.a_seat == 0 else (g.b_score, g.a_score)
        )
    assert "forfeit by player" in out.getvalue()


def test_bad_inputs_fail_before_playing() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        play_match("random", "nosuchbot", deals=1)
    with pytest.raises(ValueError, match="elo1 must be greater"):
        play_match("random", "random", deals=1, sprt="elo0=5,elo1=1")
    with pytest.raises(ValueError, match="variant"):
        play_match("random", "random", deals=1, variant="short")


# -- tournaments -----------------------------------------------------------------------------------


def test_tournament_ladder_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "ladder.svg"
    code = main(
        [
            "tournament",
            "random",
            "discard",
            "random",
            "--deals",
            "3",
            "--jobs",
            "1",
            "--plot",
            str(plot),
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bots"] == ["random", "discard", "random #2"]
    assert len(data["matches"]) == 3
    ladder = {row["bot"]: row for row in data["ladder"]}
    assert ladder["random"]["elo"] == 0.0
    assert ladder["discard"]["elo"] > 100
    assert (
        ladder["discard"]["elo_ci95"][0]
        < ladder["discard"]["elo"]
        < ladder["discard"]["elo_ci95"][1]
    )
    assert plot.read_text().lstrip().startswith("<?xml") and "<svg" in plot.read_text()


def test_tournament_api_scores() -> None:
    t = play_tournament(["discard", "random"], deals=2, seed=1, jobs=1)
    assert t.score(0, 1) == (4.0, 4) and t.score(1, 0) == (0.0, 4)
    assert t.ratings[0] == (0.0, 0.0) and t.ratings[1][0] < 0


# -- the command line -------------------------------------------------------------------------------


def test_the_engine_loads_no_presentation_code() -> None:
    code = (
        "import sys, lostcities.arena as a\n"
        "a.play_match('random', 'discard', deals=1, jobs=1)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'matplotlib')"
        " or m.startswith(('lostcities.protocol', 'lostcities.arena.report'))))\n"
        "print(a.cli_match.__module__, a.plot_ladder.__module__)"
    )
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.splitlines() == ["[]", "lostcities.arena.report lostcities.arena.report"]


def test_one_missing_dependency_error_for_the_arena_and_training() -> None:
    """One class in the core's error family (``lostcities.errors``), importable from the
    arena, its report module and the training errors as before."""
    code = (
        "import sys, lostcities.arena as a, lostcities.errors as e, lostcities.train.errors as t\n"
        "import lostcities.arena.report as r\n"
        "print(a.MissingDependencyError is e.MissingDependencyError is t.MissingDependencyError"
        " is r.MissingDependencyError, issubclass(e.MissingDependencyError, ValueError))"
    )
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["True", "True"]


def test_cli_match_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["match", "random", "discard", "--deals", "2", "--seed", "3", "--jobs", "1", "--json"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1
    data = json.loads(out)
    assert set(data) >= JSON_FIELDS
    assert data["a"] == "random" and data["b"] == "discard" and data["rounds"] == 4
    for key in ("a_win_rate_ci95", "mean_margin_ci95", "elo_ci95"):
        assert isinstance(data[key], list) and len(data[key]) == 2


def test_cli_match_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["match", "discard", "random", "--deals", "2", "--jobs", "1", "--sprt", "elo0=0,elo1=20"]
    )
    assert code == 0
    out = capsys.readouterr().out
    for label in ("A win rate", "mean margin", "Elo (A - B)", "forfeits", "SPRT"):
        assert label in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["match", "nosuchbot", "random"], "unknown bot"),
        (["match", "random", "cmd:./no/such/program"], "cannot run bot"),
        (["match", "random", "random", "--sprt", "elo0=x"], "invalid sprt"),
        (["match", "random", "ismcts:iters=-1:x"], "invalid bot spec"),
        (["tournament", "random", "discard", "--plot", "ladder.gif"], "invalid plot file"),
        (["tournament", "random"], "at least two bots"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(argv: list[str], message: str) -> None:
    p = subprocess.run(
        [PY, "-m", "lostcities.cli", *argv], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr


def _processes_with(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            bot = b"badbot.py" in cmdline and b"lostcities.cli" not in cmdline
            if bot and marker.encode() in cmdline and ") Z " not in stat:
                pids.append(int(entry.name))
    return pids


def _parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except OSError:
        return -1


def _wait_for(what: str, ready: Any, p: subprocess.Popen[str], timeout: float = 120) -> None:
    """Wait (on events, not on the clock: the bound is only a safety net) until ``ready()``."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert p.poll() is None, (
            f"the match ended before {what}: {p.stderr.read() if p.stderr else ''}"
        )
        assert time.monotonic() < deadline, f"no {what} in {timeout} s"
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize(
    "phase", ["checking the bots", "starting the workers", "mid-match", "twice"]
)
def test_ctrl_c_ends_the_match_and_its_bots(tmp_path: Path, phase: str) -> None:
    """Ctrl-C at each phase of ``lostcities match`` (each phase is waited for by what the
    match does, never by time): while it checks the bot spec in its own process, while the
    workers start their bots, once deals are being recorded, and twice in a row (the second
    while the first is being handled): always exit code 130, one line, no bot left."""
    import signal

    marker = f"marker-{uuid.uuid4().hex}"  # unique across xdist workers too
    records = tmp_path / "m.lcr"
    mode = "silent" if phase == "checking the bots" else "stubborn"  # silent: no handshake
    argv = [PY, "-m", "lostcities.cli", "match", "random", f"cmd:{PY} {BADBOT} {mode} 1 {marker}"]
    p = subprocess.Popen(
        [*argv, "--deals", "500", "--jobs", "2", "--records", str(records)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        if phase == "checking the bots":  # the spec's check, in the match's own process
            _wait_for(
                "check bot", lambda: any(_parent_of(b) == p.pid for b in _processes_with(marker)), p
            )
        elif phase == "starting the workers":  # a worker's bot is up (the workers are starting)
            _wait_for(
                "worker bot",
                lambda: any(_parent_of(b) != p.pid for b in _processes_with(marker)),
                p,
            )
        else:  # deals are being played and recorded
            _wait_for("records", lambda: records.exists() and records.stat().st_size > 0, p)
        os.killpg(p.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
        if phase == "twice":
            os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1] == "lostcities: interrupted", err
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 60  # a safety net: the loop ends when they are gone
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("sprt", [None, "elo0=0,elo1=20"])
def test_workers_close_their_bots_when_the_match_ends(tmp_path: Path, sprt: str | None) -> None:
    marker = f"marker-{uuid.uuid4().hex}"  # unique across xdist workers too
    res = play_match(
        "discard", f"cmd:{PY} {BADBOT} stubborn 1 {marker}", deals=12, seed=2, jobs=2, sprt=sprt
    )
    assert res.rounds == (20 if sprt else 24)  # the SPRT stops it after 10 deals
    deadline = time.monotonic() + 60  # a safety net: the loop ends when they are gone
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []
