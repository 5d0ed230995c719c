"""Glicko-2 ratings of people and the built-in bots, per variant and speed.

The arithmetic is the ``glicko2`` package's (2.1.0, Glickman's Glicko-2 as written by
Ryan Kirkman and kept by Alexander Nordlund): :func:`rate_pair` only feeds it. Each rated
match is one rating period for both players (as lichess does): the result of the whole
match counts (a win 1, a draw 0.5, a loss 0; a forfeit or a time-out is a loss), each side
rated against the other's rating from before the match. One defect of the package is
known and left alone: its volatility step uses the rating where Glickman's step 5 uses
the deviation; the volatility it finds differs in the sixth decimal place and the rating
by under 0.001 points in the cases measured (docs/web.md, "Ratings").

A player who did not compete gets Glickman's step 6 for each idle rating period: the
deviation grows, phi* = sqrt(phi^2 + sigma^2) (:func:`idle`, the package's
``did_not_compete``), to at most the newcomer's 350. The rating period for idleness is one
UTC calendar day (:data:`RATING_PERIOD`): every whole day with no rated match of the player
since their last one counts once (:func:`idle_periods`: the days strictly between the day of
that match and today; today counts once it is over). It is applied, from the stored rating and
the time of its last update, whenever a rating is read (pairing, leaderboard, profile) and
when it is next updated; a read stores nothing, and an update stores the new rating with the
time of this match, so no period is ever counted twice.

A match is *rated* when it was set up so (both players signed in, or a signed-in player
against a built-in bot) and it ended; a match that ended before its second move (a
resignation or a time-out at once, or an abort: :mod:`lostcities.web.abandon`) is
*aborted* and changes nobody's rating. A player who left and whose opponent claimed the
win loses as by a forfeit; a draw claimed so counts as a draw.

Exactly once: :func:`op_rate_game` runs in one transaction that first inserts the game's
row in ``lc_rating_results`` (its primary key is the game id) and then reads (``FOR
UPDATE`` on PostgreSQL) and writes both ratings and their history rows. A second run, on
this process or another, finds the row (or fails on its key and rolls back), and a run that
dies midway leaves nothing; :func:`unsettled_sync` finds rated matches that ended without a
result row (the process died between the match's last move and its rating), and
:class:`Settler` settles them.

>>> a, b = rate_pair(Rating(1500.0, 200.0, 0.06), Rating(1400.0, 30.0, 0.06), 1.0)
>>> round(a.rating, 2), round(a.rd, 2), round(b.rating, 2)
(1563.56, 175.4, 1398.14)
"""

from __future__ import annotations

import asyncio
import collections
import datetime
import logging
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import glicko2
from sqlalchemy.orm import Session

from lostcities.web.models.base import utcnow
from lostcities.web.models.games import GameRow
from lostcities.web.models.ratings import RatingChangeRow, RatingRow
from lostcities.web.repositories import accounts as account_data
from lostcities.web.repositories import games as game_data
from lostcities.web.repositories import ratings as rating_data
from lostcities.web.store import GameStore

if TYPE_CHECKING:
    from lostcities.web.game_manager import GameManager
    from lostcities.web.live_game import LiveGame

__all__ = [
    "DEFAULT",
    "PROVISIONAL_RD",
    "RATING_PERIOD",
    "SPEEDS",
    "Rating",
    "Settler",
    "account_key",
    "bot_key",
    "idle",
    "idle_periods",
    "op_rate_game",
    "outcome",
    "player_keys",
    "rate_pair",
    "rating_now",
    "speed_of",
    "unsettled_sync",
]

log = logging.getLogger("lostcities.web")

SPEEDS = ("blitz", "rapid", "untimed", "correspondence")
"""The time controls rated apart: ``blitz`` (60 s per move, or 5 minutes + 5 s), ``rapid``
(180 s per move, or 10 minutes + 10 s), ``untimed`` (no clock) and ``correspondence``
(days per move)."""

