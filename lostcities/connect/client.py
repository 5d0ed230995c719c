"""An asyncio client of the bot API (docs/bot-api.md) over httpx: the two NDJSON streams
and the requests, each refusal an :class:`ApiError` with the server's ``code``, each
network failure a :class:`ConnectionLost`.

The token goes only into the ``Authorization`` header of each request: it is in no URL,
no message and no ``repr``.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from lostcities import __version__

__all__ = [
    "ApiError",
    "BotApiClient",
    "ConnectionLost",
    "ServerUrlError",
    "TokenFileError",
    "check_server_url",
    "read_token_file",
]

USER_AGENT = f"lostcities-connect/{__version__}"
"""What the client calls itself in ``User-Agent``."""

_TOKEN = re.compile(r"^[\x21-\x7e]{8,512}$")


class ServerUrlError(ValueError):
    """A server address that is not an ``http://`` or ``https://`` URL of a host."""


class TokenFileError(ValueError):
    """A token file that cannot be read or does not hold one token (the message names the
    file, never what is in it)."""


class ApiError(Exception):
    """The server refused a request: its HTTP ``status``, the ``code`` and ``detail`` of
    its JSON body (docs/bot-api.md, 'Errors and limits'), and ``retry_after`` seconds for a
    429."""

    def __init__(
        self, status: int, code: str, detail: str, retry_after: float | None = None
    ) -> None:
        super().__init__(f"{detail} ({status} {code})")
        self.status = status
        self.code = code
        self.detail = detail
        self.retry_after = retry_after

    @property
    def transient(self) -> bool:
        """Whether trying again later may work: a 5xx, a 429, a 408."""
        return self.status >= 500 or self.status in (408, 429)


class ConnectionLost(Exception):
    """The server could not be reached, or a connection broke or went silent."""


def check_server_url(url: str) -> str:
    """``url`` without a trailing slash, if it is an ``http(s)://host[:port][/path]`` URL.

    >>> check_server_url("http://127.0.0.1:8000/")
    'http://127.0.0.1:8000'
    >>> check_server_url("ftp://example.org")
    Traceback (most recent call last):
    ...
    lostcities.connect.client.ServerUrlError: invalid server URL: 'ftp://example.org' (expected http://HOST or https://HOST)

    :raises ServerUrlError: for anything else.
    """
    bad = ServerUrlError(
        f"invalid server URL: {url[:200]!r} (expected http://HOST or https://HOST)"
    )
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # ValueError for a port that is no number
    except ValueError:
        raise bad from None
    del port
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise bad
    if parts.query or parts.fragment or parts.username or parts.password:
        # not echoed whole: what follows the host may be a secret pasted by mistake
        shown = f"{parts.scheme}://{parts.hostname}"
        raise ServerUrlError(
            f"invalid server URL: {shown}... has a query, fragment or user name (the token"
            " goes in --token-file)"
        )
    return url.strip().rstrip("/")


