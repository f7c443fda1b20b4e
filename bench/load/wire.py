"""A lean WebSocket client for load: websockets' sans-I/O protocol on an asyncio ``Protocol``.

Thousands of connections share one loop in a load process, and on two cores every cycle the
load spends is taken from the server under test. So a connection here is no task and no queue:
bytes arrive in ``data_received``, websockets parses them, and each binary message is handed
synchronously to ``on_message``; sending writes straight to the transport.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from bench.load.errors import LoadError

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
OnMessage = Callable[[bytes], None]


class WireConnection(asyncio.Protocol):
    """One client WebSocket; ``opened`` resolves after the handshake, ``closed`` at the end."""

    def __init__(self, url: str, on_message: OnMessage) -> None:
        loop = asyncio.get_running_loop()
        self.protocol = ClientProtocol(parse_uri(url), max_size=MAX_MESSAGE_BYTES)
        self.on_message = on_message
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self._fragments: list[bytes] = []

    # ------------------------------------------------------------------ asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self._frame(event)
            elif isinstance(event, Response):
                self._handshake_done()
        self._flush()

    def eof_received(self) -> bool | None:
        self.protocol.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(LoadError(f"connection lost during the handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)

    # ------------------------------------------------------------------ use
    def send(self, data: bytes) -> None:
        """Send one binary message (dropped silently once the connection is closing)."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_binary(data)
            self._flush()

    def close(self) -> None:
        """Start the closing handshake; ``closed`` resolves when the TCP connection ends."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close()
            self._flush()
        elif self.transport is not None and self.protocol.state is not State.CLOSED:
            self.transport.close()

    # ------------------------------------------------------------------ internals
    def _handshake_done(self) -> None:
        if self.protocol.handshake_exc is not None:
            self.opened.set_exception(
                LoadError(f"WebSocket handshake refused: {self.protocol.handshake_exc}")
            )
        elif not self.opened.done():
            self.opened.set_result(None)

    def _frame(self, frame: Frame) -> None:
        if frame.opcode is Opcode.BINARY or frame.opcode is Opcode.CONT:
            if frame.fin and not self._fragments:
                self.on_message(bytes(frame.data))
                return
            self._fragments.append(bytes(frame.data))
            if frame.fin:
                message, self._fragments = b"".join(self._fragments), []
                self.on_message(message)

    def _flush(self) -> None:
        transport = self.transport
        if transport is None:
            return
        for chunk in self.protocol.data_to_send():
            if chunk:
                transport.write(chunk)
            elif transport.can_write_eof():
                transport.write_eof()
        if self.protocol.close_expected() and self.protocol.state is State.CLOSED:
            transport.close()


async def open_connection(url: str, on_message: OnMessage) -> WireConnection:
    """Connect to ``ws://host:port/path`` and finish the handshake."""
    uri = parse_uri(url)
    loop = asyncio.get_running_loop()
    _, connection = await loop.create_connection(
        lambda: WireConnection(url, on_message), uri.host, uri.port
    )
    await connection.opened
    return connection