PROVISIONAL_RD = 110.0
"""A rating whose deviation is above this is *provisional* (shown with a ``?``): too few
rated matches yet to say much."""


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating: the rating, its deviation and its volatility (the package's
    scale: 1500 and 350 for a newcomer)."""

    rating: float
    rd: float
    vol: float

    @property
    def provisional(self) -> bool:
        """Whether the deviation is above :data:`PROVISIONAL_RD`.

        >>> DEFAULT.provisional, Rating(1700.0, 60.0, 0.06).provisional
        (True, False)
        """
        return self.rd > PROVISIONAL_RD


DEFAULT = Rating(1500.0, 350.0, 0.06)
"""A player's rating before their first rated match (the package's defaults)."""


RATING_PERIOD = "one UTC calendar day"
"""The rating period a player's deviation grows by when they play no rated match in it
(module docs)."""


def idle_periods(last: datetime.datetime | None, now: datetime.datetime) -> int:
    """Whole rating periods (UTC days) without a rated match between a rating's last update
    at ``last`` and ``now`` (both naive UTC, as stored): the days strictly between the two
    dates. ``None`` (no time stored) counts none.

    >>> d = datetime.datetime
    >>> idle_periods(d(2026, 1, 1, 23, 59), d(2026, 1, 2, 23, 0))  # the next day: not over
    0
    >>> idle_periods(d(2026, 1, 1, 23, 59), d(2026, 1, 3, 0, 1)), idle_periods(None, d(2026, 1, 9))
    (1, 0)
    """
    if last is None:
        return 0
    return max(0, (now.date() - last.date()).days - 1)


def idle(r: Rating, periods: int) -> Rating:
    """``r`` after ``periods`` rating periods in which the player did not compete: the
    ``glicko2`` package's ``did_not_compete`` (Glickman's step 6, phi* = sqrt(phi^2 +
    sigma^2)) for each, capped at the newcomer's deviation (:data:`DEFAULT`); the rating and
    volatility stay. The ``n`` steps are one call with the volatility scaled by sqrt(n)
    (phi^2 + n sigma^2 = phi^2 + (sqrt(n) sigma)^2), so a long absence costs no loop.

    >>> r = idle(Rating(1700.0, 60.0, 0.06), 30)
    >>> r.rating, round(r.rd, 2), r.vol
    (1700.0, 82.82, 0.06)
    >>> idle(Rating(1700.0, 60.0, 0.06), 10**6).rd, idle(DEFAULT, 5) == DEFAULT
    (350.0, True)
    """
    if periods <= 0 or r.rd >= DEFAULT.rd:
        return r
    p = glicko2.Player(r.rating, r.rd, r.vol * math.sqrt(periods))
    p.did_not_compete()
    return Rating(r.rating, min(DEFAULT.rd, float(p.rd)), r.vol)


def rating_now(row: RatingRow, now: datetime.datetime) -> Rating:
    """A stored rating as of ``now``: :func:`idle` for the periods since its last update."""
    return idle(Rating(row.rating, row.rd, row.vol), idle_periods(row.updated_at, now))


def rate_pair(a: Rating, b: Rating, score_a: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one match in which ``a`` scored ``score_a`` (1, 0.5 or
    0) against ``b``: one Glicko-2 rating period each, as the ``glicko2`` package computes
    it, each against the other's rating from before the match.

    >>> a, b = rate_pair(DEFAULT, DEFAULT, 0.5)
    >>> a == b, round(a.rating, 6), round(a.rd, 2)
    (True, 1500.0, 290.32)
    """
    if score_a not in (0.0, 0.5, 1.0):
        raise ValueError(f"invalid score: {score_a!r} (expected 1, 0.5 or 0)")
    pa = glicko2.Player(a.rating, a.rd, a.vol)
    pb = glicko2.Player(b.rating, b.rd, b.vol)
    pa.update_player([b.rating], [b.rd], [score_a])
    pb.update_player([a.rating], [a.rd], [1.0 - score_a])
    return (
        Rating(float(pa.rating), float(pa.rd), float(pa.vol)),
        Rating(float(pb.rating), float(pb.rd), float(pb.vol)),
    )


def speed_of(clock: int | None, increment: int | None) -> str:
    """The rated time control (:data:`SPEEDS`) of a game's stored clock.

    >>> speed_of(None, None), speed_of(60, None), speed_of(600, 10), speed_of(3 * 86400, None)
    ('untimed', 'blitz', 'rapid', 'correspondence')
    """
    if clock is None:
        return "untimed"
    if increment is None and clock >= 86400:
        return "correspondence"
    return "blitz" if clock <= (60 if increment is None else 300) else "rapid"


