"""HTTP on the WebSocket port: the web client, table links, health, metrics and game records.

The request is read here, not by websockets (whose parser drops a request it cannot read
without an answer and logs a traceback): ``EdgeConnection`` reads it with websockets' own line
and header readers and answers what it refuses: 405 (with ``Allow``) for a method other than
GET and HEAD, 414 for a request line over 8 KiB, 431 for a header line over 8 KiB or more than
128 headers, 400 for a malformed request line or header; each refusal is one log line naming
its kind, never a traceback. Paths with a NUL or another control character, a malformed
``%`` escape or a ``.``/``..`` segment (raw or encoded) get 400. A WebSocket upgrade from an
origin the ``OriginPolicy`` refuses gets 403 (``server.edge``).

Static files come from the web client's folder (never from ``node_modules`` except the
whitelisted ``/vendor/<name>`` files listed in its ``vendor.json``); every path is resolved and
checked to stay inside its root, so encoded slashes and symlinks out of the folder end in 404.
``/healthz`` answers 200 while the process runs (liveness); ``/readyz`` 503 while the store
does not answer (readiness: the proxy sends nobody to such a process).
"""

from __future__ import annotations

import asyncio
import dataclasses
import http
import json
import mimetypes
import re
import time
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast
from urllib.parse import parse_qs, unquote, urlsplit

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import SecurityError
from websockets.http11 import Request, Response, parse_headers, parse_line
from websockets.protocol import Protocol

from server.edge import (
    AddressLimits,
    Network,
    OriginPolicy,
    client_address,
    request_scheme,
    trusted,
)
from server.errors import ServerError
from server.metrics import Metrics
from server.store.base import StoreError

log = structlog.get_logger("server.http")

WS_PATH = "/ws"
STATIC_SUFFIXES = frozenset(
    {
        ".html",
        ".js",
        ".mjs",
        ".css",
        ".json",
        ".svg",
        ".png",
        ".ico",
        ".txt",
        ".webmanifest",
        ".woff2",
    }
)
# The types the web client depends on, whatever the host's mime.types says: a module script and
# the service worker must be JavaScript, the web app manifest its own JSON type.
KNOWN_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".webmanifest": "application/manifest+json",
}
PLACEHOLDER = b"""<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Cuarenta</title>
<body><h1>Cuarenta</h1><p>The table server is running; the web client is not installed here.
Connect a client to <code>/ws</code>.</p></body></html>
"""

RecordLookup = Callable[[str, str], Awaitable[dict[str, object] | None]]
"""(table id, seat token or host key) -> the finished game's R15 record, or None."""

MoreRoutes = Callable[[str, str], Awaitable[Response | None]]
"""(path, query) -> an answer, or None for a path they do not serve (``server.club_routes``)."""


ALLOWED_METHODS = ("GET", "HEAD")
BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
TEXT = "text/plain; charset=utf-8"
READY_TIMEOUT_S = 2.0  # a store that takes longer to answer a ping is not ready
Ready = Callable[[], Awaitable[None]]
"""Raises ``StoreError`` while the server cannot serve tables (``/readyz``)."""


