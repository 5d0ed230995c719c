"""The state of one terminal match, kept apart from the screens that show it.

A :class:`Session` owns the :class:`~lostcities.Match` through a
:class:`~lostcities.referee.Referee` (which checks every move, informs the bot, applies
forfeits and undo), knows which seats are people and which is a bot, records every undo,
and builds the game record at the end. It never imports Textual, so it is easy to test
alone; the screens only read from it and call its methods. The bot's move is computed by
the screens on a worker thread and handed in with :meth:`Session.bot_move`.

>>> s = Session(rounds=1, seed=3, opponent="random")
>>> r = s.start_round()
>>> s.human_seats
(0,)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from lostcities.achievements import GoalSet
from lostcities.bots import Bot, make
from lostcities.errors import IllegalMoveError, InvalidMoveError, UndoError
from lostcities.match import Match, check_tie_break
from lostcities.presentation import assistance
from lostcities.referee import Referee
from lostcities.rules import Move, PlayerView, Round, Termination

__all__ = [
    "BOT_SEAT",
    "DREW_BLIND",
    "HUMAN_SEAT",
    "Session",
    "UndoError",
    "UndoRecord",
    "bot_name",
    "number_players",
]

HUMAN_SEAT = 0
"""The person's seat in a game against a bot."""
BOT_SEAT = 1
"""The bot's seat in a game against a bot."""
DREW_BLIND = "your move drew from the draw pile: you saw a hidden card"
"""Why a move that drew from the draw pile is never undone (the referee's no-information rule)."""


@dataclasses.dataclass(frozen=True, slots=True)
class UndoRecord:
    """One undone move, kept for the game record."""

    round_index: int
    """Which round (0-based)."""
    ply: int
    """The ply the undone move had (0-based): it was the ``ply + 1``-th move."""
    move: Move
    """The move that was taken back."""
    reply: Move | None = None
    """With a take-back (:meth:`Session.undo` on the person's turn): the bot's reply, taken
    back with :attr:`move`; ``None`` for an undo while the bot was thinking."""


def bot_name(bot: Bot) -> str:
    """What the screens call a bot: the name a program gave in its ``id name`` line, else
    the bot's own name.

    >>> bot_name(make("random"))
    'random'
    """
    given = getattr(bot, "id", None)
    if isinstance(given, dict) and str(given.get("name", "")).strip():
        return str(given["name"]).strip()
    return bot.name


def number_players(text: str) -> str:
    """A core message with its players numbered from 1, as the screens number them.

    >>> number_players("it is player 0's turn, not player 1's")
    "it is player 1's turn, not player 2's"
    """
    return re.sub(r"\bplayer ([01])\b", lambda m: f"player {int(m.group(1)) + 1}", text)


