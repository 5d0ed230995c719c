"""The web app's data layer: one repository module per area (games, accounts, lobby,
ratings, comments, bots). Routers and services call these functions; no other module
writes SQL."""
