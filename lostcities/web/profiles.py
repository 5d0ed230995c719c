"""Players' pages: ratings with their history (an SVG plot), the record against each
opponent, the finished games with their rating changes; the leaderboard; "my games".

Everything is read from the database (any server process answers the same).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from lostcities.web import ratings
from lostcities.web.models.base import utcnow
from lostcities.web.models.ratings import RatingRow
from lostcities.web.repositories import games as game_data
from lostcities.web.repositories import ratings as rating_data
from lostcities.web.store import GameStore

__all__ = [
    "PLOT_WORDS",
    "POOLS",
    "Profile",
    "history_svg",
    "leaderboard_sync",
    "my_games_sync",
    "profile_sync",
]


def _rating_out(r: RatingRow, now: datetime.datetime) -> dict[str, Any]:
    # the deviation as of now: grown for each rating period the player was idle
    shown = ratings.rating_now(r, now)
    return {
        "variant": r.variant,
        "speed": r.speed,
        "rating": round(shown.rating),
        "rd": round(shown.rd),
        "provisional": shown.provisional,
        "games": r.games,
        "wins": r.wins,
        "draws": r.draws,
        "losses": r.losses,
    }


POOLS = ("people", "bots")
"""The leaderboard's pools: people (with the built-in computer levels they play), and bot
accounts (``b:<id>``, :func:`lostcities.web.ratings.account_key`), kept apart as lichess
keeps bots apart."""


def leaderboard_sync(
    store: GameStore,
    variant: str,
    speed: str,
    limit: int = 50,
    now: datetime.datetime | None = None,
    pool: str = "people",
) -> list[dict[str, Any]]:
    """The best ratings of a variant and speed in a pool (:data:`POOLS`: ``people``, the
    accounts of people and the built-in computer levels; ``bots``, the bot accounts), best
    first; provisional ones are marked (and listed too: a young site has few settled
    ratings). Deviations are as of ``now`` (default: the wall clock;
    :func:`lostcities.web.ratings.rating_now`). ``bot`` marks a computer level or a bot
    account, ``bot_account`` a bot account (a player with a profile)."""
    at = now or utcnow()
    rows = rating_data.leaderboard(store.engine, variant, speed, limit, bots=pool == "bots")
    out = []
    for rank, (r, username) in enumerate(rows, start=1):  # (a deleted account's rows are gone)
        out.append(
            {
                "rank": rank,
                "name": username or r.name,
                "bot": r.player.startswith(("bot:", "b:")),  # (b: a bot account)
                "bot_account": r.player.startswith("b:"),
                **_rating_out(r, at),
            }
        )
    return out


@dataclass
class Profile:
    """What ``/players/{username}`` shows."""

    username: str
    account_id: int
    ratings: list[dict[str, Any]]
    games: list[dict[str, Any]]
    opponents: list[dict[str, Any]]
    history: dict[str, list[tuple[str, float]]]
    """Per ``variant/speed``: (time, rating) oldest first: the starting rating (before the
    first rated game, at its time), then the rating after each rated game."""
    bot: bool = False
    """A bot account (its ratings are the bot pool's, ``b:<id>``)."""
    about: str = ""
    """A bot account's description: who runs it, which engine."""


def _key_name(key: str, names: dict[str, str]) -> str:
    return names.get(key, key.removeprefix("bot:") if key.startswith("bot:") else "?")


def profile_sync(
    store: GameStore,
    account_id: int,
    username: str,
    limit: int = 100,
    now: datetime.datetime | None = None,
) -> Profile:
    """A player's profile (``limit``: the newest finished games shown; deviations as of
    ``now``, default the wall clock): a bot account's ratings are the bot pool's
    (:func:`lostcities.web.ratings.account_key`), with its description."""
    at = now or utcnow()
    got = rating_data.profile_rows(store.engine, account_id, limit)
    is_bot, about = got.is_bot, got.about
    games, changes, names, bot_accounts = got.games, got.changes, got.names, got.bot_accounts
    out_games = []
    record: dict[str, dict[str, Any]] = {}
    for g in games:
        seat = 0 if g.account0 == account_id else 1
        other = 1 - seat
        other_account = g.account1 if seat == 0 else g.account0
        other_bot = g.bot1 if seat == 0 else g.bot0
        if other_bot is not None:
            opp_key, opp_name = ratings.bot_key(g.level or other_bot), (g.name1, g.name0)[seat]
        elif other_account is not None:
            opp_key = f"a:{other_account}"
            opp_name = names.get(opp_key, (g.name1, g.name0)[seat])
        else:
            opp_key, opp_name = f"guest:{(g.name1, g.name0)[seat]}", (g.name1, g.name0)[seat]
        score = ratings.outcome(g.result)
        mine = None if score is None else (score if seat == 0 else 1.0 - score)
        ch = changes.get((g.id, seat))
        out_games.append(
            {
                "id": g.id,
                "date": g.updated_at.isoformat() + "Z",
                "variant": g.variant,
                "rounds": g.num_rounds,
                "opponent": opp_name,
                "opponent_player": (
                    None if other_account is None or opp_key not in names else opp_name
                ),
                "opponent_bot": opp_key in bot_accounts,
                "result": {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(mine or 0.0, "")
                if mine is not None
                else "",
                "rated": bool(g.rated),
                "rating_change": (
                    None if ch is None else round(ch.rating_after - ch.rating_before, 1)
                ),
                "rating_after": None if ch is None else round(ch.rating_after),
                "seat": seat,
                "other": other,
            }
        )
        rec = record.setdefault(
            opp_key,
            {
                "opponent": opp_name,
                "bot": other_bot is not None,
                "bot_account": opp_key in bot_accounts,
                "player": None if opp_key not in names else opp_name,
                "wins": 0,
                "draws": 0,
                "losses": 0,
            },
        )
        if mine == 1.0:
            rec["wins"] += 1
        elif mine == 0.5:
            rec["draws"] += 1
        elif mine == 0.0:
            rec["losses"] += 1
    history: dict[str, list[tuple[str, float]]] = {}
    for c in got.history:
        at_time = c.created_at.isoformat() + "Z"
        points = history.setdefault(f"{c.variant}/{c.speed}", [])
        if not points:  # the plot starts where the player started, not at the first result
            points.append((at_time, c.rating_before))
        points.append((at_time, c.rating_after))
    return Profile(
        username=username,
        account_id=account_id,
        ratings=[_rating_out(r, at) for r in got.ratings],
        games=out_games,
        opponents=sorted(record.values(), key=lambda r: -(r["wins"] + r["draws"] + r["losses"])),
        history=history,
        bot=is_bot,
        about=about,
    )


PLOT_WORDS = {
    "axis": "rated games",
    "start": "start",
    "desc": "rated games: {n}; from {first} to {last}; lowest {lo}, highest {hi}",
}
"""The words of :func:`history_svg` (English; the player page passes its language's)."""


def history_svg(
    points: list[tuple[str, float]],
    title: str,
    width: int = 480,
    words: Mapping[str, str] | None = None,
) -> str:
    """A rating history as an SVG line plot: the starting rating, then the rating after each
    rated game, oldest left; a dashed line marks the starting rating, the left axis names
    the range and the bottom one says what runs along it (``words``: :data:`PLOT_WORDS`'s
    keys, ``desc`` with ``{n} {first} {last} {lo} {hi}``). Its ``<title>`` and ``<desc>`` say
    it in words for screen readers.

    >>> points = [("2026-01-01T00:00:00Z", 1500.0), ("2026-01-02T00:00:00Z", 1562.6)]
    >>> svg = history_svg(points, "classic")
    >>> svg.startswith("<svg") and "rated games: 1; from 1500 to 1563" in svg and "start 1500" in svg
    True
    """
    w = {**PLOT_WORDS, **(words or {})}
    height, pad, left = 170, 24, 44
    values = [v for _, v in points] or [ratings.DEFAULT.rating]
    lo, hi = min(values), max(values)
    if hi - lo < 50:
        mid = (hi + lo) / 2
        lo, hi = mid - 25, mid + 25
    n = len(values)
    bottom = height - pad - 12

    def xy(i: int, v: float) -> tuple[float, float]:
        x = left + (width - left - pad) * (i / (n - 1) if n > 1 else 0.5)
        y = bottom - (bottom - pad) * (v - lo) / (hi - lo)
        return round(x, 1), round(y, 1)

    coords = " ".join(f"{x},{y}" for x, y in (xy(i, v) for i, v in enumerate(values)))
    first, last = values[0], values[-1]
    desc = w["desc"]
    for k, v in {
        "n": n - 1,
        "first": round(first),
        "last": round(last),
        "lo": round(min(values)),
        "hi": round(max(values)),
    }.items():
        desc = desc.replace("{" + k + "}", str(v))
    dots = "".join(
        f'<circle cx="{x}" cy="{y}" r="2.5"/>' for x, y in (xy(i, v) for i, v in enumerate(values))
    )
    x0, y0 = xy(0, first)
    text = 'font-size="11" fill="currentColor"'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-labelledby="t d" class="rating-plot">'
        f'<title id="t">{escape(title)}</title><desc id="d">{escape(desc)}</desc>'
        f'<line x1="{left}" y1="{bottom}" x2="{width - pad}" y2="{bottom}" '
        f'stroke="currentColor" stroke-opacity=".3"/>'
        f'<line x1="{left}" y1="{pad}" x2="{left}" y2="{bottom}" '
        f'stroke="currentColor" stroke-opacity=".3"/>'
        f'<line x1="{left}" y1="{y0}" x2="{width - pad}" y2="{y0}" stroke="currentColor" '
        f'stroke-opacity=".35" stroke-dasharray="4 4"/>'
        f'<text x="{left - 4}" y="{pad + 4}" text-anchor="end" {text}>{round(hi)}</text>'
        f'<text x="{left - 4}" y="{bottom}" text-anchor="end" {text}>{round(lo)}</text>'
        f'<text x="{x0 + 4}" y="{y0 - 5}" {text} class="plot-start">'
        f"{escape(w['start'])} {round(first)}</text>"
        f'<text x="{(left + width - pad) / 2}" y="{height - 6}" text-anchor="middle" {text} '
        f'class="plot-axis">{escape(w["axis"])} →</text>'
        f'<polyline fill="none" stroke="currentColor" stroke-width="2" points="{coords}"/>'
        f'<g fill="currentColor">{dots}</g>'
        f'<text x="{width - pad}" y="14" font-size="12" text-anchor="end" '
        f'fill="currentColor">{round(last)}</text></svg>'
    )


def my_games_sync(store: GameStore, account_id: int, limit: int = 100) -> list[str]:
    """Ids of a player's games, unfinished first, newest first."""
    rows = sorted(
        game_data.my_games(store.engine, account_id, limit), key=lambda r: r[1] == "finished"
    )
    return [str(r[0]) for r in rows]
