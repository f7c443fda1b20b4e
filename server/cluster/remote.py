"""A table owned by another process, as this process's connections see it (invariant 4).

``RemoteRoom`` takes the connections' commands like ``Room.run`` and forwards each to the
table's owner as its bytes; the owner's messages for them come back through the relay and are
put in order per connection (``server.cluster.sequencer``) before they are passed on. It keeps a
ticket per local connection so that, should this process take the table over, they stay seated.

The owner a command goes to is remembered from the last answer (no Redis read per command); a
remembered owner that no longer holds the table refuses the command (``moved``: the store's
fence refuses its commit, or it relays to the owner it knows) or is gone (``PeerGone``): the
command is then retried at the owner Redis names, so a stale memory costs a retry, never a
command.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from protocol import client_messages as c
from protocol import decode_server
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.cluster.relay import PeerGone
from server.cluster.sequencer import RESYNC_RID, Resuming, Verdict, answers_resume, judge
from server.core import commands
from server.core.commands import (
    Attach,
    ConnectionCommand,
    Detach,
    Request,
    Resume,
    Ticket,
)
from server.core.referee import Outcome
from server.errors import Refused, not_now
from server.frames import Built
from server.store.base import CommitUncertain, StoreError

if TYPE_CHECKING:
    from server.cluster.membership import Membership
    from server.cluster.relay import Relay
    from server.placement import Placement
    from server.room import Room
    from server.store.redis import RedisStore

log = structlog.get_logger("server.cluster")

REQUEST_TIMEOUT_S = 10.0
RESYNC_RETRY_S = 0.25  # the first pause before a resume refused as "not now" is tried again
RESYNC_RETRY_MAX_S = 4.0  # the longest (the pause doubles)


# ---------------------------------------------------------------------- the interface it owns
# What the cluster needs of the rest of the server: nothing else of the lobby or the
# connections is reachable from here.
class Tables(Protocol):
    """The registry of the tables this process has loaded."""

    @property
    def owner(self) -> str:
        """This process's name as a lease owner."""
        ...

    @property
    def placement(self) -> Placement[Room | RemoteRoom]:
        """Which table each of this process's connections is at."""
        ...

    @property
    def rooms(self) -> Mapping[str, Room]:
        """The tables this process owns and has loaded."""
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

    def push(self, message: s.ServerMessage | Built) -> None: ...


class Hub(Protocol):
    """What a ``RemoteRoom`` needs of its process's ``Cluster``."""

    process: str
    lease_s: float
    closing: bool
    store: RedisStore
    lobby: Tables
    relay: Relay
    connections: Mapping[str, Local]
    members: Membership  # the live processes and each table's place
    remotes: dict[str, RemoteRoom]  # tables owned elsewhere that this process relays
    relayed: dict[str, RemoteRoom]  # this process's connections at those tables

    async def wait_for_lapse(self, table_id: str) -> None: ...

    def handed_over(self, table_id: str, room: Room | RemoteRoom, exc: StoreError) -> bool: ...

    def _spawn(self, work: Any, what: str) -> None: ...


