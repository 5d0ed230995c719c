"""The game screen: the board, the hand, the prompts, and the bot thinking on a thread.

Keys (all work without a mouse):

- ``←``/``→`` pick a card of the hand, or type it (``y7``, ``bx``, ``r10``);
- Enter (or ``↑``) plays it onto its expedition, ``d`` (or ``↓``) discards it; in the
  classic game ``p`` plays too (it has no purple);
- then the draw source: ``.`` or space for the draw pile, a colour letter for the top of
  that discard pile (Enter: the draw pile); Esc goes back;
- ``:`` (or ``+``/``-``) types a whole move in notation, such as ``+y7.`` or ``-r10b``;
- ``h`` asks the engine for a hint (games against a bot only; the game is then marked
  assisted in its record);
- ``u`` undoes your last move while the bot is still thinking, or, on your turn, takes back
  your last move and the bot's reply together (games against a bot only; a take-back marks
  the game assisted, as the bot's card goes back to its hand; never a move that drew from
  the draw pile, whose card you have seen: Esc before the draw changes a card action);
- ``i`` the goal cards and what each requires (the achievements variant);
- ``?`` help, ``q`` quit.

In the long variant ``p`` is purple only (``p7`` picks purple 7, ``p`` in the draw step
takes the purple pile): Enter or ``↑`` plays, so no key means two things.

A rejected move (typed or keyed) says why on the status line until the next key, or for a
few seconds, and then the "to move" prompt comes back.
"""

from __future__ import annotations

from typing import Literal

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from lostcities.bots import Bot, make
from lostcities.bots.analysis import DEFAULT_BOT, DEFAULT_WORLDS, analyse
from lostcities.cards import RANKS, Card, Color
from lostcities.errors import IllegalMoveError, InvalidMoveError
from lostcities.rules import Action, Move, PlayerView
from lostcities.tui.screens.goals import GoalsScreen
from lostcities.tui.session import BOT_SEAT, Session, UndoError, number_players
from lostcities.tui.widgets.board import Board, set_text
from lostcities.tui.widgets.cards import card_label
from lostcities.tui.widgets.hand import Hand
from lostcities.tui.widgets.score import TopBar

__all__ = ["GameScreen"]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ERROR_SECONDS = 4.0
"""How long an error stays on the status line before the step's prompt comes back."""

Phase = Literal["pick", "draw", "bot", "wait", "over"]


def describe(move: Move, pile_top: Card | None = None) -> str:
    """A move in words: ``played y7, drew from the deck``."""
    verb = "played" if move.action is Action.PLAY else "discarded"
    if move.draw is None:
        src = "the draw pile"
    else:
        src = f"the {move.draw.name.lower()} pile" + (f" ({pile_top})" if pile_top else "")
    return f"{verb} {card_label(move.card)}, drew from {src}"


GOALS_HEAD = "goals +10: "
MAX_GOAL_LINES = 4
"""Lines the goal cards may take: an 80x24 screen has 4 above the board (``#goals`` grows
into the rows the board leaves free)."""


def _goal_parts(view: PlayerView, names: tuple[str, str] | None) -> list[str]:
    board = view.achievements
    assert board is not None
    parts = []
    for g, holder in zip(board.goals, board.claims, strict=True):
        mark = "☆" if holder is None else "★" if holder == view.player else "✦"
        who = "" if holder is None or names is None else f" {names[holder]}"
        parts.append(f"{mark} {g.name}{' (end)' if g.kind == 'end' else ''}{who}")
    return parts


def _wrap_goals(parts: list[str], width: int) -> list[str]:
    """``parts`` after :data:`GOALS_HEAD`, wrapped between goals (never inside one) to
    ``width``, continuation lines indented under the first goal; a goal longer than a line
    alone is cut with ``…``."""
    indent = " " * len(GOALS_HEAD)
    room = max(width - len(indent), 8)
    lines: list[str] = []
    line = ""
    for part in parts:
        if len(part) > room:
            part = part[: room - 1] + "…"
        if line and len(line) + 2 + len(part) > room:
            lines.append(line)
            line = part
        else:
            line = f"{line}  {part}" if line else part
    lines.append(line)
    return [(GOALS_HEAD if i == 0 else indent) + text for i, text in enumerate(lines)]


