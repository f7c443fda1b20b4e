"""``ClientSession``: the small Python client every other client (terminal, bot) and test uses.

It speaks the protocol of ``protocol/`` over one WebSocket: ``hello`` first, requests with
their own ``rid`` answered by an ``ack``/``error`` (or a specific answer), and a stream of
server messages. It keeps what a client needs to resume: the seat token and the last event
number seen, and checks that event numbers arrive contiguously (invariant 2). On protocol 4
(the default) it keeps the viewer's view by following the events (``protocol.follow``) and
hands its callers the same whole ``Snapshot`` after each change as protocol 3 does; a view it
cannot follow asks the server for the snapshot (``sync``).

::

    async with await ClientSession.connect("ws://127.0.0.1:8765/ws", name="Ana") as ana:
        created = await ana.request(CreateTable())
        await ana.request(Join(key=created.join_key))
        snapshot = await ana.next_snapshot(lambda snap: bool(snap.legal))
        await ana.act(snapshot.legal[0])
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol import PROTOCOL_VERSION, decode_server, encode
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.base import WireModel
from protocol.errors import ErrorCode, ProtocolError
from protocol.follow import FollowError, follow_event

DEFAULT_TIMEOUT_S = 10.0
M = TypeVar("M", bound=WireModel)


class SessionError(Exception):
    """Base of the client library's errors."""


class RequestRefused(SessionError):
    """The server answered a request with an ``error``."""

    def __init__(self, error: s.Error) -> None:
        super().__init__(f"{error.code.value}: {error.message}")
        self.error = error
        self.code: ErrorCode = error.code


def ws_url(url: str, table: str | None = None) -> str:
    """Accept ``http://host:port/...`` or ``ws://host:port/ws``; return the socket URL.

    With ``table`` (a table id, never a key) the URL names it (``?t=``): the proxy sends the
    socket to the process that owns the table (``server.cluster.membership``).
    """
    if url.startswith(("http://", "https://")):
        scheme = "wss" if url.startswith("https") else "ws"
        rest = url.split("://", 1)[1].split("/", 1)[0]
        url = f"{scheme}://{rest}/ws"
    if table is None:
        return url
    return f"{url}{'&' if '?' in url else '?'}{urlencode({'t': table})}"


