"""Replay the conformance corpus of an independent C implementation (tests/data/*.jsonl,
copied from shared/conformance): before every move the number of distinct legal moves must
match and contain the move; the round must end exactly after the last move; scores match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lostcities import Move, Round

DATA = Path(__file__).parent / "data"


def _games(name: str) -> list[dict[str, object]]:
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.mark.parametrize("name", ["classic.jsonl", "long.jsonl"])
def test_corpus_replays_exactly(name: str) -> None:
    games = _games(name)
    assert len(games) == 500
    for g, game in enumerate(games):
        deck = game["deck"]
        moves = game["moves"]
        legal = game["legal"]
        assert isinstance(deck, list) and isinstance(moves, list) and isinstance(legal, list)
        r = Round.from_deck(deck, game["starter"], game["variant"])  # type: ignore[arg-type]
        for i, (text, count) in enumerate(zip(moves, legal, strict=True)):
            assert not r.is_over(), f"game {g}: over before move {i}"
            lm = r.legal_moves()
            move = Move.parse(text)
            if len(lm) != count or move not in lm:
                pytest.fail(
                    f"{name} game {g} move {i} ({text}): {len(lm)} legal moves, "
                    f"corpus says {count}; in list: {move in lm}\n{r}"
                )
            r.push(move)
        assert r.is_over(), f"game {g}: not over after the last move"
        assert list(r.scores()) == game["scores"], f"game {g}: scores"
