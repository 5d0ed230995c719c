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
import gc
import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lostcities.web import schemas
from lostcities.web.accounts import CsrfGuard
from lostcities.web.bot_api import BotHub
from lostcities.web.deps import Settings
from lostcities.web.errors import (
    ERRORS,
    AccountNotFoundError,
    GameError,
    GameNotFoundError,
)
from lostcities.web.game_manager import GameManager, ManagerSettings
from lostcities.web.limits import ClientLimits
from lostcities.web.lobby import LobbyHub
from lostcities.web.peers import SWEEP_SECONDS, peers_for
from lostcities.web.routers import accounts as accounts_router
from lostcities.web.routers import bot_api as bot_api_router
from lostcities.web.routers import bots, calculator, comments, games, lobby, pages, tokens, ws
from lostcities.web.store import GameStore, normalize_db_url
from lostcities.web.turn_alerts import TurnHub
from lostcities.web.workers import (
    BackgroundWarmUp,
    BotRunner,
    prepare_search,
    search_first_start,
)

__all__ = [
    "CSP",
    "MAX_BODY",
    "SECURITY_HEADERS",
    "WS_TRANSPORT_MAX",
    "BodyLimit",
    "HeadAsGet",
    "SecurityHeaders",
    "cli_main",
    "create_app",
    "serve_app",
]

log = logging.getLogger("lostcities.web")

MAX_BODY = 64 * 1024
"""Larger HTTP request bodies are refused (413)."""

WS_TRANSPORT_MAX = 16 * 1024 * 1024
"""The largest WebSocket message the transport reads (``Settings.max_message_bytes``, the
app's limit, is far lower): anything between the two is answered ``too_large`` and the
socket stays open; over it the transport closes the socket with 1009, which the game page
shows as "message too large"."""


def _error(
    code: str, message: str, detail: dict[str, object] | None = None, status: int | None = None
) -> JSONResponse:
    """The JSON answer of the error ``code``: its status from :data:`ERRORS` (or ``status``),
    the ``detail`` that is not ``None`` added to the body."""
    body: dict[str, object] = {"error": code, "message": message}
    body.update({k: v for k, v in (detail or {}).items() if v is not None})
    return JSONResponse(body, status_code=ERRORS[code].status if status is None else status)


def _answer(exc: GameError) -> JSONResponse:
    """The JSON answer of a refusal (its body and headers: :meth:`GameError.body`)."""
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers() or None)


BOT_API_PATHS = ("/api/bot/", "/api/account/tokens")
"""The bot API's paths (docs/bot-api.md): their refusals also carry ``code`` and
``detail``, in the bot API's words (:data:`BOT_API_CODES`)."""

BOT_API_CODES = {"stale": "stale_move", "invalid_request": "bad_request", "invalid": "bad_request"}
"""The bot API's name of a refusal code that the rest of the API names otherwise."""


def _bot_paths(request: Request, response: JSONResponse) -> JSONResponse:
    """``response`` (an :func:`_error` or :func:`_answer`), with the bot API's ``code`` and
    ``detail`` on its paths."""
    if not request.url.path.startswith(BOT_API_PATHS):
        return response
    body = json.loads(bytes(response.body))
    body["code"] = BOT_API_CODES.get(body["error"], body["error"])
    body["detail"] = body["message"]
    out = JSONResponse(body, status_code=response.status_code)
    for k, v in response.headers.items():
        if k.lower() not in ("content-length", "content-type"):
            out.headers[k] = v
    return out


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The pages' Content-Security-Policy: scripts only from this server's files (no inline
script, no ``eval``), never framed. Inline *styles* are allowed (the templates' ``style``
attributes; a style cannot run code)."""

SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
"""Sent with every HTTP response (pages, API, static files, errors)."""


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                have = {k.lower() for k, _ in msg.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in have]
                msg = {**msg, "headers": [*msg.get("headers", []), *extra]}
            await send(msg)

        await self.app(scope, receive, with_headers)


class HeadAsGet:
    """ASGI middleware: ``HEAD`` on a page (any path outside ``/api/``) is answered as its
    ``GET`` without the body, headers included (uptime checks, link previews and caches
    send HEAD; FastAPI's GET routes alone answer it 405). The API's GETs are left out: one
    of them starts work (an analysis), which a HEAD must not."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "HEAD"
            or scope["path"].startswith("/api/")
        ):
            await self.app(scope, receive, send)
            return

        async def headers_only(msg: Message) -> None:
            if msg["type"] == "http.response.body":
                msg = {**msg, "body": b""}
            await send(msg)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class _BodyTooLarge(HTTPException):
    """Raised out of ``receive`` once a request body passes the limit (an HTTP exception,
    so that FastAPI's body reading passes it on instead of calling it a parse error)."""

    def __init__(self, message: str) -> None:
        super().__init__(413, message, headers={"Connection": "close"})