class RemoteRoom:
    """A table owned by another process, as this process's connections see it."""

    def __init__(self, cluster: Hub, table_id: str) -> None:
        self.cluster = cluster
        self.table_id = table_id
        self.tickets: dict[str, Ticket] = {}
        #: connections whose attach or resume is on its way: its own retry seats them, so a
        #: takeover or rejoin must not seat them first (they would be sent events twice)
        self.joining: set[str] = set()
        self.failed = False
        self.owner: str | None = None  # the process that last answered a forwarded request
        self._route: str | None = None  # where commands go: the owner, until it refuses one
        self._resuming: dict[str, Resuming] = {}  # connections resuming after lost messages
        self._dropped: set[str] = set()  # connections some of whose messages were dropped
        #: per connection, the owner's count (``m``) on the last message that arrived
        self.arrived: dict[str, int] = {}

    async def run(self, command: ConnectionCommand) -> Outcome:
        if not isinstance(command, Attach | Resume):
            return await self._forward(command)
        self.joining.add(command.conn)
        try:
            return await self._forward(command)
        finally:
            self.joining.discard(command.conn)

    def route_to(self, process: str) -> None:
        """Send the next command to ``process`` (the table's place: it will own the table)."""
        self._route = process

    def settled_tickets(self) -> list[Ticket]:
        """The tickets a takeover or a new owner must seat again: all but the joining ones."""
        return [ticket for conn, ticket in self.tickets.items() if conn not in self.joining]

    async def _forward(self, command: ConnectionCommand) -> Outcome:
        """Send the command to the table's owner (or run it here, once this process owns it).

        Once a copy may have reached an owner that never answered (it timed out: its table was
        busy settling a commit, say, through a Redis failover), a failure after it is no longer
        "nothing was changed": that copy may yet be stored. It is answered as an unknown
        outcome (``CommitUncertain``), as a commit the table could not settle is (invariant 9).
        """
        sent = _Sent()
        try:
            return await self._forward_until_answered(command, sent)
        except (Refused, StoreError) as exc:
            if not sent.maybe or isinstance(exc, CommitUncertain) or not not_now(exc):
                raise
            raise CommitUncertain(
                f"storage unavailable: a forwarded command went unanswered, then: {exc}"
            ) from exc

    async def _forward_until_answered(self, command: ConnectionCommand, sent: _Sent) -> Outcome:
        conn = command.conn
        deadline = time.monotonic() + 2 * self.cluster.lease_s + REQUEST_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.cluster.closing:  # shutting down: a connection's last detach must not wait
                raise Refused(ErrorCode.INTERNAL, "this server is shutting down")
            local = self.cluster.lobby.loaded(self.table_id)
            if local is not None:  # taken over meanwhile
                try:
                    return await local.run(command)
                except StoreError as exc:
                    if not self.cluster.handed_over(self.table_id, local, exc):
                        raise
                    continue  # handed over again while it waited: stored nowhere, forward it
            owner = self._route or await self.cluster.store.lease_owner(self.table_id)
            log.debug(
                "forwarding", table=self.table_id, command=type(command).__name__, owner=owner
            )
            if owner is None or owner == self.cluster.process:
                if await self.cluster.lobby.room(self.table_id) is None:
                    raise Refused(ErrorCode.NOT_FOUND, "this table no longer exists")
                continue
            before = self.tickets.get(conn)
            command = self._remember(command)  # first: the reply follows the messages it updates
            try:
                reply = await self.cluster.relay.request(
                    owner,
                    {"k": "cmd", "table": self.table_id, "cmd": commands.encode(command)},
                    REQUEST_TIMEOUT_S,
                )
            except PeerGone as exc:
                sent.maybe = sent.maybe or exc.reached
                self._restore(conn, before)
                self.cluster.members.suspect(owner)  # placed nowhere until it beats again
                if self._route is None:  # Redis named it: wait for its lease to lapse
                    await self.cluster.wait_for_lapse(self.table_id)
                self._route = None  # ask Redis again
                continue
            if not reply["ok"]:
                self._restore(conn, before)
            if reply.get("moved"):
                self._route = None  # it no longer owns the table: ask Redis again
                continue
            if not reply["ok"]:
                raise Refused(ErrorCode(reply["code"]), str(reply["message"]))
            self.owner_is(owner, answered=conn)
            if isinstance(command, Request):
                self._acknowledge(command, reply.get("m", 0))
            return Outcome()
        raise Refused(ErrorCode.INTERNAL, "the table is moving between servers: try again")

    def _acknowledge(self, request: Request, relayed: int) -> None:
        """The owner carried the request out: its acknowledgement may have been in a message
        dropped here, or lost on its way (fewer arrived than the owner relayed before its
        reply): acknowledge it here, and resume the connection for the rest."""
        conn = request.conn
        lost = relayed > self.arrived.get(conn, 0)
        if conn not in self._dropped and not lost:
            return
        self._dropped.discard(conn)
        connection = self.cluster.connections.get(conn)
        if connection is not None:
            connection.push(s.Ack(rid=request.message.rid))
        ticket = self.tickets.get(conn)
        if lost and ticket is not None:
            self.resync(ticket)

    def note(self, conn: str, message: Built) -> None:
        """Keep a connection's ticket current from the envelopes relayed to it (their headers;
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
        previous, self.owner, self._route = self.owner, owner, owner
        if previous is None or previous == owner:
            return
        # the new owner counts its messages afresh (the one it answered: from its own)
        self.arrived = {c: n for c, n in self.arrived.items() if c == answered}
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
        """After an ownership change, put local connections back through the new owner.

        Each goes on from its ticket as it is when its turn comes, not as it was when the list
        was taken: the rejoin may start seconds later (a forwarded command waiting on a dead
        peer), and meanwhile envelopes or a resume move tickets on; an older one would replay
        events the connection was already sent (invariant 2). One no longer relayed here is
        skipped: a takeover meanwhile reattached it, and this room's ticket stopped following it.
        One refused as "not now" goes on as a resume (``resync``), tried until it goes through.
        """
        chosen = self.settled_tickets() if tickets is None else tickets
        for conn in [ticket.conn for ticket in chosen]:
            ticket = self.tickets.get(conn)
            if ticket is None or self.cluster.relayed.get(conn) is not self:
                continue  # it left, or is served elsewhere now
            command = ticket.command()
            if command is None:
                continue  # no seat token and no link: nothing to rejoin with
            try:
                await self.run(command)
            except (Refused, StoreError) as exc:
                if not_now(exc) and not self.cluster.closing:
                    self.resync(ticket)  # tried again until the table can take it

    def sequence(self, conn: str, message: Built, previous: int | None) -> bool:
        """Whether to pass a relayed message on (``server.cluster.sequencer``); a gap resumes
        the connection, and a message passed on keeps its ticket current."""
        ticket = self.tickets.get(conn)
        resuming = self._resuming.get(conn)
        if resuming is not None and not resuming.answered:
            if not answers_resume(message, ticket):
                self._dropped.add(conn)
                return False
            resuming.answered = True
        elif ticket is not None:
            verdict = judge(message, previous, ticket.last_event)
            if verdict is not Verdict.PASS:
                self._dropped.add(conn)
                if verdict is Verdict.GAP:
                    self.resync(ticket)
                return False
        self.note(conn, message)
        return True

    def resync(self, ticket: Ticket) -> None:
        """Messages to this connection were lost: resume it from the last event it was sent.

        One resume at a time: a gap seen while one runs asks for one more after it.
        """
        resuming = self._resuming.get(ticket.conn)
        if resuming is not None:
            resuming.again = resuming.again or resuming.answered
            return
        if ticket.command() is None:
            return
        log.warning(
            "relayed messages lost; resuming the connection",
            table=self.table_id,
            conn=ticket.conn,
            last_event=ticket.last_event,
        )
        self._resuming[ticket.conn] = Resuming()
        self.cluster._spawn(self._resync(ticket.conn), "resync")

    async def _resync(self, conn: str) -> None:
        """Resume the connection from its ticket as it is when each resume starts (unless the
        table was taken over here meanwhile: the takeover resumed it from that same ticket);
        again while a resume's answer was lost or a gap followed it.

        A resume refused as "not now" (the store away, the table moving) is tried again after
        a pause, for as long as the connection is relayed here: given up, it would leave the
        connection behind until the table's next event, and for good after a game's last."""
        pause = RESYNC_RETRY_S
        try:
            while True:
                ticket = self.tickets.get(conn)
                command = None if ticket is None else ticket.command(RESYNC_RID)
                if command is None or self.cluster.relayed.get(conn) is not self:
                    return
                resuming = self._resuming[conn] = Resuming()
                try:
                    await self.run(command)
                except (Refused, StoreError) as exc:
                    if self.cluster.closing or not not_now(exc):
                        log.warning("resuming a connection failed", conn=conn, error=str(exc))
                        return
                    log.warning("resuming a connection failed; retrying", conn=conn, error=str(exc))
                    await asyncio.sleep(pause)  # a retry period while the table is unavailable
                    pause = min(2 * pause, RESYNC_RETRY_MAX_S)
                    continue
                if resuming.answered and not resuming.again:
                    return
        finally:
            self._resuming.pop(conn, None)

    async def close(self) -> None:
        self.cluster.remotes.pop(self.table_id, None)

    def forget(self, conn: str) -> None:
        """The connection left this table (or was sent away)."""
        self.tickets.pop(conn, None)
        self.arrived.pop(conn, None)
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
        if now is not None and now.last_event is not None:  # envelopes received meanwhile count
            ticket = replace(ticket, last_event=max(ticket.last_event or 0, now.last_event))
        self.keep(ticket)

    def _remember(self, command: ConnectionCommand) -> ConnectionCommand:
        """Keep the ticket the command gives its connection; returns the command to send.

        A rejoin or a retried resume goes on from what the connection was sent by the time it
        is sent, not from where it was built: envelopes received since (the replay of an
        attempt whose answer was lost) count, or the owner would replay them again
        (invariant 2)."""
        match command:
            case Detach(conn):
                self.forget(conn)
            case Attach(conn, name, request, role, last_event, player, version):
                known = self.tickets.get(conn)
                if (
                    isinstance(request, c.Watch)
                    and known is not None
                    and known.key == request.key
                    and known.last_event is not None
                ):
                    last_event = max(known.last_event, last_event or 0)
                    command = replace(command, last_event=last_event)
                # a spectator resumed (a watch from its last event) goes on from that event
                ticket = Ticket(conn, name, request.key, role, None, last_event, player, version)
                self.keep(ticket)
            case Resume(conn, name, token, last_event, _, version):
                known = self.tickets.get(conn)
                if known is not None and known.token == token and known.last_event is not None:
                    last_event = max(known.last_event, last_event or 0)
                    command = replace(command, last_event=last_event)
                ticket = Ticket(conn, name, None, "join", token, last_event, version=version)
                self.keep(ticket)
            case Request():
                pass
        return command


class _Sent:
    """Whether a forwarded copy of a command may have reached an owner that never answered."""

    __slots__ = ("maybe",)

    def __init__(self) -> None:
        self.maybe = False
