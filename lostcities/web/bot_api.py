"""The bot API (issue 39, docs/bot-api.md): bot accounts, personal API tokens, the event
stream, a stream per game with the bot's view only, moves and the other table actions, and
challenges.

The routers (:mod:`lostcities.web.routers.bot_api`, :mod:`lostcities.web.routers.tokens`)
only authorise and call :class:`BotHub`, one per server process; its data is in
:mod:`lostcities.web.repositories.bots`. A bot's moves, resignations, aborts, claims and
chat go through the one path every client uses (:meth:`LiveGame.play
<lostcities.web.live_game.LiveGame.play>` and its siblings): the bot API adds no referee.

- **Tokens**: ``lct_`` and 43 random characters (:func:`new_api_token`), only the SHA-256
  stored; scopes :data:`SCOPES`. A request sends ``Authorization: Bearer ...``
  (:meth:`BotHub.authenticate`): an unknown or revoked token is refused (401
  ``bad_token``), one without the scope too (403 ``missing_scope``), and requests are
  limited per token and per client (:class:`~lostcities.web.limits.Limits`'s ``bot``). A
  token is never logged (uvicorn's access log is off; nothing here prints one).
- **Streams** are newline-delimited JSON with an empty line every
  :attr:`BotHub.keepalive` seconds (each keep-alive checks the token again, so a token
  revoked by another program, ``lostcities users ban``, stops the stream within one).
  Events are stored (:func:`~lostcities.web.repositories.bots.add_events`) and announced
  to every process sharing the database; a stream reads its account's events after the
  last it sent, so ``?since=`` resumes one and no event is sent twice or lost.
  A revocation closes the token's streams at once, on every process.
- **Games** of a challenge are made by the game manager and seated in the transaction that
  accepts the challenge; the bot plays its seat through its account. A rated one is rated
  by :mod:`lostcities.web.ratings`, a bot account's rating in the bot pool
  (:func:`lostcities.web.ratings.account_key`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from lostcities.protocol.wire import position_lines
from lostcities.rules import Termination
from lostcities.web import abandon, ratings, schemas
from lostcities.web.accounts import Account, blocked_between, find_account, username_key
from lostcities.web.chatroom import CHAT_IDS
from lostcities.web.clocks import parse_clock
from lostcities.web.conns import Conn
from lostcities.web.errors import (
    AccountNotFoundError,
    BadBotRequestError,
    BadTokenError,
    BotBannedError,
    ChallengeClosedError,
    ChallengeNotFoundError,
    ConfirmationError,
    MissingScopeError,
    NotABotError,
    NotYourGameError,
    TokenNotFoundError,
    TooManyTokensError,
    UpgradeRefusedError,
)
from lostcities.web.game_manager import GameManager, account_seat, new_token
from lostcities.web.limits import ClientLimits
from lostcities.web.live_game import LiveGame
from lostcities.web.models.base import utcnow
from lostcities.web.models.bots import ApiTokenRow, BotChallengeRow
from lostcities.web.models.games import GameRow
from lostcities.web.repositories import bots as repo
from lostcities.web.store import hash_token

__all__ = [
    "CHALLENGE_SECONDS",
    "DECLINE_REASONS",
    "EVENTS_KEPT",
    "KEEPALIVE",
    "MARK_SECONDS",
    "MAX_TOKENS",
    "ONLINE_SECONDS",
    "SCOPES",
    "TOKEN_PREFIX",
    "AboutIn",
    "BecomeBotIn",
    "BotHub",
    "Caller",
    "ChallengeIn",
    "ClaimIn",
    "ChatIn",
    "DeclineIn",
    "MoveIn",
    "TokenAuth",
    "TokenIn",
    "game_state",
    "new_api_token",
]

log = logging.getLogger("lostcities.web")

SCOPES = ("bot:play", "challenge:read", "challenge:write")
"""The scopes a token may have (docs/bot-api.md)."""
TOKEN_PREFIX = "lct_"
"""How every API token begins (so that a leaked one is recognised)."""
MAX_TOKENS = 20
"""Working tokens one account may have."""
CHALLENGE_SECONDS = 60.0
"""A challenge not answered in this many seconds expires."""
EVENTS_KEPT = 600.0
"""Seconds an event is kept for a stream that resumes (``?since=``)."""
KEEPALIVE = 7.0
"""Seconds between two keep-alive lines of a quiet stream (the default of
:attr:`Settings.bot_keepalive <lostcities.web.deps.Settings.bot_keepalive>`)."""
TOUCH_SECONDS = 60.0
"""A token's ``last_used`` is written at most this often."""
SWEEP_SECONDS = 5.0
ONLINE_SECONDS = 75.0
"""A bot whose event stream is open on another server process is counted online while that
stream noted it in this many seconds (:data:`MARK_SECONDS`)."""
MARK_SECONDS = 30.0
"""An open event stream notes its bot online in the database this often (at a keep-alive),
for the other server processes."""
"""How often a process expires challenges and drops old events."""
DeclineReason = Literal[
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "variant",
    "noBot",
    "onlyBot",
]
DECLINE_REASONS: tuple[str, ...] = get_args(DeclineReason)
"""The reasons a challenge may be declined with."""

ClockText = Literal["60", "180", "300+5", "600+10", "1d", "3d", "7d"]


def new_api_token() -> str:
    """A fresh API token: :data:`TOKEN_PREFIX` and 256 random bits (``secrets``).

    >>> t = new_api_token()
    >>> t.startswith("lct_"), len(t)
    (True, 47)
    """
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


# -- request bodies ---------------------------------------------------------------------------


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class TokenIn(_In):
    """``POST /api/account/tokens``."""

    description: schemas.Name = ""
    scopes: list[str] = Field(default_factory=list, max_length=len(SCOPES))


