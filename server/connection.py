"""One WebSocket: read, limit, decode and dispatch frames; write without waiting, within a bound.

Inbound, every frame is size-limited (by websockets: close 1009), rate-limited, decoded and
validated; a frame that is not one msgpack map closes the connection with 1008, a bad message
gets an ``error`` naming its request. Outbound, a message is written at once, the way websockets'
own ``broadcast`` fans out (no task, no queue, no wait for the socket): the room never waits on a
connection. What a client has not read waits in its socket's write buffer; a client that lets
that buffer grow past the limit is dropped rather than waited for (invariants 6 and 7).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, get_args

import structlog
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from protocol import PROTOCOL_VERSION, SUPPORTED_VERSIONS, decode_client
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.clubs import ClubNight, ClubRequest
from protocol.coach import HintRequest
from protocol.codec import Limits
from protocol.errors import ErrorCode, FrameError, FrameTooLarge, MessageError
from protocol.ladder import LadderRequest
from protocol.players import ForgetMe, Me, PlayerRequest
from server import keys
from server.coach.hints import Coach
from server.core.commands import Attach, Detach, Request, Resume
from server.core.referee import Outcome
from server.core.seating import TokenBucket
from server.core.table import Pace
from server.errors import Refused, storage_refusal
from server.frames import FRAMES, Built
from server.store.base import StoreError, StoreUnavailable

if TYPE_CHECKING:
    from server.cluster import RemoteRoom
    from server.config import Settings
    from server.edge import AddressLimits
    from server.ladder import Ladder
    from server.lobby import Lobby
    from server.metrics import Metrics
    from server.people.routes import People
    from server.room import Room

log = structlog.get_logger("server.connection")
SERVER_NAME = "cuarenta"
SEND_FRAME_BYTES = 4096
"""A typical update frame: ``send_queue`` of them bound a connection's unread data."""


class ClubNightDoor(Protocol):
    """What connections and routes ask of the clubs' nights (``server.clubs.nights``)."""

    async def handle(
        self, conn: str, name: str, message: ClubRequest, player: str | None = None
    ) -> ClubNight: ...

    async def view(self, club: str) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Doors:
    """What every connection reaches beyond its socket: made once, when the server starts."""

    settings: Settings
    metrics: Metrics
    lobby: Lobby
    ladder: Ladder
    people: People
    nights: ClubNightDoor | None
    limits: AddressLimits | None


