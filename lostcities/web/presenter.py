"""A game's state for its clients: the ``state`` message of each seat (a player's view of
its own seat only; a spectator's: the public part) and the game's summary, written as JSON
text without the models (a test checks the text is the models'), the parts every seat
shares made once per broadcast (:class:`BroadcastMemo`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from lostcities.cards import Card
from lostcities.match import Match
from lostcities.rules import Action, LegalMoves, PlayerView, Round
from lostcities.web import abandon, clocks, schemas
from lostcities.web.conns import Conn
from lostcities.web.models.games import GameRow
from lostcities.web.ports import LiveFacts

__all__ = ["BroadcastMemo", "PresentedGame", "StatePresenter"]

_MatchPart = tuple[bool, str, tuple[int, int], str]
"""Whether a match is over, its result, its totals, its ``match`` JSON."""


class PresentedGame(LiveFacts, Protocol):
    """What the presenter reads of a live game (:class:`~lostcities.web.live_game.LiveGame`):
    its facts, the connections, the clocks' times and the presence."""

    @property
    def conns(self) -> list[Conn]: ...
    @property
    def bot_seats(self) -> tuple[bool, bool]: ...
    def clock_times(self) -> list[float] | None: ...
    def away_for(self, seat: int) -> float | None: ...
    def claim_after(self) -> float | None: ...


@dataclass
class BroadcastMemo:
    """What the state messages of one broadcast share, made once for every seat
    (:meth:`LiveGame.state`'s ``memo``): the view's public part, and the summary's fields
    that are the same for every seat, each with the key it was made under (made again when
    the game changed meanwhile)."""

    view: tuple[Round, tuple[int, bool, bool, int], schemas.ViewParts] | None = None
    """The round, its position's key and the public part's JSON."""
    summary: tuple[tuple[Any, ...], str, str, int | None, str] | None = None
    """The key, the JSON before ``seat`` and after ``your_turn``, who is to move, the
    status."""