class BodyLimit:
    """ASGI middleware: an HTTP request body over ``limit`` bytes is answered 413
    (``too_large``) as soon as the bytes read pass the limit, whatever the framing (a
    ``Content-Length`` over it is refused before reading; a chunked body is cut off);
    the rest of the body is never read."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"request body too large (at most {self.limit} bytes)"
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    await _error("bad_request", "invalid Content-Length")(scope, receive, send)
                    return
                if too_big:
                    await _error("too_large", message)(scope, receive, send)
                    return
        read = 0
        started = False

        async def limited() -> Message:
            nonlocal read
            msg = await receive()
            if msg["type"] == "http.request":
                read += len(msg.get("body", b""))
                if read > self.limit:
                    raise _BodyTooLarge(message)
            return msg

        async def tracked(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, limited, tracked)
        except _BodyTooLarge:  # read outside a route (the routes' handler answers inside)
            if started:  # pragma: no cover - a route that answers before reading its body
                raise
            response = _error("too_large", message)
            response.headers["connection"] = "close"
            await response(scope, receive, send)


WARMING_UP = (
    "preparing the search engine in the background (first start only): "
    "the hard and expert levels say 'warming up' until it is ready"
)
"""What a server says at a first start (numba's cache is cold) as it starts answering."""


async def _warm_in_background(
    mgr: GameManager, warm: BackgroundWarmUp, say: Callable[[str], None]
) -> None:
    """A first start: compile the search off the server, then open the levels that run it."""
    seconds = 0.0
    try:
        seconds = await warm.run()
    finally:
        mgr.levels.search_ready()
    say(f"search engine ready in {seconds:.1f} s: every level plays")


def create_app(
    settings: Settings | None = None, *, say: Callable[[str], None] | None = None
) -> FastAPI:
    """Build the app. The database is opened (tables created) when the app starts. The
    search is loaded from numba's cache before the app answers (under a second); at a first
    start (a cold cache) the app answers at once and the compile runs in the background,
    the levels that need it *warming up* (:meth:`Levels.warming_up`) until it is done.
    ``say`` gets the lines a person starting the server should read (default: the log).

    :raises StorageError: for a database URL that cannot be used.
    """
    settings = settings or Settings()
    store = GameStore(settings.db_url)
    tell: Callable[[str], None] = say or log.info

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if settings.test_deal_seed is not None:
            log.warning(
                "LOSTCITIES_TEST_DEAL_SEED is set: every deal can be foreseen (for tests only)"
            )
        await asyncio.to_thread(store.create_tables)
        store.start()
        cold = settings.prepare_search and await asyncio.to_thread(search_first_start)
        if settings.prepare_search and not cold:
            await asyncio.to_thread(prepare_search)  # from numba's cache: under a second
        runner = BotRunner(
            settings.bot_executor,
            settings.bot_workers,
            [lv.spec for lv in settings.levels.values()],
            load_search=not cold,
        )
        mgr = GameManager(
            store,
            runner,
            ManagerSettings(
                bot_time_limit=settings.bot_time_limit,
                bot_min_delay=settings.bot_min_delay,
                unload_after=settings.unload_after,
                abandon_after=settings.abandon_after,
                deal_seed=settings.test_deal_seed,
            ),
            settings.levels,
            peers_for(settings.db_url),
        )
        app.state.manager = mgr
        app.state.lobby = LobbyHub(mgr)  # the lobby, ratings and correspondence clocks
        app.state.turns = TurnHub(mgr)  # "my games" turn alerts, pushed
        app.state.bots = BotHub(mgr, app.state.limits, keepalive=settings.bot_keepalive)
        warm: BackgroundWarmUp | None = None
        warming: asyncio.Task[None] | None = None
        if cold:  # answer at once; the levels that need the search wait for it
            mgr.levels.start_warming()
            warm = BackgroundWarmUp(runner)
            tell(WARMING_UP)
            warming = asyncio.create_task(_warm_in_background(mgr, warm, tell))
        await mgr.peers.start(mgr.on_change)  # moves made on the other processes
        mgr.presence.start()  # who is at which table (claims when a player left)
        await app.state.lobby.start()
        await app.state.bots.start()  # the bot API (docs/bot-api.md)
        if settings.bot_executor == "process" and not cold:
            await runner.warm_up()  # the workers load the search before the first game
        if settings.resume_on_start:
            n = await mgr.resume_all()
            if n:
                log.info("resumed %d unfinished games with a bot", n)

        async def sweep() -> None:
            waited = 0.0
            while True:
                step = SWEEP_SECONDS if mgr.peers.shared else 60.0
                await asyncio.sleep(step)
                waited += step
                if mgr.peers.shared:
                    mgr.sweep_bots()  # a bot whose process died is taken over
                if waited >= 60.0:
                    waited = 0.0
                    mgr.unload_idle()

        sweeper = asyncio.create_task(sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            await app.state.bots.close()
            await app.state.lobby.close()
            if warm is not None and warming is not None:
                warm.close()
                warming.cancel()
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
    app.state.limits = ClientLimits(settings.limits)

    app.add_middleware(HeadAsGet)
    app.add_middleware(CsrfGuard)  # state-changing requests with the session cookie
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(SecurityHeaders)  # outermost: on the body limit's answers too

    @app.exception_handler(GameError)
    async def game_error(request: Request, exc: GameError) -> Response:
        # a page of a game or a player that is not there: a page saying so, not JSON
        if isinstance(exc, GameNotFoundError) and pages.is_page(request):
            return pages.not_found_page(request, "game")
        if isinstance(exc, AccountNotFoundError) and pages.is_page(request):
            name = str(request.path_params.get("username", ""))[:40]
            return pages.not_found_page(request, "player", name)
        return _bot_paths(request, _answer(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _bot_paths(
            _request,
            _error(
                "invalid_request",
                schemas.validation_message(exc),
                schemas.validation_detail(exc),
            ),
        )

    @app.exception_handler(ValueError)
    async def value_error(_request: Request, exc: ValueError) -> JSONResponse:
        return _bot_paths(_request, _error("invalid", str(exc)))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and pages.is_page(request):
            return pages.not_found_page(request)
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            exc.status_code, "http_error"
        )
        response = _error(code, str(exc.detail).lower(), status=exc.status_code)
        if exc.headers:
            response.headers.update(exc.headers)
        return _bot_paths(request, response)

    for r in (
        games.router,
        bots.router,
        bot_api_router.router,
        tokens.router,
        calculator.router,
        comments.router,
        lobby.router,
        ws.router,
        accounts_router.router,
        pages.router,
    ):
        app.include_router(r)
    static = Path(__file__).resolve().parent / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")
    return app


SERVE_DB_ENV = "LOSTCITIES_SERVE_DB"
"""How ``lostcities serve --workers N`` hands the database URL to its worker processes."""


GC_THRESHOLDS = (7000, 10, 100)
"""The cyclic garbage collector's thresholds in a ``lostcities serve`` process (CPython's
defaults: 700, 10, 10); see :func:`tune_gc`."""


def tune_gc() -> None:
    """Keep the garbage collector's pauses out of the move latency of a serving process.

    A full collection walks every object the collector tracks, about 0.6 µs each: some 350 ms
    with 1,000 games open (590,000 objects, most of them the WebSocket connections' coroutines
    and buffers), and with CPython's default thresholds one came every 25 to 40 s and stalled
    every move in flight (docs/performance.md, the soak). So everything loaded at start-up is
    frozen (never walked again; :func:`gc.freeze`), the youngest generation is collected a tenth
    as often (more short-lived objects are freed by their reference count first, so fewer reach
    the oldest generation) and the oldest is considered a tenth as often. Cycles are still
    collected; garbage without cycles never waited for the collector. Called by
    ``lostcities serve`` (it changes the whole process, so :func:`create_app` leaves it alone).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve_app() -> FastAPI:
    """The app of one ``lostcities serve --workers N`` process (uvicorn's factory): the
    settings from the environment, the database URL from :data:`SERVE_DB_ENV`."""
    app = create_app(Settings.from_env(os.environ[SERVE_DB_ENV]), say=_print)
    tune_gc()
    return app


def _print(line: str) -> None:
    print(line, flush=True)


def cli_main(args: argparse.Namespace) -> int:
    """``lostcities serve``: run the app with uvicorn until interrupted.

    :raises ValueError: for a bad database URL or setting (the CLI prints it).
    """
    import uvicorn

    url = normalize_db_url(args.db)
    if not 0 < args.port < 65536:
        raise ValueError(f"invalid port: {args.port!r} (expected 1..65535)")
    workers = int(getattr(args, "workers", 1) or 1)
    if workers > 1 and not url.startswith("postgresql"):
        raise ValueError(
            f"--workers {workers} needs a PostgreSQL database (--db postgresql://...): "
            "SQLite has one writer, so one process serves it"
        )
    settings = Settings.from_env(url)
    app = create_app(settings, say=_print)
    # fail early (before "running on") if the database cannot be opened
    app.state.store.create_tables()
    # the search is loaded (or, at a first start, compiled in the background) as the app
    # starts: it answers at once, and no move waits on the JIT
    host = args.host
    shown = f"[{host}]" if ":" in host else host
    db = app.state.store.safe_url
    procs = f"; {workers} processes" if workers > 1 else ""
    print(
        f"Lost Cities: http://{shown}:{args.port}/  (database {db}{procs}; Ctrl+C stops)",
        flush=True,
    )
    target: object = app
    if workers > 1:  # each worker process builds its own app (its games, its listener)
        os.environ[SERVE_DB_ENV] = url
        target = "lostcities.web.app:serve_app"
    else:
        tune_gc()
    uvicorn.run(
        target,  # type: ignore[arg-type]
        factory=workers > 1,
        workers=workers if workers > 1 else None,
        host=host,
        port=args.port,
        log_level="warning",
        access_log=False,
        ws_max_size=WS_TRANSPORT_MAX,
        ws_per_message_deflate=False,  # states are small; compressing each costs more CPU than it saves
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=3,
    )
    return 0