def goals_lines(view: PlayerView, names: tuple[str, str], width: int) -> list[str]:
    """The achievements variant's goal cards in lines of at most ``width`` characters
    (``[]`` in the classic game), at most :data:`MAX_GOAL_LINES`: each goal's name,
    ``(end)`` for an end goal, and its holder: ``★`` the viewer, ``✦`` the other player,
    ``☆`` nobody yet, with the holder's name where the lines have room for it. Every goal
    is shown: a line breaks between goals, never inside one.

    >>> from lostcities import Round
    >>> from lostcities.achievements import DEFAULT_GOALS
    >>> r = Round.deal(seed=4, variant="long", achievements=DEFAULT_GOALS.draw(4))
    >>> for line in goals_lines(r.view(0), ("you", "bot"), 60):
    ...     print(line)
    goals +10: ☆ Three Summits  ☆ Cartographer (end)
               ☆ In the Black  ☆ Treasure Trove  ☆ All In
    """
    if view.achievements is None:
        return []
    lines = _wrap_goals(_goal_parts(view, names), width)
    if len(lines) > MAX_GOAL_LINES:  # the marks alone say who holds a goal
        lines = _wrap_goals(_goal_parts(view, None), width)
    return lines


def goals_line(view: PlayerView, names: tuple[str, str]) -> str:
    """The goal cards of :func:`goals_lines` in one line, however long (``""`` in the
    classic game).

    >>> from lostcities import Round
    >>> from lostcities.achievements import DEFAULT_GOALS
    >>> r = Round.deal(seed=1, achievements=[DEFAULT_GOALS[0], DEFAULT_GOALS[-1]])
    >>> goals_line(r.view(0), ("you", "bot"))
    'goals +10: ☆ Trailblazer  ☆ Deep Pockets (end)'
    """
    if view.achievements is None:
        return ""
    return GOALS_HEAD + "  ".join(_goal_parts(view, names))


