"""The hidden-card check of the web app's messages, shared by the suite's leak scan
(tests/web/test_web_leaks.py) and the scan at scale (benchmarks/web_leak_scan.py).

A message may name a card only if the receiver can see a copy of it at that position: cards on
the expeditions, in the discard piles, known to have gone to a hand (taken from a discard
pile), and, for a seat, its own hand. Finished rounds' summaries may name their expeditions
and final discard piles (all public by the end), and their log is the round's move list
exactly (every move is public; no drawn card is named). The hand must be the referee's
exactly.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from lostcities import Card, Round

__all__ = ["CARD_RE", "Positions", "check_bot_line", "check_message", "mentioned", "visible"]

CARD_RE = re.compile(r"(?<![A-Za-z0-9])([ybwgrp](?:x|10|[2-9]))(?![0-9])")


def mentioned(obj: Any) -> set[str]:
    """Every card notation in the JSON of ``obj``."""
    return set(CARD_RE.findall(json.dumps(obj)))


def visible(r: Round, seat: int | None) -> Counter[Card]:
    """Cards a seat (``None``: a spectator) may know of at this position."""
    seen: Counter[Card] = Counter()
    for p in (0, 1):
        for cards in r.expeditions[p].values():
            seen.update(cards)
        seen.update(r.known_cards(p))
    for pile in r.discard_piles.values():
        seen.update(pile)
    if seat is not None:
        seen.update(r.hands[seat])
    return seen


class Positions:
    """Every position of a finished match's rounds, built once (a check per message is then
    a look-up, not a replay)."""

    def __init__(self, rounds: list[Round]) -> None:
        self.rounds = rounds
        self.by_round: list[list[Round]] = []
        for full in rounds:
            r = Round.from_deck(full.deal_order, full.starter, full.variant)
            seq = [r.copy(stack=False)]
            for mv in full.history:
                r.push(mv)
                seq.append(r.copy(stack=False))
            self.by_round.append(seq)
        self.public_end: list[Counter[Card]] = []
        for done in rounds:
            public: Counter[Card] = Counter()
            for p in (0, 1):
                for cards in done.expeditions[p].values():
                    public.update(cards)
            for pile in done.discard_piles.values():
                public.update(pile)
            self.public_end.append(public)

    def at(self, round_index: int, ply: int) -> Round:
        return self.by_round[round_index][ply]


def check_message(m: dict[str, Any], seat: int | None, positions: Positions) -> None:
    """Raise ``AssertionError`` (with the word ``leaked``) if ``m`` names a card ``seat``
    may not know; also checks the hand and the deck size."""
    if m.get("type") != "state":
        extra = mentioned({k: v for k, v in m.items() if k != "id"})
        assert not extra, f"{sorted(extra)} leaked in a {m.get('type')} message"
        return
    ri, ply = m["round"], m["view"]["ply"]
    r = positions.at(ri, ply)
    vis = visible(r, seat)
    current = {k: v for k, v in m.items() if k != "match"}
    current["game"] = {
        k: v for k, v in m["game"].items() if k not in ("id", "rematch_id", "updated_at")
    }
    for text in mentioned(current):
        card = Card.parse(text)
        assert vis[card] > 0, f"{text} leaked to seat {seat} at round {ri} ply {ply}"
    if seat is None:
        assert m["view"]["hand"] is None and m["view"]["legal"] == [] and m["view"]["illegal"] == {}
    else:
        assert m["view"]["hand"] == [str(c) for c in r.hands[seat]]
    assert m["view"]["deck_size"] == r.deck_size
    for summary in m["match"]["rounds"]:
        public = positions.public_end[summary["index"]]
        # the round's log is its public move list exactly (no drawn card is named)
        history = summary.get("history", [])
        assert history == [str(mv) for mv in positions.rounds[summary["index"]].history], (
            f"the log of round {summary['index']} is not its public move list"
        )
        summary = {k: v for k, v in summary.items() if k != "history"}
        for text in mentioned(summary):
            assert public[Card.parse(text)] > 0, (
                f"{text} leaked in the summary of round {summary['index']}"
            )


def check_bot_line(m: dict[str, Any], seat: int, positions: Positions) -> None:
    """Raise ``AssertionError`` (with the word ``leaked``) if a line of a bot's game stream
    (``gameFull``, ``gameState``, ``chatLine``; docs/bot-api.md) names a card ``seat`` may
    not know at its position, or its ``hand`` line is not the seat's hand exactly."""
    state = m.get("state")
    if state is None:
        extra = mentioned({k: v for k, v in m.items() if k not in ("id", "from")})
        assert not extra, f"{sorted(extra)} leaked in a {m.get('type')} line"
        return
    ri, ply = state["round"] - 1, state["ply"]
    r = positions.at(ri, ply)
    vis = visible(r, seat)
    for text in mentioned({k: v for k, v in m.items() if k != "id"}):
        assert vis[Card.parse(text)] > 0, f"{text} leaked to seat {seat} at round {ri} ply {ply}"
    hand = [line for line in state["position"] if line.startswith("hand")]
    assert hand == ["hand " + " ".join(str(c) for c in r.hands[seat])], hand
    assert f"deck {r.deck_size}" in state["position"]