class ClientSession:
    """One connection: requests, the incoming stream, and the state needed to resume."""

    def __init__(self, ws: ClientConnection, keep_frames: bool = False) -> None:
        self.ws = ws
        self.keep_frames = keep_frames
        self.frames: list[bytes] = []  # every raw frame received (with keep_frames)
        self.events: list[s.Event] = []
        self.snapshot: s.Snapshot | None = None
        self.last_event = 0
        self.token: str | None = None
        self.table: str | None = None
        self.seat: int | None = None
        self.connection_id: str | None = None
        self.based = False  # a baseline is known: every later event must follow it
        self.problems: list[str] = []  # breaks in event numbering; empty in a healthy session
        self.closed = asyncio.Event()
        self._next_rid = 1
        self._answers: dict[int, asyncio.Queue[s.ServerMessage | None]] = {}
        self._inbox: asyncio.Queue[s.ServerMessage | None] = asyncio.Queue()
        self._snapshot_seen = asyncio.Event()
        self.syncs = 0  # protocol 4: snapshots asked for, the view having gone astray
        self._syncing = False  # one asked for and not arrived: changes tell no snapshot
        self._sync_sent = False
        self._snapshot_at = 0.0  # when the last snapshot came (monotonic seconds)
        self._reader = asyncio.create_task(self._read())

    # ------------------------------------------------------------------ connecting
    @classmethod
    async def connect(
        cls,
        url: str,
        name: str = "guest",
        *,
        resume: str | None = None,
        last_event: int | None = None,
        keep_frames: bool = False,
        wait_s: float = DEFAULT_TIMEOUT_S,
        version: int = PROTOCOL_VERSION,
        player_key: str | None = None,
        table: str | None = None,
    ) -> ClientSession:
        """Open a socket and say hello; with ``resume`` (a seat token) take the seat back;
        with ``player_key`` as that person (``protocol.players``).

        ``table``: the id of the table it is for, when known (routes the socket to its owner).

        ``version`` is the protocol version announced (another one is refused with
        ``version_mismatch``, which is what a client built for another release meets).
        Raises ``RequestRefused`` if the server refuses the hello or the token.
        """
        async with asyncio.timeout(wait_s):  # not wait_for: see ``_answer``
            ws = await connect(ws_url(url, table), max_size=4 * 1024 * 1024)
        session = cls(ws, keep_frames=keep_frames)
        if last_event is not None:
            session.last_event, session.based = last_event, True
        hello = c.Hello(
            version=version,
            name=name,
            resume=resume,
            last_event=last_event,
            player_key=player_key,
        )
        try:
            rid = await session._send_request(hello)
            welcome = await session._answer(rid, wait_s)
            if isinstance(welcome, s.Welcome):
                session.connection_id = welcome.connection
            if resume is not None:
                await session._answer(rid, wait_s)  # seated, or an error
                # the missed events follow the seat, then a snapshot: return caught up
                async with asyncio.timeout(wait_s):
                    await session._snapshot_seen.wait()
        except BaseException:
            await session.close()
            raise
        return session

    async def reconnect(self, url: str, name: str = "guest", **kwargs: Any) -> ClientSession:
        """A new session holding this one's seat, resuming after its last event."""
        if self.token is None:
            raise SessionError("no seat token to resume with")
        kwargs.setdefault("table", self.table)
        session = await ClientSession.connect(
            url, name, resume=self.token, last_event=self.last_event, **kwargs
        )
        session.events[:0] = self.events  # the history before the drop, then what it missed
        return session

    async def close(self) -> None:
        """Close the socket and stop the reader; a cancellation of the caller still propagates
        (swallowing it here made Ctrl-C leave a fleet of bots running)."""
        with contextlib.suppress(Exception):
            await self.ws.close()
        self._reader.cancel()
        await asyncio.wait([self._reader])  # never raises the reader's own cancellation
        if not self._reader.cancelled():
            self._reader.exception()  # retrieved: an unexpected reader failure is not re-logged

    def close_text(self) -> str:
        """The close code and reason the server gave (e.g. ``1008 protocol version mismatch``)."""
        code, reason = self.ws.close_code, self.ws.close_reason
        return f"{code} {reason}".strip() if code is not None else "no close frame"

    async def __aenter__(self) -> ClientSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ requests
    async def request(
        self, message: c.ClientMessage, wait_s: float = DEFAULT_TIMEOUT_S
    ) -> s.ServerMessage:
        """Send a request and return its answer (ack, seated, table_created, record, pong…).

        Raises ``RequestRefused`` if the server answers with an error.
        """
        rid = await self._send_request(message)
        try:
            return await self._answer(rid, wait_s)
        finally:
            self._answers.pop(rid, None)  # one answer per rid: a long session keeps no queues

    async def act(self, action: c.GameAction, wait_s: float = DEFAULT_TIMEOUT_S) -> None:
        """Play a game action against the last event seen (refused as stale if outdated)."""
        await self.request(action.model_copy(update={"at": self.last_event}), wait_s)

    async def send(self, message: c.ClientMessage) -> None:
        """Send without waiting for the answer."""
        await self.ws.send(encode(message))

    async def send_raw(self, frame: bytes | str) -> None:
        """Send any frame (tests of bad input)."""
        await self.ws.send(frame)

    async def _send_request(self, message: c.ClientMessage) -> int:
        rid = self._next_rid
        self._next_rid += 1
        self._answers[rid] = asyncio.Queue()
        await self.ws.send(encode(message.model_copy(update={"rid": rid})))
        return rid

    async def _answer(self, rid: int, wait_s: float) -> s.ServerMessage:
        # asyncio.timeout, never wait_for: on Python 3.11 wait_for returns the inner result and
        # drops a cancellation that arrives as the answer does (the task then ran on, ignoring
        # its cancel, until its own timeout)
        async with asyncio.timeout(wait_s):
            answer = await self._answers[rid].get()
        if answer is None:
            raise SessionError(f"the server closed the connection ({self.close_text()})")
        if isinstance(answer, s.Error):
            raise RequestRefused(answer)
        return answer

    # ------------------------------------------------------------------ the stream
    async def recv(self, wait_s: float = DEFAULT_TIMEOUT_S) -> s.ServerMessage:
        """The next server message (answers included); ``SessionError`` once closed."""
        async with asyncio.timeout(wait_s):  # not wait_for: see ``_answer``
            message = await self._inbox.get()
        if message is None:
            self._inbox.put_nowait(None)
            raise SessionError("the connection is closed")
        return message

    async def next_of(
        self,
        kind: type[M],
        predicate: Callable[[M], bool] = lambda _: True,
        wait_s: float = DEFAULT_TIMEOUT_S,
    ) -> M:
        """Skip messages until one of ``kind`` satisfying ``predicate`` arrives."""
        async with asyncio.timeout(wait_s):
            while True:
                message = await self.recv(wait_s)
                if isinstance(message, kind) and predicate(message):
                    return message

    async def next_snapshot(
        self,
        predicate: Callable[[s.Snapshot], bool] = lambda _: True,
        wait_s: float = DEFAULT_TIMEOUT_S,
    ) -> s.Snapshot:
        return await self.next_of(s.Snapshot, predicate, wait_s)

    async def __aiter__(self) -> AsyncIterator[s.ServerMessage]:
        while True:
            try:
                yield await self.recv(wait_s=3600)
            except SessionError:
                return

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                data = frame if isinstance(frame, bytes) else frame.encode()
                if self.keep_frames:
                    self.frames.append(data)
                received = decode_server(data)
                # an update stands for its ack, its events and its snapshot, told as a
                # change of the previous one (protocol 3); a change, for its ack, its events
                # and the snapshot they lead to (protocol 4)
                unfolded: list[s.ServerMessage]
                if isinstance(received, s.Update):
                    unfolded = list(received.unfold(self.snapshot))
                elif isinstance(received, s.Change):
                    unfolded = self._unfold(received)
                else:
                    unfolded = [received]
                for message in unfolded:
                    self._track(message)
                    rid = getattr(message, "rid", None)
                    if rid and rid in self._answers and not isinstance(message, s.Snapshot):
                        self._answers[rid].put_nowait(message)
                    self._inbox.put_nowait(message)
                if self._syncing:
                    await self._sync()
        except ConnectionClosed:
            pass
        except ProtocolError as exc:  # the server sent something this client cannot read
            self.problems.append(f"unreadable server message: {exc}")
            await self.ws.close()
        finally:
            self.closed.set()
            self._inbox.put_nowait(None)
            for queue in self._answers.values():  # no answer is coming: fail fast
                queue.put_nowait(None)

    def _unfold(self, change: s.Change) -> list[s.ServerMessage]:
        """The ack, events and snapshot a change stands for: the view is the last snapshot's
        with the change's events applied, unless the change brings a whole one. A view that
        cannot be followed (no snapshot yet, a gap, an event that does not fit, a legal list
        for a viewer not to act) gives no snapshot and asks for one (``_sync``)."""
        head: list[s.ServerMessage] = [] if change.rid is None else [s.Ack(rid=change.rid)]
        before = self.snapshot
        info = change.info or (before.info if before is not None else None)
        you = change.you or (before.you if before is not None else None)
        if self._syncing or info is None or you is None or not change.events:
            self._want_sync(True)
            return [*head, *change.events]
        view = before.view if before is not None else None
        try:
            if change.events[0].n != self.last_event + 1:
                raise FollowError(f"event {change.events[0].n} after {self.last_event}")
            for event in change.events:
                view = follow_event(view, event.event, info, you.seat)
            if change.view is not None:
                view = change.view
            if change.legal and (view is None or you.seat not in view.to_act):
                raise FollowError("a legal list for a viewer who is not to act")
        except FollowError:
            self._want_sync(True)
            return [*head, *change.events]
        deadlines = change.deadlines
        if deadlines is None:  # as before: their remaining times counted on from then
            deadlines = self._counted_on(before)
        snapshot = s.Snapshot(
            last_event=change.events[-1].n,
            you=you,
            info=info,
            view=view,
            legal=change.legal,
            deadlines=deadlines,
        )
        return [*head, *change.events, snapshot]

    def _counted_on(self, before: s.Snapshot | None) -> list[s.Deadline]:
        """``before``'s deadlines, their remaining times less the time since it came."""
        if before is None:
            return []
        elapsed_ms = int((time.monotonic() - self._snapshot_at) * 1000)
        return [
            each.model_copy(update={"remaining_ms": max(0, each.remaining_ms - elapsed_ms)})
            for each in before.deadlines
        ]

    def _want_sync(self, wanted: bool) -> None:
        if wanted and not self._syncing:
            self._syncing = True
            self.syncs += 1

    async def _sync(self) -> None:
        """Ask for the whole snapshot once (its answer is not waited for: it comes in turn)."""
        if self._syncing and not self._sync_sent:
            self._sync_sent = True
            rid = self._next_rid
            self._next_rid += 1
            await self.ws.send(encode(c.Sync(rid=rid)))

    def _track(self, message: s.ServerMessage) -> None:
        """Keep the resume state; note any break in the event numbers (invariant 2).

        A newcomer's first snapshot sets the baseline (it gets the state, not the history);
        from then on every event must follow the one before it and every snapshot must be at
        the last event received.
        """
        if isinstance(message, s.Event):
            if message.n != self.last_event + 1:
                self.problems.append(f"event {message.n} after event {self.last_event}")
            self.last_event = max(self.last_event, message.n)
            self.events.append(message)
            self.based = True
        elif isinstance(message, s.Snapshot):
            if self.snapshot is not None and message.info.table != self.snapshot.info.table:
                self.last_event, self.based = 0, False  # another table: its own event numbers
            if message.last_event < self.last_event or (
                self.based and message.last_event != self.last_event
            ):
                self.problems.append(
                    f"snapshot at event {message.last_event} after event {self.last_event}"
                )
            self.last_event = max(self.last_event, message.last_event)
            self.based = True
            self.snapshot, self._snapshot_at = message, time.monotonic()
            self.seat = message.you.seat
            self._snapshot_seen.set()
            self._syncing = self._sync_sent = False
        elif isinstance(message, s.Seated):
            self.token, self.table, self.seat = message.token, message.table, message.seat
