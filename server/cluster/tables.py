"""Several server processes sharing the tables in Redis: one writer per table (invariant 4).

A process **owns** a table while it holds the table's lease in Redis (renewed by the room's
clock every third of the lease time); only the owner runs the table's referee and writes it. Any
process accepts any connection: for a table owned elsewhere it keeps a ``RemoteRoom``, which
forwards its connections' commands to the owner and relays the owner's messages back (through
``server.cluster.relay``). When an owner stops renewing — crashed, or handed its tables over on
SIGTERM — its lease lapses; the first process to notice (its lease watcher, or a connection's
request) takes the table over: it reloads state and log from the store, which re-arms deadlines
and bot seats, and puts its own connections back at the table (``Reattach``).

Envelopes (msgpack maps, ``k`` = kind)::

    cmd       origin -> owner   {table, cmd}: a connection's command, its bytes (core.commands)
    reply     owner -> origin   {ok, code, message, m}: answers a cmd, after the cmd's messages
                                (``m``: how many msg envelopes the cmd's connection was sent)
    msg       owner -> origin   {conn, data, t, n, p, m}: a server message for origin's
                                connection: its bytes (passed on as they are), type and last
                                event number, the last event number relayed to it before (a
                                gap: lost) and its count among the msg envelopes to it
    detached  owner -> origin   {conn, table}: that connection is no longer at the table
    resync    owner -> origin   {conn}: envelopes for that connection were lost (a publish failed
                                while Redis was away): resume it from what it received
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog

from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.cluster.membership import Membership
from server.cluster.relay import Envelope, Relay
from server.cluster.remote import Local, RemoteRoom, Tables
from server.core import commands
from server.core.commands import (
    ConnectionCommand,
    Detach,
    Reattach,
)
from server.errors import Refused, storage_refusal
from server.frames import Built, built
from server.store.base import CommitUncertain, LeaseLost, StoreError, StoreUnavailable
from server.tasks import cancel_and_wait

if TYPE_CHECKING:
    from server.room import Room
    from server.store.redis import RedisStore

log = structlog.get_logger("server.cluster")

UNSENT_TRIES = 30  # rounds of the lease watcher a lost envelope's resync notice is retried


class Cluster:
    """This process's share of the tables: ownership, forwarding, relaying, takeover."""

    def __init__(
        self,
        store: RedisStore,
        lobby: Tables,
        connections: Mapping[str, Local],
        lease_s: float,
        hashed: bool = False,
    ) -> None:
        self.store = store
        self.lobby = lobby
        self.connections = connections
        self.lease_s = lease_s
        self.process = lobby.owner
        self.relay = Relay(store.relay_client(), self.process, self._on_envelope)
        self.relay.on_resubscribed = self._resync_relayed
        #: the live processes and each table's place among them (none until ``join``)
        self.members = Membership(store.client, "", self.process, lease_s, hashed)
        self.remote_conns: dict[str, str] = {}  # other processes' connections at our tables
        #: the last event number relayed to each of them (an envelope carries it as ``p``)
        self.relayed_to: dict[str, int] = {}
        #: and how many messages were relayed to each (a message carries it as ``m``, and a
        #: reply to its command too: fewer arrived, some were lost)
        self.relayed_count: dict[str, int] = {}
        #: their connections whose envelopes were lost -> (process, resync notices tried)
        self.unsent: dict[str, tuple[str, int]] = {}
        self.remotes: dict[str, RemoteRoom] = {}  # tables owned elsewhere that we relay
        self.relayed: dict[str, RemoteRoom] = {}  # our connections at those tables
        self._watcher: asyncio.Task[None] | None = None
        self._misplaced: set[str] = set()  # tables found placed elsewhere by the last round
        self._tasks: set[asyncio.Task[None]] = set()
        self.closing = False

    async def start(self) -> None:
        await self.relay.start()
        self._watcher = asyncio.create_task(self._watch_leases(), name="lease-watcher")

    async def join(self, address: str) -> None:
        """Register as a live process reached at ``address`` (as the proxy dials it): tables
        are placed here from now on."""
        self.members.address = address
        await self.members.start()

    async def leave(self) -> None:
        """Shutting down: leave the membership first, so that the peers place this process's
        tables on themselves (and take them over) as soon as its leases are released."""
        self.closing = True  # a forwarded request from now on fails at once (RemoteRoom.run)
        if self.members.address:
            await self.members.close()

    async def close(self) -> None:
        await self.leave()
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
        if not self.members.placed_here(table_id):
            return await self._placed_elsewhere(table_id)
        token = await self.store.acquire_lease(
            table_id, self.process, self.lease_s, before_load=True
        )
        if not token:
            return self.remotes.setdefault(table_id, RemoteRoom(self, table_id))
        room = await self.lobby.load(table_id, token)
        if room is None:
            await self.store.release_lease(table_id, self.process)
            await self.store.forget_lease(table_id)
            return None
        remote = self.remotes.pop(table_id, None)
        tickets = remote.settled_tickets() if remote is not None else []
        # First stop relaying: the old owner's envelopes still on their way (events it stored
        # before the takeover) must not reach a connection the takeover resumes from its ticket.
        for conn in list(remote.tickets) if remote is not None else []:
            self.relayed.pop(conn, None)  # a joining one's own retry now runs here
            if remote is not None:
                self.lobby.placement.move(conn, remote, room)
        if tickets:
            await room.run(Reattach(tuple(tickets)))
        log.info("table owned", table=table_id, reattached=len(tickets))
        return room

    async def _placed_elsewhere(self, table_id: str) -> RemoteRoom:
        """A table whose place is another process: relayed to its owner, or (no owner yet) to
        its place, which loads it on the first command forwarded to it."""
        relayed = self.remotes.setdefault(table_id, RemoteRoom(self, table_id))
        if await self.store.lease_owner(table_id) is None:
            relayed.route_to(self.members.owner_of(table_id))
        return relayed

    def relinquish(self, room: Room) -> None:
        """This process lost the table's lease: keep its local connections through a relay."""
        self.lobby.forget(room)
        tickets = room.tickets(set(self.connections))  # each from what it was sent
        if not tickets and room.table_id not in self.remotes:
            return  # nobody here to relay (e.g. an unloaded table's late renewal): keep none
        remote = self.remotes.setdefault(room.table_id, RemoteRoom(self, room.table_id))
        for ticket in tickets:
            remote.keep(ticket)
            self.lobby.placement.move(ticket.conn, room, remote)
        self._spawn(remote.rejoin(), "rejoin")
        log.warning("table lease lost; relaying to the new owner", table=room.table_id)

    async def _watch_leases(self) -> None:
        """Take over tables whose owner stopped renewing, every third of the lease time."""
        while not self.closing:
            try:
                self._flush_unsent()
                for table_id in await self.store.lapsed_leases():
                    if self.lobby.loaded(table_id) is None and self.members.placed_here(table_id):
                        await self.lobby.room(table_id)
                await self._follow_owners()
                await self._hand_over_misplaced()
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

    async def _hand_over_misplaced(self) -> None:
        """Hand each table whose place is now another process (one joined, or this one loaded
        a table on a request that reached it) over to it, between two commands: its lease is
        released as lapsed, the placed process's watcher or first forwarded command loads it,
        and this process's connections at it are relayed there (``relinquish``).

        Only a table found misplaced by two rounds in a row: a new table's setup (its host's
        first commands, right after the create) is not interrupted, nor a membership that is
        still settling followed back and forth.
        """
        misplaced = {
            table_id for table_id in self.lobby.rooms if not self.members.placed_here(table_id)
        }
        due, self._misplaced = misplaced & self._misplaced, misplaced
        for table_id in due:
            room = self.lobby.loaded(table_id)
            if self.closing or room is None or room.lock.locked() or room.failed:
                continue
            async with room.lock:  # no command of its connections runs meanwhile
                self.lobby.forget(room)
                await cancel_and_wait([room.stop()])
                await self.store.release_lease(table_id, self.process)
            log.info("table handed over to its place", table=table_id)
            self.relinquish(room)

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
            encoded = built(message)
            previous = self.relayed_to.get(conn)
            if encoded.last_event is not None:
                self.relayed_to[conn] = encoded.last_event
            count = self.relayed_count[conn] = self.relayed_count.get(conn, 0) + 1
            self._note_sent(
                conn,
                process,
                self.relay.send(
                    process,
                    {
                        "k": "msg",
                        "conn": conn,
                        "data": encoded.data,
                        "t": encoded.type,
                        "n": encoded.last_event,
                        "p": previous,
                        "m": count,
                    },
                ),
            )

    def _note_sent(
        self, conn: str, process: str, sent: asyncio.Future[int], tries: int = 0
    ) -> None:
        """An envelope for another process's connection that was not delivered is lost: a publish
        that failed (Redis away), or that nobody received (that process is resubscribing after
        Redis came back). That process is told to resume the connection once an envelope gets
        through (the next envelope might never come: the table may be waiting for that very
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
            envelope = {"k": "resync", "conn": conn}
            self._note_sent(conn, process, self.relay.send(process, envelope), tries)

    def detached(self, conn: str, table_id: str) -> None:
        self.relayed_to.pop(conn, None)
        self.relayed_count.pop(conn, None)
        process = self.remote_conns.pop(conn, None)
        if process is not None:
            _ignore(self.relay.send(process, {"k": "detached", "conn": conn, "table": table_id}))

    async def _serve_command(self, envelope: Envelope) -> None:
        """Apply a command forwarded by another process: its bytes, decoded once, applied
        through ``Room.run`` like a local connection's."""
        table_id, origin = str(envelope["table"]), str(envelope["from"])
        try:
            command = commands.decode(bytes(envelope["cmd"]))
        except ValueError as exc:
            self.relay.reply(envelope, _refusal(ErrorCode.INVALID_MESSAGE, str(exc)))
            return
        if not isinstance(command, ConnectionCommand):
            self.relay.reply(
                envelope,
                _refusal(ErrorCode.INVALID_MESSAGE, f"{type(command).__name__} is not forwarded"),
            )
            return
        room: Room | RemoteRoom | None = None
        try:
            room = await self.lobby.room(table_id)
            if room is None:
                raise Refused(ErrorCode.NOT_FOUND, "no such table")
            if isinstance(room, RemoteRoom):
                self.relay.reply(envelope, {"ok": False, "moved": True})
                return
            self.remote_conns[command.conn] = origin
            await room.run(command)
        except Refused as exc:
            self.relay.reply(envelope, _refusal(exc.code, exc.message))
        except LeaseLost:  # refused, stored nowhere: the origin retries at the new owner
            self.relay.reply(envelope, {"ok": False, "moved": True})
        except StoreError as exc:
            if self.handed_over(table_id, room, exc):  # it waited for the room as it left
                self.relay.reply(envelope, {"ok": False, "moved": True})
                return
            log.warning("store error", kind=type(exc).__name__, error=str(exc)[:200])
            refusal = storage_refusal(exc)
            self.relay.reply(envelope, _refusal(refusal.code, refusal.message))
        else:
            self.relay.reply(envelope, {"ok": True, "m": self.relayed_count.get(command.conn, 0)})
        finally:
            if isinstance(command, Detach):
                self.remote_conns.pop(command.conn, None)

    def handed_over(self, table_id: str, room: Room | RemoteRoom | None, exc: StoreError) -> bool:
        """Whether a command refused by ``room`` met it handed over (to its place, or lost to
        another owner) while it waited for the room's lock: nothing was stored, and the command
        belongs at the table's owner now, not in an error to its person (an uncertain commit
        stays one: whether it was stored is for its person to find out)."""
        if isinstance(exc, CommitUncertain) or room is None or self.closing:
            return False
        return self.lobby.loaded(table_id) is not room

    def _resync_relayed(self) -> None:
        """Our subscription broke and is back: an envelope Redis delivered to it as it broke is
        lost, and when it was a table's last (the table waits for its next move) no later one
        shows the gap. Every connection we relay resumes from what it received."""
        for conn, remote in list(self.relayed.items()):
            ticket = remote.tickets.get(conn)
            if ticket is not None:
                remote.resync(ticket)

    def push(self, process: str, conn: str, message: s.ServerMessage) -> None:
        """Send a message outside any table (an invitation) to a connection of ``process``."""
        encoded = built(message)
        envelope = {"k": "push", "conn": conn, "data": encoded.data, "t": encoded.type}
        _ignore(self.relay.send(process, envelope))

    # ------------------------------------------------------------------ origin side
    def _on_envelope(self, envelope: Envelope) -> None:
        kind = envelope.get("k")
        if kind == "push":  # a message outside any table, for a connection here (or gone)
            connection = self.connections.get(str(envelope["conn"]))
            if connection is not None:
                connection.push(Built(bytes(envelope["data"]), str(envelope["t"]), None))
        elif kind == "cmd":
            self._spawn(self._serve_command(envelope), "forwarded command")
        elif kind == "msg":
            number = envelope["n"]
            message = Built(
                bytes(envelope["data"]),
                str(envelope["t"]),
                number if isinstance(number, int) else None,
            )
            previous, count = envelope.get("p"), envelope.get("m")
            self._relay_message(
                str(envelope["conn"]),
                message,
                previous if isinstance(previous, int) else None,
                count if isinstance(count, int) else 0,
            )
        elif kind == "resync":  # envelopes for this connection were lost on their way
            conn = str(envelope["conn"])
            relayed = self.relayed.get(conn)
            ticket = None if relayed is None else relayed.tickets.get(conn)
            if relayed is not None and ticket is not None:
                relayed.resync(ticket)
        elif kind == "detached":
            conn, remote = str(envelope["conn"]), self.remotes.get(str(envelope["table"]))
            if remote is not None:
                remote.forget(conn)
                self.lobby.placement.detach(conn, remote)

    def _relay_message(
        self, conn: str, message: Built, previous: int | None = None, count: int = 0
    ) -> None:
        """Pass the owner's message on as its bytes, in order (``RemoteRoom.sequence``)."""
        connection = self.connections.get(conn)
        remote = self.relayed.get(conn)
        if connection is None or remote is None:
            return  # gone, or its table is owned here now: a late message of the old owner
        remote.arrived[conn] = count
        if remote.sequence(conn, message, previous):
            connection.push(message)

    def _spawn(self, work: Any, what: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=what)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _refusal(code: ErrorCode, message: str) -> Envelope:
    return {"ok": False, "code": code.value, "message": message}


def _ignore(sent: asyncio.Future[int]) -> None:
    """A relayed message to a peer that went away is lost with it; its clients will resume."""
    sent.add_done_callback(lambda done: done.cancelled() or done.exception())
