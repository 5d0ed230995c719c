"""Arena records agree with docs/records.md (issue 14, defect 6): ``Seed`` is the match seed,
deals count from 1 in records and in the JSON alike, and ``replay`` names a forfeit."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from lostcities.arena import play_match
from lostcities.arena.engine import deal_seed
from lostcities.cli import main
from lostcities.record import read_records

ROOT = Path(__file__).resolve().parent.parent
BADBOT = ROOT / "tests" / "bots" / "misbehaving" / "badbot.py"


def test_arena_records_name_the_match_seed_and_count_deals_from_one(tmp_path: Path) -> None:
    out = io.StringIO()
    res = play_match(
        "random",
        f"cmd:{sys.executable} {BADBOT} crash 3",
        deals=2,
        seed=4,
        jobs=1,
        records=out,
        time_limit=0.5,
    )
    recs = list(read_records(io.StringIO(out.getvalue())))
    assert len(recs) == len(res.games) == 4
    for rec, g in zip(recs, res.games, strict=True):
        assert rec.tags["Seed"] == "4"  # the match seed, as docs/records.md says
        assert rec.tags["Deal"] == str(g.deal + 1)
        assert rec.tags["DealSeed"] == str(deal_seed(4, g.deal)[0]) == str(g.seed)
    reasons = res.to_dict()["forfeit_reasons"]
    assert reasons, "the crashing bot forfeits"
    forfeited = {
        (int(rec.tags["Deal"]), rec.tags["Swapped"] == "yes")
        for rec in recs
        if "forfeit by player" in str(rec)
    }
    assert {(f["deal"], f["a_seat"] == 1) for f in reasons} == forfeited  # both from 1
    path = tmp_path / "arena.lcr"
    path.write_text(out.getvalue())
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(["replay", str(path)]) == 0
    assert text.getvalue().count("forfeit by player") == len(reasons)