class HttpRefusal(ServerError):
    """A request refused before any route saw it: its status and the kind logged."""

    def __init__(self, status: http.HTTPStatus, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.kind = kind
        self.detail = detail

    def response(self) -> Response:
        response = _response(self.status, f"{self.detail}\n".encode(), TEXT)
        response.headers["Connection"] = "close"
        if self.status is http.HTTPStatus.METHOD_NOT_ALLOWED:
            response.headers["Allow"] = ", ".join(ALLOWED_METHODS)
        return response


def read_request(
    read_line: Callable[[int], Generator[None, None, bytes | bytearray]],
) -> Generator[None, None, tuple[str, Request]]:
    """Read one request (websockets' ``Request.parse``, with HEAD and answerable refusals)."""
    try:
        line = yield from parse_line(read_line)
    except SecurityError:
        raise HttpRefusal(
            http.HTTPStatus.REQUEST_URI_TOO_LONG, "uri_too_long", "request line too long"
        ) from None
    parts = bytes(line).split(b" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[1]:
        raise HttpRefusal(http.HTTPStatus.BAD_REQUEST, "bad_request_line", "bad request line")
    method, raw_path, version = (part.decode("ascii", "surrogateescape") for part in parts)
    if version != "HTTP/1.1":
        raise HttpRefusal(
            http.HTTPStatus.HTTP_VERSION_NOT_SUPPORTED, "bad_version", "HTTP/1.1 only"
        )
    if method not in ALLOWED_METHODS:
        raise HttpRefusal(
            http.HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed", f"{method[:16]}: GET only"
        )
    try:
        headers = yield from parse_headers(read_line)
    except SecurityError:
        raise HttpRefusal(
            http.HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            "request headers too large (8 KiB a line, 128 lines)",
        ) from None
    except ValueError:
        raise HttpRefusal(http.HTTPStatus.BAD_REQUEST, "bad_header", "malformed header") from None
    body = headers.get_all("Content-Length")
    if "Transfer-Encoding" in headers or any(value.strip() != "0" for value in body):
        raise HttpRefusal(http.HTTPStatus.BAD_REQUEST, "body", "a GET request has no body")
    return method, Request(raw_path, headers)


def edge_connection(
    metrics: Metrics, limits: AddressLimits | None = None, proxies: Sequence[Network] = ()
) -> type[ServerConnection]:
    """The server's connection class: requests read by ``read_request``, refusals answered and
    logged in one line, handshake failures logged in one line (never a traceback).

    With ``limits``, a socket counts against its address from the TCP accept until its upgrade
    ends (``AddressLimits.start_opening``; a trusted proxy's are not counted here): one past the
    cap is answered 429 and closed before websockets sees it."""

    class EdgeConnection(ServerConnection):
        method = "GET"
        opening: str | None = None  # the address this socket counts against until upgraded
        turned_away = False

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # websockets' parser waits for the first line; nothing was received yet
            self.protocol.parser = self._parse()
            next(self.protocol.parser)

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if peer else ""
            if limits is not None and address and not trusted(address, proxies):
                if not limits.start_opening(address):
                    self.turned_away = True
                    metrics.refused.labels(limit="opening_per_address").inc()
                    cast(asyncio.Transport, transport).write(limits.opening_refusal())
                    transport.close()  # never handed to websockets: no handshake, no handler
                    return
                self.opening = address
            super().connection_made(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            self._opened()
            if not self.turned_away:
                super().connection_lost(exc)

        def _opened(self) -> None:
            if self.opening is not None and limits is not None:
                limits.end_opening(self.opening)
                self.opening = None

        def _parse(self) -> Generator[None]:
            protocol = self.protocol
            try:
                self.method, request = yield from read_request(protocol.reader.read_line)
            except HttpRefusal as refusal:
                metrics.http_refused.labels(status=str(refusal.status.value)).inc()
                log.info(
                    "http request refused",
                    status=refusal.status.value,
                    kind=refusal.kind,
                    peer=_peer(self),
                )
                protocol.send_response(refusal.response())  # and the end of the stream
                protocol.parser = protocol.discard()
                next(protocol.parser)
                yield
                return  # pragma: no cover - the parser was replaced
            except EOFError:  # the client left before a whole request: nothing to answer
                protocol.send_eof()
                protocol.parser = protocol.discard()
                next(protocol.parser)
                yield
                return  # pragma: no cover
            protocol.events.append(request)
            yield from Protocol.parse(protocol)

        async def handshake(self, *args: Any, **kwargs: Any) -> None:
            try:
                await super().handshake(*args, **kwargs)
            except Exception as exc:  # logged here in one line; the socket is then dropped
                log.info(
                    "handshake failed",
                    kind=type(exc.__cause__ or exc).__name__,
                    error=str(exc)[:200],
                    peer=_peer(self),
                )
            finally:
                self._opened()  # upgraded (now an open connection) or refused: no longer opening

    return EdgeConnection


def _peer(connection: ServerConnection) -> str:
    address = connection.remote_address
    return str(address[0]) if address else "?"


def refused_path(raw: str) -> str | None:
    """Why a request path is malformed (400), or None: controls, NUL, bad escapes, dot segments."""
    if CONTROL.search(raw) or not raw.isascii() or not raw.startswith("/"):
        return "control or non-ASCII character in the path"
    if BAD_ESCAPE.search(raw):
        return "malformed percent-escape in the path"
    path = urlsplit(raw).path
    decoded = unquote(path)
    if CONTROL.search(decoded):
        return "encoded control character in the path"
    if any(segment in (".", "..") for segment in decoded.replace("\\", "/").split("/")):
        return "dot segment in the path"
    return None


class HttpRoutes:
    """The ``process_request`` hook: answer plain HTTP, let ``/ws`` upgrade."""

    def __init__(
        self,
        web_root: Path,
        metrics: Metrics,
        records: RecordLookup,
        more: Callable[[HttpRoutes], MoreRoutes] | None = None,
        origins: OriginPolicy | None = None,
        ready: Ready | None = None,
        limits: AddressLimits | None = None,
        proxies: Sequence[Network] = (),
    ) -> None:
        """``more`` makes the further routes (given these, for their pages and files);
        ``limits`` rate-limits the costly ones per client address."""
        self.web_root = web_root.resolve()
        self.metrics = metrics
        self.records = records
        self.vendor = _read_vendor(self.web_root)
        self.more: MoreRoutes | None = more(self) if more is not None else None
        self.origins = origins or OriginPolicy()
        self.ready = ready
        self.limits = limits
        self.proxies = tuple(proxies)

    async def __call__(self, connection: ServerConnection, request: Request) -> Response | None:
        response = await self._route(connection, request)
        if response is not None and getattr(connection, "method", "GET") == "HEAD":
            response = dataclasses.replace(response, body=b"")  # Content-Length kept
        return response

    async def _route(self, connection: ServerConnection, request: Request) -> Response | None:
        problem = refused_path(request.path)
        if problem is not None:
            self.metrics.http_refused.labels(status="400").inc()
            log.info("http request refused", status=400, kind="bad_path", peer=_peer(connection))
            return _response(http.HTTPStatus.BAD_REQUEST, f"{problem}\n".encode(), TEXT)
        url = urlsplit(request.path)
        path = url.path
        if path == WS_PATH:
            return self._upgrade(connection, request)
        if path == "/healthz":
            return _response(http.HTTPStatus.OK, b"ok\n", TEXT)
        if path == "/readyz":
            return await self._readyz()
        if path == "/metrics":
            return _response(
                http.HTTPStatus.OK,
                self.metrics.render(),
                "text/plain; version=0.0.4; charset=utf-8",
            )
        if path.startswith("/record/"):
            return await self._record(path.removeprefix("/record/"), url.query)
        if path.startswith("/replayed") and not self._replay_allowed(connection, request):
            return self._replays_refused()
        if self.more is not None:
            answer = await self.more(path, url.query)
            if answer is not None:
                return answer
        if path == "/" or path.startswith("/t/"):
            return await self._index()
        if path == "/me":  # the person's own page: its data comes over the socket, never a URL
            return await self.page(self.web_root / "me.html")
        if path.startswith("/vendor/"):
            name = unquote(path.removeprefix("/vendor/"))
            target = self.vendor.get(name)
            return await self._file(target, self.web_root / "node_modules")
        return await self._file(self.web_root / unquote(path).lstrip("/"), self.web_root)

    def _upgrade(self, connection: ServerConnection, request: Request) -> Response | None:
        """None: the WebSocket handshake proceeds; 403 for a refused origin, 405 for HEAD."""
        if getattr(connection, "method", "GET") != "GET":
            response = _response(http.HTTPStatus.METHOD_NOT_ALLOWED, b"GET only\n", TEXT)
            response.headers["Allow"] = "GET"
            return response
        scheme = request_scheme(_peer(connection), request.headers, self.proxies)
        if not self.origins.allows(request.headers, scheme):
            self.metrics.refused.labels(limit="origin").inc()
            log.info("upgrade refused", kind="origin", peer=_peer(connection))
            return _response(
                http.HTTPStatus.FORBIDDEN,
                b"this origin may not open a socket here (see --allowed-origins)\n",
                TEXT,
            )
        return None

    def _replay_allowed(self, connection: ServerConnection, request: Request) -> bool:
        if self.limits is None:
            return True
        address = client_address(_peer(connection), request.headers, self.proxies)
        return self.limits.allow_replay(address, time.monotonic())

    def _replays_refused(self) -> Response:
        self.metrics.refused.labels(limit="replays_per_minute").inc()
        per_min = self.limits.replays_per_min if self.limits else 0
        text = f"at most {per_min:g} replays a minute from one address: wait a moment\n"
        return _response(http.HTTPStatus.TOO_MANY_REQUESTS, text.encode(), TEXT)

    async def _readyz(self) -> Response:
        try:
            if self.ready is not None:
                async with asyncio.timeout(READY_TIMEOUT_S):
                    await self.ready()
        except (StoreError, TimeoutError):
            return _response(
                http.HTTPStatus.SERVICE_UNAVAILABLE,
                b"storage unavailable\n",
                TEXT,
            )
        return _response(http.HTTPStatus.OK, b"ready\n", TEXT)

    async def _index(self) -> Response:
        index = self.web_root / "index.html"
        if index.is_file():
            return await self._file(index, self.web_root)
        return _response(http.HTTPStatus.OK, PLACEHOLDER, "text/html; charset=utf-8")

    async def page(self, target: Path) -> Response:
        """A file of the web client (a page other routes serve under their own path)."""
        return await self._file(target, self.web_root)

    async def _file(self, target: Path | None, root: Path) -> Response:
        resolved = _inside(target, root)
        if resolved is None or resolved.suffix not in STATIC_SUFFIXES:
            return _not_found()
        if self.web_root / "node_modules" in resolved.parents and root == self.web_root:
            return _not_found()  # node_modules only through the /vendor whitelist
        body = await asyncio.to_thread(resolved.read_bytes)
        kind = KNOWN_TYPES.get(resolved.suffix) or mimetypes.guess_type(resolved.name)[0]
        kind = kind or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith("json"):
            kind += "; charset=utf-8"
        return _response(http.HTTPStatus.OK, body, kind)

    async def _record(self, table_id: str, query: str) -> Response:
        keys = parse_qs(query).get("key", [])
        if not keys or not table_id:
            return _response(
                http.HTTPStatus.BAD_REQUEST,
                b"a record needs ?key=<seat token or host key>\n",
                TEXT,
            )
        record = await self.records(unquote(table_id), keys[0])
        if record is None:
            return _response(
                http.HTTPStatus.NOT_FOUND,
                b"no finished game for this table and key\n",
                TEXT,
            )
        body = json.dumps(record, indent=1).encode()
        response = _response(http.HTTPStatus.OK, body, "application/json")
        name = unquote(table_id).replace("/", "-")  # /record/<table>/<game>: no slash in a name
        response.headers["Content-Disposition"] = f'attachment; filename="cuarenta-{name}.json"'
        return response


def _inside(target: Path | None, root: Path) -> Path | None:
    """``target`` resolved, if it is an existing file under ``root``; else None."""
    if target is None:
        return None
    try:
        resolved = target.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not resolved.is_file() or root.resolve() not in resolved.parents:
        return None
    return resolved


def _read_vendor(web_root: Path) -> Mapping[str, Path]:
    """Whitelisted browser libraries: ``vendor.json`` maps a public name to a path in the client."""
    listing = web_root / "vendor.json"
    try:
        entries = json.loads(listing.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {
        str(name): web_root / str(relative)
        for name, relative in entries.items()
        if isinstance(relative, str) and "/" not in str(name)
    }


def _response(status: http.HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-cache"
    headers["X-Content-Type-Options"] = "nosniff"
    return Response(status.value, status.phrase, headers, body)


def _not_found() -> Response:
    return _response(http.HTTPStatus.NOT_FOUND, b"not found\n", TEXT)
