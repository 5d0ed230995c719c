"""The web app: ``lostcities serve`` (FastAPI + uvicorn, WebSockets, SQLAlchemy 2).

See ``docs/web.md`` for the architecture, the HTTP API and the WebSocket messages.
"""