class Connection:
    """A client connection and the table it is at (at most one)."""

    def __init__(self, ws: ServerConnection, doors: Doors, address: str = "?") -> None:
        self.ws = ws
        settings = self.settings = doors.settings
        self.address = address  # the client's (server.edge.client_address)
        self.limits = doors.limits
        self.metrics = doors.metrics
        lobby = self.lobby = doors.lobby
        self.ladder = doors.ladder
        self.people = doors.people
        self.nights = doors.nights
        self.player: str | None = None  # the person's public id (never their key)
        self.version = PROTOCOL_VERSION  # the protocol its hello asked for
        self.id = secrets.token_hex(6)
        # a few hundred update frames of a busy table: far beyond any client that keeps reading
        self.send_limit = settings.send_queue * SEND_FRAME_BYTES
        self.name = "guest"
        self.greeted = False
        self.dropped = False
        rate = settings.commands_per_s
        self.bucket = TokenBucket(rate=rate, burst=2 * rate)
        self.frame_limits = Limits(max_frame_bytes=settings.max_frame_bytes)
        self._closing: asyncio.Task[None] | None = None
        self._held: list[s.ServerMessage | Built] | None = None
        self.coach = Coach(lobby.bots)

    @property
    def room(self) -> Room | RemoteRoom | None:
        """The table this connection is at (``server.placement``)."""
        return self.lobby.placement.at(self.id)

    # ------------------------------------------------------------------ outbound
    def push(self, message: s.ServerMessage | Built) -> None:
        """Write a message now; a client whose unread data passed the limit is dropped."""
        if self.dropped:
            return
        if self._held is not None:  # a resume's outcome is not known yet (``_hello``)
            self._held.append(message)
            return
        transport = self.ws.transport
        if transport is not None and transport.get_write_buffer_size() > self.send_limit:
            self.dropped = True
            self.metrics.dropped.inc()
            log.warning("slow client dropped", conn=self.id)
            asyncio.get_running_loop().create_task(
                self.ws.close(CloseCode.POLICY_VIOLATION, "too slow: send buffer full")
            )
            return
        broadcast([self.ws], FRAMES.encode(message))  # shared messages encode once
        if (
            message.type == "goodbye" and self._closing is None
        ):  # the place is gone: so is the socket
            self._closing = asyncio.get_running_loop().create_task(
                self.ws.close(CloseCode.NORMAL_CLOSURE, "goodbye")
            )

    async def _close_after_sending(self, reason: str) -> None:
        """Close with 1008; the error saying why was written before the close frame."""
        await self.ws.close(CloseCode.POLICY_VIOLATION, reason)

    # ------------------------------------------------------------------ inbound
    async def serve(self) -> None:
        structlog.contextvars.bind_contextvars(conn=self.id)
        try:
            if not await self._greet():
                return
            async for frame in self.ws:
                if not await self._receive(frame):
                    break
        except ConnectionClosed:
            pass
        finally:
            room = self.lobby.placement.detach(self.id)
            if room is not None:
                with contextlib.suppress(Exception):
                    await room.run(Detach(self.id))
            if self.player is not None:  # no presence refresh from here on (``_keep_presence``)
                player, self.player = self.player, None
                with contextlib.suppress(Exception):
                    await self.people.gone(player, self.id)

    async def _greet(self) -> bool:
        """Read frames until the client has said hello; close with 1008 at the hello deadline.

        Only the wait for a frame is bounded: a hello being handled (a resume) is never cut.
        """
        timeout = self.settings.hello_timeout_s
        deadline = asyncio.get_running_loop().time() + timeout
        while not self.greeted:
            try:
                async with asyncio.timeout_at(deadline if timeout > 0 else None):
                    frame = await self.ws.recv()
            except TimeoutError:
                self.metrics.refused.labels(limit="hello_deadline").inc()
                log.info("no hello by the deadline", kind="hello_deadline")
                await self.ws.close(CloseCode.POLICY_VIOLATION, f"no hello within {timeout:g} s")
                return False
            if not await self._receive(frame):
                return False
        return True

    async def _receive(self, frame: str | bytes) -> bool:
        """Handle one frame; False closes the connection."""
        started = time.perf_counter()
        try:
            message = decode_client(frame, self.frame_limits)
        except FrameTooLarge as exc:
            await self.ws.close(CloseCode.MESSAGE_TOO_BIG, exc.message[:120])
            return False
        except FrameError as exc:
            self.metrics.command("frame", "closed")
            await self.ws.close(CloseCode.POLICY_VIOLATION, exc.message[:120])
            return False
        except MessageError as exc:
            self.metrics.command("invalid", "error")
            self.push(s.Error(rid=exc.rid, code=exc.code, message=exc.message))
            return True
        if not self.bucket.allow(time.monotonic()):
            self.metrics.command(message.type, "rate_limited")
            self.metrics.refused.labels(limit="commands_per_second").inc()
            self.push(
                s.Error(
                    rid=message.rid,
                    code=ErrorCode.RATE_LIMITED,
                    message="too many messages: slow down",
                )
            )
            return True
        keep = await self._dispatch(message)
        self.metrics.command_latency(time.perf_counter() - started)
        return keep

    async def _dispatch(self, message: c.ClientMessage) -> bool:
        outcome = "ok"
        try:
            if not self.greeted and not isinstance(message, c.Hello):
                self.push(
                    s.Error(
                        rid=message.rid,
                        code=ErrorCode.HELLO_REQUIRED,
                        message="the first message must be hello",
                    )
                )
                await self._close_after_sending("hello required")
                return False
            keep = await self._handle(message)
            await self._seen()
            return keep
        except Refused as exc:
            outcome = "refused"
            if exc.code is ErrorCode.INTERNAL:  # relayed from the table's owner (server.cluster):
                log.warning("relayed failure", error=exc.message[:200])  # its storage failed
                self.push(_unavailable(message.rid))  # its text stays in the log
                return True
            self.push(s.Error(rid=message.rid, code=exc.code, message=exc.message))
            return True
        except StoreError as exc:  # Redis away: nothing was applied or shown; retry later
            outcome = "unavailable"
            log.warning("store error", kind=type(exc).__name__, error=str(exc)[:200])
            self.push(_unavailable(message.rid, exc))
            return True
        finally:
            self.metrics.command(message.type, outcome)

    async def _handle(self, message: c.ClientMessage) -> bool:
        route = ROUTES.get(type(message))
        if route is None:  # a table's request: the common case
            await self._at_table(message)
            return True
        return await route(self, message)

    async def _ping(self, message: c.Ping) -> bool:
        self.push(s.Pong(rid=message.rid, server_time=time.time()))
        return True

    async def _create(self, message: c.CreateTable) -> bool:
        self._check_table_rate()
        created = await self.lobby.create(
            message.profile,
            dict(message.options),
            message.turn_timer,
            public=message.public,
            casual=message.casual,
            pace=Pace(message.move_deadline, message.on_deadline),
        )
        keys_ = created.referee.table.keys
        self.push(
            s.TableCreated(
                rid=message.rid,
                table=created.table_id,
                join_key=keys_["join"],
                watch_key=keys_["watch"],
                host_key=keys_["host"],
            )
        )
        return True

    async def _enter(self, message: c.Join | c.Watch) -> bool:
        found = await self.lobby.by_key(message.key)
        if found is None:
            raise Refused(ErrorCode.NOT_FOUND, "no table has this link")
        room, ref = found
        await self._leave_other_table(room)
        attach = Attach(
            self.id, self.name, message, ref.role, player=self.player, version=self.version
        )
        outcome = await room.run(attach)
        self.lobby.placement.attach(self.id, room)
        self._bind(room.table_id, outcome)
        return True

    async def _ladder(self, message: LadderRequest) -> bool:
        """The solo ladder (R14): no table needed."""
        self.push(await self.ladder.handle(message, self.name))
        return True

    async def _club(self, message: ClubRequest) -> bool:
        """A club's night (``server.clubs``)."""
        if self.nights is None:
            raise Refused(ErrorCode.NOT_FOUND, "this server runs no club")
        self.push(await self.nights.handle(self.id, self.name, message, self.player))
        return True

    async def _hint(self, message: HintRequest) -> bool:
        """The coach's hint, to the asker alone."""
        room = self.room
        if room is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "join or watch a table first")
        self.push(await self.coach.hint(self.id, room, message.rid))
        return True

    async def _at_table(self, message: c.ClientMessage) -> None:
        """A request for the table this connection is at (the referee judges it)."""
        room = self.room
        if room is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "join or watch a table first")
        await room.run(Request(self.id, message))

    async def _seen(self) -> None:
        """This person is here, at this table (presence: ``server.people.presence``); the
        request was answered already, so a store away is only logged."""
        if self.player is None:
            return
        room = self.room
        try:
            await self.people.seen(self.player, self.id, room.table_id if room else None)
        except StoreError as exc:
            log.warning("presence not written", error=str(exc)[:200])

    async def _person(self, message: PlayerRequest) -> bool:
        """People who come back: no table needed."""
        answer = await self.people.answer(self.player, message, self.room)
        if isinstance(message, ForgetMe) and self.player is not None:
            await self.people.gone(self.player, self.id)
            self.player = None  # a guest from now on
        elif isinstance(answer, Me):
            self.name = answer.name  # the name follows the person
        self.push(answer)
        return True

    def _check_table_rate(self) -> None:
        if self.limits is not None and not self.limits.allow_table(self.address, time.monotonic()):
            self.metrics.refused.labels(limit="tables_per_minute").inc()
            raise Refused(
                ErrorCode.RATE_LIMITED,
                f"at most {self.settings.tables_per_min:g} new tables a minute from one "
                "address: wait a moment",
            )

    async def _hello(self, message: c.Hello) -> bool:
        if message.version not in SUPPORTED_VERSIONS:
            self.push(
                s.Error(
                    rid=message.rid,
                    code=ErrorCode.VERSION_MISMATCH,
                    message=f"this server speaks protocol {PROTOCOL_VERSION} "
                    f"(and {', '.join(map(str, SUPPORTED_VERSIONS[:-1]))}), "
                    f"not {message.version}",
                )
            )
            await self._close_after_sending("protocol version mismatch")
            return False
        if message.player_key is not None:  # the key goes no further than this call
            player = await self.people.enter(message.player_key, message.name)
            self.player, self.name = player.id, player.name
            structlog.contextvars.bind_contextvars(player=player.id)  # public: the key is not
        else:
            self.name = message.name
        self.greeted, self.version = True, message.version
        welcome = s.Welcome(
            rid=message.rid, version=message.version, server=SERVER_NAME, connection=self.id
        )
        if message.resume is None:
            self.push(welcome)
            return True
        # A resume is answered once if it fails (its error alone) and twice if it succeeds
        # (welcome, then seated): the seat's messages wait here until the outcome is known.
        self._held = []
        try:
            outcome, room = await self._resume(message, message.resume)
        except BaseException:
            self._release_held(None)
            raise
        self._release_held(welcome)
        self.lobby.placement.attach(self.id, room)
        self._bind(room.table_id, outcome)
        return True

    async def _resume(self, message: c.Hello, token: str) -> tuple[Outcome, Room | RemoteRoom]:
        table_id = keys.table_of_token(token)
        room = await self.lobby.room(table_id) if table_id else None
        if room is None:
            raise Refused(ErrorCode.BAD_TOKEN, "this seat token does not hold a seat anywhere")
        await self._leave_other_table(room)
        resume = Resume(self.id, self.name, token, message.last_event, message.rid, self.version)
        return await room.run(resume), room

    def _release_held(self, first: s.ServerMessage | None) -> None:
        held, self._held = self._held or [], None
        for message in [first, *held] if first is not None else held:
            self.push(message)

    def _bind(self, table_id: str, outcome: Outcome) -> None:
        """Log lines from now on name the table and, once seated, the seat."""
        seated = [m for conn, m in outcome.messages if conn == self.id and isinstance(m, s.Seated)]
        seat = seated[-1].seat if seated else None
        structlog.contextvars.bind_contextvars(table=table_id, seat=seat)
        log.info("at table", role="player" if seat is not None else "spectator")

    async def _leave_other_table(self, room: Room | RemoteRoom) -> None:
        old = self.room
        if old is not None and old is not room:
            self.lobby.placement.detach(self.id, old)
            await old.run(Detach(self.id))


