"""Several server processes sharing the tables in Redis: one writer per table (invariant 4).

A process **owns** a table while it holds the table's lease in Redis (renewed by the room's
clock every third of the lease time); only the owner runs the table's referee and writes it. Any
process accepts any connection: for a table owned elsewhere it keeps a ``RemoteRoom``, which
forwards its connections' commands to the owner and relays the owner's messages back (through
``server.cluster.relay``). When an owner stops renewing — crashed, or handed its tables over on
SIGTERM — its lease lapses; the first process to notice (its lease watcher, or a connection's
request) takes the table over: it reloads state and log from the store, which re-arms deadlines
and bot seats, and puts its own connections back at the table (``Reattach``).

Frames (msgpack maps, ``k`` = kind)::

    cmd       origin -> owner   {table, cmd}: a connection's command, its bytes (core.commands)
    reply     owner -> origin   {ok, code, message}: answers a cmd, after the cmd's messages
    msg       owner -> origin   {conn, data, t, n, p}: a server message for origin's connection:
                                its bytes (passed on as they are), type and last event number,
                                and the last event number relayed to it before (a gap: lost)
    detached  owner -> origin   {conn, table}: that connection is no longer at the table
    resync    owner -> origin   {conn}: frames for that connection were lost (a publish failed
                                while Redis was away): resume it from what it received
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from protocol import decode_server
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.cluster.relay import Frame, PeerGone, Relay
from server.core import commands
from server.core.commands import (
    Attach,
    ConnectionCommand,
    Detach,
    Reattach,
    Request,
    Resume,
    Ticket,
)
from server.core.referee import Outcome
from server.errors import Refused, storage_refusal
from server.frames import Built, built
from server.store.base import LeaseLost, StoreError, StoreUnavailable
from server.tasks import cancel_and_wait

if TYPE_CHECKING:
    from server.room import Room
    from server.store.redis import RedisStore

log = structlog.get_logger("server.cluster")

REQUEST_TIMEOUT_S = 10.0
UNSENT_TRIES = 30  # rounds of the lease watcher a lost frame's resync notice is retried
RESYNC_RID = 2**31 - 1  # the request id of a resume that makes up for lost relayed frames


# ---------------------------------------------------------------------- the interface it owns
# What the cluster needs of the rest of the server: nothing else of the lobby or the
# connections is reachable from here.
class Tables(Protocol):
    """The registry of the tables this process has loaded."""

    @property
    def owner(self) -> str:
        """This process's name as a lease owner."""
        ...

    def loaded(self, table_id: str) -> Room | None:
        """The table if this process owns it and has it loaded."""
        ...

    def forget(self, room: Room) -> None:
        """Drop a table this process no longer owns from the registry."""
        ...

    async def room(self, table_id: str) -> Room | RemoteRoom | None:
        """The table, loaded (or relayed) if needed; None if it does not exist."""
        ...

    async def load(self, table_id: str, token: int | None = None) -> Room | None:
        """Rebuild the table from the store here (its lease is held here with ``token``)."""
        ...


class Local(Protocol):
    """One of this process's connections."""

    room: Room | RemoteRoom | None

    def push(self, message: s.ServerMessage | Built) -> None: ...


