"""Pydantic models: the only place where JSON meets the rules core.

Requests are parsed into these models (bad input is rejected with a clear message before
anything changes); state sent to a client is built here from a :class:`~lostcities.PlayerView`
(or, for spectators, from the public part of one), never from the referee's ``Round``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal, NamedTuple, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_validator,
    model_validator,
)
from pydantic_core import to_json

from lostcities.achievements import GoalBoard
from lostcities.cards import Card, Color, Variant
from lostcities.rules import Move, PlayerView, Round, Termination
from lostcities.scoring import ExpeditionScore, raw_score

__all__ = [
    "BIDI_CONTROLS",
    "CHAT_PHRASES",
    "Chat",
    "ClientMessage",
    "CommentIn",
    "CommentOut",
    "CommentsPage",
    "CreateGame",
    "CreatedGame",
    "ErrorOut",
    "GameSummary",
    "JoinGame",
    "LookupRequest",
    "MoveRequest",
    "ScoreRequest",
    "ScoreResponse",
    "VALIDATION_REASONS",
    "check_typed",
    "parse_client_message",
    "round_summary",
    "validation_detail",
    "view_out",
]

Level = Literal["easy", "medium", "hard", "expert"]
ClockChoice = Literal[60, 180, "300+5", "600+10", "1d", "3d", "7d"]
"""The clocks offered: seconds per move, a match clock (``"BASE+INCREMENT"`` seconds), or a
correspondence clock (``"3d"``: days per move)."""
VariantName = Literal["classic", "long"]
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The embeddings, overrides and isolates of Unicode's bidirectional algorithm: typed into
a name they reorder what is shown after it (U+202E turns "Ana" + "exe.txt" around)."""


def check_typed(value: str, allowed: str = "") -> str:
    """``value`` if it holds no control character (but those in ``allowed``) and no
    bidirectional control: the one rule for every name and text a user types (player
    names, nicknames, comments).

    >>> check_typed("Zoë")
    'Zoë'
    >>> check_typed("Ana\u202e")
    Traceback (most recent call last):
    ...
    ValueError: bidirectional control U+202E is not allowed
    """
    for ch in value:
        if (ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0) and ch not in allowed:
            raise ValueError(f"control character {ch!r} is not allowed")
        if ch in BIDI_CONTROLS:
            raise ValueError(f"bidirectional control U+{ord(ch):04X} is not allowed")
    return value


