"""Positions as SVG (lostcities.svg): well-formed, stable, and a view hides what it must."""

from __future__ import annotations

import os
import random
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from lostcities import Round, svg

GOLDEN = Path(__file__).parent / "data" / "svg"
NS = "{http://www.w3.org/2000/svg}"


def _played(seed: int, plies: int, variant: str = "classic") -> Round:
    r = Round.deal(seed=seed, variant=variant)
    rng = random.Random(seed)
    for _ in range(plies):
        if r.is_over():
            break
        moves = r.legal_moves()
        r.push(moves[rng.randrange(len(moves))])
    return r


def _cards(text: str) -> Counter[str]:
    root = ET.fromstring(text)
    return Counter(g.get("data-card") for g in root.iter(f"{NS}g") if g.get("data-card"))


@pytest.mark.parametrize("variant", ["classic", "long"])
@pytest.mark.parametrize("plies", [0, 1, 40, 500])
def test_well_formed_for_rounds_and_views(variant: str, plies: int) -> None:
    r = _played(4, plies, variant)
    for pos in (r, r.view(0), r.view(1)):
        root = ET.fromstring(svg.position(pos))
        assert root.tag == f"{NS}svg"
        assert root.find(f"{NS}title") is not None
    assert svg.position(r, size=300).count('width="300"') == 1


def test_a_view_draws_only_the_cards_its_player_can_see() -> None:
    for seed in range(30):
        r = _played(seed, 25 + seed)
        for p in (0, 1):
            view = r.view(p)
            visible = Counter(str(c) for c in view.hand)
            for side in view.expeditions:
                for exp in side:
                    visible.update(str(c) for c in exp)
            visible.update(str(pile[-1]) for pile in view.discard_piles if pile)
            text = svg.position(view)
            assert _cards(text) == visible, seed
            root = ET.fromstring(text)
            opp = next(g for g in root.iter(f"{NS}g") if g.get("id") == f"hand-{p ^ 1}")
            assert not [g for g in opp.iter(f"{NS}g") if g.get("data-card")]
            assert len([g for g in opp.iter(f"{NS}g") if g.get("class") == "card back"]) == 8


def test_two_worlds_alike_to_a_player_give_one_picture() -> None:
    r = _played(11, 30)
    view = r.view(0)
    other = view.sample_round(random.Random(1))
    assert other.hands[1] != r.hands[1] or other.draw_pile != r.draw_pile
    assert svg.position(other.view(0), lastmove=r.history[-1]) == svg.position(
        view, lastmove=r.history[-1]
    )


def test_the_last_move_is_highlighted() -> None:
    r = _played(5, 12)
    last = r.history[-1]
    text = svg.position(r)
    assert f"last move {last}" in text
    assert 'class="drawn"' in text  # where the card was drawn from
    assert 'stroke-width="4"' in text  # the card it played or discarded


def test_repr_svg_for_notebooks() -> None:
    r = _played(2, 10)
    assert r._repr_svg_() == svg.position(r)
    assert r.view(1)._repr_svg_() == svg.position(r.view(1))


@pytest.mark.parametrize(
    "name, make",
    [
        ("round-seed3-ply30.svg", lambda: svg.position(_played(3, 30))),
        ("view0-seed3-ply30.svg", lambda: svg.position(_played(3, 30).view(0))),
        ("long-view1-seed8-ply57.svg", lambda: svg.position(_played(8, 57, "long").view(1))),
    ],
)
def test_golden_pictures(name: str, make: object) -> None:
    """Regenerate with ``LOSTCITIES_REGENERATE_SVG=1 pytest tests/test_svg.py``."""
    assert callable(make)
    text = make()
    path = GOLDEN / name
    if os.environ.get("LOSTCITIES_REGENERATE_SVG") == "1":
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8")
