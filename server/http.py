"""HTTP on the WebSocket port: the web client, table links, health, metrics and game records.

A request reaches these routes read and checked by ``server.http_edge`` (malformed requests,
methods other than GET and HEAD, oversized lines and headers are answered there). Paths with a
NUL or another control character, a malformed ``%`` escape or a ``.``/``..`` segment (raw or
encoded) get 400. A WebSocket upgrade from an origin the ``OriginPolicy`` refuses gets 403
(``server.edge``).

Static files come from the web client's folder (never from ``node_modules`` except the
whitelisted ``/vendor/<name>`` files listed in its ``vendor.json``); every path is resolved and
checked to stay inside its root, so encoded slashes and symlinks out of the folder end in 404.
``/healthz`` answers 200 while the process runs (liveness); ``/readyz`` 503 while the store
does not answer, or its disk is full, or Redis refuses writes (readiness: the proxy sends nobody to
such a process). Its text's first line is ``ready`` or why not; ``key: value`` lines follow from
``server.disk`` (``disk: low``, ``disk_free_bytes: N``, ``store: not writing (...)``), which the
host's page reads to warn the host.
"""

from __future__ import annotations

import asyncio
import dataclasses
import http
import json
import mimetypes
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from server.disk import DiskReport
from server.edge import (
    AddressLimits,
    Network,
    OriginPolicy,
    client_address,
    request_scheme,
)
from server.http_edge import (
    TEXT,
    _peer,
    _response,
    refused_path,
)
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
        ".wasm",  # Pyodide, for the engine in the pocket (issue 42)
        ".zip",  # Pyodide's standard library and the engine zip (clients/pocket.py)
    }
)
# The types the web client depends on, whatever the host's mime.types says: a module script and
# the service worker must be JavaScript, the web app manifest its own JSON type.
KNOWN_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".webmanifest": "application/manifest+json",
    ".wasm": "application/wasm",  # compiled as it streams in only with this type
    ".zip": "application/zip",
}
PLACEHOLDER = b"""<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Cuarenta</title>
<body><h1>Cuarenta</h1><p>The table server is running; the web client is not installed here.
Connect a client to <code>/ws</code>.</p></body></html>
"""

RecordLookup = Callable[[str, str], Awaitable[dict[str, object] | None]]
"""(table id, seat token or host key) -> the finished game's R15 record, or None."""

MoreRoutes = Callable[[str, str], Awaitable[Response | None]]
"""(path, query) -> an answer, or None for a path they do not serve (``server.clubs.routes``)."""


READY_TIMEOUT_S = 2.0  # a store that takes longer to answer a ping is not ready
Ready = Callable[[], Awaitable[None]]
"""Raises ``StoreError`` while the server cannot serve tables (``/readyz``)."""
Disk = Callable[[], Awaitable[DiskReport]]
"""The data's disk and the store's writes (``server.disk.DiskWatch.report``)."""


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
        disk: Disk | None = None,
    ) -> None:
        """``more`` makes the further routes (given these, for their pages and files);
        ``limits`` rate-limits the costly ones per client address; ``disk`` tells ``/readyz``
        how full the data's disk is."""
        self.web_root = web_root.resolve()
        self.metrics = metrics
        self.records = records
        self.vendor = _read_vendor(self.web_root)
        self.more: MoreRoutes | None = more(self) if more is not None else None
        self.origins = origins or OriginPolicy()
        self.ready = ready
        self.limits = limits
        self.proxies = tuple(proxies)
        self.disk = disk

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
            async with asyncio.timeout(READY_TIMEOUT_S):
                report = DiskReport() if self.disk is None else await self.disk()
                if self.ready is not None and report.writing:  # (a Redis refusing writes
                    await self.ready()  # refuses PING too: the report says why)
        except (StoreError, TimeoutError):
            return _response(
                http.HTTPStatus.SERVICE_UNAVAILABLE,
                b"storage unavailable\n",
                TEXT,
            )
        first = "ready" if report.ready else "not ready: writes would fail"
        status = http.HTTPStatus.OK if report.ready else http.HTTPStatus.SERVICE_UNAVAILABLE
        return _response(status, "\n".join([first, *report.lines(), ""]).encode(), TEXT)

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


def _not_found() -> Response:
    return _response(http.HTTPStatus.NOT_FOUND, b"not found\n", TEXT)