class Cluster:
    """This process's share of the tables: ownership, forwarding, relaying, takeover."""

    def __init__(
        self, store: RedisStore, lobby: Tables, connections: Mapping[str, Local], lease_s: float
    ) -> None:
        self.store = store
        self.lobby = lobby
        self.connections = connections
        self.lease_s = lease_s
        self.process = lobby.owner
        self.relay = Relay(store.relay_client(), self.process, self._on_frame)
        self.remote_conns: dict[str, str] = {}  # other processes' connections at our tables
        #: the last event number relayed to each of them (a frame carries it as ``p``)
        self.relayed_to: dict[str, int] = {}
        #: their connections whose frames were lost -> (process, resync notices tried)
        self.unsent: dict[str, tuple[str, int]] = {}
        self.remotes: dict[str, RemoteRoom] = {}  # tables owned elsewhere that we relay
        self.relayed: dict[str, RemoteRoom] = {}  # our connections at those tables
        self._watcher: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.closing = False

    async def start(self) -> None:
        await self.relay.start()
        self._watcher = asyncio.create_task(self._watch_leases(), name="lease-watcher")

    async def close(self) -> None:
        self.closing = True  # a forwarded request from now on fails at once (RemoteRoom.run)
        await cancel_and_wait([self._watcher, *self._tasks])
        await self.relay.close()
        if self.relay.client is not self.store.client:  # a Cluster's relay node connection
            with contextlib.suppress(Exception):
                await self.relay.client.aclose()

    # ------------------------------------------------------------------ ownership
    async def open(self, table_id: str) -> Room | RemoteRoom | None:
        """A table not loaded here: own it if its lease is free, else relay to its owner.

        Never while this process shuts down: it would take back a lease it has just released.
        """
        if self.closing:
            raise StoreUnavailable("storage unavailable: this server is shutting down")
        token = await self.store.acquire_lease(table_id, self.process, self.lease_s)
        if not token:
            return self.remotes.setdefault(table_id, RemoteRoom(self, table_id))
        room = await self.lobby.load(table_id, token)
        if room is None:
            await self.store.release_lease(table_id, self.process)
            await self.store.forget_lease(table_id)
            return None
        remote = self.remotes.pop(table_id, None)
        tickets = remote.settled_tickets() if remote is not None else []
        # First stop relaying: the old owner's frames still on their way (events it stored
        # before the takeover) must not reach a connection the takeover resumes from its ticket.
        for ticket in list(remote.tickets.values()) if remote is not None else []:
            self.relayed.pop(ticket.conn, None)  # a joining one's own retry now runs here
            connection = self.connections.get(ticket.conn)
            if connection is not None and connection.room is remote:
                connection.room = room
        if tickets:
            await room.run(Reattach(tuple(tickets)))
        log.info("table owned", table=table_id, reattached=len(tickets))
        return room

    def relinquish(self, room: Room) -> None:
        """This process lost the table's lease: keep its local connections through a relay."""
        self.lobby.forget(room)
        tickets = room.tickets(set(self.connections))  # each from what it was sent
        if not tickets and room.table_id not in self.remotes:
            return  # nobody here to relay (e.g. an unloaded table's late renewal): keep none
        remote = self.remotes.setdefault(room.table_id, RemoteRoom(self, room.table_id))
        for ticket in tickets:
            remote.keep(ticket)
            connection = self.connections.get(ticket.conn)
            if connection is not None and connection.room is room:
                connection.room = remote
        self._spawn(remote.rejoin(), "rejoin")
        log.warning("table lease lost; relaying to the new owner", table=room.table_id)

    async def _watch_leases(self) -> None:
        """Take over tables whose owner stopped renewing, every third of the lease time."""
        while not self.closing:
            try:
                self._flush_unsent()
                for table_id in await self.store.lapsed_leases():
                    if self.lobby.loaded(table_id) is None:
                        await self.lobby.room(table_id)
                await self._follow_owners()
            except StoreError as exc:
                log.warning("lease watch failed", error=str(exc))
            except Exception:
                log.exception("lease watch failed")
            await asyncio.sleep(self.lease_s / 3)  # a polling period, not a synchronisation

    async def _follow_owners(self) -> None:
        """Rejoin our connections at a relayed table whose owner changed behind our back.

        With three or more processes, when an owner dies another survivor may win the
        takeover: it reattaches its own connections, but knows nothing of ours, which (waiting
        for events, sending nothing) would never learn. Seat-token resumes through the new
        owner bring them back, each from its last event (invariant 2).
        """
        for table_id, remote in list(self.remotes.items()):
            if not remote.tickets or remote.owner is None:
                continue
            owner = await self.store.lease_owner(table_id)
            if owner is not None and owner != self.process:  # None: the lapsed pass handles it
                remote.owner_is(owner)

    async def wait_for_lapse(self, table_id: str) -> None:
        """Wait (at most one lease time) until a silent owner's lease on the table has lapsed."""
        deadline = time.monotonic() + self.lease_s
        while time.monotonic() < deadline and not self.closing:
            owner = await self.store.lease_owner(table_id)
            if owner is None or owner == self.process:
                return
            await asyncio.sleep(min(0.05, self.lease_s / 10))  # polling a condition, bounded

    # ------------------------------------------------------------------ owner side
    def deliver(self, conn: str, message: s.ServerMessage | Built) -> None:
        """Send a message to a connection of another process (a no-op for unknown ones)."""
        process = self.remote_conns.get(conn)
        if process is not None:
            frame = built(message)
            previous = self.relayed_to.get(conn)
            if frame.last_event is not None:
                self.relayed_to[conn] = frame.last_event
            self._note_sent(
                conn,
                process,
                self.relay.send(
                    process,
                    {
                        "k": "msg",
                        "conn": conn,
                        "data": frame.data,
                        "t": frame.type,
                        "n": frame.last_event,
                        "p": previous,
                    },
                ),
            )

    def _note_sent(
        self, conn: str, process: str, sent: asyncio.Future[int], tries: int = 0
    ) -> None:
        """A frame for another process's connection that was not delivered is lost: a publish
        that failed (Redis away), or that nobody received (that process is resubscribing after
        Redis came back). That process is told to resume the connection once a frame gets
        through (the next frame might never come: the table may be waiting for that very
        connection); a process that stays silent for ``UNSENT_TRIES`` rounds is let go."""

        def done(future: asyncio.Future[int]) -> None:
            if future.cancelled():
                return
            lost = future.exception() is not None or future.result() == 0
            if lost and tries < UNSENT_TRIES:
                self.unsent[conn] = (process, tries + 1)

        sent.add_done_callback(done)

    def _flush_unsent(self) -> None:
        for conn, (process, tries) in list(self.unsent.items()):
            del self.unsent[conn]
            if self.remote_conns.get(conn) != process:
                continue  # it left, or moved: nothing to make up for
            frame = {"k": "resync", "conn": conn}
            self._note_sent(conn, process, self.relay.send(process, frame), tries)

    def detached(self, conn: str, table_id: str) -> None:
        self.relayed_to.pop(conn, None)
        process = self.remote_conns.pop(conn, None)
        if process is not None:
            _ignore(self.relay.send(process, {"k": "detached", "conn": conn, "table": table_id}))

    async def _serve_command(self, frame: Frame) -> None:
        """Apply a command forwarded by another process: its bytes, decoded once, applied
        through ``Room.run`` like a local connection's."""
        table_id, origin = str(frame["table"]), str(frame["from"])
        try:
            command = commands.decode(bytes(frame["cmd"]))
        except ValueError as exc:
            self.relay.reply(frame, _refusal(ErrorCode.INVALID_MESSAGE, str(exc)))
            return
        if not isinstance(command, ConnectionCommand):
            self.relay.reply(
                frame,
                _refusal(ErrorCode.INVALID_MESSAGE, f"{type(command).__name__} is not forwarded"),
            )
            return
        try:
            room = await self.lobby.room(table_id)
            if room is None:
                raise Refused(ErrorCode.NOT_FOUND, "no such table")
            if isinstance(room, RemoteRoom):
                self.relay.reply(frame, {"ok": False, "moved": True})
                return
            self.remote_conns[command.conn] = origin
            await room.run(command)
        except Refused as exc:
            self.relay.reply(frame, _refusal(exc.code, exc.message))
        except LeaseLost:  # refused, stored nowhere: the origin retries at the new owner
            self.relay.reply(frame, {"ok": False, "moved": True})
        except StoreError as exc:
            log.warning("store error", kind=type(exc).__name__, error=str(exc)[:200])
            refusal = storage_refusal(exc)
            self.relay.reply(frame, _refusal(refusal.code, refusal.message))
        else:
            self.relay.reply(frame, {"ok": True})
        finally:
            if isinstance(command, Detach):
                self.remote_conns.pop(command.conn, None)

    # ------------------------------------------------------------------ origin side
    def _on_frame(self, frame: Frame) -> None:
        kind = frame.get("k")
        if kind == "cmd":
            self._spawn(self._serve_command(frame), "forwarded command")
        elif kind == "msg":
            number = frame["n"]
            message = Built(
                bytes(frame["data"]), str(frame["t"]), number if isinstance(number, int) else None
            )
            previous = frame.get("p")
            self._relay_message(
                str(frame["conn"]), message, previous if isinstance(previous, int) else None
            )
        elif kind == "resync":  # frames for this connection were lost on their way
            conn = str(frame["conn"])
            relayed = self.relayed.get(conn)
            ticket = None if relayed is None else relayed.tickets.get(conn)
            if relayed is not None and ticket is not None:
                relayed.resync(ticket)
        elif kind == "detached":
            conn, remote = str(frame["conn"]), self.remotes.get(str(frame["table"]))
            if remote is not None:
                remote.forget(conn)
                connection = self.connections.get(conn)
                if connection is not None and connection.room is remote:
                    connection.room = None

    def _relay_message(self, conn: str, message: Built, previous: int | None = None) -> None:
        """Pass the owner's frame on as its bytes (its header says what the ticket needs).

        ``previous`` is the last event number the owner relayed to the connection before this
        frame: above the last one that arrived, frames were lost (a publish failed while Redis
        was away). The connection is then resumed through the owner from the last event it
        did receive, and the frames until that resume's answer are dropped (invariant 2).
        """
        connection = self.connections.get(conn)
        remote = self.relayed.get(conn)
        if connection is None or remote is None:
            return  # gone, or its table is owned here now: a late frame of the old owner
        if remote.resyncing(conn, message):
            return
        ticket = remote.tickets.get(conn)
        if (
            remote.replayed(conn, message)
            and previous is not None
            and ticket is not None
            and ticket.last_event is not None
            and previous > ticket.last_event
        ):
            remote.resync(ticket)
            return
        remote.note(conn, message)
        connection.push(message)

    def _spawn(self, work: Any, what: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=what)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class RemoteRoom:
    """A table owned by another process, as this process's connections see it.

    It takes the connections' commands like ``Room.run`` and forwards each to the owner as its
    bytes. It keeps a ticket per local connection so that, should this process take the table
    over, they stay seated.
    """

    def __init__(self, cluster: Cluster, table_id: str) -> None:
        self.cluster = cluster
        self.table_id = table_id
        self.tickets: dict[str, Ticket] = {}
        #: connections whose attach or resume is on its way: its own retry seats them, so a
        #: takeover or rejoin must not seat them first (they would be sent events twice)
        self.joining: set[str] = set()
        self.failed = False
        self.owner: str | None = None  # the process that last answered a forwarded request
        self._resyncing: set[str] = set()  # connections that lost frames, resuming (resync)
        self._replaying: set[str] = set()  # their resume answered: its events until a snapshot
        self._dropped: set[str] = set()  # connections some of whose frames a resync dropped

    async def run(self, command: ConnectionCommand) -> Outcome:
        if not isinstance(command, Attach | Resume):
            return await self._forward(command)
        self.joining.add(command.conn)
        try:
            return await self._forward(command)
        finally:
            self.joining.discard(command.conn)

    def settled_tickets(self) -> list[Ticket]:
        """The tickets a takeover or a new owner must seat again: all but the joining ones."""
        return [ticket for conn, ticket in self.tickets.items() if conn not in self.joining]

    async def _forward(self, command: ConnectionCommand) -> Outcome:
        """Send the command to the table's owner (or run it here, once this process owns it)."""
        conn = command.conn
        deadline = time.monotonic() + 2 * self.cluster.lease_s + REQUEST_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.cluster.closing:  # shutting down: a connection's last detach must not wait
                raise Refused(ErrorCode.INTERNAL, "this server is shutting down")
            local = self.cluster.lobby.loaded(self.table_id)
            if local is not None:  # taken over meanwhile
                return await local.run(command)
            owner = await self.cluster.store.lease_owner(self.table_id)
            log.debug(
                "forwarding", table=self.table_id, command=type(command).__name__, owner=owner
            )
            if owner is None or owner == self.cluster.process:
                if await self.cluster.lobby.room(self.table_id) is None:
                    raise Refused(ErrorCode.NOT_FOUND, "this table no longer exists")
                continue
            before = self.tickets.get(conn)
            self._remember(command)  # first: the reply follows the messages that update it
            try:
                reply = await self.cluster.relay.request(
                    owner,
                    {"k": "cmd", "table": self.table_id, "cmd": commands.encode(command)},
                    REQUEST_TIMEOUT_S,
                )
            except PeerGone:
                self._restore(conn, before)
                await self.cluster.wait_for_lapse(self.table_id)
                continue
            if not reply["ok"]:
                self._restore(conn, before)
            if reply.get("moved"):
                continue
            if not reply["ok"]:
                raise Refused(ErrorCode(reply["code"]), str(reply["message"]))
            self.owner_is(owner, answered=conn)
            if isinstance(command, Request) and conn in self._dropped:
                # its acknowledgement may have been in a frame dropped while it resumed
                self._dropped.discard(conn)
                connection = self.cluster.connections.get(conn)
                if connection is not None:
                    connection.push(s.Ack(rid=command.message.rid))
            return Outcome()
        raise Refused(ErrorCode.INTERNAL, "the table is moving between servers: try again")

    def note(self, conn: str, message: Built) -> None:
        """Keep a connection's ticket current from the frames relayed to it (their headers;
        only a ``seated``, once a seat, is read for its token)."""
        ticket = self.tickets.get(conn)
        if ticket is None:
            return
        if message.type == "seated":
            seated = decode_server(message.data)
            assert isinstance(seated, s.Seated)
            self.tickets[conn] = replace(ticket, token=seated.token)
        elif message.last_event is not None:
            number = max(ticket.last_event or 0, message.last_event)
            self.tickets[conn] = replace(ticket, last_event=number)
        elif message.type == "goodbye":
            self.forget(conn)

    def owner_is(self, owner: str, answered: str | None = None) -> None:
        """Note the table's owner; if it changed, rejoin our other connections through it.

        ``answered`` is a connection the new owner has just served (it needs no rejoin).
        """
        previous, self.owner = self.owner, owner
        if previous is None or previous == owner:
            return
        others = [ticket for ticket in self.settled_tickets() if ticket.conn != answered]
        log.info(
            "table changed owner; rejoining through the new one",
            table=self.table_id,
            owner=owner,
            connections=len(others),
        )
        if others:
            self.cluster._spawn(self.rejoin(others), "rejoin")

    async def rejoin(self, tickets: list[Ticket] | None = None) -> None:
        """After an ownership change, put local connections back through the new owner."""
        for ticket in self.settled_tickets() if tickets is None else tickets:
            command = ticket.command()
            if command is None:
                continue  # no seat token and no link: nothing to rejoin with
            with contextlib.suppress(Refused, StoreError):
                await self.run(command)

    def resync(self, ticket: Ticket) -> None:
        """Frames to this connection were lost: resume it from the last event it received."""
        if ticket.conn in self._resyncing or ticket.command() is None:
            return
        log.warning(
            "relayed frames lost; resuming the connection",
            table=self.table_id,
            conn=ticket.conn,
            last_event=ticket.last_event,
        )
        self._resyncing.add(ticket.conn)
        self.cluster._spawn(self._resync(ticket.conn), "resync")

    async def _resync(self, conn: str) -> None:
        """The resume, from the ticket as it is when it starts (unless the table was taken
        over here meanwhile: the takeover resumed the connection from that same ticket)."""
        try:
            ticket = self.tickets.get(conn)
            command = None if ticket is None else ticket.command(RESYNC_RID)
            if command is not None and self.cluster.relayed.get(conn) is self:
                await self.run(command)
        except (Refused, StoreError) as exc:
            log.warning("resuming a connection failed", conn=conn, error=str(exc))
        finally:
            self._resyncing.discard(conn)

    def resyncing(self, conn: str, message: Built) -> bool:
        """Whether to drop this frame: the connection is resuming and this is not yet the
        resume's answer (its ``seated``, or a watch's ``ack``, with ``RESYNC_RID``)."""
        if conn not in self._resyncing:
            return False
        if message.type in ("seated", "ack"):
            answer = decode_server(message.data)
            if getattr(answer, "rid", None) == RESYNC_RID:
                self._resyncing.discard(conn)
                self._replaying.add(conn)
                return False
        self._dropped.add(conn)
        return True

    def replayed(self, conn: str, message: Built) -> bool:
        """False while a resync's replay runs (its events go back behind what the owner had
        relayed: no gap to check); it ends with the resume's snapshot."""
        if conn not in self._replaying:
            return True
        if message.type == "snapshot":
            self._replaying.discard(conn)
        return False

    async def close(self) -> None:
        self.cluster.remotes.pop(self.table_id, None)

    def forget(self, conn: str) -> None:
        """The connection left this table (or was sent away)."""
        self.tickets.pop(conn, None)
        if self.cluster.relayed.get(conn) is self:
            del self.cluster.relayed[conn]

    def keep(self, ticket: Ticket) -> None:
        """Hold a ticket for one of our connections at this table."""
        self.tickets[ticket.conn] = ticket
        self.cluster.relayed[ticket.conn] = self

    def _restore(self, conn: str, ticket: Ticket | None) -> None:
        """A forwarded request was refused or lost: the ticket is what it was before (none once
        this process has taken the table over: its retry runs at the local room)."""
        if ticket is None or self.cluster.remotes.get(self.table_id) is not self:
            self.forget(conn)
            return
        now = self.tickets.get(conn)
        if now is not None and now.last_event is not None:  # frames received meanwhile count
            ticket = replace(ticket, last_event=max(ticket.last_event or 0, now.last_event))
        self.keep(ticket)

    def _remember(self, command: ConnectionCommand) -> None:
        match command:
            case Detach(conn):
                self.forget(conn)
            case Attach(conn, name, request, role):
                self.keep(Ticket(conn, name, request.key, role))
            case Resume(conn, name, token, last_event, _):
                # a retried resume must not take the ticket back behind frames received since
                known = self.tickets.get(conn)
                if known is not None and known.token == token and known.last_event is not None:
                    last_event = max(known.last_event, last_event or 0)
                self.keep(Ticket(conn, name, None, "join", token=token, last_event=last_event))
            case Request():
                pass


def _refusal(code: ErrorCode, message: str) -> Frame:
    return {"ok": False, "code": code.value, "message": message}


def _ignore(sent: asyncio.Future[int]) -> None:
    """A relayed message to a peer that went away is lost with it; its clients will resume."""
    sent.add_done_callback(lambda done: done.cancelled() or done.exception())