class Session:
    """One match in the terminal: the match's referee, the players and the undo log.

    Args:
        opponent: a bot spec (``random``, ``ismcts:time=1``); ignored when ``hotseat``.
        variant: ``classic`` or ``long``.
        rounds: rounds in the match.
        seed: the match seed (deals and the bot's randomness); ``None`` draws one.
        hotseat: two people at one keyboard instead of a person against a bot.
        tie_break: ``draw`` or ``youngest`` (the ``younger`` seat wins equal totals);
            ``None``: a draw, and a hot-seat game asks at set-up (:attr:`tie_break_pending`).
        younger: with ``youngest``, the younger player's seat (0 or 1).
        achievements: the achievements variant: ``True`` (the default goal pool) or a
            ``GoalSet`` (5 goals per round, 10 points each held); ``None``: classic.
        bot_factory: builds the bot from ``(spec, seed)`` (default :func:`lostcities.bots.make`).

    Raises:
        BotSpecError: for an opponent spec that names no bot (raised here, before any screen).
        ValueError: for a bad variant, number of rounds or tie-break.
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
        tie_break: str | None = None,
        younger: int | None = None,
        achievements: bool | GoalSet | None = None,
    ) -> None:
        # a bot that forfeits (crashes, times out, moves illegally) loses only that round,
        # scored as the expeditions stand, as the arena scores it; the match goes on
        self.match = Match(
            rounds,
            variant=variant,
            seed=seed,
            tie_break=tie_break or "draw",
            younger=younger,
            forfeit_ends_match=False,
            achievements=achievements,
        )
        self.tie_break_pending = hotseat and tie_break is None
        """Whether the set-up still has to ask who is younger (hot-seat games ask)."""
        self.hotseat = hotseat
        self.opponent = opponent
        self._bot_factory = bot_factory
        self._bot_generation = 0
        self._bot: Bot | None = None if hotseat else bot_factory(opponent, self._bot_seed())
        self.referee = Referee(self.match, (None, self._bot), undo=not hotseat)
        """The match's referee: people's seats are ``None`` (their moves are submitted),
        the bot sits in :data:`BOT_SEAT` (told every move, restarted every round)."""
        self.undos: list[UndoRecord] = []
        self.hints = 0
        """Hints the person asked the engine for (any: the game is assisted, as its record
        says)."""
        if hotseat:
            self.names: tuple[str, str] = ("player 1", "player 2")
        else:
            assert self._bot is not None
            self.names = ("you", bot_name(self._bot))

    @classmethod
    def resumed(
        cls,
        match: Match,
        *,
        opponent: str = "random",
        hotseat: bool = False,
        bot_factory: Callable[[str, int | None], Bot] = make,
    ) -> Session:
        """A session that goes on with ``match`` (replayed from a saved record, unfinished):
        the next round is dealt from its seed as it would have been, and the bot of the
        current round is told its moves so far.

        Raises:
            ValueError: if the match is over.
            BotSpecError: for an opponent spec that names no bot.
        """
        if match.is_over():
            raise ValueError("the match is over: nothing to resume")
        s = cls(
            opponent=opponent,
            variant=match.variant.name,
            rounds=match.num_rounds,
            seed=match.seed,
            hotseat=hotseat,
            bot_factory=bot_factory,
            tie_break=match.tie_break,
            younger=match.younger,
            achievements=match.achievements,
        )
        match.forfeit_ends_match = False  # as every terminal match (a bot forfeits a round)
        s.match = match
        s.tie_break_pending = False
        s.referee = Referee(match, (None, None), undo=not hotseat)
        s.referee.set_player(BOT_SEAT, s._bot)  # restarted and told the round's moves
        return s

    # -- who is who ----------------------------------------------------------------------

    @property
    def bot(self) -> Bot | None:
        """The bot playing :data:`BOT_SEAT` (``None`` in hot-seat); an undo replaces it."""
        return self._bot

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
        return self.referee.round

    @property
    def round_index(self) -> int:
        """The current round's index (0-based)."""
        return self.referee.round_index

    def viewer(self) -> int:
        """Whose eyes the board is drawn for: the person to move in hot-seat, else the person."""
        if self.hotseat:
            return self.round.to_move
        return HUMAN_SEAT

    def view(self) -> PlayerView:
        """The board as the viewer may see it (never the other hand), with the match's
        context (:attr:`PlayerView.match`: the round, the totals, what is at stake), as a
        hint's search needs it."""
        return self.match.view(self.viewer())

    def bot_view(self) -> PlayerView:
        """What the bot sees: its view of the round with the match's context (it plays
        for the match, not the round alone)."""
        return self.match.view(BOT_SEAT)

    def bot_to_move(self) -> bool:
        """Whether the bot must move now."""
        return (
            self._bot is not None
            and bool(self.match.rounds)
            and not self.referee.is_over()
            and self.referee.to_move == BOT_SEAT
        )

    def set_tie_break(self, tie_break: str, younger: int | None = None) -> None:
        """Set how equal match totals end (the set-up's answer), before the first round.

        Raises:
            TieBreakError: for a bad setting.
            ValueError: once a round has been dealt.
        """
        if self.match.rounds:
            raise ValueError("the tie-break is set before the first round")
        self.match.tie_break, self.match.younger = check_tie_break(tie_break, younger)
        self.tie_break_pending = False

    # -- playing ---------------------------------------------------------------------------

    def start_round(self) -> Round:
        """Deal the next round and tell the bot.

        Raises:
            ValueError: if a round is in progress or the match is over.
        """
        return self.referee.start_round()

    def human_move(self, move: Move | str) -> Move:
        """Make a person's move (a ``Move`` or notation) and tell the bot.

        Raises:
            InvalidMoveError: for bad notation.
            IllegalMoveError: for a move the rules forbid (the message says why); nothing changes.
            ValueError: when it is the bot's turn (:class:`~lostcities.errors.NotYourTurnError`
                once the round is over).
        """
        r = self.round
        if not r.is_over() and r.to_move not in self.human_seats:
            raise ValueError("it is the bot's turn")
        return self.referee.submit(move, player=r.to_move)

    def bot_move(self, move: Move) -> str | None:
        """Apply the bot's move; an illegal one forfeits the round for the bot.

        Returns:
            ``None``, or the reason the bot forfeited.
        """
        assert self._bot is not None and self.referee.to_move == BOT_SEAT
        try:
            self.referee.submit(move, player=BOT_SEAT)
        except (IllegalMoveError, InvalidMoveError):
            reason = f"the bot played an illegal move {str(move)!r}"
            self.referee.forfeit(BOT_SEAT, reason)
            return reason
        outcome = self.round.outcome()
        if outcome is not None and outcome.termination is Termination.FORFEIT:
            return outcome.reason  # a player failed when told of the move
        return None

    def bot_failed(self, error: BaseException) -> str:
        """The bot crashed or gave up: it forfeits the round. Returns the reason."""
        reason = f"the bot failed: {error}"
        if not self.referee.is_over():
            self.referee.forfeit(BOT_SEAT, reason)
        return reason

    # -- undo --------------------------------------------------------------------------------

    def undo_blocker(self) -> str | None:
        """Why :meth:`undo` is not allowed now, or ``None`` if it is."""
        if self.hotseat:
            return "undo is only allowed against a bot, not in hot-seat games"
        if not self.match.rounds or not self.round.history:
            return "nothing to undo"
        if self.round.is_over():
            return "the round is over"
        thinking = self.bot_to_move()
        ref = self.referee
        why = ref.undo_blocker(HUMAN_SEAT) if thinking else ref.take_back_blocker(HUMAN_SEAT)
        if why is None:
            return None
        history = self.round.history
        if len(history) < (1 if thinking else 2):
            return "nothing to undo"
        if history[-1 if thinking else -2].draw is None:
            return DREW_BLIND  # the referee's rule, in a line that fits the status line
        return why

    def undo(self) -> tuple[Move, ...]:
        """Take back the person's last move: alone while the bot thinks, or together with the
        bot's reply on the person's turn (a *take-back*). Returns the moves taken back, in
        the order they were made.

        Never a move that drew from the draw pile (its hidden card was shown: the referee's
        rule). A take-back puts the bot's card back in its hand, which the person then knows
        about: the game counts as assisted (:attr:`take_backs`, :attr:`assisted`).

        The bot is replaced by a fresh one told every remaining move, so it forgets the
        undone moves; after an undo while it thought, the old one may still be thinking on
        another thread and is the caller's to close (:attr:`retired_bot`). Each undo is kept
        in :attr:`undos`.

        Raises:
            UndoError: when undo is not allowed now (the message says why).
        """
        why = self.undo_blocker()
        if why is not None:
            raise UndoError(why)
        thinking = self.bot_to_move()
        ply = self.round.ply - (1 if thinking else 2)
        ref = self.referee
        # unseat the old bot first: it may still be thinking, so the referee must not
        # restart it; the fresh one is seated (and told the remaining moves) after the undo
        old = self._bot
        ref.set_player(BOT_SEAT, None)
        if thinking:
            moves: tuple[Move, ...] = (ref.undo(HUMAN_SEAT),)
            self.undos.append(UndoRecord(self.round_index, ply, moves[0]))
            self.retired_bot = old
        else:
            moves = ref.take_back(HUMAN_SEAT)
            self.undos.append(UndoRecord(self.round_index, ply, moves[0], moves[1]))
            if old is not None:
                old.close()  # it was not thinking: nothing to wait for
        self._bot_generation += 1
        self._bot = self._bot_factory(self.opponent, self._bot_seed())
        ref.set_player(BOT_SEAT, self._bot)
        return moves

    @property
    def take_backs(self) -> int:
        """Take-backs of a move with the bot's reply (any: the game is assisted)."""
        return sum(u.reply is not None for u in self.undos)

    @property
    def assisted(self) -> bool:
        """Whether the person had help the rules do not give: a hint or a take-back."""
        return bool(self.hints or self.take_backs)

    def assistance(self) -> str:
        """The help the person had, in the record's ``Assisted`` form: ``""`` for none,
        else ``2 hints``, ``1 take-back`` or both, comma-separated (``1 hint, 2 take-backs``).

        >>> Session(rounds=1, seed=1, opponent="random").assistance()
        ''
        """
        return assistance(self.hints, self.take_backs)

    retired_bot: Bot | None = None
    """The bot an undo replaced (it may still be thinking); close it once it is done."""

    def _bot_seed(self) -> int:
        return self.match.seed + 7919 * self._bot_generation

    # -- the end -------------------------------------------------------------------------------

    def close(self) -> None:
        """Release the bot(s)."""
        for b in (self._bot, self.retired_bot):
            if b is not None:
                b.close()