def outcome(result: str) -> float | None:
    """Seat 0's score of a match result (``None`` while it goes on).

    >>> outcome("1-0"), outcome("1/2-1/2"), outcome("0-1"), outcome("*")
    (1.0, 0.5, 0.0, None)
    """
    return {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(result)


def bot_key(level: str) -> str:
    """The rating key of a built-in bot level.

    >>> bot_key("medium")
    'bot:medium'
    """
    return f"bot:{level}"


def account_key(account_id: int, is_bot: bool = False) -> str:
    """The rating key of an account: ``a:<id>`` for a person, ``b:<id>`` for a bot account
    (:mod:`lostcities.web.bot_api`): bot accounts are rated in a pool of their own, as
    lichess keeps bots apart (a person's rated game against one changes the person's
    rating in theirs).

    >>> account_key(7), account_key(7, True)
    ('a:7', 'b:7')
    """
    return f"{'b' if is_bot else 'a'}:{account_id}"


def player_keys(row: GameRow, bot_accounts: Collection[int] = ()) -> tuple[str | None, str | None]:
    """Each seat's rating key: ``a:<account id>`` for a signed-in player, ``b:<account
    id>`` for a bot account (its id in ``bot_accounts``), ``bot:<level>`` for the computer,
    ``None`` for a guest."""
    keys: list[str | None] = []
    for seat in (0, 1):
        account = row.account0 if seat == 0 else row.account1
        bot = row.bot0 if seat == 0 else row.bot1
        if bot is not None:
            keys.append(bot_key(row.level or bot))
        elif account is not None:
            keys.append(account_key(account, account in bot_accounts))
        else:
            keys.append(None)
    return keys[0], keys[1]


def _account_of(key: str) -> int | None:
    return int(key[2:]) if key.startswith(("a:", "b:")) else None


def op_rate_game(
    game_id: str,
    *,
    step: Callable[[str], None] | None = None,
    now: datetime.datetime | None = None,
) -> Callable[[Session], str]:
    """The write that settles a finished game's ratings, once (module docs); it returns
    what it did: ``rated``, ``aborted`` (ended before its second move), ``casual`` (not a
    rated game), ``unrated`` (a seat without a rating: a guest, a deleted account),
    ``pending`` (not over yet: nothing written) or ``done`` (settled before: nothing
    written).

    The match is rated as of the time it ended (its row's last update), or ``now`` where
    that is earlier (default: the time of the write): each player's deviation grows for the
    periods they were idle up to then (:func:`rating_now`), not up to a late settlement's
    time (the sweep after a restart), and the rating's new ``updated_at`` is that time, or
    the later update already stored (a newer match of the player settled first: its idle
    periods are counted, never twice).

    ``step`` is called with the name of each stage (tests make it raise, as a process
    dying mid-update would stop it)."""

    def at(stage: str) -> None:
        if step is not None:
            step(stage)

    def fn(s: Session) -> str:
        if rating_data.is_settled(s, game_id):
            return "done"
        g = game_data.get(s, game_id)
        if g is None or g.status != "finished":
            return "pending"
        score = outcome(g.result)
        if score is None and g.ending != "aborted":
            return "pending"
        settled_at = now or utcnow()
        at_time = min(settled_at, g.updated_at or settled_at)  # the match's end
        bots = account_data.bot_ids(s, [a for a in (g.account0, g.account1) if a is not None])
        keys = player_keys(g, bots)
        moves = game_data.move_count(s, g.id)
        if not g.rated:
            state = "casual"
        elif moves < 2 or score is None:  # (an abort: lostcities.web.abandon)
            state = "aborted"
        elif keys[0] is None or keys[1] is None or keys[0] == keys[1]:
            state = "unrated"
        else:
            state = "rated"
        # the marker first: a second run (another process) waits here, then fails on the key
        rating_data.mark_settled(s, g.id, state, settled_at)
        at("marked")
        if state != "rated" or score is None:
            return state
        k0, k1 = str(keys[0]), str(keys[1])
        speed = speed_of(g.clock, g.clock_increment)
        rows = rating_data.locked_ratings(s, [k0, k1], g.variant, speed)
        before = []
        for key, name in ((k0, g.name0), (k1, g.name1)):
            row = rows.get(key)
            if row is None:
                row = RatingRow(
                    player=key,
                    account_id=_account_of(key),
                    variant=g.variant,
                    speed=speed,
                    rating=DEFAULT.rating,
                    rd=DEFAULT.rd,
                    vol=DEFAULT.vol,
                    games=0,
                    wins=0,
                    draws=0,
                    losses=0,
                    updated_at=at_time,  # (not the column's default: the time of the flush)
                )
                rating_data.add_rating(s, row)
                rows[key] = row
            row.name = name[:40]
            before.append(rating_now(row, at_time))  # (a new row: the default, as it is)
        after = rate_pair(before[0], before[1], score)
        at("computed")
        for seat, key in enumerate((k0, k1)):
            row = rows[key]
            mine = score if seat == 0 else 1.0 - score
            row.rating, row.rd, row.vol = after[seat].rating, after[seat].rd, after[seat].vol
            row.games += 1
            row.wins += mine == 1.0
            row.draws += mine == 0.5
            row.losses += mine == 0.0
            row.updated_at = max(at_time, row.updated_at or at_time)  # (never back)
            rating_data.add_change(
                s,
                RatingChangeRow(
                    game_id=g.id,
                    seat=seat,
                    player=key,
                    account_id=_account_of(key),
                    opponent=(k1, k0)[seat],
                    variant=g.variant,
                    speed=speed,
                    score=mine,
                    rating_before=before[seat].rating,
                    rd_before=before[seat].rd,
                    rating_after=after[seat].rating,
                    rd_after=after[seat].rd,
                    vol_after=after[seat].vol,
                    created_at=at_time,
                ),
            )
            at(f"seat{seat}")
        return state

    return fn


def unsettled_sync(store: GameStore, limit: int = 100) -> list[str]:
    """Ids of finished rated games without a settled result (see the module docs)."""
    return rating_data.unsettled(store.engine, limit)


class Settler:
    """Settles the ratings of a server's rated matches: at once when one ends on this
    process (the game manager's ``match ended`` hook), and in :meth:`sweep` any that ended
    without (its process died first)."""

    def __init__(self, mgr: GameManager) -> None:
        self.mgr = mgr
        self.settled: collections.deque[tuple[str, str]] = collections.deque(maxlen=1000)
        """What this process's last settlements did (game id, outcome), for tests."""
        self.now: Callable[[], datetime.datetime] = utcnow
        """The settler's clock (naive UTC): the time a settlement rates at (tests set it)."""
        self.busy: set[str] = set()
        """Games this process is settling now (from the hook or a sweep)."""

    def on_match_end(self, g: LiveGame) -> None:
        """The hook: a rated match ended here (its result is committed)."""
        if g.row.rated:
            self.busy.add(g.id)  # before the task starts: a sweep meanwhile leaves it alone
            self.mgr.background(self.settle(g.id, claimed=True))

    async def settle(self, game_id: str, *, claimed: bool = False) -> str | None:
        """Settle one game (``None``: the write failed, or this process is settling it
        already; the sweep tries again). ``claimed``: the caller put it in :attr:`busy`."""
        if not claimed:
            if game_id in self.busy:
                return None
            self.busy.add(game_id)
        try:
            state: str = await self.mgr.store.write(op_rate_game(game_id, now=self.now()))
        except Exception as e:  # another process settled it meanwhile, or the database is away
            log.info("rating of game %s not settled here: %s", game_id, e)
            return None
        finally:
            self.busy.discard(game_id)
        self.settled.append((game_id, state))
        return state

    async def sweep(self) -> int:
        """Settle every rated match that ended unsettled; returns how many were settled.

        A game this process settled while the sweep's query ran is left alone: its result
        row is written (every outcome but ``pending`` writes one), and a second write would
        only find it (``done``)."""
        ids = await asyncio.to_thread(unsettled_sync, self.mgr.store)
        written = {gid for gid, state in self.settled if state != "pending"}
        n = 0
        for gid in ids:
            if gid not in written and await self.settle(gid) is not None:
                n += 1
        return n