def read_token_file(path: str) -> str:
    """The token in the file ``path``: its one line (surrounding white space dropped).

    :raises TokenFileError: if the file cannot be read, is empty, or holds more than one
        word or characters a token does not have.
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(4096)
    except FileNotFoundError:
        raise TokenFileError(f"token file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "not UTF-8 text"
        raise TokenFileError(f"cannot read the token file {path}: {reason}") from None
    token = text.strip()
    if not token:
        raise TokenFileError(f"the token file {path} is empty")
    if not _TOKEN.match(token):
        raise TokenFileError(
            f"the token file {path} does not hold one token (one line, no spaces, as the"
            " server showed it: lct_...)"
        )
    return token


def _error_from(response: httpx.Response, body: bytes) -> ApiError:
    code, detail = "http_error", response.reason_phrase or "refused"
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, Mapping):
        code = str(data.get("code") or code)
        raw = data.get("detail", detail)
        detail = raw if isinstance(raw, str) else json.dumps(raw)[:200]
    retry_after: float | None = None
    header = response.headers.get("retry-after")
    if header is not None:
        try:
            retry_after = max(0.0, float(header))
        except ValueError:
            retry_after = None
    return ApiError(response.status_code, code, detail, retry_after)


class BotApiClient:
    """The bot API of one server for one token (an async context manager).

    Args:
        url: the server's address (:func:`check_server_url`).
        token: the API token (sent as ``Authorization: Bearer``).
        request_timeout: seconds to connect, and to wait for an answer to a request.
        stream_timeout: seconds a stream may stay silent (the server sends a keep-alive
            every 7) before the connection is taken for lost.
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        request_timeout: float = 15.0,
        stream_timeout: float = 20.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = check_server_url(url)
        self.stream_timeout = stream_timeout
        self._http = httpx.AsyncClient(
            base_url=self.url,
            headers={"Authorization": f"Bearer {token}", "User-Agent": USER_AGENT},
            timeout=httpx.Timeout(request_timeout),
            # a stream per game plus the event stream: no cap below --max-games
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=32),
            transport=transport,
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"BotApiClient({self.url!r})"

    async def __aenter__(self) -> BotApiClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every connection."""
        await self._http.aclose()

    # -- streams ------------------------------------------------------------------------

    async def stream(
        self,
        path: str,
        params: Mapping[str, str] | None = None,
        on_open: Callable[[], None] | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """The JSON objects of the NDJSON stream at ``path``, keep-alives skipped; ends
        when the server ends the stream. ``on_open`` is called once the server has
        accepted the stream, before its first line.

        :raises ApiError: if the server refuses the stream.
        :raises ConnectionLost: if it cannot be opened, breaks, or is silent for longer
            than :attr:`stream_timeout`.
        """
        timeout = httpx.Timeout(self._http.timeout.connect, read=self.stream_timeout)
        try:
            async with self._http.stream(
                "GET",
                path,
                params=params,
                timeout=timeout,
                headers={"Accept": "application/x-ndjson"},
            ) as response:
                if response.status_code >= 400:
                    raise _error_from(response, await response.aread())
                if on_open is not None:
                    on_open()
                async for line in response.aiter_lines():
                    if not line.strip():
                        continue  # a keep-alive
                    try:
                        item = json.loads(line)
                    except ValueError:
                        raise ConnectionLost(f"{path}: a line that is not JSON") from None
                    if isinstance(item, dict):
                        yield item
        except httpx.TransportError as e:
            raise ConnectionLost(f"{path}: {_describe(e)}") from None

    def event_stream(self, since: int | None = None) -> AsyncIterator[dict[str, Any]]:
        """``GET /api/bot/stream/event`` (from after event ``since`` when given)."""
        params = None if since is None else {"since": str(since)}
        return self.stream("/api/bot/stream/event", params)

    def game_stream(self, game_id: str) -> AsyncIterator[dict[str, Any]]:
        """``GET /api/bot/game/stream/{game_id}``."""
        return self.stream(f"/api/bot/game/stream/{quote(game_id, safe='')}")

    # -- requests -----------------------------------------------------------------------

    async def request(
        self, method: str, path: str, body: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """One request; the JSON object answered.

        :raises ApiError: for a 4xx or 5xx answer.
        :raises ConnectionLost: if no answer came.
        """
        try:
            response = await self._http.request(method, path, json=body)
        except httpx.TransportError as e:
            raise ConnectionLost(f"{method} {path}: {_describe(e)}") from None
        if response.status_code >= 400:
            raise _error_from(response, response.content)
        try:
            data = response.json()
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {"value": data}

    async def move(
        self, game_id: str, move: str, round: int | None = None, ply: int | None = None
    ) -> dict[str, Any]:
        """``POST /api/bot/game/{id}/move``: refused as stale when the game has gone past
        ``round`` and ``ply``."""
        body: dict[str, Any] = {"move": move}
        if round is not None:
            body["round"] = round
        if ply is not None:
            body["ply"] = ply
        return await self.request("POST", f"/api/bot/game/{quote(game_id, safe='')}/move", body)

    async def resign(self, game_id: str) -> dict[str, Any]:
        """``POST /api/bot/game/{id}/resign``."""
        return await self.request("POST", f"/api/bot/game/{quote(game_id, safe='')}/resign")

    async def accept(self, challenge_id: str) -> dict[str, Any]:
        """``POST /api/bot/challenge/{id}/accept``: ``{"ok": true, "game_id"}``."""
        return await self.request(
            "POST", f"/api/bot/challenge/{quote(challenge_id, safe='')}/accept"
        )

    async def decline(self, challenge_id: str, reason: str) -> dict[str, Any]:
        """``POST /api/bot/challenge/{id}/decline`` with ``reason``."""
        return await self.request(
            "POST",
            f"/api/bot/challenge/{quote(challenge_id, safe='')}/decline",
            {"reason": reason},
        )

    async def challenge(
        self, username: str, variant: str, rounds: int, clock: str | None, rated: bool
    ) -> dict[str, Any]:
        """``POST /api/bot/challenge/{username}``: the challenge created."""
        body = {"variant": variant, "rounds": rounds, "clock": clock, "rated": rated}
        data = await self.request("POST", f"/api/bot/challenge/{quote(username, safe='')}", body)
        challenge = data.get("challenge", data)
        return challenge if isinstance(challenge, dict) else {}

    async def get_challenge(self, challenge_id: str) -> dict[str, Any]:
        """``GET /api/bot/challenge/{id}``: the challenge as it stands."""
        data = await self.request("GET", f"/api/bot/challenge/{quote(challenge_id, safe='')}")
        challenge = data.get("challenge", data)
        return challenge if isinstance(challenge, dict) else {}

    async def cancel(self, challenge_id: str) -> dict[str, Any]:
        """``POST /api/bot/challenge/{id}/cancel``."""
        return await self.request(
            "POST", f"/api/bot/challenge/{quote(challenge_id, safe='')}/cancel"
        )


def _describe(error: httpx.TransportError) -> str:
    """A network failure in a few words (httpx's message can be empty)."""
    text = str(error).strip()
    kind = type(error).__name__
    return f"{kind}: {text}" if text else kind
