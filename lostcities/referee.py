"""The referee: the one loop that plays rounds and matches between players who only ever
see their own :class:`~lostcities.PlayerView`.

Every front end (the arena, the terminal UI, the web app, the Gymnasium environment) lets
a :class:`Referee` own the match. A seat is either a :class:`Player` (a bot: the referee
asks it for moves with :meth:`Referee.step`) or ``None`` (a person, a network client or
an RL agent: their moves come in through :meth:`Referee.submit`). The referee checks every
move, tells both players, enforces time limits (:attr:`Referee.time_limit` with
:attr:`Referee.grace`), turns any failure of a player into a forfeit with its reason, takes
moves back where undo is allowed, and reports what happens as :class:`Event` objects.

>>> from lostcities.rules import Round
>>> class First:
...     def choose(self, view, time_limit=None):
...         return view.legal_moves()[0]
>>> ref = Referee(Round.deal(seed=3), [First(), None])
>>> ref.advance()            # player 0 is a bot: it moves; player 1 must move next
1
>>> ref.to_move, len(ref.view(1).hand)
(1, 8)
>>> ref.submit("+y9.", player=1)
Traceback (most recent call last):
...
lostcities.errors.IllegalMoveError: illegal move: '+y9.' (y9 is not in player 1's hand)
>>> m = ref.submit(ref.view(1).legal_moves()[0], player=1)
>>> ref.round.ply
2
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from lostcities.cards import Card, Variant
from lostcities.errors import (
    BotError,
    BotTerminatedError,
    BotTimeoutError,
    IllegalMoveError,
    InvalidMoveError,
    NotYourTurnError,
    UndoError,
)
from lostcities.match import Match
from lostcities.rules import Move, PlayerView, Round, RoundOutcome

__all__ = [
    "DEFAULT_GRACE",
    "Event",
    "MoveMade",
    "Player",
    "Referee",
    "RoundEnded",
    "TakenBack",
    "RoundStarted",
    "Undone",
    "forfeit_reason",
]

DEFAULT_GRACE = 0.5
"""Seconds a player may overrun its time limit (scheduling, pipes) before it forfeits."""


@runtime_checkable
class Player(Protocol):
    """What the referee asks of a seat it plays for: :meth:`choose`; :meth:`restart` and
    :meth:`inform` are called when the object has them (:class:`lostcities.bots.Bot` does)."""

    def choose(self, view: PlayerView, time_limit: float | None = None) -> Move:
        """A legal move for ``view`` within ``time_limit`` seconds (``None``: no limit)."""
        ...


# -- events -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at the table (subclasses say what)."""

    round_index: int
    """The round (0-based) it happened in."""


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A round was dealt."""

    starter: int
    """Who moves first."""


@dataclass(frozen=True, slots=True)
class MoveMade(Event):
    """A move was made (checked by the rules)."""

    ply: int
    """Its index in the round's history (0-based)."""
    player: int
    """Who made it."""
    move: Move
    """The move (public)."""
    seconds: float = 0.0
    """How long the player thought (0 for moves submitted from outside)."""


@dataclass(frozen=True, slots=True)
class Undone(Event):
    """A move was taken back."""

    ply: int
    """The index the move had in the history."""
    player: int
    """Who had made it."""
    move: Move
    """The move taken back."""


@dataclass(frozen=True, slots=True)
class TakenBack(Event):
    """A move and the other side's reply were taken back together (:meth:`Referee.take_back`)."""

    ply: int
    """The index the first of the two moves had in the history."""
    player: int
    """Who asked: the player of the first move."""
    moves: tuple[Move, Move]
    """The move and the reply, in the order they were made."""


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    """The round is over (the draw pile ran out, the turn cap, or a forfeit)."""

    outcome: RoundOutcome
    """Its result."""


def forfeit_reason(error: BaseException) -> str:
    """The recorded reason of a forfeit caused by ``error``: ``timeout: ...``,
    ``crash: ...`` or ``illegal move: ...``.

    >>> forfeit_reason(BotTimeoutError("took 3 s"))
    'timeout: took 3 s'
    """
    if isinstance(error, BotTimeoutError):
        return f"timeout: {error}"
    if isinstance(error, BotTerminatedError):
        return f"crash: {error}"
    if isinstance(error, (BotError, IllegalMoveError, InvalidMoveError)):
        return f"illegal move: {error}"
    return f"crash: {type(error).__name__}: {error}"


def _player_name(player: object) -> str:
    spec = getattr(player, "spec", "") or getattr(player, "name", "")
    return str(spec) if spec else type(player).__name__


# -- the referee --------------------------------------------------------------------------