def _members(kind: object) -> tuple[type, ...]:
    """The message classes of a union (or the one class)."""
    return get_args(kind) or (kind,)


Route = Callable[[Connection, Any], Awaitable[bool]]

ROUTES: dict[type, Route] = {
    c.Hello: Connection._hello,
    c.Ping: Connection._ping,
    c.CreateTable: Connection._create,
    c.Join: Connection._enter,
    c.Watch: Connection._enter,
    **dict.fromkeys(_members(LadderRequest), Connection._ladder),
    **dict.fromkeys(_members(ClubRequest), Connection._club),
    **dict.fromkeys(_members(PlayerRequest), Connection._person),
    **dict.fromkeys(_members(HintRequest), Connection._hint),
}
"""What the connection answers itself, by message type, without the table's referee; any
other message is the table's (``server.core.requests``). Looked up by exact type:
``isinstance`` against a pydantic model class goes through ``ABCMeta`` (about a microsecond a
class), and a table request would miss a dozen of them."""


def _unavailable(rid: int, exc: StoreError | None = None) -> s.Error:
    """The store failed (here or at the table's owner): ``server.errors.storage_refusal``."""
    refusal = storage_refusal(exc if exc is not None else StoreUnavailable())
    return s.Error(rid=rid, code=refusal.code, message=refusal.message)
