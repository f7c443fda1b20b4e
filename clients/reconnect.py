"""A place at a table that outlives its connections: reconnect, resume, carry on.

`LastingSession` wraps the current `ClientSession`. When the socket drops it connects again
with backoff: a player resumes with the seat token and the last event number seen, so the
server re-seats them and sends exactly the missed events plus a snapshot (invariants 2 and 5);
a spectator simply watches again (the snapshot is the whole public state). Consumers iterate
`stream()`: server messages, interleaved with local `Status` values that say when the link
went down and came back, so a screen can show it.

A ``goodbye`` (kicked, or the seat taken back by another connection) and a refused token end
the stream: trying again would only fight the server's decision.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal

from clients.links import TableLink
from clients.session import DEFAULT_TIMEOUT_S, ClientSession, SessionError
from clients.table import TableRefused, Unreachable, connect, guarded, take_seat, watch_table
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode

BACKOFF_S: tuple[float, ...] = (0.05, 0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass(frozen=True, slots=True)
class Status:
    """A local note in the stream (never on the wire): the connection's state changed."""

    state: Literal["connected", "reconnecting", "closed"]
    detail: str = ""
    attempt: int = 0


Item = s.ServerMessage | Status


class LastingSession:
    """A seat (``watch=False``) or a spectator's place that reconnects by itself."""

    def __init__(
        self,
        link: TableLink,
        name: str,
        *,
        watch: bool = False,
        seat: int | None = None,
        backoff: Sequence[float] = BACKOFF_S,
        give_up_after: int | None = None,
    ) -> None:
        self.link = link
        self.name = name
        self.watch = watch
        self.seat_wanted = seat
        self.backoff = tuple(backoff)
        self.give_up_after = give_up_after
        self.session: ClientSession | None = None
        self.reconnects = 0
        self._closing = False

    async def open(self) -> ClientSession:
        """Connect and sit down (or watch); raises `SessionError` with a plain message."""
        if self.watch:
            self.session = await watch_table(self.link, self.name)
        else:
            self.session = await take_seat(self.link, self.name, self.seat_wanted)
        return self.session

    @property
    def closed_by_client(self) -> bool:
        """True once `close` was called: an end we chose, not a lost table."""
        return self._closing

    @property
    def current(self) -> ClientSession:
        if self.session is None:
            raise SessionError("not connected: call open() first")
        return self.session

    async def request(
        self, message: c.ClientMessage, wait_s: float = DEFAULT_TIMEOUT_S
    ) -> s.ServerMessage:
        """A request on the current connection; refusals become `TableRefused`."""
        return await guarded(self.current.request(message, wait_s), self.link.server)

    async def act(self, action: c.GameAction, at: int) -> None:
        """Play ``action`` against event ``at``: the position the player actually saw."""
        await self.request(action.model_copy(update={"at": at}))

    async def stream(self) -> AsyncIterator[Item]:
        """Every server message, across reconnections, with `Status` notes between them."""
        session = self.current
        yield Status("connected")
        while True:
            async for message in session:
                yield message
                if isinstance(message, s.Goodbye):  # the server ended our place: stop here
                    await session.close()
                    yield Status("closed", message.reason)
                    return
            if self._closing:
                yield Status("closed", "closed by the client")
                return
            yield Status("reconnecting", "the connection dropped")
            try:
                session = await self._reconnect(session)
            except SessionError as exc:
                yield Status("closed", str(exc))
                return
            self.reconnects += 1
            yield Status("connected", "resumed", self.reconnects)

    async def _reconnect(self, old: ClientSession) -> ClientSession:
        attempt = 0
        while True:
            delay = self.backoff[min(attempt, len(self.backoff) - 1)] if self.backoff else 0.0
            await asyncio.sleep(delay)  # backoff between attempts, not synchronisation
            attempt += 1
            try:
                self.session = await self._connect_again(old)
                return self.session
            except TableRefused as exc:
                if exc.code in (ErrorCode.BAD_TOKEN, ErrorCode.NOT_FOUND, ErrorCode.FORBIDDEN):
                    raise
            except SessionError:  # unreachable, or closed during the hello (a server going
                pass  # down or coming up): try again after the next pause
            if self.give_up_after is not None and attempt >= self.give_up_after:
                raise Unreachable(f"gave up after {attempt} attempts to reach {self.link.server}")

    async def _connect_again(self, old: ClientSession) -> ClientSession:
        if old.token is None:  # a spectator (or never seated): look on again
            if self.watch or old.seat is None:
                return await watch_table(self.link, self.name)
            return await take_seat(self.link, self.name, self.seat_wanted)
        session = await connect(
            self.link.server,
            self.name,
            resume=old.token,
            last_event=old.last_event,
            table=old.table,
        )
        session.events = list(old.events)
        return session

    async def close(self) -> None:
        self._closing = True
        if self.session is not None:
            await self.session.close()
