"""Issue 37 item 19: the analysis (and the hint, the same code path) tries each candidate card
action with every legal draw, so a discard pile's top the bot's candidates passed over is
weighed too."""

from __future__ import annotations

import io

from lostcities import Move
from lostcities.bots import make
from lostcities.bots.analysis import (
    DEFAULT_BOT,
    DEFAULT_WORLDS,
    Position,
    analyse,
    positions,
    review,
    with_every_draw,
)
from lostcities.record import read_records

# game 1 of `lostcities match heuristic random --deals 1` (seed 0), as the issue found it
RECORD = """[Event "lostcities match"]
[Variant "classic"]
[Seed "0"]
[Players "heuristic; random"]
[Rounds "1"]
[Result "1-0"]
[Scores "104:-61"]
[Starter1 "1"]
[Deck1 "g5 w8 g4 g9 b5 b8 yx rx r8 b2 r2 g10 g3 r6 yx w3 bx b6 r5 y8 bx r7 wx y9 g2 b9 wx w9 yx y4 r9 g8 b7 r10 y7 w10 rx wx b3 w5 y6 g6 y3 w4 rx y2 b4 w7 r4 y10 y5 w2 w6 gx gx b10 g7 gx r3 bx"]
[Score1 "104 -61"]

R1: -yx. +g4. -g10y +b5g +r6. +b6. -r8. +g5r -g3. +b8. -r5. +g9. +w3r +g10.
-b2. +b9. -yx. +wx. -yxg +yx. -wxy +rx. +g3w -g2. -y9g -b7y +r7. +r8. -r5. +r9.
-r2y -rx. +yx. +wx. +yxr +y4. -g2r +y6. -bx. +y7. +w10r +y8. -bx. +w4. -y3.
+y9. -y2. -r4. +y10g -y5. -g2b +w5. -rxb +w6. -wxr -w2. -r10g +w8r -b3w +w9.
-g2y +r10. -bxr +b10. -rxw -rx. -r5g -r3.
1-0
"""


def _position_29() -> Position:
    (rec,) = read_records(io.StringIO(RECORD))
    return next(p for p in positions(rec.replay().rounds) if p.round == 1 and p.ply == 29)


def test_a_wager_on_a_discard_pile_is_weighed_for_a_wagered_expedition() -> None:
    pos = _position_29()
    view = pos.view
    assert pos.move == Move.parse("+r9.")
    assert {"y4", "y7", "y8", "y9"} <= {str(c) for c in view.hand}
    assert (
        str(view.discard_piles[0][-1]) == "yx" and str(view.expeditions[view.player][0][0]) == "yx"
    )
    r = review(make(DEFAULT_BOT), pos, worlds=DEFAULT_WORLDS)
    # the bot's candidates all drew from the draw pile: +r9. was best with a loss of 0
    assert r.best != Move.parse("+r9.") and r.best.draw is not None
    assert r.loss >= 8.0 and r.mark in ("mistake", "blunder")  # every move searched: 18


def test_every_draw_of_each_candidate_card_action_is_evaluated() -> None:
    pos = _position_29()
    bot = make(DEFAULT_BOT)
    setup = bot.search_setup(pos.view)
    assert setup is not None
    cands = setup.candidates
    a = analyse(bot, pos.view, played=pos.move, worlds=50, seed=1)
    evaluated = {e.move for e in a.moves}
    assert {str(m) for m in cands} == {"+r9.", "+y4.", "+w8."}  # all from the draw pile
    # the yellow wager extends the mover's wagered yellow expedition (not after +y4); the
    # blue top b7 and the red r5 extend no expedition: taking them would only stall
    assert evaluated == {Move.parse(m) for m in ("+r9.", "+y4.", "+w8.", "+r9y", "+w8y")}
    assert set(with_every_draw(pos.view, cands)) <= set(pos.view.legal_moves())
