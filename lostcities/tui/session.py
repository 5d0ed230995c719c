"""The state of one terminal match, kept apart from the screens that show it.

A :class:`Session` owns the :class:`~lostcities.Match`, knows which seats are people and
which is a bot, informs the bot of every move, applies undo (recording it), and builds
the game record at the end. It never imports Textual, so it is easy to test alone; the
screens only read from it and call its methods.

>>> s = Session(rounds=1, seed=3, opponent="random")
>>> r = s.start_round()
>>> s.human_seats
(0,)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from lostcities.bots import Bot, make
from lostcities.match import Match
from lostcities.rules import Move, PlayerView, Round

__all__ = ["BOT_SEAT", "HUMAN_SEAT", "Session", "UndoError", "UndoRecord"]

HUMAN_SEAT = 0
"""The person's seat in a game against a bot."""
BOT_SEAT = 1
"""The bot's seat in a game against a bot."""


class UndoError(ValueError):
    """An undo that is not allowed now (hot-seat, nothing to undo, the bot already replied)."""


@dataclasses.dataclass(frozen=True, slots=True)
class UndoRecord:
    """One undone move, kept for the game record."""

    round_index: int
    """Which round (0-based)."""
    ply: int
    """The ply the undone move had (0-based): it was the ``ply + 1``-th move."""
    move: Move
    """The move that was taken back."""


class Session:
    """One match in the terminal: the match itself, the players and the undo log.

    Args:
        opponent: a bot spec (``random``, ``ismcts:time=1``); ignored when ``hotseat``.
        variant: ``classic`` or ``long``.
        rounds: rounds in the match.
        seed: the match seed (deals and the bot's randomness); ``None`` draws one.
        hotseat: two people at one keyboard instead of a person against a bot.
        bot_factory: builds the bot from ``(spec, seed)`` (default :func:`lostcities.bots.make`).

    Raises:
        BotSpecError: for an opponent spec that names no bot (raised here, before any screen).
        ValueError: for a bad variant or number of rounds.
    """

    def __init__(
        self,
        *,
        opponent: str = "random",
        variant: str = "classic",
        rounds: int = 3,
        seed: int | None = None,
        hotseat: bool = False,
        bot_factory: Callable[[str, int | None], Bot] = make,
    ) -> None:
        self.match = Match(rounds, variant=variant, seed=seed)
        self.hotseat = hotseat
        self.opponent = opponent
        self._bot_factory = bot_factory
        self._bot_generation = 0
        self.bot: Bot | None = None if hotseat else bot_factory(opponent, self._bot_seed())
        self.undos: list[UndoRecord] = []
        if hotseat:
            self.names: tuple[str, str] = ("player 1", "player 2")
        else:
            assert self.bot is not None
            self.names = ("you", self.bot.name)

    # -- who is who ----------------------------------------------------------------------

    @property
    def human_seats(self) -> tuple[int, ...]:
        """The seats people play: both in hot-seat, else :data:`HUMAN_SEAT`."""
        return (0, 1) if self.hotseat else (HUMAN_SEAT,)

    @property
    def round(self) -> Round:
        """The current (or last) round.

        Raises:
            ValueError: before the first round is dealt.
        """
        if not self.match.rounds:
            raise ValueError("no round has been dealt yet")
        return self.match.rounds[-1]

    @property
    def round_index(self) -> int:
        """The current round's index (0-based)."""
        return len(self.match.rounds) - 1

    def viewer(self) -> int:
        """Whose eyes the board is drawn for: the person to move in hot-seat, else the person."""
        if self.hotseat:
            return self.round.to_move
        return HUMAN_SEAT

    def view(self) -> PlayerView:
        """The board as the viewer may see it (never the other hand)."""
        return self.round.view(self.viewer())

    def bot_to_move(self) -> bool:
        """Whether the bot must move now."""
        return (
            self.bot is not None
            and bool(self.match.rounds)
            and not self.round.is_over()
            and self.round.to_move == BOT_SEAT
        )

    # -- playing ---------------------------------------------------------------------------

    def start_round(self) -> Round:
        """Deal the next round and tell the bot.

        Raises:
            ValueError: if a round is in progress or the match is over.
        """
        r = self.match.new_round()
        if self.bot is not None:
            self.bot.restart(self.match.variant, BOT_SEAT)
        return r

    def human_move(self, move: Move | str) -> Move:
        """Make a person's move (a ``Move`` or notation) and tell the bot.

        Raises:
            InvalidMoveError: for bad notation.
            IllegalMoveError: for a move the rules forbid (the message says why); nothing changes.
        """
        r = self.round
        if not r.is_over() and r.to_move not in self.human_seats:
            raise ValueError("it is the bot's turn")
        m = r.parse_move(move) if isinstance(move, str) else move
        player = r.to_move
        r.push(m)
        if self.bot is not None:
            self.bot.inform(m, player)
        return m

    def bot_move(self, move: Move) -> str | None:
        """Apply the bot's move; an illegal one forfeits the round for the bot.

        Returns:
            ``None``, or the reason the bot forfeited.
        """
        r = self.round
        assert self.bot is not None and r.to_move == BOT_SEAT
        if not r.is_legal(move):
            reason = f"the bot played an illegal move {str(move)!r}"
            r.forfeit(BOT_SEAT, reason)
            return reason
        r.push(move)
        self.bot.inform(move, BOT_SEAT)
        return None

    def bot_failed(self, error: BaseException) -> str:
        """The bot crashed or gave up: it forfeits the round. Returns the reason."""
        reason = f"the bot failed: {error}"
        if not self.round.is_over():
            self.round.forfeit(BOT_SEAT, reason)
        return reason

    # -- undo --------------------------------------------------------------------------------

    def undo_blocker(self) -> str | None:
        """Why undo is not allowed now, or ``None`` if it is."""
        if self.hotseat:
            return "undo is only allowed against a bot, not in hot-seat games"
        if not self.match.rounds:
            return "nothing to undo"
        r = self.round
        if r.is_over():
            return "the round is over"
        hist = r.history
        if not hist or r.to_move != BOT_SEAT:
            return "undo is only allowed before the bot replies"
        return None

    def undo(self) -> Move:
        """Take back the person's last move while the bot has not replied yet.

        The bot is replaced by a fresh one told every remaining move, so it forgets the
        undone move; the old one may still be thinking on another thread and is the
        caller's to close (:attr:`retired_bot`). The undo is kept in :attr:`undos`.

        Raises:
            UndoError: when undo is not allowed now (the message says why).
        """
        why = self.undo_blocker()
        if why is not None:
            raise UndoError(why)
        r = self.round
        ply = r.ply - 1
        move = r.pop()
        self.undos.append(UndoRecord(self.round_index, ply, move))
        self.retired_bot = self.bot
        self._bot_generation += 1
        bot = self._bot_factory(self.opponent, self._bot_seed())
        bot.restart(self.match.variant, BOT_SEAT)
        start = r.starter
        for i, m in enumerate(r.history):
            bot.inform(m, start ^ (i & 1))
        self.bot = bot
        return move

    retired_bot: Bot | None = None
    """The bot an undo replaced (it may still be thinking); close it once it is done."""

    def _bot_seed(self) -> int:
        return self.match.seed + 7919 * self._bot_generation

    # -- the end -------------------------------------------------------------------------------

    def close(self) -> None:
        """Release the bot(s)."""
        for b in (self.bot, self.retired_bot):
            if b is not None:
                b.close()