Name = Annotated[str, Field(max_length=40), AfterValidator(check_typed)]
Token = Annotated[str, Field(max_length=200)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


# -- HTTP requests -----------------------------------------------------------------------------


class CreateGame(_In):
    """``POST /api/games``: a new game against the computer or a friend."""

    opponent: Literal["computer", "friend"] = "computer"
    level: Level = "medium"
    variant: VariantName = "classic"
    rounds: Literal[1, 3] = 3
    name: Name = ""
    tie_break: Literal["draw", "youngest"] = "draw"
    """Equal match totals: a draw, or ``youngest`` (the :attr:`younger` seat wins)."""
    younger: Literal[0, 1] | None = None
    """With ``youngest``: the younger player's seat (0: you, the creator; 1: the other)."""
    achievements: bool = False
    """The achievements variant: 5 goal cards per round from the default pool, 10 points
    each held (docs/achievements.md)."""
    clock: ClockChoice | None = None
    """A friend game's clock: seconds per move (``60``, ``180``), or a Fischer-style match
    clock ``"BASE+INCREMENT"`` (``"300+5"``: 5 minutes each, 5 seconds added after each
    move); ``None``: none. The player who runs out loses the match, as if resigning
    (docs/web.md, 'Move clock')."""
    rated: bool = False
    """A rated game against the computer (signed-in players only): the result changes the
    player's and the level's ratings; no hints; a tie is a draw."""

    @model_validator(mode="after")
    def _clock_for_friends(self) -> CreateGame:
        if self.clock is not None and self.opponent != "friend":
            raise ValueError("a move clock is for friend games only")
        return self

    @model_validator(mode="after")
    def _rated_rules(self) -> CreateGame:
        if self.rated and self.opponent != "computer":
            raise ValueError("rated games between people start in the lobby (/lobby)")
        if self.rated and self.tie_break != "draw":
            raise ValueError("in a rated game a tie is a draw (tie_break 'draw')")
        return self


class JoinGame(_In):
    """``POST /api/games/{id}/join``: claim the invited seat."""

    invite: Token
    name: Name = ""


class MoveRequest(_In):
    """``POST /api/games/{id}/moves``: a move over HTTP (same rules as the WebSocket)."""

    token: Token
    move: Annotated[str, Field(max_length=12)]
    round: int
    ply: int


class TokenRequest(_In):
    """A request that only needs the seat token."""

    token: Token


class ClaimRequest(_In):
    """``POST /api/games/{id}/claim``: the opponent left; the seat token and what to claim."""

    token: Token
    claim: Literal["win", "draw"]


class LookupItem(_In):
    """One remembered game: its id and (optionally) the seat token."""

    id: Annotated[str, Field(max_length=32)]
    token: Token | None = None


class LookupRequest(_In):
    """``POST /api/games/lookup``: the status of the games a browser remembers."""

    games: Annotated[list[LookupItem], Field(max_length=200)]


class ScoreRequest(_In):
    """``POST /api/score``: one player's expeditions, ``{"y": "x,2,5,10", ...}``, or their
    totals (the quick mode), ``{"y": [31, 0, 5], ...}`` (number sum, wagers, cards
    including wagers), and the achievements won (10 points each)."""

    variant: VariantName = "classic"
    expeditions: Annotated[
        dict[str, Annotated[str, Field(max_length=80)]], Field(max_length=6)
    ] = {}
    totals: Annotated[dict[str, tuple[int, int, int]], Field(max_length=6)] | None = None
    """The quick mode: given, it replaces :attr:`expeditions`."""
    achievements: Annotated[int, Field(ge=0, le=99)] = 0


class CommentIn(_In):
    """``POST /api/comments``: a comment on the rules page (plain text, never HTML)."""

    nickname: Annotated[str, Field(min_length=1, max_length=40)]
    kind: Literal["comment", "mistake", "tool request"]
    text: Annotated[str, Field(min_length=1, max_length=2000)]

    @field_validator("nickname", "text")
    @classmethod
    def _printable(cls, value: str, info: Any) -> str:
        allowed = "\n\t" if info.field_name == "text" else ""
        if info.field_name == "text":
            value = value.replace("\r\n", "\n")
        return check_typed(value, allowed)


# -- HTTP responses ----------------------------------------------------------------------------


class ErrorOut(BaseModel):
    """Every error: a short code and a one-line message; some say more (absent otherwise)."""

    error: str
    message: str
    reason: str | None = None
    """What exactly is wrong, where a kind of refusal has several causes (``invalid_username``,
    ``invalid_password``; for ``invalid_request`` one of :data:`VALIDATION_REASONS`)."""
    field: str | None = None
    """``invalid_request``: the field that is wrong (``name``, ``games.0.id``)."""
    limit: int | None = None
    """``invalid_request`` for a length: the most (or least) characters allowed."""


class CreatedGame(BaseModel):
    """A created or joined game: where to play and the seat's secret token."""

    id: str
    seat: int
    token: str
    url: str
    invite_url: str | None = None


class PlayerOut(BaseModel):
    """A seat as everyone may see it."""

    name: str
    kind: Literal["human", "bot"]
    level: str | None = None
    joined: bool = True
    connected: bool = False
    account: bool = False
    """Whether a signed-in account plays the seat (its name is the username: a player one
    may block or report)."""
    bot_account: bool = False
    """Whether a bot account plays the seat (:mod:`lostcities.web.bot_api`; its name is
    marked BOT)."""
    away: float | None = None
    """Seconds the player has been away from the table (no connection open, measured by the
    server: :mod:`lostcities.web.abandon`); ``None`` while at the table, or a bot."""


class GameSummary(BaseModel):
    """Public facts about a game (no cards)."""

    id: str
    variant: str
    colors: list[str]
    num_rounds: int
    status: str
    result: str
    players: list[PlayerOut]
    round: int = 0
    totals: list[int] = [0, 0]
    to_move: int | None = None
    seat: int | None = None
    your_turn: bool = False
    updated_at: str | None = None
    rematch_id: str | None = None
    assisted: bool = False
    """Whether the human player asked the engine for hints."""
    hints: int = 0
    """How many."""
    rated: bool = False
    """Whether the match is rated (its result changes the players' ratings)."""
    clock: int | str | None = None
    """The clock as chosen: seconds per move, or the match clock ``"BASE+INCREMENT"``
    (``None``: none)."""
    clock_left: float | None = None
    """Seconds left to the player to move while the clock runs (``None``: it does not)."""
    clock_times: list[float] | None = None
    """With a match clock, each player's time left (the player to move's as of now);
    ``None`` with a per-move clock or none."""
    abortable: bool = False
    """Whether a player may abort the game now (not both have moved yet)."""
    claim_after: float | None = None
    """Seconds a player must have been away (``players[].away``) before the other may
    claim the win or a draw; ``None``: no claims in this game, or not yet."""
    ending: str | None = None
    """How the game ended off the board: ``aborted`` (no result) or ``abandoned`` (a player
    left and the other claimed); ``None``: not so."""


class MoveEvalOut(BaseModel):
    """One evaluated move (:class:`lostcities.bots.analysis.MoveEval`)."""

    move: str
    margin: float
    """Expected final margin of the round (points, the mover's side)."""
    win: float
    """The mover's probability of winning the round."""
    value: float


class HintOut(BaseModel):
    """The engine's suggestion for the player to move."""

    round: int
    ply: int
    player: int
    worlds: int
    best: str
    """The suggested move."""
    moves: list[MoveEvalOut]
    """Every evaluated move, best first."""


class AnalysisOut(BaseModel):
    """A finished game's analysis (``lostcities analyse --json``'s fields), or its progress."""

    status: Literal["running", "done"]
    done: int = 0
    """Moves analysed so far (while running)."""
    total: int = 0
    """Moves to analyse (while running)."""
    bot: str | None = None
    worlds: int | None = None
    players: list[str] = []
    moves: list[dict[str, Any]] = []
    """One item per move: round, ply, player, move, best, loss, mark, win, ..."""
    summary: list[dict[str, Any]] = []
    """Per player: moves, average_loss, accuracy, inaccuracies, mistakes, blunders."""


class ExpeditionOut(BaseModel):
    """One line of a score sheet (as ``lostcities score --json``)."""

    cards: list[str]
    """The cards (empty for a score from totals)."""
    num_cards: int
    number_sum: int
    minus_cost: int
    wagers: int
    multiplier: int
    bonus: int
    score: int


def expedition_out(e: ExpeditionScore) -> ExpeditionOut:
    """An :class:`~lostcities.ExpeditionScore` as JSON."""
    return ExpeditionOut(
        cards=[str(c) for c in e.cards],
        num_cards=e.num_cards,
        number_sum=e.number_sum,
        minus_cost=e.minus_cost,
        wagers=e.wagers,
        multiplier=e.multiplier,
        bonus=e.bonus,
        score=e.score,
    )


class ScoreResponse(BaseModel):
    """The score calculator's answer: every colour's breakdown and the total."""

    variant: str
    expeditions: dict[str, ExpeditionOut]
    achievements: int = 0
    achievement_points: int = 0
    total: int
    table: str


class CommentOut(BaseModel):
    """A comment as the page shows it (as text)."""

    id: int
    nickname: str
    kind: str
    text: str
    created_at: str
    duplicate: bool = False
    """``True`` when the same submission was already stored (this is that one)."""


class CommentsPage(BaseModel):
    """``GET /api/comments?page=N``: one page of comments, newest first."""

    comments: list[CommentOut]
    page: int
    pages: int
    per_page: int
    total: int


# -- live state ---------------------------------------------------------------------------------


class GoalOut(BaseModel):
    """One goal card of the achievements variant (public)."""

    id: str
    name: str
    kind: Literal["race", "end"]
    """``race``: the first to meet it claims it; ``end``: decided when the round ends."""
    condition: str
    text: str
    claimed_by: int | None
    """The seat holding it (race goals once claimed; end goals once the round is over)."""


def goals_out(board: GoalBoard | None) -> list[GoalOut]:
    """The goal cards of a round (``[]`` in the classic game)."""
    if board is None:
        return []
    return [
        GoalOut(id=g.id, name=g.name, kind=g.kind, condition=g.condition, text=g.text, claimed_by=c)
        for g, c in zip(board.goals, board.claims, strict=True)
    ]


class ViewOut(BaseModel):
    """The current round as one seat (or a spectator) may see it."""

    ply: int
    to_move: int
    over: bool
    deck_size: int
    hand: list[str] | None
    """The seat's own hand, sorted; ``None`` for spectators."""
    expeditions: list[list[list[str]]]
    """``[player][colour index]``: cards in play order."""
    discard_piles: list[list[str]]
    """``[colour index]``: bottom first, top last."""
    known: list[list[str]]
    """``[player]``: cards each player is publicly known to hold (taken from discard piles)."""
    history: list[str]
    scores: list[int]
    """Both players' points as the round stands, goals held included."""
    expedition_scores: list[list[int]]
    goals: list[GoalOut] = []
    """The achievements variant's goal cards and who holds each (``[]``: classic)."""
    goal_points: list[int] = [0, 0]
    """Each player's points from goals held (10 each)."""
    legal: list[str]
    """The seat's legal moves in notation (empty unless it is the seat's turn)."""
    illegal: dict[str, str]
    """Why each card of the hand cannot be played now (the core's message)."""


class RoundSummaryOut(BaseModel):
    """A finished round: scores and both players' score sheets."""

    index: int
    starter: int
    scores: list[int]
    winner: int | None
    termination: str
    reason: str = ""
    breakdown: list[list[ExpeditionOut]]
    discard_piles: list[list[str]] = []
    """The final board's discard piles (bottom first), shown with the expeditions in the
    round's review."""
    goals: list[GoalOut] = []
    """The round's goal cards and who took each (achievements variant)."""
    history: list[str] = []
    """The round's moves in notation, in order: the match's game log keeps every round
    (all public: a card drawn from the draw pile is never named)."""


class MatchOut(BaseModel):
    """Totals across rounds."""

    totals: list[int]
    rounds: list[RoundSummaryOut]
    over: bool
    result: str
    winner: int | None
    reason: str = ""
    """Why the match ended so (``Match.reason``), e.g. ``tie broken: the younger player wins``."""
    tie_break: str = "draw"
    younger: int | None = None
    achievements: bool = False
    """Whether the match plays the achievements variant."""


class StateOut(BaseModel):
    """The ``state`` message: everything a client shows, sent on connect and after each move."""

    type: Literal["state"] = "state"
    game: GameSummary
    seat: int | None
    round: int
    starter: int
    """Who made the first move of the current round."""
    view: ViewOut
    match: MatchOut
    ack: int | str | None = None


def _points(cards: Sequence[Card]) -> int:
    """``score_expedition(cards, check=False).score``, without building the sheet line."""
    number_sum = wagers = 0
    for c in cards:
        if c.rank:
            number_sum += c.value
        else:
            wagers += 1
    return raw_score(number_sum, wagers, len(cards))


def view_out(
    view: PlayerView,
    *,
    reveal_hand: bool,
    illegal: dict[str, str] | None = None,
) -> ViewOut:
    """Build the JSON view of ``view``; with ``reveal_hand=False`` (spectators) only public
    information is kept: no hand, no legal moves."""
    me = view.player
    known: list[list[str]] = [[], []]
    known[me] = [str(c) for c in view.own_known]
    known[me ^ 1] = [str(c) for c in view.opponent_known]
    exp_scores = [[_points(e) for e in view.expeditions[p]] for p in (0, 1)]
    legal: list[str] = []
    if reveal_hand and not view.over and view.to_move == me:
        legal = [str(m) for m in view.legal_moves()]
    return ViewOut(
        ply=view.ply,
        to_move=view.to_move,
        over=view.over,
        deck_size=view.deck_size,
        hand=[str(c) for c in view.hand] if reveal_hand else None,
        expeditions=[[[str(c) for c in e] for e in view.expeditions[p]] for p in (0, 1)],
        discard_piles=[[str(c) for c in pile] for pile in view.discard_piles],
        known=known,
        history=[str(m) for m in view.history],
        scores=list(view.scores()),
        expedition_scores=exp_scores,
        goals=goals_out(view.achievements),
        goal_points=[
            view.achievements.points(p) if view.achievements is not None else 0 for p in (0, 1)
        ],
        legal=legal,
        illegal=dict(illegal or {}) if reveal_hand else {},
    )


def json_text(value: Any) -> str:
    """``value`` (plain dicts, lists, strings, numbers, ``None``) as JSON text, written by
    pydantic's own encoder as :meth:`~pydantic.BaseModel.model_dump_json` writes a model
    holding the same values: compact, UTF-8 kept, the same numbers and escapes.

    >>> json_text({"a": [1, 0.5, None], "b": "é\\""})
    '{"a":[1,0.5,null],"b":"é\\\\""}'
    """
    return to_json(value).decode()


class ViewParts(NamedTuple):
    """The JSON of a :class:`ViewOut` every seat of a position shares (the live game writes
    each seat's state from these, without building the model: :func:`view_json`); tests
    check that the text is the model's, byte for byte."""

    head: str
    """The fields before ``hand`` (``"ply":...,"deck_size":...``)."""
    body: str
    """The fields from ``expeditions`` to ``goal_points``."""


def view_parts(view: PlayerView) -> ViewParts:
    """The public parts of ``view_out(view, ...)``'s JSON (the same for any seat's view of
    one position)."""
    me = view.player
    known: list[list[str]] = [[], []]
    known[me] = [str(c) for c in view.own_known]
    known[me ^ 1] = [str(c) for c in view.opponent_known]
    board = view.achievements
    goals = (
        []
        if board is None
        else [
            {
                "id": g.id,
                "name": g.name,
                "kind": g.kind,
                "condition": g.condition,
                "text": g.text,
                "claimed_by": c,
            }
            for g, c in zip(board.goals, board.claims, strict=True)
        ]
    )
    body = {
        "expeditions": [[[str(c) for c in e] for e in view.expeditions[p]] for p in (0, 1)],
        "discard_piles": [[str(c) for c in pile] for pile in view.discard_piles],
        "known": known,
        "history": [str(m) for m in view.history],
        "scores": list(view.scores()),
        "expedition_scores": [[_points(e) for e in view.expeditions[p]] for p in (0, 1)],
        "goals": goals,
        "goal_points": [board.points(p) if board is not None else 0 for p in (0, 1)],
    }
    head = (
        f'"ply":{int(view.ply)},"to_move":{int(view.to_move)},'
        f'"over":{"true" if view.over else "false"},"deck_size":{int(view.deck_size)}'
    )
    return ViewParts(head, json_text(body)[1:-1])


def view_json(
    parts: ViewParts,
    view: PlayerView | None,
    illegal: dict[str, str],
    legal: Iterable[Move] | None = None,
) -> str:
    """The JSON text of ``view_out(view, reveal_hand=True, illegal=illegal)`` from the
    position's :func:`view_parts` (``view``: the seat's own; ``None``: a spectator's,
    ``view_out(..., reveal_hand=False)``): only the hand, the legal moves and the reasons
    are the seat's own. ``legal``: the position's legal moves if already at hand (the
    round's :meth:`~lostcities.Round.legal_moves`, the same as the view's on its turn)."""
    if view is None:
        return f'{{{parts.head},"hand":null,{parts.body},"legal":[],"illegal":{{}}}}'
    me = view.player
    texts: list[str] = []
    if not view.over and view.to_move == me:
        texts = [str(m) for m in (view.legal_moves() if legal is None else legal)]
    hand = json_text([str(c) for c in view.hand])
    return (
        f'{{{parts.head},"hand":{hand},{parts.body},'
        f'"legal":{json_text(texts)},"illegal":{json_text(illegal)}}}'
    )


def state_json(
    game: str,
    seat: int | None,
    round: int,
    starter: int,
    view: str,
    match: str,
    ack: int | str | None,
) -> str:
    """The JSON text of a :class:`StateOut` from the JSON of its parts (``game``: a
    :class:`GameSummary`'s, ``view``: :func:`view_json`, ``match``: a :class:`MatchOut`'s).
    """
    if isinstance(ack, bool):  # (the model's ``int | str`` reads a bool as a number)
        ack = int(ack)
    return (
        f'{{"type":"state","game":{game},"seat":{json_text(seat)},"round":{int(round)},'
        f'"starter":{int(starter)},"view":{view},"match":{match},"ack":{json_text(ack)}}}'
    )


def round_summary(index: int, r: Round) -> RoundSummaryOut:
    """The public summary of a finished round (expeditions are public; hands are not)."""
    outcome = r.outcome()
    assert outcome is not None, "round is not over"
    return RoundSummaryOut(
        index=index,
        starter=r.starter,
        scores=list(outcome.scores),
        winner=outcome.winner,
        termination=outcome.termination.value,
        reason=outcome.reason if outcome.termination is Termination.FORFEIT else "",
        breakdown=[[expedition_out(e) for e in r.score_breakdown(p).values()] for p in (0, 1)],
        discard_piles=[[str(c) for c in r.discard_piles[color]] for color in r.variant.colors],
        goals=goals_out(r.achievements),
        history=[str(m) for m in r.history],
    )


def colors_of(variant: Variant) -> list[str]:
    """The colour letters of a variant, in notation order."""
    return [c.letter for c in variant.colors]


def color_name(letter: str) -> str:
    """``'y'`` -> ``'yellow'``."""
    return Color.parse(letter).name.lower()


# -- replays -----------------------------------------------------------------------------------


class FrameOut(BaseModel):
    """One position of a replay, both hands revealed (finished games only)."""

    ply: int
    move: str | None
    to_move: int
    hands: list[list[str]]
    expeditions: list[list[list[str]]]
    discard_piles: list[list[str]]
    deck_size: int
    scores: list[int]
    """Both players' points at this position, goal points included."""
    goals: list[GoalOut] = []
    """The goal cards and who holds each at this position (``[]`` in the classic game)."""


class ReplayRoundOut(BaseModel):
    """A finished round, frame by frame."""

    index: int
    starter: int
    frames: list[FrameOut]
    summary: RoundSummaryOut


class ReplayOut(BaseModel):
    """A finished game for the replay page."""

    game: GameSummary
    rounds: list[ReplayRoundOut]


def frame_of(r: Round, move: str | None) -> FrameOut:
    """A replay frame from the referee's round (only for finished games)."""
    return FrameOut(
        ply=r.ply,
        move=move,
        to_move=r.to_move,
        hands=[[str(c) for c in r.hands[p]] for p in (0, 1)],
        expeditions=[[[str(c) for c in e] for e in r.expeditions[p].values()] for p in (0, 1)],
        discard_piles=[[str(c) for c in pile] for pile in r.discard_piles.values()],
        deck_size=r.deck_size,
        scores=list(r.scores()),
        goals=goals_out(r.achievements),
    )


# -- WebSocket messages from clients -----------------------------------------------------------


class Hello(_In):
    """First message: who is connecting (no token: a spectator)."""

    type: Literal["hello"]
    token: Token | None = None


def _check_message_id(value: int | str | None) -> int | str | None:
    """A move's ``id`` (echoed in its answer): a number, or a text of at most 40 characters
    (one error for either, not pydantic's one per member of the union)."""
    if isinstance(value, str) and len(value) > 40:
        raise ValueError(
            f"a move id is a number or a text of at most 40 characters (got {len(value)})"
        )
    return value


class MoveMsg(_In):
    """A move, with the round and ply the client believes it is at."""

    type: Literal["move"]
    move: Annotated[str, Field(max_length=12)]
    round: int
    ply: int
    id: Annotated[int | str | None, AfterValidator(_check_message_id)] = None


class Ping(_In):
    """Keep-alive; answered with ``pong``."""

    type: Literal["ping"]


class Resign(_In):
    """Give up the match (the round is forfeited)."""

    type: Literal["resign"]


class Sync(_In):
    """Ask for the full state again."""

    type: Literal["sync"]


class Abort(_In):
    """End the game with no result, before both players have moved
    (:mod:`lostcities.web.abandon`)."""

    type: Literal["abort"]


class ClaimMsg(_In):
    """The opponent left: claim the win or a draw (:mod:`lostcities.web.abandon`)."""

    type: Literal["claim"]
    claim: Literal["win", "draw"]


ChatPhrase = Literal[
    "hello",
    "good_luck",
    "have_fun",
    "well_played",
    "thanks",
    "sorry",
    "oops",
    "wow",
    "thinking",
    "good_game",
    "emote_smile",
    "emote_laugh",
    "emote_surprised",
    "emote_thumbs_up",
    "emote_sad",
]
"""A quick-chat phrase id: the one list of them (the page gets it from the server)."""

CHAT_PHRASES: tuple[str, ...] = get_args(ChatPhrase)
"""The quick-chat phrase ids (the client shows each in the reader's language, an ``emote_``
one as its emoji, named in the reader's language; no free text, so nothing needs
moderating)."""


class Chat(_In):
    """A quick-chat phrase from a player, passed on to everyone watching the game."""

    type: Literal["chat"]
    phrase: ChatPhrase


ClientMessage = Annotated[
    Hello | MoveMsg | Ping | Resign | Sync | Chat | Abort | ClaimMsg, Field(discriminator="type")
]
_client_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)
_types = sorted(
    str(get_args(m.model_fields["type"].annotation)[0])
    for m in (Hello, MoveMsg, Ping, Resign, Sync, Chat, Abort, ClaimMsg)
)
MESSAGE_TYPES = ", ".join(_types[:-1]) + " or " + _types[-1]
"""The client messages' types, as the unknown-type error lists them (every one, ``chat`` too)."""