class GameScreen(Screen[None]):
    """Plays the session's match round after round until the match is over."""

    AUTO_FOCUS = "#hand"

    BINDINGS = [
        Binding("left", "cursor(-1)", "pick", key_display="←→"),
        Binding("right", "cursor(1)", "pick", show=False),
        Binding("enter", "key('enter')", "play", key_display="↵"),
        Binding("up", "key('enter')", "play", show=False),
        Binding("p", "key('p')", "play", show=False),
        Binding("d", "key('d')", "discard"),
        Binding("down", "key('d')", "discard", show=False),
        Binding("full_stop", "key('.')", "deck", key_display="."),  # as the board names it
        Binding("u", "undo", "undo"),
        Binding("h", "hint", "hint"),
        Binding("colon", "type_move", "type", key_display=":"),  # a whole move: the box says so
        # the achievements variant only (check_action); g is the green pile and cards
        Binding("i", "goals", "goals"),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "quit_game", "quit"),
    ]

    class BotMoved(Message):
        """The bot's worker finished (``move`` or ``error``)."""

        def __init__(
            self, generation: int, bot: Bot, move: Move | None, error: BaseException | None
        ) -> None:
            super().__init__()
            self.generation = generation
            self.bot = bot
            self.move = move
            self.error = error

    class HintReady(Message):
        """The hint's worker finished (``text``: the hint in words, or why there is none)."""

        def __init__(self, key: tuple[int, int, int], text: str, ok: bool) -> None:
            super().__init__()
            self.key = key
            self.text = text
            self.ok = ok

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.phase: Phase = "wait"
        self.selected: int | None = None
        self.pending: Move | None = None
        self.buffer = ""
        self.generation = 0
        self.spin = 0
        self.last_line = ""
        self.prev_move = ""
        self.prompt = ""
        self.error = False
        self.privacy_for: int | None = None
        self.goal_rows = 1
        """Lines the goal cards take now (:func:`goals_lines`)."""

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        s = self.session
        yield TopBar(id="topbar")
        yield Static("", id="goals")  # the achievements variant's goal cards (hidden in classic)
        yield Board(s.match.variant, s.names, id="board")
        with Vertical(id="bottom"):
            yield Hand(s.match.variant.hand_size, id="hand")
            yield Static("", id="last")
            yield Static("", id="status")
            yield Input(
                placeholder=": type a move, e.g. +y7. or -r10b",
                id="move-input",
                select_on_focus=False,
            )
        yield Footer(compact=True)  # every key in 80 columns, the goals key too

    def on_mount(self) -> None:
        self.set_interval(0.1, self._tick)
        self.begin_turn()

    def on_resize(self, event: events.Resize) -> None:
        if self.session.match.rounds:
            self.redraw()  # the goal cards wrap to the new width

    # -- flow --------------------------------------------------------------------------

    def begin_turn(self) -> None:
        """Decide what happens next: round end, the bot's turn, a privacy screen, or a pick."""
        s = self.session
        self.selected = None
        self.pending = None
        self.buffer = ""
        if s.round.is_over():
            self.phase = "over"
            self.redraw()
            self.call_after_refresh(self.app.round_over)  # type: ignore[attr-defined]
            return
        if s.bot_to_move():
            self.start_bot()
            return
        if s.hotseat and self.privacy_for != s.round.to_move:
            self.privacy_for = s.round.to_move
            self.phase = "wait"
            self.redraw()
            self.app.show_privacy(s.round.to_move, self.last_line, self.after_privacy)  # type: ignore[attr-defined]
            return
        self.phase = "pick"
        view = s.view()
        if view.hand:
            self.selected = 0
        self.set_prompt(self.pick_prompt())
        self.redraw()

    def after_privacy(self, _: object = None) -> None:
        """The next hot-seat player is at the keyboard."""
        self.begin_turn()

    def new_round(self) -> None:
        """Called by the app when the next round has been dealt."""
        self.privacy_for = None
        self.prev_move = ""
        self.last_line = f"Round {self.session.round_index + 1} — {self.starter_text()}"
        self.begin_turn()

    def starter_text(self) -> str:
        s = self.session
        return f"{s.names[s.round.starter]} start{'s' if s.names[s.round.starter] != 'you' else ''}"

    def start_bot(self) -> None:
        s = self.session
        assert s.bot is not None
        self.phase = "bot"
        self.generation += 1
        self.set_prompt("")
        self.redraw()
        self.think(s.bot, s.bot_view(), self.generation)

    @work(thread=True, exclusive=True, group="bot", exit_on_error=False)
    def think(self, bot: Bot, view: PlayerView, generation: int) -> None:
        """Ask the bot for its move on a thread; the answer comes back as :class:`BotMoved`.
        At a first start the bot waits for the search's compile (never compiles in a move)."""
        warm = getattr(self.app, "warm_up", None)
        if warm is not None:
            warm.ready.wait()
        try:
            move = bot.choose(view)
        except Exception as e:  # a crashing bot forfeits; the app goes on
            self.post_message(self.BotMoved(generation, bot, None, e))
            return
        self.post_message(self.BotMoved(generation, bot, move, None))

    def on_game_screen_bot_moved(self, msg: GameScreen.BotMoved) -> None:
        s = self.session
        if msg.generation != self.generation or self.phase != "bot":
            if msg.bot is not s.bot:
                msg.bot.close()  # an undo replaced this bot while it thought
            return
        name = s.names[BOT_SEAT]
        if msg.error is not None or msg.move is None:
            reason = s.bot_failed(msg.error or RuntimeError("no move"))
            self.last_line = number_players(f"{name} forfeits the round: {reason}")
        else:
            pile = s.round.discard_piles[msg.move.draw] if msg.move.draw is not None else ()
            top = pile[-1] if pile else None
            forfeit = s.bot_move(msg.move)
            if forfeit is None:
                self.note_move(name, msg.move, top)
            else:
                self.last_line = number_players(f"{name} forfeits the round: {forfeit}")
        self.begin_turn()

    def commit(self, move: Move) -> None:
        """Make the person's move, or say why it is illegal."""
        s = self.session
        r = s.round
        player = r.to_move
        top = (
            r.discard_piles[move.draw][-1]
            if move.draw is not None and r.discard_piles[move.draw]
            else None
        )
        try:
            s.human_move(move)
        except (IllegalMoveError, InvalidMoveError) as e:
            self.set_prompt(str(e), error=True)
            return
        who = s.names[player]
        self.note_move(who, move, top)
        self.begin_turn()

    def note_move(self, who: str, move: Move, top: Card | None) -> None:
        """Show the move just made (and, shorter, the one before it)."""
        line = f"{who}: {move} ({describe(move, top)})"
        if self.prev_move and len(self.prev_move) + len(line) + 5 <= 78:
            line = f"{self.prev_move}  ·  {line}"
        self.prev_move = f"{who}: {move}"
        self.last_line = line

    # -- drawing ---------------------------------------------------------------------------

    def pick_prompt(self) -> str:
        s = self.session
        who = "Your move" if not s.hotseat else f"{s.names[s.round.to_move].capitalize()} to move"
        card = self.selected_card()
        if card is None:
            return f"{who}: pick a card (←→ or type it: y7), then ↵ play · d discard"
        return f"{who}: {card_label(card)} – ↵ play · d discard  (←→ or type a card: y7)"

    def draw_prompt(self) -> str:
        assert self.pending is not None
        r = self.session.round
        verb = "Play" if self.pending.action is Action.PLAY else "Discard"
        parts = [f"{verb} {self.pending.card} – draw from: . deck"]
        for c in r.variant.colors:
            pile = r.discard_piles[c]
            if pile and not (
                self.pending.action is Action.DISCARD and c == self.pending.card.color
            ):
                parts.append(f"{c.letter} {pile[-1]}")
        return "  ".join(parts) + "  (esc back)"

    def set_prompt(self, text: str, *, error: bool = False) -> None:
        if self.phase in ("pick", "draw") and self.session.match.rounds:
            # the core names the mover by seat; the person at the keyboard is "you"
            text = text.replace(f"player {self.session.round.to_move}'s hand", "your hand")
        self.prompt = number_players(text)
        self.error = error
        if self.is_mounted:
            self._show_status()
            if error:
                shown = self.prompt
                self.set_timer(ERROR_SECONDS, lambda: self._error_seen(shown))

    def _error_seen(self, shown: str | None = None) -> None:
        """An error has been read (a key pressed, or its time is up): the prompt of the
        current step comes back."""
        if not self.error or (shown is not None and shown != self.prompt):
            return
        if self.phase == "pick":
            self.set_prompt(self.pick_prompt())
        elif self.phase == "draw" and self.pending is not None:
            self.set_prompt(self.draw_prompt())
        else:
            self.set_prompt("")

    def _show_status(self) -> None:
        status = self.query_one("#status", Static)
        status.set_class(self.error, "-error")
        if self.phase == "bot":
            name = self.session.names[BOT_SEAT]
            doing = (
                "is preparing its search (first start only)" if self.warming() else "is thinking"
            )
            text = f"{SPINNER[self.spin % len(SPINNER)]} {name} {doing}…   u: undo your move"
            if self.error:
                text = self.prompt
            set_text(status, text)
        else:
            set_text(status, self.prompt)

    def warming(self) -> bool:
        """Whether the bot's search is still being compiled (a first start)."""
        warm = getattr(self.app, "warm_up", None)
        return warm is not None and not warm.ready.is_set()

    def _tick(self) -> None:
        if self.phase == "bot":
            self.spin += 1
            self._show_status()

    def redraw(self) -> None:
        """Show the session's current state from the viewer's side."""
        s = self.session
        view = s.view()
        board = self.query_one(Board)
        board.show(view)
        goals = self.query_one("#goals", Static)
        lines = goals_lines(view, s.names, self.size.width or 80)
        goals.set_class(bool(lines), "-on")
        board.set_class(bool(lines), "-goals")
        if lines and len(lines) != self.goal_rows:
            self.goal_rows = len(lines)
            goals.styles.height = len(lines)  # a layout pass: the board moves down
        set_text(goals, "\n".join(lines))
        playable: frozenset[Card] = frozenset()
        if self.phase in ("pick", "draw"):
            playable = frozenset(view.legal_moves().cards(Action.PLAY))
        shown = self.selected if self.phase in ("pick", "draw") else None
        self.query_one(Hand).show(view.hand, playable, shown)
        target = None
        sources: tuple[Color | None, ...] = ()
        blocked = None
        if self.phase == "pick" and self.selected is not None and self.selected < len(view.hand):
            target = view.hand[self.selected].color
        if self.phase == "draw" and self.pending is not None:
            target = self.pending.card.color
            sources = tuple(view.legal_moves().draws(self.pending.action, self.pending.card))
            if self.pending.action is Action.DISCARD:
                blocked = self.pending.card.color
        board.mark(target, sources, blocked)
        self.query_one(TopBar).show(
            s.round_index + 1,
            s.match.num_rounds,
            s.names,
            s.match.totals(),
            view.player,
            s.match.variant.name,
        )
        set_text(self.query_one("#last", Static), self.last_line)
        self._show_status()

    # -- input -------------------------------------------------------------------------------

    def selected_card(self) -> Card | None:
        hand = self.session.view().hand
        if self.selected is None or not 0 <= self.selected < len(hand):
            return None
        return hand[self.selected]

    def action_cursor(self, step: int) -> None:
        if self.phase != "pick":
            return
        n = len(self.session.view().hand)
        if not n:
            return
        self.buffer = ""
        self.selected = 0 if self.selected is None else (self.selected + step) % n
        self.set_prompt(self.pick_prompt())
        self.redraw()

    def action_key(self, ch: str) -> None:
        self.press(ch)

    def on_key(self, event: events.Key) -> None:
        if self.error:
            self._error_seen()
        if isinstance(self.focused, Input):
            if event.key == "escape":
                self.query_one("#move-input", Input).value = ""
                self.query_one("#hand").focus()
                event.stop()
            return
        ch = event.character
        if ch in ("u", "h") and self.session.hotseat:
            self.action_undo() if ch == "u" else self.action_hint()
            event.stop()
        elif event.key in ("enter", "space", "escape", "backspace"):
            self.press(event.key)
            event.stop()
        elif event.key in ("plus", "minus") and ch:
            self.action_type_move(ch)
            event.stop()
        elif ch == "i" and self.session.match.achievements is None:
            self.action_goals()  # says there are none
            event.stop()
        elif ch and ch.isprintable() and ch not in "p.d:?quhi":
            self.press(ch.lower())
            event.stop()

    def press(self, key: str) -> None:
        """One key of the keyboard flow (also driven by the bindings)."""
        if self.phase == "pick":
            self._press_pick(key)
        elif self.phase == "draw":
            self._press_draw(key)
        elif self.phase == "bot" and key not in ("escape",):
            self.set_prompt(f"{self.session.names[BOT_SEAT]} is thinking… (u undoes your move)")

    def _press_pick(self, key: str) -> None:
        s = self.session
        variant = s.match.variant
        letters = {c.letter: c for c in variant.colors}
        hand = s.view().hand
        buf = self.buffer
        if buf and key in ("x", *"23456789", "1", "0"):
            color = letters[buf[0]]
            if key == "1" and len(buf) == 1:
                self.buffer = buf + "1"
                self.set_prompt(f"picking {buf}1…")
                return
            if len(buf) == 2 and key != "0":
                self.buffer = ""
                self.set_prompt(f"no card {buf}{key}", error=True)
                return
            rank = 0 if key == "x" else 10 if key == "0" else int(key)
            self.buffer = ""
            if rank not in RANKS:
                self.set_prompt(f"no card {buf}{key}", error=True)
                return
            card = Card(color, rank)
            if card not in hand:
                self.set_prompt(f"{card} is not in your hand", error=True)
                return
            self.selected = hand.index(card)
            self.set_prompt(self.pick_prompt())
            self.redraw()
            return
        if key == "p" and Color.PURPLE not in variant.colors:
            self.buffer = ""
            self.choose_action(Action.PLAY)  # no purple in this game: p plays
            return
        self.buffer = ""
        if key == "enter":
            self.choose_action(Action.PLAY)
        elif key == "d":
            self.choose_action(Action.DISCARD)
        elif key in letters:
            self.buffer = key
            self.set_prompt(f"picking {key}… (type the rank: x 2 … 10)")
        elif key in ("escape", "backspace"):
            self.set_prompt(self.pick_prompt())
        elif key in (".", "space"):
            self.set_prompt("pick a card first, then p play or d discard", error=True)
        else:
            self.set_prompt(f"unknown key {key!r}: ? shows the keys", error=True)

    def choose_action(self, action: Action) -> None:
        card = self.selected_card()
        if card is None:
            self.set_prompt("pick a card first (←→ or type it, e.g. y7)", error=True)
            return
        r = self.session.round
        probe = Move(action, card, None)  # the draw pile is always a legal source
        try:
            r.parse_move(str(probe))
        except (IllegalMoveError, InvalidMoveError) as e:
            self.set_prompt(str(e), error=True)
            return
        self.pending = probe
        self.phase = "draw"
        self.set_prompt(self.draw_prompt())
        self.redraw()

    def _press_draw(self, key: str) -> None:
        assert self.pending is not None
        letters = {c.letter: c for c in self.session.match.variant.colors}
        if key in (".", "space", "enter"):
            self.commit(Move(self.pending.action, self.pending.card, None))
        elif key in letters:
            self.commit(Move(self.pending.action, self.pending.card, letters[key]))
        elif key in ("escape", "backspace"):
            self.pending = None
            self.phase = "pick"
            self.set_prompt(self.pick_prompt())
            self.redraw()
        else:
            self.set_prompt(
                f"draw from: . for the draw pile or a colour letter ({' '.join(letters)})",
                error=True,
            )

    def on_hand_picked(self, msg: Hand.Picked) -> None:
        if self.phase == "draw":
            self.pending = None
            self.phase = "pick"
        if self.phase != "pick":
            return
        self.selected = msg.index
        self.buffer = ""
        self.set_prompt(self.pick_prompt())
        self.redraw()
        self.query_one("#hand").focus()

    def on_board_clicked(self, msg: Board.Clicked) -> None:
        if self.phase == "pick":
            if msg.where == "mine":
                self.choose_action(Action.PLAY)
            elif msg.where == "pile":
                card = self.selected_card()
                if card is not None and msg.color is not None and card.color != msg.color:
                    self.set_prompt(
                        f"{card} can only be discarded onto the {card.color.name.lower()} pile",
                        error=True,
                    )
                    return
                self.choose_action(Action.DISCARD)
        elif self.phase == "draw" and self.pending is not None:
            if msg.where == "deck":
                self.commit(Move(self.pending.action, self.pending.card, None))
            elif msg.where == "pile" and msg.color is not None:
                self.commit(Move(self.pending.action, self.pending.card, msg.color))
            elif msg.where == "mine" and self.pending.action is Action.PLAY:
                self.set_prompt(self.draw_prompt() + " – click the deck or a pile")

    def action_type_move(self, prefix: str = "") -> None:
        box = self.query_one("#move-input", Input)
        box.value = prefix
        box.cursor_position = len(prefix)
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.query_one("#hand").focus()
            return
        # the box is emptied and left whatever happens: ':' opens a fresh one
        event.input.value = ""
        self.query_one("#hand").focus()
        if self.phase not in ("pick", "draw"):
            self.set_prompt("wait for your turn", error=True)
            return
        try:
            move = self.session.round.parse_move(text)
        except (IllegalMoveError, InvalidMoveError) as e:
            self.set_prompt(f"{e}  (: to type another)", error=True)
            return
        self.pending = None
        self.phase = "pick"
        self.commit(move)

    def action_undo(self) -> None:
        """``u``: take back the person's move (while the bot thinks), or the person's move
        and the bot's reply (on the person's turn), or say in one line why not."""
        s = self.session
        why = s.undo_blocker()
        if why is None and self.phase not in ("bot", "pick", "draw"):
            why = "not now"
        if why is not None:
            self.set_prompt(f"cannot undo: {why}", error=True)
            return
        if self.phase == "bot":
            self.workers.cancel_group(self, "bot")
        try:
            moves = s.undo()
        except UndoError as e:  # pragma: no cover - undo_blocker said yes
            self.set_prompt(str(e), error=True)
            return
        self.generation += 1  # the old worker's answer (if any) is now stale
        move = moves[0]
        if len(moves) == 1:
            self.last_line = f"you took back {move}"
        else:
            self.last_line = (
                f"you took back {move} and the reply {moves[1]} (the game is now marked assisted)"
            )
        self.prev_move = ""
        self.pending = None
        self.buffer = ""
        self.phase = "pick"
        hand = s.view().hand
        self.selected = hand.index(move.card) if move.card in hand else 0
        self.set_prompt(self.pick_prompt())
        self.redraw()

    def action_hint(self) -> None:
        """``h``: the engine's move for the person's position, worked out on a thread."""
        s = self.session
        if s.hotseat:
            self.set_prompt("no hints in hot-seat games", error=True)
            return
        if self.phase not in ("pick", "draw"):
            self.set_prompt("a hint is for your turn", error=True)
            return
        self.set_prompt("asking the engine…")
        self.find_hint(s.view(), self._position_key())

    def _position_key(self) -> tuple[int, int, int]:
        """Which position a hint is for: the round, the ply and the undos so far (after a
        take-back the same ply is another position)."""
        s = self.session
        return (s.round_index, s.round.ply, len(s.undos))

    @work(thread=True, exclusive=True, group="hint", exit_on_error=False)
    def find_hint(self, view: PlayerView, key: tuple[int, int, int]) -> None:
        """The analysis of ``view`` (the person's own view only) on a thread."""
        try:
            a = analyse(make(DEFAULT_BOT), view, worlds=DEFAULT_WORLDS, seed=key[0] * 1000 + key[1])
        except Exception as e:  # never break the game over a hint
            self.post_message(self.HintReady(key, f"no hint: {e}", False))
            return
        best = a.moves[0]
        text = (
            f"hint: {a.best}  (expected margin {best.margin:+.1f},"
            f" {100 * best.win:.0f}% to win the round)"
        )
        self.post_message(self.HintReady(key, text, True))

    def on_game_screen_hint_ready(self, msg: GameScreen.HintReady) -> None:
        s = self.session
        if msg.key != self._position_key() or self.phase not in ("pick", "draw"):
            return  # the position moved on
        if msg.ok:
            s.hints += 1
        self.set_prompt(msg.text, error=not msg.ok)

    def action_help(self) -> None:
        self.app.action_show_help()  # type: ignore[attr-defined]

    def action_goals(self) -> None:
        """``i``: the goal cards and what each requires (the achievements variant)."""
        s = self.session
        if not s.match.rounds or s.view().achievements is None:
            self.set_prompt("no goal cards: this is the classic game", error=True)
            return
        self.app.push_screen(GoalsScreen(s.view(), s.names))

    def action_quit_game(self) -> None:
        self.app.action_confirm_quit()  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # no undo or hint in hot-seat: not in the footer (on_key says why when pressed)
        if action == "goals":
            return self.session.match.achievements is not None
        return not (action in ("undo", "hint") and self.session.hotseat)
