"""A whole round of the long game at 80x24 by real key presses against the heuristic bot,
checking issue 15's terminal points on the way: players numbered from 1, the "to move" line
(and its return after an error), keys that do not clash (``p`` is purple, Enter plays), a
rejected typed move that clears the box, the help overlay, the take-back (refused after a
draw from the draw pile, made after one from a discard pile), and the end-of-round screen
with the core's scores; then the match end."""

from __future__ import annotations

import random
import re

import pytest
from textual.widgets import Input, Static

from lostcities.cards import Card, Color
from lostcities.presentation import format_score_table
from lostcities.rules import Action, Move, Round
from lostcities.tui.app import LostCitiesApp
from lostcities.tui.screens.game import GameScreen
from lostcities.tui.screens.help import ConfirmQuit, HelpScreen
from lostcities.tui.screens.match_end import MatchEndScreen
from lostcities.tui.screens.round_end import RoundEndScreen
from lostcities.tui.session import Session
from lostcities.tui.widgets.hand import HandCard
from tests.tui.test_play import settle, text_of

SIZE = (80, 24)
PLAYER_0 = re.compile(r"\b[Pp]layer 0\b")


def keys_for(move: Move, hand: tuple[Card, ...], at: int = 0) -> list[str]:
    """The keystrokes of the long game's keyboard flow: the card picked (the card at ``at``
    is picked already, the first one at the start of a turn; ``→``/``←`` reach its
    neighbours, round the hand, else it is typed: ``p7`` is purple 7), Enter to play or ``d``
    to discard, then ``.`` (the draw pile) or a pile's letter."""
    step = (hand.index(move.card) - at) % len(hand)
    if move.card.color is Color.PURPLE or step not in (0, 1, len(hand) - 1):
        keys = list(str(move.card))
    else:
        keys = [] if step == 0 else ["right"] if step == 1 else ["left"]
    keys.append("enter" if move.action is Action.PLAY else "d")
    keys.append("full_stop" if move.draw is None else move.draw.letter)
    return keys


def choose(r: Round, rng: random.Random) -> Move:
    """Mostly a play drawing from the draw pile (the round ends soon, the expeditions build
    up), often of a card one key away or of purple; now and then a discard pile's card."""
    moves = list(r.legal_moves())
    hand = r.hands[r.to_move]
    blind = [m for m in moves if m.draw is None]
    purple = [m for m in blind if m.card.color is Color.PURPLE]
    near = [m for m in blind if m.card in (hand[0], hand[1], hand[-1])]
    piles = [m for m in moves if m.draw is not None]
    x = rng.random()
    for pool, below in ((purple, 0.25), (piles, 0.33), (near, 0.85)):
        if pool and x < below:
            return rng.choice([m for m in pool if m.action is Action.PLAY] or pool)
    return rng.choice(blind)


@pytest.mark.asyncio
async def test_a_whole_long_round_by_keys_at_80x24() -> None:
    session = Session(opponent="heuristic", variant="long", rounds=1, seed=11)
    app = LostCitiesApp(session)
    rng = random.Random(3)
    seen: list[str] = []  # every status and last-move line shown
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        r = session.round
        box = screen.query_one("#move-input", Input)
        turn = 0
        purple_keys = 0
        take_backs = {True: False, False: False}  # tried after a draw-pile move, a discard-pile one
        while not r.is_over():
            assert app.screen is screen and screen.phase == "pick"
            status = text_of(app, "#status")
            assert status.startswith("Your move"), status  # the "to move" line
            seen += [status, text_of(app, "#last")]
            if turn == 0:
                # the board shows the person's own view: their hand, sorted
                assert [c.card for c in screen.query(HandCard) if c.card] == list(r.view(0).hand)
                # a card not in hand, typed: the error says "your hand" and clears the box
                missing = next(
                    c for c in r.variant.deck() if c not in r.hands[0] and not c.is_wager
                )
                await pilot.press("colon", *f"-{missing}.", "enter")
                error = text_of(app, "#status")
                assert f"{missing} is not in your hand" in error and screen.error
                assert box.value == "" and not box.has_focus
                seen.append(error)
                await pilot.press("colon")  # a fresh box: nothing of the old text
                assert box.value == "" and box.has_focus
                await pilot.press("escape")
            elif turn == 1:
                # the help overlay: whole inside 80x24, opaque; Esc goes back to the same prompt
                await pilot.press("question_mark")
                assert isinstance(app.screen, HelpScreen)
                help_box = app.screen.query_one("#help-box")
                assert help_box.region.right <= 80 and help_box.region.bottom <= 24
                assert app.screen.styles.background.a == 1
                await pilot.press("escape")
                assert app.screen is screen and text_of(app, "#status") == status
            elif turn == 2:
                # a key error, then any key: the "to move" line comes back
                await pilot.press("full_stop")
                assert screen.error
                seen.append(text_of(app, "#status"))
                await pilot.press("escape")
                assert not screen.error and text_of(app, "#status").startswith("Your move")
            move = choose(r, rng)
            hand = r.view(0).hand
            keys = keys_for(move, hand, screen.selected or 0)
            if move.card.color is Color.PURPLE:
                # p picks purple (it does not play): the card is chosen, nothing made yet
                await pilot.press(*keys[:-2])
                assert screen.selected_card() == move.card and screen.phase == "pick"
                keys = keys[-2:]
                purple_keys += 1
            ply = r.ply
            await pilot.press(*keys)
            assert r.history[ply] == move, text_of(app, "#status")
            await settle(pilot)
            turn += 1
            if r.is_over() or r.ply != ply + 2 or take_backs[move.draw is None]:
                continue
            # u: a move that drew from the draw pile is not taken back (one line says why);
            # one that took a discard pile's card is, with the bot's reply
            await pilot.press("u")
            take_backs[move.draw is None] = True
            if move.draw is None:
                assert text_of(app, "#status").startswith("cannot undo: ") and r.ply == ply + 2
                seen.append(text_of(app, "#status"))
                await pilot.press("escape")
            else:
                assert r.ply == ply and session.assisted
                assert text_of(app, "#last").startswith(f"you took back {move} and the reply ")
            assert text_of(app, "#status").startswith("Your move")
        await pilot.pause()
        assert all(take_backs.values())
        assert (
            turn > 20
            and purple_keys > 0
            and any(m.draw is not None for i, m in enumerate(r.history) if r.starter ^ (i & 1) == 0)
        )
        assert not [line for line in seen if PLAYER_0.search(line)]
        # the end-of-round screen: the core's scores and both breakdowns
        assert isinstance(app.screen, RoundEndScreen)
        check = Round.from_deck(r.deal_order, r.starter, r.variant)
        for m in r.history:
            check.push(m)
        assert check.is_over() and check.scores() == r.scores()
        a, b = check.scores()
        summary = text_of(app, "#round-summary")
        assert f"Round 1/1 over (draw pile empty): you {a}, heuristic {b}" in summary
        tables = [str(w.content) for w in app.screen.query(".breakdown").results(Static)]
        assert format_score_table(dict(check.score_breakdown(0))) in tables[0]
        assert format_score_table(dict(check.score_breakdown(1))) in tables[1]
        await pilot.press("enter")
        assert isinstance(app.screen, MatchEndScreen)
        await pilot.press("enter")  # the record is not saved: asked first
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("y")
    assert app.return_value == 0