class AboutIn(_In):
    """``POST /api/bot/account/upgrade``'s optional body: the bot's description (who runs
    it, which engine)."""

    about: str | None = Field(default=None, max_length=300)


class BecomeBotIn(_In):
    """``POST /api/account/bot`` (signed in on the site): the username typed again to
    confirm the upgrade (not needed to change a bot's description), and the bot's
    description."""

    confirm: str = Field(default="", max_length=200)
    about: str | None = Field(default=None, max_length=300)


class MoveIn(_In):
    """``POST /api/bot/game/{id}/move``: a move in notation; ``round`` (from 1) and ``ply``
    name the position it was chosen in (a move made since makes it stale)."""

    move: str = Field(max_length=12)
    round: int | None = Field(default=None, ge=1, le=99)
    ply: int | None = Field(default=None, ge=0, le=9999)


class ClaimIn(_In):
    """``POST /api/bot/game/{id}/claim``."""

    claim: abandon.Claim


class ChatIn(_In):
    """``POST /api/bot/game/{id}/chat``: one of the site's quick-chat phrases."""

    phrase: str = Field(max_length=40)


class ChallengeIn(_In):
    """``POST /api/bot/challenge/{username}``."""

    variant: schemas.VariantName = "classic"
    rounds: Literal[1, 3] = 3
    clock: ClockText | None = None
    rated: bool = False
    name: schemas.Name = ""
    """A guest's name (an account plays under its username)."""


class DeclineIn(_In):
    """``POST /api/bot/challenge/{id}/decline``."""

    reason: DeclineReason = "generic"


# -- who asks ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenAuth:
    """A request's working API token: its id, its account and its scopes."""

    token_id: int
    account: Account
    scopes: frozenset[str]

    @property
    def is_bot(self) -> bool:
        """Whether the token's account is a bot account."""
        return self.account.is_bot


@dataclass(frozen=True)
class Caller:
    """Who sends a challenge request: an API token's account, a signed-in person (session
    cookie) or a guest (``account`` ``None``), with the challenge token a person was given
    (``X-Seat-Token``), if sent."""

    account: Account | None
    token: TokenAuth | None = None
    seat_token: str | None = None

    @property
    def name(self) -> str:
        """The name in the moderation log."""
        return "guest" if self.account is None else self.account.username


# -- the game's state for its bot ----------------------------------------------------------


def _clock_text(row: GameRow) -> str | None:
    if row.clock is None:
        return None
    if row.clock_increment is not None:
        return f"{row.clock}+{row.clock_increment}"
    if row.clock >= 86400 and row.clock % 86400 == 0:
        return f"{row.clock // 86400}d"
    return str(row.clock)


def _result(g: LiveGame) -> dict[str, Any] | None:
    row, m = g.row, g.match
    if not g.is_over():
        return None
    winner = {"1-0": 0, "0-1": 1}.get(row.result)
    return {"winner": winner, "scores": list(m.totals()), "ending": _ending(g)}


def _ending(g: LiveGame) -> str:
    """How a match ended, as docs/bot-api.md names it: ``aborted`` or ``abandoned`` (ended
    off the board), the forfeit's reason (``resigned``, a time-out), else ``normal``."""
    if g.row.ending:
        return g.row.ending
    for r in g.match.rounds:
        out = r.outcome()
        if out is not None and out.termination is Termination.FORFEIT:
            return out.reason or "forfeit"
    return "normal"


def game_state(g: LiveGame, seat: int) -> dict[str, Any]:
    """The ``state`` of a game stream for ``seat``: what that seat may know and nothing
    else (docs/bot-api.md): the protocol's position lines of its :class:`PlayerView
    <lostcities.rules.PlayerView>`, its legal moves on its turn, the clock, the totals and
    the result."""
    over = g.is_over()
    r = g.round
    running = not over and g.row.status == "active"
    to_move = r.to_move if running else None
    legal = [str(mv) for mv in r.legal_moves()] if to_move == seat else []
    clock: dict[str, int] | None = None
    times = g.clock_times()
    if times is not None:
        clock = {"0": int(times[0] * 1000), "1": int(times[1] * 1000)}
    elif g.referee.time_limit is not None:
        full = int(g.referee.time_limit * 1000)
        left = g.clock_left()
        clock = {"0": full, "1": full}
        if left is not None and to_move is not None:
            clock[str(to_move)] = int(left * 1000)
    status = "aborted" if g.row.ending == "aborted" else ("finished" if over else "started")
    return {
        "round": g.round_index + 1,
        "ply": r.ply,
        "to_move": to_move,
        "position": position_lines(g.match.view(seat)),
        "legal": legal,
        "clock": clock,
        "totals": list(g.match.totals()),
        "status": status,
        "result": _result(g),
    }


def _line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


# -- streams ----------------------------------------------------------------------------------


@dataclass(eq=False)
class _Stream:
    """One open stream: the token it was opened with, its account, and what wakes it."""

    token_id: int
    account_id: int
    kind: str
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    dirty: bool = False
    """(a game stream) the game changed since its last ``gameState``."""
    chat: list[tuple[int, str]] = field(default_factory=list)
    """(a game stream) phrases to send."""

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    def done(self) -> bool:
        """Whether it was closed (a revocation, the hub's close)."""
        return self.closed


class _StreamSender:
    """The game's connection of a game stream: every message the game sends wakes the
    stream (a state: it writes its own; chat: the phrases)."""

    def __init__(self, stream: _Stream) -> None:
        self.stream = stream

    async def send_text(self, data: str) -> None:
        st = self.stream
        if st.closed:
            raise ConnectionError("stream closed")
        kind = data[:40]
        if '"type":"chat"' in kind or '"type": "chat"' in kind:
            msg = json.loads(data)
            st.chat.append((int(msg["seat"]), str(msg["phrase"])))
        elif "chat_log" in kind:
            for m in json.loads(data).get("messages", []):
                st.chat.append((int(m["seat"]), str(m["phrase"])))
        else:
            st.dirty = True
        st.wake.set()