AnyClientMessage = Hello | MoveMsg | Ping | Resign | Sync | Chat | Abort | ClaimMsg
"""Any one client message (:data:`ClientMessage` without its discriminator)."""


def parse_client_message(text: str | bytes) -> AnyClientMessage:
    """Parse one WebSocket message.

    :raises pydantic.ValidationError: for malformed JSON or an unknown/ill-formed message.
    """
    msg: AnyClientMessage = _client_adapter.validate_json(text)
    return msg


def validation_message(exc: Exception) -> str:
    """One line from a pydantic ``ValidationError`` (or any exception)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            errs = errors()
        except Exception:  # pragma: no cover - defensive
            errs = []
        if errs:
            e = errs[0]
            loc = ".".join(_loc_part(x) for x in e.get("loc", ()) if x not in ("body",))
            msg = str(e.get("msg", "invalid")).removeprefix("Value error, ")  # (our own reasons)
            if e.get("type") == "json_invalid":
                return "malformed JSON"
            if e.get("type") == "union_tag_invalid" or e.get("type") == "union_tag_not_found":
                return f"unknown message type (expected {MESSAGE_TYPES})"
            return _one_line(f"{loc}: {msg}" if loc else msg)
    return _one_line(str(exc))


VALIDATION_REASONS = ("too_long", "too_short", "missing", "unknown", "control", "bidi", "invalid")
"""What :func:`validation_detail` says is wrong with a field (the pages say it in words by
``error.field.REASON``)."""

_REASON_OF_TYPE = {
    "string_too_long": "too_long",
    "too_long": "too_long",
    "string_too_short": "too_short",
    "too_short": "too_short",
    "missing": "missing",
    "extra_forbidden": "unknown",
}


def validation_detail(exc: Exception) -> dict[str, object]:
    """The field and the reason of the first error of a pydantic ``ValidationError`` (what an
    ``invalid_request`` answer adds to its message, so that a page can name what is wrong):
    ``field`` (as in the message: ``name``, ``games.0.id``), ``reason`` (one of
    :data:`VALIDATION_REASONS`) and, for a length, ``limit``. Empty for anything else.

    >>> from pydantic import ValidationError
    >>> try:
    ...     JoinGame.model_validate({"invite": "x", "name": "Ana\u202e"})
    ... except ValidationError as e:
    ...     validation_detail(e)
    {'field': 'name', 'reason': 'bidi'}
    >>> try:
    ...     JoinGame.model_validate({"invite": "x", "name": "A" * 41})
    ... except ValidationError as e:
    ...     validation_detail(e)
    {'field': 'name', 'reason': 'too_long', 'limit': 40}
    """
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return {}
    try:
        errs = errors()
    except Exception:  # pragma: no cover - defensive
        return {}
    if not errs or errs[0].get("type") in ("json_invalid", "union_tag_invalid"):
        return {}
    e = errs[0]
    kind = str(e.get("type", ""))
    reason = _REASON_OF_TYPE.get(kind, "invalid")
    if kind == "value_error":
        text = str(e.get("msg", ""))
        reason = (
            "bidi"
            if "bidirectional control" in text
            else "control"
            if "control character" in text
            else "invalid"
        )
    out: dict[str, object] = {
        "field": ".".join(_loc_part(x) for x in e.get("loc", ()) if x not in ("body",)),
        "reason": reason,
    }
    ctx = e.get("ctx") or {}
    limit = ctx.get("max_length", ctx.get("min_length"))
    if reason in ("too_long", "too_short") and isinstance(limit, int):
        out["limit"] = limit
    return out


def _loc_part(x: object) -> str:
    """A field name or index of an error's location as the message shows it: a name a
    client sent that is not a plain word is quoted (``{"\\n": 1}`` stays on one line)."""
    part = str(x)
    if part and all(c.isalnum() or c in "_-" for c in part) and len(part) <= 40:
        return part
    return repr(part[:40] + ("..." if len(part) > 40 else ""))


def _one_line(text: str) -> str:
    """``text`` with every line break and tab as a space (an error message is one line)."""
    return " ".join(text.splitlines()).replace("\t", " ")
