"""The game manager: every live game of a server, loaded from the store on first use,
and the requests that make, join and find games.

The game manager's parts live beside it, each with its one job: the computer levels
(:mod:`~lostcities.web.levels`), the errors (:mod:`~lostcities.web.errors`), the clock
rules (:mod:`~lostcities.web.clocks`), the bot worker pool (:mod:`~lostcities.web.workers`),
the live game with its seats, moves, clock and bot turns (:mod:`~lostcities.web.live_game`),
what a finished game leaves (:mod:`~lostcities.web.archive`) and the hints and analyses
(:mod:`~lostcities.web.hints`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass

from lostcities.cards import get_variant
from lostcities.match import Match
from lostcities.rules import Move, PlayerView
from lostcities.web import schemas
from lostcities.web.abandon import ABANDON_AFTER
from lostcities.web.clocks import clock_choice, parse_clock
from lostcities.web.errors import (
    GameError,
    GameNotFoundError,
    InvalidTokenError,
    NotFinishedError,
    SeatTakenError,
)
from lostcities.web.hints import Analyst
from lostcities.web.levels import Level, Levels
from lostcities.web.live_game import LiveGame
from lostcities.web.models.base import utcnow
from lostcities.web.models.games import GameRow, RoundRow
from lostcities.web.peers import Peers, SingleProcess
from lostcities.web.presence import Presence
from lostcities.web.repositories import bots as bot_accounts
from lostcities.web.repositories.games import (
    BOT_NOTICE,
    CHAT_NOTICE,
    StoredGame,
    op_claim_seat,
    op_insert_game,
    op_update_game,
)
from lostcities.web.store import GameStore, hash_token
from lostcities.web.workers import BotRunner

__all__ = [
    "GameManager",
    "ManagerSettings",
    "account_seat",
    "invite_matches",
    "new_id",
    "new_invite",
    "new_token",
]

log = logging.getLogger("lostcities.web")


def account_seat(row: GameRow, account_id: int | None) -> int | None:
    """The seat the account ``account_id`` holds in the game ``row`` (seat 0 if it holds
    both, having joined its own invite), or ``None``.

    >>> row = GameRow(account0=None, account1=7)
    >>> account_seat(row, 7), account_seat(row, 8), account_seat(row, None)
    (1, None, None)
    """
    if account_id is None:
        return None
    for seat, holder in ((0, row.account0), (1, row.account1)):
        if holder is not None and holder == account_id:
            return seat
    return None


def new_id() -> str:
    """A short, unguessable game id."""
    return secrets.token_urlsafe(9)


def new_invite() -> str:
    """A fresh invite code: 128 random bits from the OS's CSPRNG (``secrets``), URL-safe;
    only its hash (:func:`~lostcities.web.store.hash_token`) is stored."""
    return secrets.token_urlsafe(16)


def invite_matches(stored: str, invite: str) -> bool:
    """Whether ``invite`` is the code whose stored form is ``stored``, compared in
    constant time (``hmac.compare_digest``). Rows written before invites were hashed hold
    the code itself (16 characters, never 64 hex digits like a hash): still accepted."""
    if len(stored) == 64:
        return hmac.compare_digest(stored, hash_token(invite))
    return hmac.compare_digest(stored.encode(), invite.encode())


def new_token() -> str:
    """A seat token (256 bits)."""
    return secrets.token_urlsafe(32)


@dataclass
class ManagerSettings:
    """What the manager needs from the app settings."""

    bot_time_limit: float | None = None
    bot_min_delay: float = 0.0
    unload_after: float = 900.0
    abandon_after: float = ABANDON_AFTER
    """Seconds a player must have been away before the opponent may claim
    (:mod:`lostcities.web.abandon`)."""
    deal_seed: int | None = None
    """Test servers only (:attr:`Settings.test_deal_seed
    <lostcities.web.deps.Settings.test_deal_seed>`): the n-th game created here without a
    seed (from 0) is dealt from seed ``deal_seed + n``."""


class GameManager:
    """Every live game, loaded from the store on first use."""

    def __init__(
        self,
        store: GameStore,
        bots: BotRunner,
        settings: ManagerSettings,
        levels: Mapping[str, Level] | None = None,
        peers: Peers | None = None,
    ) -> None:
        self.levels = Levels(levels)
        """The computer levels and how each plays here."""
        self.peers: Peers = SingleProcess() if peers is None else peers
        """The other server processes sharing the database (:mod:`lostcities.web.peers`)."""
        self._background: set[asyncio.Task[object]] = set()
        self.store = store
        self.bots = bots
        self.settings = settings
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Future[LiveGame | None]] = {}
        self.clock: Callable[[], float] = time.monotonic
        self.now: Callable[[], datetime.datetime] = utcnow
        """The time as the store writes it (naive UTC): the move clock's (tests shift it)."""
        self.analyst = Analyst(store, bots, self.levels)
        """Hints and analyses (:mod:`lostcities.web.hints`)."""
        self.presence = Presence(self, settings.abandon_after)
        """Who is at which table; aborts and claims (:mod:`lostcities.web.abandon`)."""
        self._deals = 0
        self.on_match_end: list[Callable[[LiveGame], None]] = []
        """Called with a game whose match this process ended (its result committed): the
        ratings (:mod:`lostcities.web.ratings`)."""
        self.on_game_change: list[Callable[[str], None]] = []
        """Called (in this event loop) with the id of every game whose change was committed,
        on any process (``"*"``: any game may have changed): the pushed turn alerts of "my
        games" (:mod:`lostcities.web.turn_alerts`)."""
        self.on_bot_notice: list[Callable[[str], None]] = []
        """Called (in this event loop) with each bot-API notification of any process, the
        :data:`~lostcities.web.repositories.games.BOT_NOTICE` prefix taken off (``"*"``:
        after listening again, anything may have changed): the bot API's streams
        (:mod:`lostcities.web.bot_api`)."""

    def game_changed(self, game_id: str) -> None:
        """Tell :attr:`on_game_change` that ``game_id`` changed."""
        _call_hooks(self.on_game_change, game_id, "game-change hook failed for game %s: %s")

    def bot_notice(self, payload: str) -> None:
        """Tell :attr:`on_bot_notice` of a bot-API change (``ev:<account>``, ``tok:<token>``,
        ``"*"``)."""
        _call_hooks(self.on_bot_notice, payload, "bot hook failed for %s: %s")

    def changed_here(self, game_id: str) -> None:
        """A change of ``game_id`` committed by this process (its copy broadcast it): told
        to :attr:`on_game_change` now with one process; with several, the change's
        notification tells every process, this one too (:meth:`on_change`)."""
        if not self.peers.shared:
            self.game_changed(game_id)

    def match_ended(self, g: LiveGame) -> None:
        """Tell :attr:`on_match_end` that ``g``'s match ended here."""
        for hook in self.on_match_end:
            try:
                hook(g)
            except Exception as e:  # a hook must not undo the move that ended the match
                log.error("match-end hook failed for game %s: %s", g.id, e)

    async def bot_move(self, spec: str, seed: int, view: PlayerView, mistakes: float) -> Move:
        """The move of the bot ``spec`` (seeded) from ``view``, with the server's time limit,
        once its level is ready (a first start's compile: never in a move)."""
        await self.levels.until_ready(spec)
        return await self.bots.choose(spec, seed, view, self.settings.bot_time_limit, mistakes)

    @property
    def bot_min_delay(self) -> float:
        """Seconds a bot's move takes at least (:attr:`ManagerSettings.bot_min_delay`)."""
        return self.settings.bot_min_delay

    # -- loading -------------------------------------------------------------------------

    @staticmethod
    def build(stored: StoredGame) -> Match:
        """Replay a stored game with the rules core.

        :raises ValueError: if the stored moves do not replay (a corrupt database).
        """
        row = stored.row
        m = Match(
            row.num_rounds,
            variant=row.variant,
            seed=row.seed,
            starter=row.first_starter,
            tie_break=row.tie_break or "draw",
            younger=row.younger,
            achievements=row.achievements == "default",
        )
        for sr in stored.rounds:
            r = m.new_round(sr.deck)
            for mv in sr.moves:
                r.push(mv)
            if sr.forfeit is not None and not r.is_over():
                r.forfeit(sr.forfeit, sr.forfeit_reason)
        return m

    async def get(self, game_id: str) -> LiveGame:
        """The live game ``game_id``, loaded if needed.

        :raises GameNotFoundError: if there is no such game.
        """
        g = self.games.get(game_id)
        if g is not None:
            g.last_active = time.monotonic()
            return g
        if len(game_id) > 32:
            raise GameNotFoundError(f"no game {game_id[:32]!r}...")
        fut = self._loading.get(game_id)
        if fut is None:
            fut = asyncio.get_running_loop().create_future()
            self._loading[game_id] = fut
            try:
                stored = await self.store.load(game_id)
                if stored is None:
                    fut.set_result(None)
                else:
                    bot_seats = await self.bot_seats(stored.row)
                    live = LiveGame(stored.row, self.build(stored), self)
                    live.bot_seats = bot_seats
                    self.games[game_id] = live
                    fut.set_result(live)
                    live.schedule_bot()
                    live.schedule_clock()
            except Exception as e:
                fut.set_exception(e)
            finally:
                del self._loading[game_id]
        loaded = await asyncio.shield(fut)
        if loaded is None:
            raise GameNotFoundError(f"no game {game_id!r}")
        return loaded

    async def bot_seats(self, row: GameRow) -> tuple[bool, bool]:
        """Which seats of ``row`` bot accounts play (:mod:`lostcities.web.bot_api`: their
        names are marked BOT); a database away for a moment marks none."""
        ids = {a for a in (row.account0, row.account1) if a is not None}
        if not ids:
            return False, False
        try:
            bots = await asyncio.to_thread(
                bot_accounts.bot_account_ids_sync, self.store.engine, ids
            )
        except Exception as e:  # (only the mark is missing)
            log.warning("bot accounts of game %s not read: %s", row.id, e)
            return False, False
        return row.account0 in bots, row.account1 in bots

    async def current(self, game_id: str) -> LiveGame:
        """The live game ``game_id`` as the database has it now: with other server processes
        (:mod:`lostcities.web.peers`) a copy behind the database (a move or a seat stored
        elsewhere, its notification not here yet) is refreshed first, so that a read right
        after a write on another process sees the write.

        :raises GameNotFoundError: if there is no such game.
        """
        g = await self.get(game_id)
        if self.peers.shared:
            await g.sync()
        return g

    async def seat(
        self, g: LiveGame, token: str | None, account_id: int | None = None
    ) -> int | None:
        """The seat of ``token`` in ``g``, else the seat the signed-in account
        ``account_id`` holds (:func:`account_seat`: a seat follows its account into any
        browser), else ``None`` (a spectator). A token or an account this process does not
        know in ``g`` is looked up in the database first (another process may have just
        handed the seat out).

        :raises InvalidTokenError: for a token that is not one of the game's (unless the
            account holds a seat).
        """
        try:
            seat = g.seat_for(token)
        except InvalidTokenError as e:
            bad: InvalidTokenError | None = e
            seat = None
        else:
            bad = None
        if seat is not None:
            return seat
        if bad is not None and self.peers.shared:
            await g.refresh()  # the token first: it wins over the account
            with contextlib.suppress(InvalidTokenError):
                seat = g.seat_for(token)
            if seat is not None:
                return seat
        if account_id is not None:
            mine = account_seat(g.row, account_id)
            if mine is None and bad is None and self.peers.shared:
                await g.sync()  # (cheap when nothing changed: one version read)
                mine = account_seat(g.row, account_id)
            if mine is not None:
                return mine
        if bad is not None:
            raise bad
        return None

    async def resume_all(self) -> int:
        """Load unfinished games with a bot seat so a bot to move carries on after a restart."""
        ids = await asyncio.to_thread(self.store.resumable_sync)
        for gid in ids:
            try:
                await self.get(gid)
            except Exception as e:  # a corrupt game must not stop the server
                log.error("cannot resume game %s: %s", gid, e)
        return len(ids)

    def unload_idle(self) -> int:
        """Drop games nobody watches from memory (they reload from the store on demand)."""
        now = time.monotonic()
        drop = [
            gid
            for gid, g in self.games.items()
            if not g.conns
            and not g.bots.thinking()
            and not g.lock.locked()
            and now - g.last_active > self.settings.unload_after
        ]
        for gid in drop:
            del self.games[gid]
            if self.peers.shared:
                self.background(self.peers.release(gid))
        return len(drop)

    def on_change(self, game_id: str) -> None:
        """Another server process (or this one) committed a change of ``game_id``: refresh
        it if it is in memory here (``"*"``: every game, after listening again); new chat
        (:data:`~lostcities.web.repositories.games.CHAT_NOTICE`) goes to its connections
        here; a bot-API notification (:data:`~lostcities.web.repositories.games.BOT_NOTICE`)
        to :attr:`on_bot_notice`."""
        if game_id.startswith(BOT_NOTICE) or game_id == "*":
            self.bot_notice(game_id.removeprefix(BOT_NOTICE))
            if game_id != "*":
                return
        if self.on_game_change and not game_id.startswith(CHAT_NOTICE):
            self.game_changed(game_id)
        if game_id.startswith(CHAT_NOTICE):
            chatted = self.games.get(game_id.removeprefix(CHAT_NOTICE))
            if chatted is not None:
                self.background(chatted.chat.pull())
            return
        games = list(self.games.values()) if game_id == "*" else [self.games.get(game_id)]
        for g in games:
            if g is not None:
                self.background(g.refresh())
                if game_id == "*":
                    self.background(g.chat.pull())

    def background(self, work: Coroutine[object, object, object]) -> None:
        """Run ``work`` in its own task, kept until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def sweep_bots(self) -> None:
        """Start the bot of every game in memory whose bot is to move and not running (the
        process that ran it may have died)."""
        for g in list(self.games.values()):
            g.schedule_bot()

    # -- creating and joining --------------------------------------------------------------

    async def create(
        self,
        req: schemas.CreateGame,
        *,
        rematch_of: str | None = None,
        seed: int | None = None,
        first_starter: int | None = None,
        account_id: int | None = None,
    ) -> tuple[LiveGame, str, str | None]:
        """Create a game; returns it, seat 0's token and (friend games) the invite code.
        ``account_id``: the signed-in creator's account (seat 0's).

        :raises BotUnavailableError: if the level's bot is not installed.
        """
        variant = get_variant(req.variant)
        bot: str | None = None
        level: str | None = None
        mistakes = 0.0
        if req.opponent == "computer":
            level = req.level
            bot, mistakes = self.levels.resolve(level)
        if seed is None and self.settings.deal_seed is not None:
            seed = self.settings.deal_seed + self._deals
            self._deals += 1
        m = Match(
            req.rounds,
            variant=variant,
            seed=seed,
            starter=first_starter,
            tie_break=req.tie_break,
            younger=req.younger,
            achievements=req.achievements,
        )
        r = m.new_round()
        token = new_token()
        invite = new_invite() if bot is None else None
        clock, increment = parse_clock(req.clock)
        row = GameRow(
            id=new_id(),
            variant=variant.name,
            num_rounds=req.rounds,
            seed=m.seed,
            first_starter=m.first_starter,
            status="active" if bot else "waiting",
            result="*",
            level=level,
            name0=req.name or "Player 1",
            name1=(f"Computer ({self.levels[level].label})" if level else "Player 2"),
            mistakes=mistakes,
            bot0=None,
            bot1=bot,
            token0=hash_token(token),
            token1=None,
            invite=hash_token(invite) if invite is not None else None,  # stored hashed
            rematch_of=rematch_of,
            tie_break=None if m.tie_break == "draw" else m.tie_break,
            younger=m.younger,
            achievements="default" if req.achievements else None,
            clock=clock,
            clock_increment=increment,
            clock_left0=None if increment is None else float(clock or 0),
            clock_left1=None if increment is None else float(clock or 0),
            account0=account_id,
            # rated: a signed-in player against the computer (the router checks who asks)
            rated=True if req.rated and bot is not None and account_id is not None else None,
        )
        row.created_at = row.updated_at = utcnow()
        deck = " ".join(str(c) for c in r.deal_order)
        await self.store.write(
            op_insert_game(row, [RoundRow(game_id=row.id, index=0, starter=r.starter, deck=deck)])
        )
        live = LiveGame(row, m, self)
        self.games[row.id] = live
        live.schedule_bot()
        return live, token, invite

    async def join(
        self, game_id: str, invite: str, name: str, *, account_id: int | None = None
    ) -> tuple[LiveGame, str]:
        """Claim seat 1 of a friend game with its invite code; returns the seat token.
        ``account_id``: the signed-in joiner's account.

        :raises SeatTakenError: if the seat is already taken (or the code is wrong).
        """
        return await self._join(game_id, name, invite=invite, account_id=account_id)

    async def _join(
        self,
        game_id: str,
        name: str,
        *,
        invite: str | None = None,
        account_id: int | None = None,
    ) -> tuple[LiveGame, str]:
        # invite None: the server's own rematch seats the other player (no code to check)
        g = await self.get(game_id)
        async with g.lock:
            if g.row.bot1 is not None:
                # a game against the computer never had an invite: the code is simply wrong
                raise InvalidTokenError("invalid invite code for this game")
            if g.row.token1 is not None:
                raise SeatTakenError("this invite was already used: the seat is taken")
            stored = g.row.invite
            if stored is None or (invite is not None and not invite_matches(stored, invite)):
                raise InvalidTokenError("invalid invite code for this game")
            token = new_token()
            h = hash_token(token)
            pname = name or "Player 2"
            changed = await self.store.write(op_claim_seat(g.id, 1, stored, h, pname, account_id))
            if not changed:
                raise SeatTakenError("this invite was already used: the seat is taken")
            g.row.token1 = h
            g.row.invite = None
            g.row.name1 = pname
            g.row.account1 = account_id
            g.row.updated_at = utcnow()  # a move clock starts now
            if g.row.status == "waiting":
                g.row.status = "active"
        await g.broadcast()
        return g, token

    async def rematch(
        self, game_id: str, token: str, account_id: int | None = None
    ) -> tuple[LiveGame, int, str]:
        """Create (or join) the rematch of a finished game; returns it, the seat and its token.
        The asker's seat: its ``token``, or the seat the signed-in ``account_id`` holds.

        The first player to ask creates it (and sits in seat 0); in a friend game the other
        player's request then takes seat 1. The rematch of a rated game against the
        computer is rated too.

        :raises NotFinishedError: if the game is not over.
        :raises SeatTakenError: if this player already created it (or both seats are taken).
        """
        g = await self.current(game_id)
        seat = await self.seat(g, token, account_id)
        if seat is None:
            raise InvalidTokenError("a seat token is needed for a rematch")
        if not g.is_over():
            raise NotFinishedError("the game is not over yet")
        async with g.rematch_lock:
            if g.row.rematch_id is not None:
                other = await self.get(g.row.rematch_id)
                if (
                    seat != g.row.rematch_by
                    and other.row.bot1 is None
                    and other.row.token1 is None
                    and other.row.invite
                ):
                    name = g.row.name1 if seat == 1 else g.row.name0
                    mine = g.row.account1 if seat == 1 else g.row.account0
                    _, tok = await self._join(other.id, name, account_id=mine)
                    return other, 1, tok
                raise SeatTakenError(f"the rematch was already created: game {other.id}")
            names = (g.row.name0, g.row.name1)
            # the asker sits in seat 0 of the rematch: the younger player keeps being younger
            old_younger = g.match.younger
            younger = None if old_younger is None else (0 if old_younger == seat else 1)
            req = schemas.CreateGame(
                opponent="computer" if g.row.bot1 else "friend",
                level=g.row.level or "medium",  # type: ignore[arg-type]
                variant=g.row.variant,  # type: ignore[arg-type]
                rounds=g.row.num_rounds,  # type: ignore[arg-type]
                name=names[seat],
                tie_break=g.match.tie_break,
                younger=younger,  # type: ignore[arg-type]
                achievements=g.match.achievements is not None,
                clock=clock_choice(g.row),  # type: ignore[arg-type]
                rated=bool(g.row.rated) and g.row.bot1 is not None,
            )
            new, tok, _ = await self.create(
                req,
                rematch_of=g.id,
                first_starter=None,
                account_id=g.row.account1 if seat == 1 else g.row.account0,
            )
            await self.store.write(op_update_game(g.id, rematch_id=new.id, rematch_by=seat))
            g.row.rematch_id = new.id
            g.row.rematch_by = seat
        await g.send_all(json.dumps({"type": "rematch", "id": new.id}))
        return new, 0, tok

    async def lookup(self, items: list[schemas.LookupItem]) -> list[schemas.GameSummary]:
        """Summaries of the games a browser remembers (unknown ids and bad tokens skipped)."""
        out = []
        for it in items[:200]:
            try:
                g = await self.get(it.id)
                seat = await self.seat(g, it.token)
            except GameError:
                continue
            out.append(g.summary(seat))
        return out

    async def close(self) -> None:
        """Cancel bot turns and analyses; stop listening to the other processes."""
        await self.presence.close()
        await self.peers.close()
        self.analyst.close()
        for g in list(self.games.values()):
            if g.bots.task is not None:
                g.bots.task.cancel()


def _call_hooks(hooks: list[Callable[[str], None]], arg: str, failed: str) -> None:
    """Call each of ``hooks`` with ``arg``; one that raises is logged (``failed``: the
    message, formatted with ``arg`` and the error) and the others still run: an alert or a
    stream must not undo the change it tells of."""
    for hook in hooks:
        try:
            hook(arg)
        except Exception as e:
            log.error(failed, arg, e)