# -- the hub ----------------------------------------------------------------------------------


class BotHub:
    """One server process's bot API: tokens, streams, play and challenges (module docs)."""

    def __init__(
        self,
        mgr: GameManager,
        limits: ClientLimits,
        *,
        keepalive: float = KEEPALIVE,
    ) -> None:
        self.mgr = mgr
        self.store = mgr.store
        self.limits = limits
        self.keepalive = keepalive
        """Seconds between keep-alive lines (tests make it short)."""
        self.now: Callable[[], datetime.datetime] = utcnow
        """The hub's clock (naive UTC): challenge expiry, event age (tests move it)."""
        self._streams: set[_Stream] = set()
        self._touched: dict[int, datetime.datetime] = {}
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Listen to the bot notifications of every process and to the matches that end
        here; expire challenges and drop old events every :data:`SWEEP_SECONDS`."""
        self.mgr.on_bot_notice.append(self.notice)
        self.mgr.on_match_end.append(self.on_match_end)
        self._task = asyncio.get_running_loop().create_task(self._sweeps())

    async def close(self) -> None:
        """Stop the sweeps; close every stream."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self.settle()
        for st in list(self._streams):
            st.close()

    async def _sweeps(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                await self.sweep()
            except Exception as e:  # the database away for a moment: next time
                log.warning("bot API sweep failed: %s", e)

    async def sweep(self) -> int:
        """Expire the challenges past their time (the challenged gets
        ``challengeCanceled``) and drop events older than :data:`EVENTS_KEPT`; returns how
        many challenges this process expired (of several, one expires each)."""
        now = self.now()
        n = 0
        for row in await asyncio.to_thread(repo.expired_challenges_sync, self.store.engine, now):
            ch = await self.challenge_json(row)
            ch["status"] = "expired"
            events = [(row.dest_id, {"type": "challengeCanceled", "challenge": ch})]
            done = await self.store.write(
                repo.op_end_challenge(row.id, "expired", None, now, events, "server")
            )
            if done is not None:
                n += 1
                self._told([f"{repo.EVENT_NOTICE}{row.dest_id}"])
        await self.store.write(repo.op_prune_events(now - datetime.timedelta(seconds=EVENTS_KEPT)))
        return n

    def notice(self, payload: str) -> None:
        """A bot notification (``ev:<account>``: new events; ``tok:<token>``: revoked;
        ``"*"``: anything), from this process or another."""
        if payload == "*":
            for st in list(self._streams):
                st.wake.set()
        elif payload.startswith(repo.EVENT_NOTICE):
            account = _int(payload.removeprefix(repo.EVENT_NOTICE))
            for st in list(self._streams):
                if st.kind == "event" and st.account_id == account:
                    st.wake.set()
        elif payload.startswith(repo.TOKEN_NOTICE):
            token = _int(payload.removeprefix(repo.TOKEN_NOTICE))
            for st in list(self._streams):
                if st.token_id == token:
                    st.close()

    def _told(self, payloads: Sequence[str]) -> None:
        """After a write of this process: its notifications here at once (on PostgreSQL
        they come again through the listener, which costs a wake-up, nothing more)."""
        for p in payloads:
            self.notice(p)

    def open_streams(self, token_id: int | None = None) -> int:
        """How many streams are open here (of the token ``token_id``, if given)."""
        return sum(1 for s in self._streams if token_id is None or s.token_id == token_id)

    # -- tokens ------------------------------------------------------------------------

    async def authenticate(
        self, header: str | None, scopes: Sequence[str], client: str
    ) -> TokenAuth:
        """The working token of an ``Authorization`` header that has one of ``scopes``
        (none: any token), charged to the token's and the client's rate limits.

        :raises BadTokenError: for no token, a malformed, unknown or revoked one (401).
        :raises BotBannedError: for a banned account's token.
        :raises MissingScopeError: for a token without the scope.
        :raises RateLimitedError: over a limit.
        """
        ClientLimits.check(self.limits.bot, "c:" + client, "bot API requests")
        token = _bearer(header)
        found = await asyncio.to_thread(
            repo.token_by_hash_sync, self.store.engine, hash_token(token)
        )
        if found is None or found[0].revoked_at is not None:
            raise BadTokenError("unknown or revoked API token")
        row, account = found
        if account.status != "active":
            raise BotBannedError("this account is banned")
        have = frozenset(row.scopes.split())
        if scopes and not have.intersection(scopes):
            raise MissingScopeError(f"this token lacks the scope {' or '.join(scopes)}")
        ClientLimits.check(self.limits.bot, f"t:{row.id}", "bot API requests")
        self._touch(row.id)
        return TokenAuth(row.id, Account.of(account), have)

    async def still_valid(self, auth: TokenAuth) -> bool:
        """Whether the token still works (not revoked, its account not banned)."""
        try:
            found = await asyncio.to_thread(
                repo.account_by_id_sync, self.store.engine, auth.account.id
            )
            tokens = await asyncio.to_thread(
                repo.tokens_of_sync, self.store.engine, auth.account.id
            )
        except Exception:  # the database away for a moment: the stream goes on
            return True
        return (
            found is not None
            and found.status == "active"
            and any(t.id == auth.token_id for t in tokens)
        )

    def _touch(self, token_id: int) -> None:
        now = self.now()
        last = self._touched.get(token_id)
        if last is not None and (now - last).total_seconds() < TOUCH_SECONDS:
            return
        self._touched[token_id] = now
        self.mgr.background(self.store.write(repo.op_touch_token(token_id, now)))

    async def create_token(
        self, account: Account, description: str, scopes: Sequence[str]
    ) -> tuple[ApiTokenRow, str]:
        """A new token of ``account``; returns its row and the token (shown only now).

        :raises BadBotRequestError: for no scope or an unknown one.
        :raises TooManyTokensError: past :data:`MAX_TOKENS`.
        """
        wanted = list(dict.fromkeys(scopes))
        bad = [s for s in wanted if s not in SCOPES]
        if bad or not wanted:
            raise BadBotRequestError(
                f"invalid scopes {bad[:3]!r}: choose from {', '.join(SCOPES)}"
                if bad
                else f"a token needs at least one scope ({', '.join(SCOPES)})"
            )
        have = await asyncio.to_thread(repo.tokens_of_sync, self.store.engine, account.id)
        if len(have) >= MAX_TOKENS:
            raise TooManyTokensError(f"at most {MAX_TOKENS} tokens: revoke one first")
        token = new_api_token()
        row: ApiTokenRow = await self.store.write(
            repo.op_create_token(
                account.id, hash_token(token), description, wanted, account.username
            )
        )
        return row, token

    async def list_tokens(self, account: Account) -> list[dict[str, Any]]:
        """The account's working tokens (never the tokens themselves)."""
        rows = await asyncio.to_thread(repo.tokens_of_sync, self.store.engine, account.id)
        return [token_json(r) for r in rows]

    async def revoke_token(self, account: Account, token_id: int) -> None:
        """Revoke a token of ``account``: every stream opened with it closes at once, on
        every server process.

        :raises TokenNotFoundError: for no such working token of the account.
        """
        done = await self.store.write(
            repo.op_revoke_token(account.id, token_id, account.username, self.now())
        )
        if not done:
            raise TokenNotFoundError(f"no token #{token_id} of this account")
        self._told([f"{repo.TOKEN_NOTICE}{token_id}"])

    # -- bot accounts ------------------------------------------------------------------

    async def upgrade(self, account: Account, about: str | None = None) -> bool:
        """Make ``account`` a bot account (irreversible; ``about``: who runs it, which
        engine); returns whether it was a person's until now (a bot account only has its
        description changed).

        :raises UpgradeRefusedError: if it played a rated game as a person.
        """
        if not account.is_bot:
            n = await asyncio.to_thread(repo.rated_games_sync, self.store.engine, account.id)
            if n:
                raise UpgradeRefusedError(
                    f"this account played {n} rated game{'s' if n != 1 else ''} as a person: "
                    "make a new account for the bot"
                )
        was: bool = await self.store.write(
            repo.op_upgrade_to_bot(account.id, about, account.username)
        )
        for g in list(self.mgr.games.values()):  # its games here: its name now marked BOT
            row = g.row
            if account.id in (row.account0, row.account1):
                g.bot_seats = (
                    g.bot_seats[0] or row.account0 == account.id,
                    g.bot_seats[1] or row.account1 == account.id,
                )
        return was

    async def bot_status(self, account: Account) -> dict[str, Any]:
        """What the account page says of the account as a bot: ``bot`` (it is one),
        ``about`` (its description), ``may_upgrade`` and, when it may not, ``rated_games``
        (the rated games it played as a person)."""
        row = await asyncio.to_thread(repo.account_by_id_sync, self.store.engine, account.id)
        is_bot = bool(row is not None and row.is_bot)
        about = "" if row is None else row.bot_about or ""
        rated = (
            0
            if is_bot
            else await asyncio.to_thread(repo.rated_games_sync, self.store.engine, account.id)
        )
        return {
            "bot": is_bot,
            "about": about,
            "may_upgrade": not is_bot and rated == 0,
            "rated_games": rated,
        }

    async def become_bot(self, account: Account, confirm: str, about: str | None) -> bool:
        """The account page's upgrade (:meth:`upgrade`), confirmed by the username typed
        again; a bot account only changes its description (no confirmation). Returns
        whether the account was a person's until now.

        :raises ConfirmationError: for an upgrade without the username typed again.
        :raises UpgradeRefusedError: if the account played a rated game as a person.
        """
        row = await asyncio.to_thread(repo.account_by_id_sync, self.store.engine, account.id)
        is_bot = bool(row is not None and row.is_bot)
        if not is_bot and username_key(confirm.strip()) != username_key(account.username):
            raise ConfirmationError("type your username to confirm: this cannot be undone")
        return await self.upgrade(Account.of(row) if row is not None else account, about)

    # -- bots online -------------------------------------------------------------------

    def streaming_accounts(self) -> set[int]:
        """The accounts with an event stream open on this process."""
        return {s.account_id for s in self._streams if s.kind == "event" and not s.closed}

    async def online_bots(self) -> list[dict[str, Any]]:
        """The bot accounts online, by name: those with an event stream open (a connected
        ``lostcities connect``) here, or on another server process (noted in the database
        every :data:`MARK_SECONDS`, counted for :data:`ONLINE_SECONDS`; a stream that
        closes takes the note away). Each: ``name``, ``about``."""
        ids = self.streaming_accounts()
        since = self.now() - datetime.timedelta(seconds=ONLINE_SECONDS)
        ids |= await asyncio.to_thread(repo.streaming_bots_sync, self.store.engine, since)
        rows = await asyncio.to_thread(repo.bot_accounts_sync, self.store.engine, ids)
        return [{"name": r.username, "about": r.bot_about or ""} for r in rows]

    async def is_online(self, username: str) -> bool:
        """Whether the bot account ``username`` is online (:meth:`online_bots`)."""
        return any(b["name"] == username for b in await self.online_bots())

    # -- the event stream --------------------------------------------------------------

    async def event_stream(self, auth: TokenAuth, since: int | None) -> AsyncIterator[bytes]:
        """The account's event stream (module docs): the events after ``since`` still kept,
        a ``gameStart`` per game it plays and a ``challenge`` per challenge waiting for
        it, then each new event, with keep-alives; ends when the token is revoked."""
        account = auth.account.id
        st = _Stream(auth.token_id, account, "event")
        self._streams.add(st)
        marked = self._mark_online(auth.account)
        try:
            top = await asyncio.to_thread(repo.last_event_id_sync, self.store.engine, account)
            if since is not None and since < top:
                for eid, data in await asyncio.to_thread(
                    repo.events_after_sync, self.store.engine, account, since
                ):
                    if eid <= top:
                        yield _event_line(eid, data)
            for ev in await self._snapshot(auth.account):
                yield _line({**ev, "event_id": top})
            last = top
            while not st.closed:
                try:
                    await asyncio.wait_for(st.wake.wait(), self.keepalive)
                except TimeoutError:
                    if not await self.still_valid(auth):
                        return
                    if (self.now() - marked).total_seconds() >= MARK_SECONDS:
                        marked = self._mark_online(auth.account)
                    yield b"\n"
                    continue
                st.wake.clear()
                if st.done():
                    return
                for eid, data in await asyncio.to_thread(
                    repo.events_after_sync, self.store.engine, account, last
                ):
                    last = eid
                    yield _event_line(eid, data)
        finally:
            self._streams.discard(st)
            if account not in self.streaming_accounts():  # (its last stream here)
                self.mgr.background(self._safe_write(repo.op_stream_gone(account)))

    def _mark_online(self, account: Account) -> datetime.datetime:
        """Note in the database that the bot has an event stream open (for the other
        server processes' :meth:`online_bots`); returns when."""
        now = self.now()
        if account.is_bot:
            op = repo.op_stream_seen(account.id, account.username, now)
            self.mgr.background(self._safe_write(op))
        return now

    async def _snapshot(self, account: Account) -> list[dict[str, Any]]:
        games = await asyncio.to_thread(repo.active_games_sync, self.store.engine, account.id)
        out = []
        for row in games:
            seat = account_seat(row, account.id)
            if seat is not None:
                out.append({"type": "gameStart", "game": await self._game_json(row, seat)})
        pending = await asyncio.to_thread(
            repo.pending_challenges_sync, self.store.engine, account.id, self.now()
        )
        for ch in pending:
            out.append({"type": "challenge", "challenge": await self.challenge_json(ch)})
        return out

    # -- a game's stream ---------------------------------------------------------------

    async def _my_game(
        self, auth: TokenAuth, game_id: str, *, current: bool = False
    ) -> tuple[LiveGame, int]:
        """The game and the seat the token's bot account plays in it.

        :raises NotABotError: for a person's account.
        :raises GameNotFoundError: for no such game.
        :raises NotYourGameError: for a game the account does not play in.
        """
        if not auth.is_bot:
            raise NotABotError(
                "only a bot account plays through the bot API (POST /api/bot/account/upgrade)"
            )
        g = await (self.mgr.current(game_id) if current else self.mgr.get(game_id))
        seat = await self.mgr.seat(g, None, auth.account.id)
        if seat is None:
            raise NotYourGameError("this account does not play in this game")
        return g, seat

    async def game_stream(self, auth: TokenAuth, game_id: str) -> AsyncIterator[bytes]:
        """Open a game's stream for its bot (checked now, before anything is sent): a
        ``gameFull`` line, then a ``gameState`` after every change and a ``chatLine`` per
        phrase, with keep-alives, until the game's last ``gameState`` (or the token is
        revoked).

        :raises NotABotError: for a person's account.
        :raises GameNotFoundError: for no such game.
        :raises NotYourGameError: for another game.
        """
        g, seat = await self._my_game(auth, game_id, current=True)
        return self._game_lines(auth, g, seat)

    async def _game_lines(self, auth: TokenAuth, g: LiveGame, seat: int) -> AsyncIterator[bytes]:
        st = _Stream(auth.token_id, auth.account.id, "game")
        conn = Conn(_StreamSender(st), seat)
        self._streams.add(st)
        g.conns.append(conn)
        try:
            await self.mgr.presence.arrived(g, conn)
            await g.chat.join(conn)
            row = g.row
            names = (row.name0, row.name1)
            bots = await self._bots_of(row)
            state = game_state(g, seat)
            yield _line(
                {
                    "type": "gameFull",
                    "id": g.id,
                    "variant": row.variant,
                    "rounds": row.num_rounds,
                    "rated": bool(row.rated),
                    "clock": _clock_text(row),
                    "seat": seat,
                    "players": [{"name": names[s], "bot": bots[s]} for s in (0, 1)],
                    "state": state,
                }
            )
            sent = _without_clock(state)
            st.dirty = False
            while not st.closed and state["status"] == "started":
                for who, phrase in st.chat:
                    yield _line(
                        {"type": "chatLine", "from": names[who], "seat": who, "phrase": phrase}
                    )
                st.chat.clear()
                if not st.dirty:
                    try:
                        await asyncio.wait_for(st.wake.wait(), self.keepalive)
                    except TimeoutError:
                        if not await self.still_valid(auth):
                            return
                        yield b"\n"
                        continue
                    st.wake.clear()
                if st.done():
                    return
                if st.dirty:
                    st.dirty = False
                    state = game_state(g, seat)
                    if _without_clock(state) != sent:
                        sent = _without_clock(state)
                        yield _line({"type": "gameState", "state": state})
            for who, phrase in st.chat:
                yield _line({"type": "chatLine", "from": names[who], "seat": who, "phrase": phrase})
        finally:
            conn.alive = False
            st.closed = True
            self._streams.discard(st)
            if conn in g.conns:
                g.conns.remove(conn)
            with contextlib.suppress(Exception):
                await self.mgr.presence.left(g, seat)

    # -- playing -----------------------------------------------------------------------

    async def move(self, auth: TokenAuth, game_id: str, req: MoveIn) -> None:
        """Make the bot's move (:meth:`LiveGame.play`): checked once, stored, sent to
        everyone. Without ``round``/``ply`` it is made in the game's current position.

        :raises GameError: stale, not your turn, game over, illegal move: nothing changed.
        """
        g, seat = await self._my_game(auth, game_id, current=req.round is None or req.ply is None)
        if req.round is None or req.ply is None:
            ri, ply = g.round_index, g.round.ply
        else:
            ri, ply = req.round - 1, req.ply
        move = await g.play(seat, ri, ply, req.move)
        self._log(auth, "bot_move", g.id, f"{ri + 1}.{ply} {move}")

    async def resign(self, auth: TokenAuth, game_id: str) -> None:
        """The bot resigns the match."""
        g, seat = await self._my_game(auth, game_id)
        await g.resign(seat)
        await g.broadcast()
        self._log(auth, "bot_resign", g.id)

    async def abort(self, auth: TokenAuth, game_id: str) -> None:
        """The bot aborts the game (before both players moved: :mod:`~lostcities.web.abandon`)."""
        g, seat = await self._my_game(auth, game_id)
        await g.abort(seat)
        await g.broadcast()
        self._log(auth, "bot_abort", g.id)

    async def claim(self, auth: TokenAuth, game_id: str, claim: abandon.Claim) -> None:
        """The bot claims the win or a draw (its opponent left: :mod:`~lostcities.web.abandon`)."""
        g, seat = await self._my_game(auth, game_id)
        await g.claim(seat, claim)
        await g.broadcast()
        self._log(auth, "bot_claim", g.id, claim)

    async def chat(self, auth: TokenAuth, game_id: str, phrase: str) -> None:
        """The bot says one of the site's quick-chat phrases.

        :raises BadBotRequestError: for anything else.
        """
        if phrase not in CHAT_IDS:
            raise BadBotRequestError(f"unknown chat phrase {phrase[:40]!r} (one of the site's)")
        g, seat = await self._my_game(auth, game_id)
        await g.chat.say(seat, phrase)
        self._log(auth, "bot_chat", g.id, phrase)

    def _log(self, auth: TokenAuth, action: str, game_id: str, detail: str = "") -> None:
        """A bot action in the moderation log (written with the next batch; the action is
        not held up by it: :meth:`settle` waits for it)."""
        name = auth.account.username
        op = repo.op_mod_log(name, action, name, f"game {game_id} {detail}".strip())
        task = asyncio.get_running_loop().create_task(self._safe_write(op))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def settle(self) -> None:
        """Wait for the moderation log's lines of the actions made so far."""
        while self._pending:
            await asyncio.gather(*list(self._pending))

    async def _safe_write(self, op: Callable[..., Any]) -> None:
        try:
            await self.store.write(op)
        except Exception as e:
            log.warning("bot API: a write failed: %s", e)

    # -- games' events -----------------------------------------------------------------

    async def _bots_of(self, row: GameRow) -> tuple[bool, bool]:
        ids = [a for a in (row.account0, row.account1) if a is not None]
        found = {
            a: await asyncio.to_thread(repo.account_by_id_sync, self.store.engine, a)
            for a in set(ids)
        }

        def bot(seat: int) -> bool:
            if (row.bot0, row.bot1)[seat] is not None:
                return True
            a = (row.account0, row.account1)[seat]
            acc = found.get(a) if a is not None else None
            return bool(acc is not None and acc.is_bot)

        return bot(0), bot(1)

    async def _game_json(self, row: GameRow, seat: int) -> dict[str, Any]:
        other = 1 - seat
        bots = await self._bots_of(row)
        opp_account = (row.account0, row.account1)[other]
        rating = await self._rating(opp_account, bots[other], row.variant, _clock_text(row))
        out: dict[str, Any] = {
            "id": row.id,
            "variant": row.variant,
            "rounds": row.num_rounds,
            "rated": bool(row.rated),
            "clock": _clock_text(row),
            "seat": seat,
            "opponent": {
                "name": (row.name0, row.name1)[other],
                "bot": bots[other],
                "rating": rating,
            },
        }
        return out

    async def _rating(
        self, account_id: int | None, is_bot: bool, variant: str, clock: str | None
    ) -> int | None:
        if account_id is None:
            return None
        key = ratings.account_key(account_id, is_bot)
        speed = _speed(clock)
        rows = await asyncio.to_thread(repo.rating_sync, self.store.engine, [key], variant, speed)
        r = rows.get(key)
        return round((ratings.DEFAULT if r is None else ratings.rating_now(r, self.now())).rating)

    def on_match_end(self, g: LiveGame) -> None:
        """The game manager's hook: a match ended here; its bot accounts get ``gameFinish``."""
        if g.row.account0 is None and g.row.account1 is None:
            return
        self.mgr.background(self._finished(g))

    async def _finished(self, g: LiveGame) -> None:
        row = g.row
        try:
            bots = await self._bots_of(row)
            events: list[tuple[int, dict[str, Any]]] = []
            for seat in (0, 1):
                a = (row.account0, row.account1)[seat]
                if a is not None and bots[seat]:
                    game = await self._game_json(row, seat)
                    game["result"] = _result(g)
                    events.append((a, {"type": "gameFinish", "game": game}))
            if events:
                await self.store.write(repo.op_add_events(events, self.now()))
                self._told([f"{repo.EVENT_NOTICE}{a}" for a, _ in events])
        except Exception as e:  # the database away: the stream's snapshot tells on reconnect
            log.warning("bot API: gameFinish of game %s not stored: %s", g.id, e)

    # -- challenges --------------------------------------------------------------------

    async def _player_json(
        self, account_id: int | None, name: str, variant: str, clock: str | None
    ) -> dict[str, Any]:
        acc = (
            None
            if account_id is None
            else await asyncio.to_thread(repo.account_by_id_sync, self.store.engine, account_id)
        )
        is_bot = bool(acc is not None and acc.is_bot)
        return {
            "name": acc.username if acc is not None else name,
            "bot": is_bot,
            "rating": await self._rating(account_id if acc else None, is_bot, variant, clock),
        }

    async def challenge_json(self, row: BotChallengeRow) -> dict[str, Any]:
        """A challenge as the API shows it (docs/bot-api.md); an unanswered one past its
        time says ``expired``."""
        status = row.status
        if status == "created" and row.expires_at <= self.now():
            status = "expired"
        out: dict[str, Any] = {
            "id": row.id,
            "challenger": await self._player_json(
                row.challenger_id, row.challenger_name, row.variant, row.clock
            ),
            "dest": await self._player_json(row.dest_id, "", row.variant, row.clock),
            "variant": row.variant,
            "rounds": row.rounds,
            "clock": row.clock,
            "rated": bool(row.rated),
            "status": status,
        }
        if status == "declined":
            out["decline_reason"] = row.decline_reason or "generic"
        if status == "accepted":
            out["game_id"] = row.game_id
        return out

    async def challenge(
        self, caller: Caller, username: str, req: ChallengeIn
    ) -> tuple[dict[str, Any], str | None]:
        """``caller`` challenges ``username``; returns the challenge and, for a person or a
        guest, their challenge token (their seat token once accepted: shown only now).

        :raises AccountNotFoundError: for no such player.
        :raises BadBotRequestError: oneself; a person or a guest challenging a person; a
            guest's rated challenge; blocked players.
        """
        dest = await find_account(self.store, username)
        if dest is None or dest.status != "active":
            raise AccountNotFoundError(f"no player {username[:24]!r}")
        me = caller.account
        if me is not None and me.id == dest.id:
            raise BadBotRequestError("you cannot challenge yourself")
        if caller.token is None and not dest.is_bot:
            raise NotABotError("only a bot can be challenged here: challenge people in the lobby")
        if req.rated and me is None:
            raise BadBotRequestError("sign in to play rated games (guests play casual games)")
        if await blocked_between(self.store, None if me is None else me.id, dest.id):
            raise BadBotRequestError("you cannot challenge this player")
        token = None if caller.token is not None else new_token()
        now = self.now()
        row = BotChallengeRow(
            id=secrets.token_urlsafe(9),
            created_at=now,
            expires_at=now + datetime.timedelta(seconds=CHALLENGE_SECONDS),
            challenger_id=None if me is None else me.id,
            challenger_name=(me.username if me is not None else (req.name or "Guest"))[:40],
            dest_id=dest.id,
            variant=req.variant,
            rounds=req.rounds,
            clock=req.clock,
            rated=req.rated,
            status="created",
            decline_reason=None,
            game_id=None,
            token_hash=None if token is None else hash_token(token),
        )
        ch = await self.challenge_json(row)
        await self.store.write(
            repo.op_create_challenge(
                row, [(dest.id, {"type": "challenge", "challenge": ch})], caller.name, dest.username
            )
        )
        self._told([f"{repo.EVENT_NOTICE}{dest.id}"])
        return ch, token

    async def _challenge(self, challenge_id: str) -> BotChallengeRow:
        row = await asyncio.to_thread(repo.challenge_sync, self.store.engine, challenge_id)
        if row is None:
            raise ChallengeNotFoundError(f"no challenge {challenge_id[:16]!r}")
        return row

    def _is_challenger(self, caller: Caller, row: BotChallengeRow) -> bool:
        if caller.account is not None and row.challenger_id == caller.account.id:
            return True
        return bool(
            caller.seat_token
            and row.token_hash is not None
            and secrets.compare_digest(row.token_hash, hash_token(caller.seat_token))
        )

    def _is_dest(self, caller: Caller, row: BotChallengeRow) -> bool:
        return caller.account is not None and caller.account.id == row.dest_id

    async def challenge_info(self, caller: Caller, challenge_id: str) -> dict[str, Any]:
        """A challenge for its challenger or its dest; once accepted, a person's answer
        carries their ``game_url`` (and the ``token`` they sent).

        :raises ChallengeNotFoundError: for no such challenge, or one of others.
        """
        row = await self._challenge(challenge_id)
        if not (self._is_challenger(caller, row) or self._is_dest(caller, row)):
            raise ChallengeNotFoundError(f"no challenge {challenge_id[:16]!r}")
        out: dict[str, Any] = {"challenge": await self.challenge_json(row)}
        if caller.token is None and self._is_challenger(caller, row):
            accepted = row.status == "accepted" and row.game_id is not None
            out["game_url"] = f"/game/{row.game_id}" if accepted else None
            if caller.seat_token and row.token_hash is not None:
                out["token"] = caller.seat_token
        return out

    async def accept(self, caller: Caller, challenge_id: str) -> str:
        """The challenged player accepts: the game is made and both seated, in one
        transaction with the challenge's acceptance; both get ``gameStart``. Returns the
        game id.

        :raises ChallengeNotFoundError: for no such challenge to the caller.
        :raises ChallengeClosedError: for one answered, cancelled or expired.
        """
        row = await self._challenge(challenge_id)
        if not self._is_dest(caller, row):
            raise ChallengeNotFoundError(f"no challenge {challenge_id[:16]!r} to you")
        now = self.now()
        if row.status != "created" or row.expires_at <= now:
            raise ChallengeClosedError(f"this challenge is {_closed(row, now)}")
        dest = caller.account
        assert dest is not None
        choice: int | str | None = None
        if row.clock is not None:
            choice = int(row.clock) if row.clock.isdigit() else row.clock
        req = schemas.CreateGame(
            opponent="friend",
            variant=row.variant,  # type: ignore[arg-type]
            rounds=row.rounds,  # type: ignore[arg-type]
            name=row.challenger_name,
            clock=choice,  # type: ignore[arg-type]
        )
        g, _, _ = await self.mgr.create(req)
        rated = bool(row.rated and row.challenger_id is not None)
        seat0 = (row.token_hash or hash_token(new_token()), row.challenger_name, row.challenger_id)
        seat1 = (hash_token(new_token()), dest.username, dest.id)
        game = GameRow(
            id=g.id,
            variant=g.row.variant,
            num_rounds=g.row.num_rounds,
            name0=seat0[1],
            name1=seat1[1],
            account0=seat0[2],
            account1=seat1[2],
            rated=rated or None,
            clock=g.row.clock,
            clock_increment=g.row.clock_increment,
            bot0=None,
            bot1=None,
        )
        events = [
            (a, {"type": "gameStart", "game": await self._game_json(game, seat)})
            for seat, a in ((0, seat0[2]), (1, seat1[2]))
            if a is not None
        ]
        ok = await self.store.write(
            repo.op_accept_challenge(
                row.id, now, g.id, (seat0, seat1), rated, events, dest.username
            )
        )
        if not ok:
            await self.store.write(repo.op_drop_game(g.id))
            self.mgr.games.pop(g.id, None)
            raise ChallengeClosedError("this challenge is no longer open")
        live = g.row
        live.token0, live.token1, live.name0, live.name1 = seat0[0], seat1[0], seat0[1], seat1[1]
        live.account0, live.account1, live.invite = seat0[2], seat1[2], None
        live.status, live.rated, live.updated_at = "active", rated or None, now
        g.bot_seats = await self._bots_of(game)
        self._told([f"{repo.EVENT_NOTICE}{a}" for a, _ in events])
        await g.broadcast()
        return g.id

    async def decline(self, caller: Caller, challenge_id: str, reason: str) -> None:
        """The challenged player declines (with a reason of :data:`DECLINE_REASONS`); the
        challenger gets ``challengeDeclined``.

        :raises ChallengeNotFoundError: for no such challenge to the caller.
        :raises ChallengeClosedError: for one no longer waiting.
        """
        row = await self._challenge(challenge_id)
        if not self._is_dest(caller, row):
            raise ChallengeNotFoundError(f"no challenge {challenge_id[:16]!r} to you")
        await self._end(caller, row, "declined", reason)

    async def cancel(self, caller: Caller, challenge_id: str) -> None:
        """The challenger takes the challenge back; the challenged gets
        ``challengeCanceled``.

        :raises ChallengeNotFoundError: for no such challenge of the caller.
        :raises ChallengeClosedError: for one no longer waiting.
        """
        row = await self._challenge(challenge_id)
        if not self._is_challenger(caller, row):
            raise ChallengeNotFoundError(f"no challenge {challenge_id[:16]!r} of yours")
        await self._end(caller, row, "canceled", None)

    async def _end(
        self, caller: Caller, row: BotChallengeRow, status: str, reason: str | None
    ) -> None:
        now = self.now()
        if row.status != "created" or row.expires_at <= now:
            raise ChallengeClosedError(f"this challenge is {_closed(row, now)}")
        ch = await self.challenge_json(row)
        ch["status"] = status
        if status == "declined":
            ch["decline_reason"] = reason
            events = (
                []
                if row.challenger_id is None
                else [(row.challenger_id, {"type": "challengeDeclined", "challenge": ch})]
            )
        else:
            events = [(row.dest_id, {"type": "challengeCanceled", "challenge": ch})]
        done = await self.store.write(
            repo.op_end_challenge(row.id, status, reason, now, events, caller.name)
        )
        if done is None:
            raise ChallengeClosedError("this challenge is no longer open")
        self._told([f"{repo.EVENT_NOTICE}{a}" for a, _ in events])


# -- helpers ---------------------------------------------------------------------------------


def token_json(row: ApiTokenRow) -> dict[str, Any]:
    """A token as ``GET /api/account/tokens`` lists it (never the token)."""
    return {
        "id": row.id,
        "description": row.description,
        "scopes": row.scopes.split(),
        "created": _iso(row.created_at),
        "last_used": _iso(row.last_used),
    }


def _iso(t: datetime.datetime | None) -> str | None:
    return None if t is None else t.isoformat() + "Z"


def _bearer(header: str | None) -> str:
    scheme, _, token = (header or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token.startswith(TOKEN_PREFIX) or len(token) > 100:
        raise BadTokenError("send an API token: Authorization: Bearer lct_...")
    return token


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return -1


def _speed(clock: str | None) -> str:
    choice: int | str | None = clock
    if clock is not None and clock.isdigit():
        choice = int(clock)
    base, inc = parse_clock(choice)
    return ratings.speed_of(base, inc)


def _closed(row: BotChallengeRow, now: datetime.datetime) -> str:
    if row.status == "created" and row.expires_at <= now:
        return "expired"
    return row.status


def _event_line(eid: int, data: str) -> bytes:
    obj = json.loads(data)
    obj["event_id"] = eid
    return _line(obj)


def _without_clock(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "clock"}
