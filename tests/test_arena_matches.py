"""Whole matches in the arena (``lostcities match --matches``): pairs on the same deals,
the match figures beside the round figures, workers, records, forfeits, and the match
context every bot is given."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lostcities import PlayerView, round_seed
from lostcities.arena import MatchResult, play_matches
from lostcities.arena.matches import match_seed
from lostcities.bots import Bot, make, register
from lostcities.cli import main
from lostcities.record import read_records
from lostcities.rules import Move

ROOT = Path(__file__).resolve().parent.parent
BADBOT = ROOT / "tests" / "bots" / "misbehaving" / "badbot.py"
PY = sys.executable


def comparable(result: MatchResult) -> dict[str, Any]:
    d = result.to_dict(games=True)
    d.pop("seconds")
    for g in d["games"]:
        g.pop("a_seconds")
        g.pop("b_seconds")
    return d


def test_each_match_is_played_twice_on_the_same_deals_with_the_seats_swapped() -> None:
    res = play_matches("heuristic", "random", matches=3, rounds=3, seed=5, jobs=1)
    assert res.whole is not None
    w = res.whole
    assert (w.matches, w.pairs, w.rounds) == (6, 3, 3)
    assert [(g.match, g.a_seat) for g in w.games] == [(i, s) for i in range(3) for s in (0, 1)]
    assert res.rounds == sum(g.rounds for g in w.games) == 18 and res.deals == 9
    for g in w.games:
        mine = [r for r in res.games if r.match == g.match and r.a_seat == g.a_seat]
        assert [r.match_round for r in mine] == list(range(g.rounds))
        assert [r.deal for r in mine] == [g.match * 3 + r for r in range(g.rounds)]
        assert g.seed == match_seed(5, g.match)[0]
        assert [r.seed for r in mine] == [round_seed(g.seed, r) for r in range(g.rounds)]
        assert (g.a_total, g.b_total) == (
            sum(r.a_score for r in mine),
            sum(r.b_score for r in mine),
        )
        assert g.winner == ("a" if g.margin > 0 else "b" if g.margin < 0 else None)
        assert mine[0].starter == match_seed(5, g.match)[1]  # round 1's starter is the match's
    # the figures: heuristic wins every match against random
    assert w.a_wins == 6 and w.a_win_rate == 1.0 and w.a_win_rate_ci95[0] > 0.5
    assert w.pentanomial == [0, 0, 0, 0, 3]
    d = res.to_dict(games=True)
    assert d["matches"]["a_win_rate"] == 1.0 and len(d["matches"]["games"]) == 6
    json.dumps(d)


def test_the_same_seed_gives_the_same_matches_whatever_the_workers() -> None:
    one = play_matches("heuristic", "discard", matches=3, rounds=2, seed=2, jobs=1)
    two = play_matches("heuristic", "discard", matches=3, rounds=2, seed=2, jobs=2)
    assert comparable(one) == comparable(two)
    assert comparable(one) != comparable(
        play_matches("heuristic", "discard", matches=3, rounds=2, seed=3, jobs=1)
    )


def test_a_record_per_match_holds_its_rounds_and_replays() -> None:
    out = io.StringIO()
    res = play_matches("heuristic", "random", matches=2, rounds=3, seed=1, jobs=1, records=out)
    recs = list(read_records(io.StringIO(out.getvalue())))
    assert res.whole is not None and len(recs) == res.whole.matches == 4
    for rec, g in zip(recs, res.whole.games, strict=True):
        assert rec.tags["Match"] == str(g.match + 1) and rec.tags["Rounds"] == "3"
        assert rec.players[g.a_seat] == "heuristic"
        m = rec.replay()
        assert len(m.rounds) == g.rounds and m.totals()[g.a_seat] == g.a_total
        assert m.result() == {
            "a": "1-0" if g.a_seat == 0 else "0-1",
            "b": "0-1" if g.a_seat == 0 else "1-0",
        }.get(g.winner or "", "1/2-1/2")


def test_a_forfeit_loses_the_match() -> None:
    res = play_matches(
        "random", f"cmd:{PY} {BADBOT} crash 2", matches=1, rounds=3, seed=1, jobs=1, time_limit=0.5
    )
    assert res.whole is not None
    for g in res.whole.games:
        assert g.forfeit == "b" and g.winner == "a" and g.rounds == 1
        assert "forfeited" in g.reason
    assert res.whole.forfeits == 2 and res.b_forfeits == 2 and res.rounds == 2


class ContextSpy(Bot):
    """Plays the first legal move and remembers the match context of each view."""

    name = "ctxspy"
    seen: list[tuple[int, int, tuple[int, int], int]] = []

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        c = view.match
        assert c is not None
        ContextSpy.seen.append((c.round, c.rounds, c.totals, c.player))
        return view.legal_moves()[0]


def test_built_in_bots_get_the_match_context_through_the_referee() -> None:
    register("ctxspy", lambda options, seed: ContextSpy(seed))
    ContextSpy.seen = []
    res = play_matches("ctxspy", "random", matches=1, rounds=3, seed=7, jobs=1)
    assert res.whole is not None
    for g in res.whole.games:
        rounds = [r for r in res.games if r.a_seat == g.a_seat]
        before = [0, 0]
        want = set()
        for r in rounds:
            totals = (before[0], before[1])
            want.add((r.match_round + 1, 3, totals, g.a_seat))  # type: ignore[operator]
            s = (r.a_score, r.b_score) if g.a_seat == 0 else (r.b_score, r.a_score)
            before = [before[0] + s[0], before[1] + s[1]]
        assert {s for s in ContextSpy.seen if s[3] == g.a_seat} == want


def test_cmd_bots_get_the_match_context_through_the_protocol(tmp_path: Path) -> None:
    script = tmp_path / "matchbot.py"
    log = tmp_path / "seen.txt"
    script.write_text(
        "from lostcities.protocol import serve\n"
        "class First:\n"
        "    def choose(self, view, time_limit=None):\n"
        f"        with open({str(log)!r}, 'a') as f:\n"
        "            c = view.match\n"
        "            f.write(f'{c.round} {c.totals[0]} {c.totals[1]} {c.player}\\n')\n"
        "        return view.legal_moves()[0]\n"
        "serve(First(), name='matchbot')\n"
    )
    res = play_matches(f"cmd:{PY} {script}", "heuristic", matches=1, rounds=2, seed=3, jobs=1)
    assert res.whole is not None and res.forfeits == 0
    seen = {tuple(int(x) for x in line.split()) for line in log.read_text().splitlines()}
    want = set()
    for g in res.whole.games:
        first = next(r for r in res.games if r.a_seat == g.a_seat and r.match_round == 0)
        t = (first.a_score, first.b_score) if g.a_seat == 0 else (first.b_score, first.a_score)
        want |= {(1, 0, 0, g.a_seat), (2, t[0], t[1], g.a_seat)}
    assert seen == want


def test_match_aware_and_blind_expert_play_differently_in_the_same_matches() -> None:
    pytest.importorskip("numba")
    aware = play_matches("expert:iters=60", "heuristic", matches=1, rounds=2, seed=4, jobs=1)
    blind = play_matches(
        "expert:iters=60,match=0", "heuristic", matches=1, rounds=2, seed=4, jobs=1
    )
    assert aware.rounds == blind.rounds == 4
    # the first round of each match is searched with another reward already
    assert [g.a_score for g in aware.games] != [g.a_score for g in blind.games]


def test_cli_matches_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "heuristic", "random", "--matches", "2", "--rounds", "2", "--jobs", "1"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["matches"]["matches"] == 4 and data["matches"]["rounds"] == 2
    assert data["rounds"] == 8 and len(data["matches"]["a_win_rate_ci95"]) == 2
    assert main(argv) == 0
    out = capsys.readouterr().out
    for label in ("A win rate", "A match win rate", "matches of 2", "mean match margin"):
        assert label in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["match", "random", "random", "--rounds", "2"], "--rounds"),
        (["match", "random", "random", "--matches", "2", "--sprt", "elo0=0,elo1=20"], "--sprt"),
    ],
)
def test_cli_bad_match_options_are_one_line_exit_2(argv: list[str], message: str) -> None:
    p = subprocess.run(
        [PY, "-m", "lostcities.cli", *argv], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], p.stderr


def test_bad_counts_fail_before_playing() -> None:
    with pytest.raises(ValueError, match="invalid matches"):
        play_matches("random", "random", matches=0)
    with pytest.raises(ValueError, match="invalid rounds"):
        play_matches("random", "random", matches=1, rounds=0)
    with pytest.raises(ValueError, match="unknown bot"):
        play_matches("random", "nosuchbot", matches=1)
    _ = make  # the specs are checked by the same maker as play_match's


def test_on_ray_the_units_are_match_pairs_played_as_locally(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import contextlib
    import pickle

    from lostcities.arena import engine, matches
    from lostcities.arena.cluster import Backend

    calls: list[object] = []

    def fake_ray_ordered(fn: Any, shared: Any, units: Any, **kw: Any) -> Any:
        calls.append(fn)
        shared = pickle.loads(pickle.dumps(shared))  # what goes to the cluster
        for u in units:
            yield fn(shared, u)

    monkeypatch.setattr(engine, "ray_ordered", fake_ray_ordered)
    monkeypatch.setattr(
        matches, "ray_session", lambda backend, verbose=False: contextlib.nullcontext()
    )
    on_ray = play_matches(
        "heuristic", "discard", matches=2, rounds=2, seed=6, backend=Backend("ray")
    )
    local = play_matches("heuristic", "discard", matches=2, rounds=2, seed=6, jobs=1)
    assert calls == [engine.play_unit]
    assert comparable(on_ray) == comparable(local)
