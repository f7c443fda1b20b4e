"""The asyncio shell around one ``Referee``: it commits outcomes and delivers their messages.

Every command (``server.core.commands``) runs under the room's lock: the referee computes its
outcome, the store commits the new state, its events and any record to keep in one atomic step
that checks the room's lease (its fencing token) and version, and only then are the messages
delivered: written to the connections' sockets at once, or relayed to another process's
(invariants 3, 4 and 9). A clock task sleeps until the outcome's next wake-up (a deadline, a
bot's turn) and sends a ``Tick``; bots answer with a ``BotAnswer``, through the same path as
people.

A commit has three endings, and nobody hears anything until it has one (invariant 9):

- **stored**: the messages are delivered;
- **refused** (a version conflict, a lost lease, or a store that was never reached): nothing was
  stored, the mover hears an error, and the room, whose memory ran ahead, rebuilds itself from
  the store before its next command;
- **uncertain** (``CommitUncertain``: Redis stalled past the command timeout, or no replica
  was known to hold it in time): the room settles it first, for up to ``resolve_s``: ``fence``
  (a new token, so the script is refused if it still runs later; on a Sentinel store, held by a
  replica, and with it the commit) and ``load``; the stored version and commit id say which of
  the two above it was. Unsettled by then, the mover hears the outcome is unknown, and the room
  rebuilds before its next command (fenced too: it shows what a replica holds).

A rebuild puts every live connection back from the last event THAT connection was sent
(``Room.sent``), never from what the store holds. A room that finds another process holding its
lease stops writing and hands its connections over (``on_lease_lost``: ``Cluster.relinquish``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import replace

import structlog

from protocol import server_messages as s
from server.bots import BotRunner
from server.core.commands import BotAnswer, Command, Detach, Reattach, Tick, Ticket
from server.core.referee import BotRequest, Outcome, Referee, TableSummary
from server.frames import Built, last_event_of
from server.metrics import Metrics
from server.rebuild import rebuild
from server.store.base import (
    CommitUncertain,
    Lease,
    LeaseLost,
    Store,
    StoredTable,
    StoreError,
    StoreUnavailable,
    TableNotFound,
)
from server.tasks import STOP_WAIT_S, cancel_and_wait
from server.waiting import Waiting
from server.waiting.filing import Filing

log = structlog.get_logger("server.room")

Deliver = Callable[[str, s.ServerMessage | Built], None]
OnDetach = Callable[[str, "Room"], None]
STORE_RETRY_S = 0.25  # how often a table whose store is away tries to reload (or to settle)
_PROCESS_TAG = secrets.token_hex(8)  # commit ids: this process's random tag and a counter
_COMMITS = itertools.count(1)


def next_commit_id() -> str:
    """An id no other commit of any process carries (what ``_settle`` recognises its own by):
    a random tag per process and a counter, cheaper than fresh random bytes per move."""
    return f"{_PROCESS_TAG}-{next(_COMMITS):x}"


class Room:
    """One loaded table, owned by this process while it holds the table's lease."""

    def __init__(
        self,
        referee: Referee,
        store: Store,
        version: int,
        bots: BotRunner,
        metrics: Metrics,
        deliver: Deliver,
        detach: OnDetach,
        lease: Lease,
        lease_s: float,
        resolve_s: float,
        clock: Callable[[], float] = time.time,
        on_lease_lost: Callable[[Room], None] | None = None,
        on_finished: Callable[[Room, Outcome], None] | None = None,
        waiting: Waiting | None = None,
    ) -> None:
        self.referee = referee
        #: the table's public facts as last stored (what the listing reads, without the lock)
        self.summary: TableSummary = referee.summary()
        self.store = store
        self.version = version
        self.bots = bots
        self.metrics = metrics
        self.deliver = deliver
        self.on_detach = detach
        self.lease = lease  # the owner and the fencing token every commit carries
        self.clock = clock
        self.lock = asyncio.Lock()
        self.failed = False  # memory may be ahead of the store: rebuild before the next command
        self.stale = False  # the lease was taken afresh: check the store before writing again
        self.lost = False  # another process holds the lease: this room never writes again
        self.closing = False
        self._handed = False
        self.lease_s = lease_s
        self.resolve_s = resolve_s
        self.on_lease_lost = on_lease_lost  # when tables are shared: hand the table over
        #: per connection, the last event number it was sent (what a rebuild resumes it from)
        self.sent: dict[str, int] = {}
        self._wake = asyncio.Event()
        self._asleep_until: float | None = None  # when the clock task wakes (None: it is awake)
        self._task: asyncio.Task[None] | None = None
        #: told after the commit of an outcome that ended a game (its people's records)
        self.on_finished = on_finished
        #: where a turn-based table files itself between moves, and how its people are told
        self.waiting = waiting or Waiting()
        self._filing = Filing(self.waiting.board)

    @property
    def table_id(self) -> str:
        return self.referee.table_id

    @property
    def owner(self) -> str:
        return self.lease.owner

    def start(self) -> None:
        self._task = asyncio.create_task(self._clock_loop(), name=f"room-{self.table_id}")

    def stop(self) -> asyncio.Task[None] | None:
        """Stop writing from now on and cancel the clock task (returned, to be awaited with the
        other tables' by ``cancel_and_wait``); the lease is the caller's to release."""
        self.closing = True
        self._wake.set()
        return self._task

    async def close(self, handover: bool = True) -> None:
        """Stop, and give the lease up (``handover``: for a peer to take the table over now;
        not for an unloaded table, which needs no owner until someone asks for it)."""
        await cancel_and_wait([self.stop()])
        with contextlib.suppress(Exception):
            async with asyncio.timeout(STOP_WAIT_S):
                await self.store.release_lease(self.table_id, self.owner, handover)

    def tickets(self, live: set[str]) -> list[Ticket]:
        """Tickets of the viewers in ``live`` that were sent anything, each from the last event
        it was sent (a viewer whose attach was never delivered is not at the table)."""
        return [
            replace(ticket, last_event=self.sent.get(ticket.conn))
            for ticket in self.referee.tickets(live & set(self.sent))
        ]

    async def run(self, command: Command, wake: bool = True) -> Outcome:
        """Apply one command under the lock, commit it, then deliver its messages.

        The referee raises ``Refused`` to refuse a command: nothing is committed or sent then.
        A room whose last commit failed first rebuilds itself from the store (memory may be
        ahead of it). ``wake`` lets the command wake the clock task when it brought the next
        deadline or bot turn forward (its own changes need not: it recomputes after each round);
        most commands do not, and waking it for nothing would double their cost.
        """
        async with self.lock:
            self._check_writable()
            try:
                if self.failed or self.stale:
                    await self._reload()
                outcome = self.referee.apply(command, self.clock())
                await self._commit_and_deliver(outcome)
            finally:
                if self.lost:  # found out while settling a commit: after its answer
                    self._hand_over()
            if isinstance(command, Detach):
                self.sent.pop(command.conn, None)
            if wake and self._asleep_until is not None:
                due = outcome.wakeup
                if due is not None and due < self._asleep_until:
                    self._wake.set()
            return outcome

    def _check_writable(self) -> None:
        if self.closing:
            raise StoreUnavailable("storage unavailable: this server is shutting down")
        if self.lost:
            raise StoreUnavailable("storage unavailable: the table moved to another server")

    async def _commit_and_deliver(self, outcome: Outcome) -> None:
        """Write before send (invariant 3): commit, and only then hand out the messages."""
        for note in outcome.notes:
            log.warning(note.text, **note.fields)
        if outcome.dirty:
            stored = await self._commit(outcome)
            self.version = stored.version
            log.debug("committed", last_event=self.referee.table.last_event, version=self.version)
        if outcome.summary is not None:
            self.summary = outcome.summary
        for conn in outcome.detached:
            self.sent.pop(conn, None)
            self.on_detach(conn, self)
        sent = self.sent
        for conn, message in outcome.messages:
            number = last_event_of(message)
            if number is not None:
                sent[conn] = number
            self.deliver(conn, message)
        if outcome.record is not None and self.on_finished is not None:
            self.on_finished(self, outcome)
        if outcome.dirty and self.referee.table.move_deadline:
            await self._filing.file(self.table_id, self.referee.table)
        for notice in outcome.notices:  # told after the commit, like every message
            await self.waiting.notices.send(notice)

    async def _commit(self, outcome: Outcome) -> StoredTable:
        """One fenced, version-checked commit; an uncertain one is settled before returning.

        Refused for the lease while this process can take it back (it lapsed, or a fence of
        this room's own, still queued in a stalled Redis, ran after a later one): retried once
        with the new token; the version check still refuses it if anyone wrote meanwhile.
        """
        expected, commit_id = self.version, next_commit_id()
        state, delta = self.referee.stored_form()  # a failed commit rebuilds the referee
        for attempt in (1, 2):
            try:
                return await self.store.commit(
                    self.table_id,
                    expected,
                    state,
                    outcome.entries,
                    outcome.record,
                    lease=self.lease,
                    commit_id=commit_id,
                    delta=delta,
                )
            except CommitUncertain as exc:
                log.warning("commit not answered; reading it back", error=str(exc))
                stored = await self._settle(expected, commit_id)
                if stored is not None:
                    log.info("the unanswered commit was stored", version=stored.version)
                    return stored
                self.failed = True
                raise StoreUnavailable("storage unavailable: the move was not stored") from exc
            except LeaseLost:
                held = self.lease.token
                await self._check_lease()
                if attempt == 1 and not self.lost and self.lease.token != held:
                    continue
                self.failed = True  # memory is ahead of the store: nobody may see it
                log.warning("commit refused: this process no longer holds the table's lease")
                raise
            except Exception:
                self.failed = True  # memory is ahead of the store: nobody may see it
                log.exception("commit failed; the table will be reloaded")
                raise
        raise AssertionError("unreachable: the second attempt returns or raises")

    async def _settle(self, expected: int, commit_id: str) -> StoredTable | None:
        """Whether an unanswered commit was stored: the stored table if so, None if not, and
        ``CommitUncertain`` if the table was written past it meanwhile (the store keeps only the
        last commit's id, so whether version ``expected + 1`` was this one is not known).

        ``fence`` first (a new token for this room, or none if another process took the lease,
        which fenced it just the same): the commit, should it still be queued in a stalled
        Redis, is refused when it runs, so the ``load`` after it is final. Retries while the
        store is away, for up to ``resolve_s``; then ``StoreUnavailable`` (the outcome is
        unknown: the room rebuilds from the store, whatever it holds, before its next command).
        """
        deadline = time.monotonic() + self.resolve_s
        while True:
            try:
                token = await self.store.fence(self.table_id, self.owner, self.lease_s)
                stored = await self.store.load(self.table_id)
                break
            except StoreUnavailable as exc:
                if self.closing or time.monotonic() >= deadline:
                    self.failed = True
                    raise CommitUncertain(
                        "storage unavailable: could not tell whether the move was stored"
                    ) from exc
                await asyncio.sleep(STORE_RETRY_S)  # a retry period while the store is away
        if token:
            self.lease = Lease(self.owner, token)
        else:
            self.lost = True  # handed over once the outcome is delivered (or refused)
        if stored is None:
            self.failed = True
            raise TableNotFound(f"table {self.table_id!r} is gone from the store")
        if stored.version == expected + 1 and stored.commit_id == commit_id:
            return stored
        if stored.version > expected + 1:  # written since (a takeover while this one waited):
            self.failed = True  # version expected + 1 may be this commit; its id is gone
            raise CommitUncertain(
                "storage unavailable: could not tell whether the move was stored (the table "
                "was written since)"
            )
        return None

    async def _check_lease(self) -> None:
        """After a refused commit: take the lease back if it is free, or hand the table over."""
        if self.closing:
            return
        try:
            token = await self.store.acquire_lease(self.table_id, self.owner, self.lease_s)
        except StoreError:
            return  # the next reload tries again
        if token:
            self.lease = Lease(self.owner, token)
        else:
            self._hand_over()

    def _hand_over(self) -> None:
        """Another process holds the lease: stop writing, pass the connections on (once)."""
        self.lost = True
        self._wake.set()  # the clock task sees ``lost`` and ends
        if self._handed or self.closing:
            return
        self._handed = True
        log.warning("another process holds this table's lease; handing it over")
        if self.on_lease_lost is not None:
            self.on_lease_lost(self)

    async def _reload(self) -> None:
        """Rebuild the referee from the store and put its live connections back, each from the
        last event it was sent (a stale room whose store did not move just goes on).

        After a failed commit the lease is taken with a ``fence``: a commit of its own still in
        flight is refused from then on. On a Sentinel store either take is held by a replica
        before the load, so nobody is shown a move the primary holds and no replica does."""
        if self.failed:
            token = await self.store.fence(self.table_id, self.owner, self.lease_s)
        else:
            token = await self.store.acquire_lease(
                self.table_id, self.owner, self.lease_s, before_load=True
            )
        if not token:
            self._hand_over()
            raise LeaseLost(f"table {self.table_id!r}: another process holds its lease")
        self.lease = Lease(self.owner, token)
        if not self.failed:
            current = await self.store.load(self.table_id)
            if current is not None and current.version == self.version:
                self.stale = False
                return
        old = self.referee
        rebuilt = await rebuild(
            self.store, self.table_id, old.table.config, self.clock(), old.table.seeds
        )
        if rebuilt is None:
            raise TableNotFound(f"table {self.table_id!r} is gone from the store")
        tickets = self.tickets(set(old.table.viewers))
        self.referee, stored = rebuilt
        self.version = stored.version
        self.failed = self.stale = False
        reattached = self.referee.apply(Reattach(tuple(tickets)), self.clock())
        await self._commit_and_deliver(reattached)
        log.info("table reloaded from the store", version=self.version)

    async def _clock_loop(self) -> None:
        """Sleep until the next deadline or change; then tick and let bots decide.

        It ends when the room closes or loses its lease, checked after every wait: a
        cancellation swallowed inside the Redis client (Python 3.11's ``wait_for``) must not
        keep a closing table playing.
        """
        structlog.contextvars.bind_contextvars(table=self.table_id)
        next_lease = 0.0
        while not self._ending():
            now = self.clock()
            if now >= next_lease:
                # renew at a third of the lease, jittered: tables loaded together (a restart, a
                # benchmark) would otherwise all renew in the same instant, a stall every cycle
                next_lease = now + self.lease_s / 3 * random.uniform(0.75, 1.0)
                await self._renew_lease()
                if self._ending():
                    return
            wake = self.referee.next_wakeup()
            if self.failed or self.stale:
                wake = now + STORE_RETRY_S
            until = min(next_lease, wake if wake is not None else next_lease)
            if until > now:
                self._asleep_until = until
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(until - now):
                        await self._wake.wait()
                self._asleep_until = None
            self._wake.clear()
            if self._ending():
                return
            try:
                ticked = await self.run(Tick(), wake=False)
                for request in ticked.bots:
                    if self._ending():
                        return
                    await self._bot_turn(request)
                if self.referee.table.move_deadline:  # a reload's first round, a failed write
                    async with self.lock:
                        await self._filing.file(self.table_id, self.referee.table)
            except StoreError as exc:
                log.warning("store unavailable; retrying", error=str(exc))
            except Exception:
                log.exception("room clock failed")
            await asyncio.sleep(0)  # an all-bot table yields the loop between moves

    def _ending(self) -> bool:
        """The room stops: closing, or its lease is another process's (a method: it changes
        across every await)."""
        return self.closing or self.lost

    async def _renew_lease(self) -> None:
        """Keep this process the table's one writer; on losing the lease hand the table over.

        A renewal that comes back with another token means the lease lapsed (Redis was away
        longer than the lease) and was taken afresh: the room checks the store before writing.
        A stopped room takes no lease back (an unloaded table's clock one renewal late).
        """
        if self.closing:
            return
        try:
            token = await self.store.acquire_lease(self.table_id, self.owner, self.lease_s)
        except StoreError as exc:
            log.warning("lease renewal failed; retrying", error=str(exc))
            return
        if not token:
            self._hand_over()
        elif token != self.lease.token:
            self.lease = Lease(self.owner, token)
            self.stale = True

    async def _bot_turn(self, request: BotRequest) -> None:
        structlog.contextvars.bind_contextvars(seat=request.seat, last_event=request.at)
        action, ran = await self.bots.decide_served(
            request.level, request.view, request.legal, request.seed, request.stand_in
        )
        self.metrics.bot_moves.labels(level=str(request.level), ran=str(ran)).inc()
        await self.run(BotAnswer(request.seat, request.at, action), wake=False)
