"""HTTP on the WebSocket port: the web client, table links, health, metrics and game records.

websockets only speaks GET, which is all we serve. Static files come from the web client's folder
(never from ``node_modules`` except the whitelisted ``/vendor/<name>`` files listed in its
``vendor.json``); every path is resolved and checked to stay inside its root, so ``..``,
encoded slashes and symlinks out of the folder all end in 404.
"""

from __future__ import annotations

import asyncio
import http
import json
import mimetypes
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.metrics import Metrics

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
PLACEHOLDER = b"""<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Cuarenta</title>
<body><h1>Cuarenta</h1><p>The table server is running; the web client is not installed here.
Connect a client to <code>/ws</code>.</p></body></html>
"""

RecordLookup = Callable[[str, str], Awaitable[dict[str, object] | None]]
"""(table id, seat token or host key) -> the finished game's R15 record, or None."""

MoreRoutes = Callable[[str, str], Awaitable[Response | None]]
"""(path, query) -> an answer, or None for a path they do not serve (``server.club_routes``)."""


class HttpRoutes:
    """The ``process_request`` hook: answer plain HTTP, let ``/ws`` upgrade."""

    def __init__(
        self,
        web_root: Path,
        metrics: Metrics,
        records: RecordLookup,
        more: Callable[[HttpRoutes], MoreRoutes] | None = None,
    ) -> None:
        """``more`` makes the further routes (given these, for their pages and files)."""
        self.web_root = web_root.resolve()
        self.metrics = metrics
        self.records = records
        self.vendor = _read_vendor(self.web_root)
        self.more: MoreRoutes | None = more(self) if more is not None else None

    async def __call__(self, connection: ServerConnection, request: Request) -> Response | None:
        url = urlsplit(request.path)
        path = url.path
        if path == WS_PATH:
            return None  # the WebSocket handshake proceeds
        if path == "/healthz":
            return _response(http.HTTPStatus.OK, b"ok\n", "text/plain; charset=utf-8")
        if path == "/metrics":
            return _response(
                http.HTTPStatus.OK,
                self.metrics.render(),
                "text/plain; version=0.0.4; charset=utf-8",
            )
        if path.startswith("/record/"):
            return await self._record(path.removeprefix("/record/"), url.query)
        if self.more is not None:
            answer = await self.more(path, url.query)
            if answer is not None:
                return answer
        if path == "/" or path.startswith("/t/"):
            return await self._index()
        if path.startswith("/vendor/"):
            name = unquote(path.removeprefix("/vendor/"))
            target = self.vendor.get(name)
            return await self._file(target, self.web_root / "node_modules")
        return await self._file(self.web_root / unquote(path).lstrip("/"), self.web_root)

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
        kind = mimetypes.guess_type(resolved.name)[0] or "application/octet-stream"
        if resolved.suffix == ".mjs":
            kind = "text/javascript"
        if kind.startswith("text/") or kind in {"application/javascript", "application/json"}:
            kind += "; charset=utf-8"
        return _response(http.HTTPStatus.OK, body, kind)

    async def _record(self, table_id: str, query: str) -> Response:
        keys = parse_qs(query).get("key", [])
        if not keys or not table_id:
            return _response(
                http.HTTPStatus.BAD_REQUEST,
                b"a record needs ?key=<seat token or host key>\n",
                "text/plain; charset=utf-8",
            )
        record = await self.records(unquote(table_id), keys[0])
        if record is None:
            return _response(
                http.HTTPStatus.NOT_FOUND,
                b"no finished game for this table and key\n",
                "text/plain; charset=utf-8",
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
    return _response(http.HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
