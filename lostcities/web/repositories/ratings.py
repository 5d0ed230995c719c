"""The ratings' queries and writes (:mod:`lostcities.web.models.ratings`): the parts of a
game's settlement (:func:`lostcities.web.ratings.op_rate_game` runs them in its
transaction), the games left to settle, the leaderboard and a player's profile."""

from __future__ import annotations

import datetime

from sqlalchemy import or_, select
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
    engine: Engine, variant: str, speed: str, limit: int
) -> list[tuple[RatingRow, str | None]]:
    """The best ratings of a variant and speed, best first, each with its account's
    username (``None``: a bot's or a guest's rating)."""
    with Session(engine) as conn:
        rows = conn.execute(
            select(RatingRow, AccountRow.username)
            .outerjoin(AccountRow, AccountRow.id == RatingRow.account_id)
            .where(RatingRow.variant == variant, RatingRow.speed == speed)
            .order_by(RatingRow.rating.desc())
            .limit(limit)
        ).all()
    return [(r, username) for r, username in rows]


def profile_rows(
    engine: Engine, account_id: int, limit: int
) -> tuple[
    list[RatingRow],
    list[GameRow],
    dict[tuple[str, int], RatingChangeRow],
    list[RatingChangeRow],
    dict[str, str],
]:
    """What a player's profile shows, as stored: the account's ratings (most games
    first), its newest ``limit`` finished games, their rating changes by ``(game,
    seat)``, the account's rating changes oldest first, and the usernames of those games'
    opponents with accounts (by rating key ``a:ID``)."""
    key = f"a:{account_id}"
    with Session(engine) as conn:
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
        names = {
            f"a:{i}": str(n)
            for i, n in conn.execute(
                select(AccountRow.id, AccountRow.username).where(AccountRow.id.in_(other_ids))
            ).all()
        }
    return (
        [r for (r,) in rows],
        [g for (g,) in games],
        changes,
        [c for (c,) in history_rows],
        names,
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