class StatePresenter:
    """Writes the state messages and the summary of one game (``game``), with the memos
    that let a broadcast write each part once."""

    def __init__(self, game: PresentedGame) -> None:
        self.game = game
        self._fixed: tuple[Any, ...] | None = None
        """:meth:`fixed`'s row and what it read of it."""
        self._match_memo: tuple[Match, tuple[int, bool, str | None], _MatchPart] | None = None
        """The match, its rounds' count and the last one's end that :meth:`match_part` is of."""
        self._reasons: list[tuple[tuple[int, ...], dict[Card, str]]] = [((), {}), ((), {})]
        """Each seat's expedition tops and the reasons :meth:`_illegal` found under them."""

    def summary(self, seat: int | None = None) -> schemas.GameSummary:
        """Public facts (no cards)."""
        return schemas.GameSummary(**self._summary(seat))

    def fixed(self) -> tuple[Any, ...]:
        """What a game never changes, read once (a refresh brings a new row): its row, the
        colours, the clock as chosen, whether it is a match clock, the id, variant,
        number of rounds and computer level."""
        row = self.game.row
        fixed = self._fixed
        if fixed is None or fixed[0] is not row:
            fixed = self._fixed = (
                row,
                schemas.colors_of(self.game.match.variant),
                clocks.clock_choice(row),
                clocks.has_match_clock(row),
                *_columns(row, ("id", "variant", "num_rounds", "level")),
            )
        return fixed

    def _summary(self, seat: int | None) -> dict[str, Any]:
        """:meth:`summary`'s fields as plain values."""
        head, tail, to_move, status = self._summary_shared()
        return {
            **head,
            "seat": seat,
            # a game still waiting for the friend is nobody's turn yet
            "your_turn": seat is not None and to_move == seat and status != "waiting",
            **tail,
        }

    def _summary_shared(self) -> tuple[dict[str, Any], dict[str, Any], int | None, str]:
        """The summary's fields that are the same for every seat: those before ``seat``
        and those after ``your_turn``; who is to move and the status."""
        row = self.game.row
        colors, clock, _, game_id, variant, num_rounds, level = self.fixed()[1:]
        name0, name1, token0, token1, status, updated_at, rematch_id, hints = _columns(
            row,
            ("name0", "name1", "token0", "token1", "status", "updated_at", "rematch_id", "hints"),
        )
        connected = [False, False]
        for c in self.game.conns:
            if c.seat is not None and c.alive:
                connected[c.seat] = True
        players = []
        for s, name, token in ((0, name0, token0), (1, name1, token1)):
            bot = self.game.bot_spec(s)
            players.append(
                {
                    "name": name,
                    "kind": "bot" if bot else "human",
                    "level": level if bot else None,
                    "joined": bool(bot) or token is not None,
                    "connected": True if bot else connected[s],
                    "account": bot is None and (row.account0, row.account1)[s] is not None,
                    "bot_account": bot is None and self.game.bot_seats[s],
                    "away": self.game.away_for(s),
                }
            )
        over, result, totals, _ = self.match_part()
        to_move = None if over else self.game.round.to_move
        left, times = self.game.clock_left(), self.game.clock_times()
        head = {
            "id": game_id,
            "variant": variant,
            "colors": list(colors),
            "num_rounds": num_rounds,
            "status": status,
            "result": result,
            "players": players,
            "round": self.game.round_index,
            "totals": list(totals),
            "to_move": to_move,
        }
        tail = {
            "updated_at": updated_at.isoformat() + "Z" if updated_at else None,
            "rematch_id": rematch_id,
            "assisted": bool(hints),
            "hints": hints or 0,
            "rated": bool(row.rated),
            "clock": clock,
            "clock_left": None if left is None else float(left),
            "clock_times": None if times is None else [float(t) for t in times],
            "abortable": not over and abandon.abortable(self.game.match),
            "claim_after": None if over else self.game.claim_after(),
            "ending": row.ending,
        }
        return head, tail, to_move, status

    def _summary_json(self, seat: int | None, memo: BroadcastMemo | None) -> str:
        """The JSON text of :meth:`summary` (written without the model; a test checks that
        the text is the model's). The part every seat shares is made once per broadcast
        (``memo``), again if anything it reads changed meanwhile."""
        row, r = self.game.row, self.game.round
        key = (
            row,
            r,
            r.ply,
            r.is_over(),
            self.game.round_index,
            len(self.game.match.rounds),
            tuple((c.seat, c.alive) for c in self.game.conns),
            self.game.bot_seats,
            *_columns(
                row,
                ("name0", "name1", "token0", "token1", "status", "updated_at", "rematch_id",
                 "hints", "rated", "clock_left0", "clock_left1", "seen0", "seen1", "ending",
                 "account0", "account1"),
            ),
        )  # fmt: skip
        shared = None if memo is None else memo.summary
        if shared is None or shared[0] != key:
            head, tail, to_move, status = self._summary_shared()
            shared = (
                key,
                schemas.json_text(head)[:-1],
                schemas.json_text(tail)[1:],
                to_move,
                status,
            )
            if memo is not None:
                memo.summary = shared
        _, head_json, tail_json, to_move, status = shared
        your_turn = seat is not None and to_move == seat and status != "waiting"
        return (
            f'{head_json},"seat":{schemas.json_text(seat)},'
            f'"your_turn":{"true" if your_turn else "false"},{tail_json}'
        )

    def _illegal(self, seat: int, legal: LegalMoves) -> dict[str, str]:
        """Why each card of ``seat``'s hand cannot be played now, drawing from the draw pile
        (the core's message, :meth:`Round.parse_move <lostcities.Round.parse_move>`'s),
        given ``legal``, the round's legal moves when it is ``seat``'s turn: a card played
        by one of them has none. Memoised: the core checks such a play against the card and
        the player's expedition tops (:meth:`Round.tables <lostcities.Round.tables>`)
        only, since the card is in the hand and no discard pile is drawn from, so a card's
        reason is kept while the seat's tops stay as they are (a discard, the other seat's
        turn)."""
        r = self.game.round
        if r.is_over() or r.to_move != seat:
            return {}
        tops = tuple(r.tables().tops[seat])
        memo = self._reasons[seat]
        if memo[0] != tops:
            memo = self._reasons[seat] = (tops, {})
        known = memo[1]
        playable = legal.cards(Action.PLAY)
        out: dict[str, str] = {}
        for card in r.hands[seat]:
            if card in playable:
                continue
            msg = known.get(card)
            if msg is None:
                try:
                    r.parse_move(f"+{card}.")  # (raises: the play is not among ``legal``)
                except ValueError as e:
                    msg = str(e)
                    if "(" in msg and msg.endswith(")"):
                        msg = msg[msg.index("(") + 1 : -1]
                    known[card] = msg
                else:  # pragma: no cover - a legal play is in ``legal``
                    continue
            out[str(card)] = msg
        return out

    def _public(self, memo: BroadcastMemo | None, view: PlayerView | None) -> schemas.ViewParts:
        """The JSON of the view's public part (a spectator's view), which every seat
        shares, from ``view`` (any seat's view of the position; ``None``: seat 0's). Made
        once per position for a broadcast (``memo``)."""
        r, m = self.game.round, self.game.match
        key = (r.ply, r.is_over(), m.is_over(), len(m.rounds))
        if memo is not None and memo.view is not None:
            had, had_key, parts = memo.view
            if had is r and had_key == key:
                return parts
        parts = schemas.view_parts(r.view(0) if view is None else view)
        if memo is not None:
            memo.view = (r, key, parts)
        return parts

    def match_part(self) -> _MatchPart:
        """Whether the game is over, its result, its totals and its ``match`` JSON: made
        again only when a round ends or begins (a match changes only then), or the game
        ended off the board (``row.ending``, :mod:`~lostcities.web.abandon`: aborted, or
        abandoned and claimed: then its result is the row's and the reason the ending)."""
        m = self.game.match
        rounds = m.rounds
        ending = self.game.row.ending
        key = (len(rounds), bool(rounds) and rounds[-1].is_over(), ending)
        cached = self._match_memo
        if cached is not None and cached[0] is m and cached[1] == key:
            return cached[2]
        over, totals = m.is_over(), m.totals()
        result, winner, reason = m.result(), m.winner(), m.reason()
        if ending is not None:
            over, result, reason = True, self.game.row.result, ending
            winner = {"1-0": 0, "0-1": 1}.get(result)
        match = schemas.MatchOut(
            totals=list(totals),
            rounds=[schemas.round_summary(i, x) for i, x in enumerate(rounds) if x.is_over()],
            over=over,
            result=result,
            winner=winner,
            reason=reason,
            tie_break=m.tie_break,
            younger=m.younger,
            achievements=m.achievements is not None,
        )
        part = (over, match.result, totals, match.model_dump_json())
        self._match_memo = (m, key, part)
        return part

    def state(
        self,
        seat: int | None,
        ack: int | str | None = None,
        *,
        memo: BroadcastMemo | None = None,
    ) -> str:
        """The ``state`` message (:class:`~lostcities.web.schemas.StateOut`) for ``seat``
        (``None``: a spectator), as JSON text (``memo``: :meth:`broadcast`'s, for the parts
        every seat shares)."""
        r = self.game.round
        if seat is None:
            view = schemas.view_json(self._public(memo, None), None, {})
        else:
            v = r.view(seat)
            legal = r.legal_moves()  # (the seat's own on its turn: all that reads them)
            illegal = self._illegal(seat, legal)
            view = schemas.view_json(self._public(memo, v), v, illegal, legal)
        game = self._summary_json(seat, memo)
        match = self.match_part()[3]
        return schemas.state_json(game, seat, self.game.round_index, r.starter, view, match, ack)


def _columns(row: GameRow, names: tuple[str, ...]) -> list[Any]:
    """The values of the row's columns ``names``: those loaded from the dict the ORM keeps
    them in (``InstanceState.dict``, the instance's ``__dict__``), as its attribute would
    return them but without the descriptor's cost; any other through the attribute."""
    d = vars(row)
    return [d[k] if k in d else getattr(row, k) for k in names]