class Referee:
    """Referees a :class:`~lostcities.Match` (round after round) or a single
    :class:`~lostcities.Round`.

    :param game: the match or round to referee (a match's next round is dealt by
        :meth:`start_round`; a given round is refereed as it stands).
    :param players: per seat, a :class:`Player` the referee asks for moves, or ``None``
        for a seat whose moves are submitted from outside.
    :param time_limit: seconds a player has per move (``None`` or 0: no limit); a player
        that overruns it by more than ``grace`` forfeits.
    :param undo: whether :meth:`undo` may take moves back (see :meth:`undo_blocker`).
    :param on_event: called with every :class:`Event`; more with :meth:`subscribe`.
    """

    def __init__(
        self,
        game: Match | Round,
        players: Sequence[Player | None] = (None, None),
        *,
        time_limit: float | None = None,
        grace: float = DEFAULT_GRACE,
        undo: bool = False,
        on_event: Callable[[Event], None] | None = None,
    ) -> None:
        if len(players) != 2:
            raise ValueError(f"a referee needs two seats, not {len(players)}")
        if isinstance(game, Match):
            self.match: Match | None = game
            self._round: Round | None = game.rounds[-1] if game.rounds else None
        else:
            self.match = None
            self._round = game
        self.players: list[Player | None] = list(players)
        """The seats' players (``None``: moves come in through :meth:`submit`)."""
        self.time_limit = time_limit if time_limit else None
        """Seconds per move, or ``None``."""
        self.grace = grace
        """Seconds a player may overrun :attr:`time_limit`."""
        self.allow_undo = undo
        """Whether :meth:`undo` is allowed at all."""
        self.failure: BaseException | None = None
        """The exception that made a player forfeit the current round (it raised in
        ``restart``, ``choose`` or ``inform``, or its move was refused), or ``None``; for
        front ends that let it propagate instead (the Gymnasium env's opponent)."""
        self.thinking = [0.0, 0.0]
        """Seconds each seat's player has spent choosing its moves this round (as
        :attr:`MoveMade.seconds` counts them)."""
        self._listeners: list[Callable[[Event], None]] = []
        if on_event is not None:
            self._listeners.append(on_event)
        if self._round is not None and self.match is None:
            self._restart_players()

    # -- state ---------------------------------------------------------------------------

    @property
    def round(self) -> Round:
        """The current (or last) round.

        :raises ValueError: before a match's first round is dealt.
        """
        if self._round is None:
            raise ValueError("no round has been dealt yet")
        return self._round

    @property
    def round_index(self) -> int:
        """The current round's index (0-based)."""
        return len(self.match.rounds) - 1 if self.match is not None else 0

    @property
    def variant(self) -> Variant:
        """The variant played."""
        return self.match.variant if self.match is not None else self.round.variant

    @property
    def to_move(self) -> int:
        """The seat to move in the current round."""
        return self.round.to_move

    def view(self, player: int) -> PlayerView:
        """What ``player`` may know now (the only thing players are ever given); in a
        match, with where the round stands in it (:attr:`PlayerView.match`: the round,
        the totals so far), so players can play for the match.

        >>> from lostcities.match import Match
        >>> ref = Referee(Match(rounds=3, seed=1))
        >>> _ = ref.start_round()
        >>> ref.view(0).match.round, ref.view(0).match.rounds_left
        (1, 2)
        """
        if self.match is not None and self._round is not None:
            return self.match.view(player)
        return self.round.view(player)

    def is_over(self) -> bool:
        """Whether the current round is over (or none was dealt)."""
        return self._round is None or self._round.is_over()

    def subscribe(self, listener: Callable[[Event], None]) -> None:
        """Call ``listener`` with every later :class:`Event`."""
        self._listeners.append(listener)

    def _emit(self, event: Event) -> None:
        for listener in self._listeners:
            listener(event)

    # -- rounds --------------------------------------------------------------------------

    def start_round(self, deck: Iterable[Card | str] | None = None) -> Round:
        """Deal the match's next round (from its seed, or ``deck``) and restart the players.

        :raises ValueError: if a round is in progress, the match is over, or the referee
            was given a single round.
        """
        if self.match is None:
            raise ValueError("cannot start a new round: this referee plays a single round")
        r = self.match.new_round(deck)
        self._round = r
        self._restart_players()
        return r

    def _restart_players(self) -> None:
        r = self.round
        self.failure = None
        self.thinking = [0.0, 0.0]
        self._emit(RoundStarted(self.round_index, r.starter))
        for seat in (0, 1):
            player = self.players[seat]
            restart = getattr(player, "restart", None)
            if restart is None:
                continue
            try:
                restart(r.variant, seat)
            except Exception as e:  # a player that cannot get ready costs the round
                if not r.is_over():  # the first failure; RoundEnded is sent once, below
                    self.failure = e
                    r.forfeit(seat, forfeit_reason(e))
        if r.is_over():
            self._ended()

    def set_player(self, seat: int, player: Player | None) -> None:
        """Seat ``player`` (e.g. a fresh bot after an undo); it is restarted and told every
        move of the round so far, as if it had played from the start."""
        self.players[seat] = player
        if player is None or self._round is None:
            return
        r = self._round
        restart = getattr(player, "restart", None)
        inform = getattr(player, "inform", None)
        if restart is not None:
            restart(r.variant, seat)
        if inform is not None:
            for i, m in enumerate(r.history):
                inform(m, r.starter ^ (i & 1))

    # -- moves ---------------------------------------------------------------------------

    def submit(self, move: Move | str, player: int | None = None, *, seconds: float = 0.0) -> Move:
        """Make a move that came from outside (a person, a client, an agent): checked by
        the rules, then both players are told. ``player``, when given, must be the seat to
        move. Nothing changes when it raises.

        :raises NotYourTurnError: if the round is over or it is not ``player``'s turn.
        :raises InvalidMoveError: for bad notation.
        :raises IllegalMoveError: for a move the rules forbid, saying why.
        """
        r = self.round
        if r.is_over():
            raise NotYourTurnError("the round is over")
        p = r.to_move
        if player is not None and player != p:
            raise NotYourTurnError(f"it is player {p}'s turn, not player {player}'s")
        m = r.parse_move(move) if isinstance(move, str) else move
        if not isinstance(m, Move):
            raise InvalidMoveError(f"invalid move: {move!r} (expected a Move or notation)")
        r.push(m)
        self._made(r, p, m, seconds)
        return m

    def submit_unchecked(self, move: Move, *, seconds: float = 0.0) -> Move:
        """Make a move of the seat to move that was already checked where it came in
        (:meth:`Round.parse_move <lostcities.Round.parse_move>`, the turn), without checking
        it again: :meth:`submit` is the checked form (python-chess pairs ``push_san`` with a
        trusting ``push`` the same way). Both players are told, as by :meth:`submit`.

        Warning: an illegal move, or one made after the round ended, corrupts the round.
        """
        r = self.round
        p = r.to_move
        r.push_unchecked(move)
        self._made(r, p, move, seconds)
        return move

    def step(self) -> Move | None:
        """Let the :class:`Player` of the seat to move choose from its view and make its
        move. Any failure (an exception, no :class:`Move`, an illegal move, an overrun of
        the time limit) forfeits the round for that seat; then ``None`` is returned.

        :raises NotYourTurnError: if the round is over or the seat to move has no player.
        """
        r = self.round
        if r.is_over():
            raise NotYourTurnError("the round is over")
        p = r.to_move
        player = self.players[p]
        if player is None:
            raise NotYourTurnError(f"player {p} has no player object: submit its move")
        limit = self.time_limit
        start = time.perf_counter()
        try:
            move = player.choose(self.view(p), limit)
            if not isinstance(move, Move):
                raise BotError(f"bot returned {move!r}, not a Move")
            elapsed = time.perf_counter() - start
            if limit is not None and elapsed > limit + self.grace:
                raise BotTimeoutError(
                    f"bot {_player_name(player)!r} took {elapsed:.2f} s (limit {limit:g} s)"
                )
            r.push(move)
        except Exception as e:
            self.failure = e
            self.forfeit(p, forfeit_reason(e))
            return None
        self.thinking[p] += elapsed
        self._made(r, p, move, elapsed)
        return move

    def advance(self) -> int:
        """Make the players' moves (:meth:`step`) until the round is over or a seat
        without a player is to move. Returns how many moves were made."""
        n = 0
        r = self.round
        while not r.is_over() and self.players[r.to_move] is not None:
            if self.step() is not None:
                n += 1
        return n

    def play(self) -> Round:
        """Play the current round to its end (both seats must have players); returns it."""
        if any(p is None for p in self.players):
            raise ValueError("play() needs a player object on both seats")
        self.advance()
        return self.round

    def play_match(self) -> Match:
        """Play every remaining round of the match (both seats must have players)."""
        if self.match is None:
            raise ValueError("play_match() needs a match")
        m = self.match
        while not m.is_over():
            if self._round is None or self._round.is_over():
                self.start_round()
            self.play()
        return m

    def _made(self, r: Round, p: int, move: Move, seconds: float) -> None:
        if self._listeners:  # (an event costs more than the rest of a fast bot's move)
            self._emit(MoveMade(self.round_index, r.ply - 1, p, move, seconds))
        for seat in (0, 1):
            inform = getattr(self.players[seat], "inform", None)
            if inform is None:
                continue
            try:
                inform(move, p)
            except Exception as e:
                if not r.is_over():
                    self.failure = e
                    self.forfeit(seat, forfeit_reason(e))
                    return
        if r.is_over():
            self._ended()

    def forfeit(self, player: int, reason: str = "") -> None:
        """End the round now with ``player`` losing (resigned, crashed, timed out, moved
        illegally); the reason is recorded.

        :raises IllegalMoveError: if the round is already over.
        """
        self.round.forfeit(player, reason)
        self._ended()

    def _ended(self) -> None:
        outcome = self.round.outcome()
        assert outcome is not None
        self._emit(RoundEnded(self.round_index, outcome))

    # -- undo ----------------------------------------------------------------------------

    def undo_blocker(self, player: int | None = None) -> str | None:
        """Why :meth:`undo` is not allowed now, or ``None``. Undo takes back the last move
        of a seat without a player object (a person) while the other seat has not replied,
        and only in a game that allows it.

        Undo never gives information away: a move that drew from the draw pile showed its
        player a hidden card, so it is never taken back (undone, the player would know the
        next card of the pile and could play differently). A move that drew a discard
        pile's top card (public) may be taken back. To change a card action before the
        draw, a front end lets the player cancel before the move is submitted.

        >>> from lostcities.rules import Round
        >>> ref = Referee(Round.deal(seed=6), undo=True)
        >>> _ = ref.submit("-y3.")
        >>> ref.undo_blocker()
        'undo is not allowed after drawing from the draw pile: the card drawn was hidden'
        """
        if not self.allow_undo:
            return "undo is not allowed in this game"
        r = self._round
        if r is None or not r.history:
            return "nothing to undo"
        if r.is_over():
            return "the round is over"
        last = r.to_move ^ 1
        if self.players[last] is not None or (player is not None and player != last):
            return "undo is only allowed before the other side replies"
        if r.history[-1].draw is None:
            return "undo is not allowed after drawing from the draw pile: the card drawn was hidden"
        return None

    def undo(self, player: int | None = None) -> Move:
        """Take back the last move (see :meth:`undo_blocker`) and tell the players by
        restarting them and replaying the round's moves (:meth:`set_player`).

        :raises UndoError: when undo is not allowed now, saying why.
        """
        why = self.undo_blocker(player)
        if why is not None:
            raise UndoError(why)
        r = self.round
        ply = r.ply - 1
        p = r.to_move ^ 1
        move = r.pop()
        for seat in (0, 1):
            self.set_player(seat, self.players[seat])
        self._emit(Undone(self.round_index, ply, p, move))
        return move

    def take_back_blocker(self, player: int) -> str | None:
        """Why :meth:`take_back` is not allowed now, or ``None``. A take-back undoes
        ``player``'s last move together with the other side's reply, on ``player``'s turn
        (a seat without a player object: a person), in a game that allows undo.

        The rule of :meth:`undo_blocker` holds: ``player``'s move must not have drawn from the
        draw pile (its hidden card was shown). The reply's draw may have: that card was hidden
        from ``player`` and goes back where it was. The reply's card going back to the other
        hand is information about that hand: a front end marks the game (a casual game).

        >>> from lostcities.rules import Round
        >>> ref = Referee(Round.deal(seed=6), undo=True)
        >>> _ = ref.submit("-y3.")
        >>> _ = ref.submit(ref.view(1).legal_moves()[0])
        >>> ref.take_back_blocker(0)
        'take-back is not allowed after drawing from the draw pile: the card drawn was hidden'
        """
        if not self.allow_undo:
            return "undo is not allowed in this game"
        r = self._round
        if r is None or len(r.history) < 2:
            return "nothing to take back"
        if r.is_over():
            return "the round is over"
        if r.to_move != player or self.players[player] is not None:
            return "a take-back is only allowed on your turn, after the other side replied"
        if r.history[-2].draw is None:
            return "take-back is not allowed after drawing from the draw pile: the card drawn was hidden"
        return None

    def take_back(self, player: int) -> tuple[Move, Move]:
        """Take back ``player``'s last move and the other side's reply (see
        :meth:`take_back_blocker`), and tell the players by restarting them and replaying the
        round's moves (:meth:`set_player`). Returns the two moves, in the order made.

        :raises UndoError: when a take-back is not allowed now, saying why.
        """
        why = self.take_back_blocker(player)
        if why is not None:
            raise UndoError(why)
        r = self.round
        reply = r.pop()
        move = r.pop()
        for seat in (0, 1):
            self.set_player(seat, self.players[seat])
        self._emit(TakenBack(self.round_index, r.ply, player, (move, reply)))
        return move, reply
