"""The edge of the HTTP port: a request read and refused before any route sees it.

websockets' own parser drops a request it cannot read without an answer and logs a traceback;
``edge_connection`` reads it with websockets' line and header readers instead, answers what it
refuses (405 with ``Allow``, 414, 431, 400) in one log line, and counts a socket against its
address from the TCP accept until its upgrade ends. The routes themselves are ``server.http``.
"""

from __future__ import annotations

import asyncio
import http
import re
from collections.abc import Callable, Generator, Sequence
from typing import Any, cast
from urllib.parse import unquote, urlsplit

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import SecurityError
from websockets.http11 import Request, Response, parse_headers, parse_line
from websockets.protocol import Protocol

from server.edge import AddressLimits, Network, trusted
from server.errors import ServerError
from server.metrics import Metrics

log = structlog.get_logger("server.http")

ALLOWED_METHODS = ("GET", "HEAD")
BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
TEXT = "text/plain; charset=utf-8"


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


def _response(status: http.HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-cache"
    headers["X-Content-Type-Options"] = "nosniff"
    return Response(status.value, status.phrase, headers, body)
