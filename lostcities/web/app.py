"""The FastAPI app: ``create_app(settings)`` and ``lostcities serve``.

>>> from lostcities.web.deps import Settings
>>> app = create_app(Settings(db_url="sqlite://"))
>>> app.title
'Lost Cities'
>>> app.state.settings.bot_executor
'process'
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from lostcities.web import schemas
from lostcities.web.deps import Settings
from lostcities.web.games import (
    BotRunner,
    GameError,
    GameManager,
    ManagerSettings,
    prepare_search,
)
from lostcities.web.routers import bots, calculator, games, pages, ws
from lostcities.web.store import GameStore, normalize_db_url

__all__ = ["cli_main", "create_app"]

log = logging.getLogger("lostcities.web")

MAX_BODY = 64 * 1024
"""Larger HTTP request bodies are refused (413)."""


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. The database is opened (tables created) when the app starts.

    :raises StorageError: for a database URL that cannot be used.
    """
    settings = settings or Settings()
    store = GameStore(settings.db_url)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(store.create_tables)
        store.start()
        if settings.prepare_search:  # a no-op by now under `lostcities serve`
            await asyncio.to_thread(prepare_search)
        runner = BotRunner(
            settings.bot_executor,
            settings.bot_workers,
            [lv.spec for lv in settings.levels.values()],
        )
        mgr = GameManager(
            store,
            runner,
            ManagerSettings(
                bot_time_limit=settings.bot_time_limit,
                bot_min_delay=settings.bot_min_delay,
                unload_after=settings.unload_after,
            ),
            settings.levels,
        )
        app.state.manager = mgr
        if settings.bot_executor == "process":
            await runner.warm_up()  # the workers load the search before the first game
        if settings.resume_on_start:
            n = await mgr.resume_all()
            if n:
                log.info("resumed %d unfinished games with a bot", n)

        async def sweep() -> None:
            while True:
                await asyncio.sleep(60)
                mgr.unload_idle()

        sweeper = asyncio.create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            await mgr.close()
            runner.close()
            await asyncio.to_thread(store.close)

    app = FastAPI(
        title="Lost Cities",
        summary="Play Lost Cities in the browser: against the computer or a friend.",
        version=__import__("lostcities").__version__,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.store = store

    @app.middleware("http")
    async def limit_body(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        length = request.headers.get("content-length")
        if length is not None:
            try:
                too_big = int(length) > MAX_BODY
            except ValueError:
                return _error(400, "bad_request", "invalid Content-Length")
            if too_big:
                return _error(413, "too_large", f"request body too large (at most {MAX_BODY} bytes)")
        return await call_next(request)

    @app.exception_handler(GameError)
    async def game_error(_request: Request, exc: GameError) -> JSONResponse:
        return _error(exc.status, exc.code, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, "invalid_request", schemas.validation_message(exc))

    @app.exception_handler(ValueError)
    async def value_error(_request: Request, exc: ValueError) -> JSONResponse:
        return _error(400, "invalid", str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail).lower())

    for r in (games.router, bots.router, calculator.router, ws.router, pages.router):
        app.include_router(r)
    static = Path(__file__).resolve().parent / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return app


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities serve``: run the app with uvicorn until interrupted.

    :raises ValueError: for a bad database URL or setting (the CLI prints it).
    """
    import uvicorn

    url = normalize_db_url(args.db)
    if not 0 < args.port < 65536:
        raise ValueError(f"invalid port: {args.port!r} (expected 1..65535)")
    settings = Settings.from_env(url)
    app = create_app(settings)
    # fail early (before "running on") if the database cannot be opened
    app.state.store.create_tables()
    # compile the search (or load it from numba's cache) before any connection: no first
    # move waits on the JIT
    prepare_search(lambda line: print(line, flush=True))
    host = args.host
    shown = f"[{host}]" if ":" in host else host
    db = app.state.store.safe_url
    print(f"Lost Cities: http://{shown}:{args.port}/  (database {db}; Ctrl+C stops)", flush=True)
    uvicorn.run(
        app,
        host=host,
        port=args.port,
        log_level="warning",
        access_log=False,
        ws_max_size=1024 * 1024,
        ws_per_message_deflate=False,  # states are small; compressing each costs more CPU than it saves
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=3,
    )
    return 0
