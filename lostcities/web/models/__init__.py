"""The web app's tables (SQLAlchemy 2 models), one module per area: games, accounts,
ratings, the lobby, comments, the bot API; their declarative base in :mod:`~lostcities.web.models.base`.
The migrations of :mod:`lostcities.web.migrations` make them. Importing any of them
imports them all, so that ``Base.metadata`` always holds every table."""

from lostcities.web.models import accounts, base, bots, comments, games, lobby, ratings

__all__ = ["accounts", "base", "bots", "comments", "games", "lobby", "ratings"]
