"""The ratings' queries and writes (:mod:`lostcities.web.models.ratings`): the parts of a
game's settlement (:func:`lostcities.web.ratings.op_rate_game` runs them in its
transaction), the games left to settle, the leaderboard and a player's profile."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from sqlalchemy import not_, or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from lostcities.web.models.accounts import AccountRow
from lostcities.web.models.games import GameRow
from lostcities.web.models.ratings import RatingChangeRow, RatingResultRow, RatingRow

__all__ = [
    "add_change",
    "add_rating",
    "is_settled",
    "leaderboard",
    "locked_ratings",
    "mark_settled",
    "ProfileRows",
    "profile_rows",
    "rating",
    "unsettled",
]


# -- reads -------------------------------------------------------------------------------------


def unsettled(engine: Engine, limit: int = 100) -> list[str]:
    """Ids of finished rated games without a settled result."""
    with engine.connect() as conn:
        q = (
            select(GameRow.id)
            .outerjoin(RatingResultRow, RatingResultRow.game_id == GameRow.id)
            .where(
                GameRow.status == "finished",
                GameRow.rated.is_(True),
                RatingResultRow.game_id.is_(None),
            )
            .limit(limit)
        )
        return [str(x) for x in conn.scalars(q).all()]


def leaderboard(
    engine: Engine, variant: str, speed: str, limit: int, *, bots: bool = False
) -> list[tuple[RatingRow, str | None]]:
    """The best ratings of a variant and speed in a pool, best first, each with its
    account's username (``None``: a computer level's or a guest's rating): ``bots`` the
    bot accounts' pool (keys ``b:<id>``), else everyone else's."""
    in_pool = RatingRow.player.startswith("b:") if bots else not_(RatingRow.player.startswith("b:"))
    with Session(engine) as conn:
        rows = conn.execute(
            select(RatingRow, AccountRow.username)
            .outerjoin(AccountRow, AccountRow.id == RatingRow.account_id)
            .where(RatingRow.variant == variant, RatingRow.speed == speed, in_pool)
            .order_by(RatingRow.rating.desc())
            .limit(limit)
        ).all()
    return [(r, username) for r, username in rows]


@dataclass
class ProfileRows:
    """What a player's profile shows, as stored (:func:`profile_rows`)."""

    is_bot: bool
    about: str
    """A bot account's description (else empty)."""
    ratings: list[RatingRow]
    """The account's ratings (the bot pool's for a bot account), most games first."""
    games: list[GameRow]
    """Its newest finished games."""
    changes: dict[tuple[str, int], RatingChangeRow]
    """Those games' rating changes by ``(game, seat)``."""
    history: list[RatingChangeRow]
    """The account's rating changes, oldest first."""
    names: dict[str, str]
    """The usernames of those games' opponents with accounts, by ``a:ID``."""
    bot_accounts: set[str]
    """Which of them (``a:ID``) are bot accounts."""


def profile_rows(engine: Engine, account_id: int, limit: int) -> ProfileRows:
    """The stored parts of a player's profile (``limit``: the newest finished games); a bot
    account's ratings are its bot-pool key's, ``b:<id>``."""
    with Session(engine) as conn:
        me = conn.get(AccountRow, account_id)
        is_bot = bool(me is not None and me.is_bot)
        about = (me.bot_about or "") if me is not None and is_bot else ""
        key = f"b:{account_id}" if is_bot else f"a:{account_id}"
        rows = conn.execute(
            select(RatingRow).where(RatingRow.player == key).order_by(RatingRow.games.desc())
        ).all()
        games = conn.execute(
            select(GameRow)
            .where(
                or_(GameRow.account0 == account_id, GameRow.account1 == account_id),
                GameRow.status == "finished",
            )
            .order_by(GameRow.updated_at.desc())
            .limit(limit)
        ).all()
        ids = [g[0].id for g in games]
        changes = {
            (c.game_id, c.seat): c
            for (c,) in conn.execute(
                select(RatingChangeRow).where(RatingChangeRow.game_id.in_(ids))
            ).all()
        }
        history_rows = conn.execute(
            select(RatingChangeRow)
            .where(RatingChangeRow.player == key)
            .order_by(RatingChangeRow.created_at)
        ).all()
        other_ids = {
            (g[0].account1 if g[0].account0 == account_id else g[0].account0) for g in games
        }
        other_ids.discard(None)
        others = conn.execute(
            select(AccountRow.id, AccountRow.username, AccountRow.is_bot).where(
                AccountRow.id.in_(other_ids)
            )
        ).all()
        conn.expunge_all()
    return ProfileRows(
        is_bot=is_bot,
        about=about,
        ratings=[r for (r,) in rows],
        games=[g for (g,) in games],
        changes=changes,
        history=[c for (c,) in history_rows],
        names={f"a:{i}": str(n) for i, n, _ in others},
        bot_accounts={f"a:{i}" for i, _, b in others if b},
    )


# -- parts of the settlement (inside its transaction) -----------------------------------------


def is_settled(s: Session, game_id: str) -> bool:
    """Whether the game's ratings were settled (its marker is stored)."""
    return s.get(RatingResultRow, game_id) is not None


def mark_settled(s: Session, game_id: str, state: str, at: datetime.datetime) -> None:
    """Store the game's settlement marker now (a second settlement, on another process,
    waits for this one's commit, then fails on the key)."""
    s.add(RatingResultRow(game_id=game_id, state=state, created_at=at))
    s.flush()


def rating(s: Session, player: str, variant: str, speed: str) -> RatingRow | None:
    """The stored rating of ``player`` in a variant and speed, or ``None``."""
    return s.get(RatingRow, (player, variant, speed))


def locked_ratings(
    s: Session, players: list[str], variant: str, speed: str
) -> dict[str, RatingRow]:
    """The stored ratings of ``players`` in a variant and speed, by player key, locked
    for the rest of the transaction."""
    return {
        r.player: r
        for r in s.scalars(
            select(RatingRow)
            .where(
                RatingRow.player.in_(players),
                RatingRow.variant == variant,
                RatingRow.speed == speed,
            )
            .with_for_update()
        ).all()
    }


def add_rating(s: Session, row: RatingRow) -> None:
    """Store a player's first rating of a variant and speed (at the commit)."""
    s.add(row)


def add_change(s: Session, row: RatingChangeRow) -> None:
    """Store one seat's rating change of a settled game (flushed at once)."""
    s.add(row)
    s.flush()
