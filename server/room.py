"""The asyncio shell around one ``Referee``: it commits outcomes and delivers their messages.

Every command (``server.core.commands``) runs under the room's lock: the referee computes its
outcome, the store commits the new state, its events and any record to keep in one atomic,
version-checked step, and only then are the messages delivered: written to the connections'
sockets at once, or relayed to another process's (invariants 3 and 4). A clock task sleeps
until the outcome's next wake-up (a deadline, a bot's turn) and sends a ``Tick``; bots answer
with a ``BotAnswer``, through the same path as people.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable

import structlog

from protocol import server_messages as s
from server.bots import BotRunner
from server.core.commands import BotAnswer, Command, Reattach, Tick
from server.core.referee import BotRequest, Outcome, Referee, RefereeConfig
from server.frames import Built
from server.metrics import Metrics
from server.store.base import Store, StoredTable, StoreError, TableNotFound
from server.tasks import STOP_WAIT_S, cancel_and_wait

log = structlog.get_logger("server.room")

Deliver = Callable[[str, s.ServerMessage | Built], None]
OnDetach = Callable[[str, "Room"], None]
LEASE_TTL_S = 30.0
STORE_RETRY_S = 0.25  # how often a table whose store is away tries to reload


async def rebuild(
    store: Store,
    table_id: str,
    config: RefereeConfig,
    now: float,
    seeds: Callable[[], int] | None = None,
) -> tuple[Referee, StoredTable] | None:
    """The one rebuild of a table from the store alone (state and event log); None: no table.

    A load, a takeover, a reload after a failed commit and a record read from another process's
    table all come through here.
    """
    stored = await store.load(table_id)
    if stored is None:
        return None
    events = await store.events_after(table_id, 0)
    log = [event.data for event in events]
    return Referee.from_state(stored.state, log, config, now, seeds), stored


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
        owner: str,
        clock: Callable[[], float] = time.time,
        lease_s: float = LEASE_TTL_S,
        on_lease_lost: Callable[[Room], None] | None = None,
    ) -> None:
        self.referee = referee
        self.store = store
        self.version = version
        self.bots = bots
        self.metrics = metrics
        self.deliver = deliver
        self.on_detach = detach
        self.owner = owner
        self.clock = clock
        self.lock = asyncio.Lock()
        self.failed = False
        self.lease_s = lease_s
        self.on_lease_lost = on_lease_lost  # when tables are shared: hand the table over
        self._wake = asyncio.Event()
        self._asleep_until: float | None = None  # when the clock task wakes (None: it is awake)
        self._task: asyncio.Task[None] | None = None

    @property
    def table_id(self) -> str:
        return self.referee.table_id

    def start(self) -> None:
        self._task = asyncio.create_task(self._clock_loop(), name=f"room-{self.table_id}")

    async def close(self) -> None:
        await cancel_and_wait([self._task])
        with contextlib.suppress(Exception):
            async with asyncio.timeout(STOP_WAIT_S):
                await self.store.release_lease(self.table_id, self.owner)

    async def run(self, command: Command, wake: bool = True) -> Outcome:
        """Apply one command under the lock, commit it, then deliver its messages.

        The referee raises ``Refused`` to refuse a command: nothing is committed or sent then.
        A room whose last commit failed first reloads itself from the store (memory may be
        ahead of it). ``wake`` lets the command wake the clock task when it brought the next
        deadline or bot turn forward (its own changes need not: it recomputes after each round);
        most commands do not, and waking it for nothing would double their cost.
        """
        async with self.lock:
            if self.failed:
                await self._reload()
            outcome = self.referee.apply(command, self.clock())
            await self._commit_and_deliver(outcome)
            if wake and self._asleep_until is not None:
                due = outcome.wakeup
                if due is not None and due < self._asleep_until:
                    self._wake.set()
            return outcome

    async def _commit_and_deliver(self, outcome: Outcome) -> None:
        """Write before send (invariant 3): commit, and only then hand out the messages."""
        if outcome.dirty:
            try:
                stored = await self.store.commit(
                    self.table_id,
                    self.version,
                    self.referee.to_state(),
                    outcome.entries,
                    outcome.record,
                )
            except Exception:
                self.failed = True  # memory is ahead of the store: nobody may see it
                log.exception("commit failed; the table will be reloaded")
                raise
            self.version = stored.version
            log.debug("committed", last_event=self.referee.last_event, version=self.version)
        for conn in outcome.detached:
            self.on_detach(conn, self)
        for conn, message in outcome.messages:
            self.deliver(conn, message)

    async def _reload(self) -> None:
        """Rebuild the referee from the store and put its live connections back (handover)."""
        old = self.referee
        rebuilt = await rebuild(self.store, self.table_id, old.config, self.clock(), old.seeds)
        if rebuilt is None:
            raise TableNotFound(f"table {self.table_id!r} is gone from the store")
        self.referee, stored = rebuilt
        tickets = old.tickets(set(old.viewers), stored.last_event)  # all sent up to there
        self.version = stored.version
        self.failed = False
        reattached = self.referee.apply(Reattach(tuple(tickets)), self.clock())
        await self._commit_and_deliver(reattached)
        log.info("table reloaded from the store", version=self.version)

    async def _clock_loop(self) -> None:
        """Sleep until the next deadline or change; then tick and let bots decide."""
        structlog.contextvars.bind_contextvars(table=self.table_id)
        next_lease = 0.0
        while True:
            now = self.clock()
            if now >= next_lease:
                # renew at a third of the lease, jittered: tables loaded together (a restart, a
                # benchmark) would otherwise all renew in the same instant, a stall every cycle
                next_lease = now + self.lease_s / 3 * random.uniform(0.75, 1.0)
                if not await self._renew_lease():
                    return
            wake = self.referee.next_wakeup()
            if self.failed:
                wake = now + STORE_RETRY_S
            until = min(next_lease, wake if wake is not None else next_lease)
            if until > now:
                self._asleep_until = until
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(until - now):
                        await self._wake.wait()
                self._asleep_until = None
            self._wake.clear()
            try:
                await self.run(Tick(), wake=False)
                async with self.lock:
                    requests = self.referee.due_bots(self.clock())
                for request in requests:
                    await self._bot_turn(request)
            except StoreError as exc:
                log.warning("store unavailable; retrying", error=str(exc))
            except Exception:
                log.exception("room clock failed")
            await asyncio.sleep(0)  # an all-bot table yields the loop between moves

    async def _renew_lease(self) -> bool:
        """Keep this process the table's one writer; on losing the lease hand the table over."""
        try:
            held = await self.store.acquire_lease(self.table_id, self.owner, self.lease_s)
        except StoreError as exc:
            log.warning("lease renewal failed; retrying", error=str(exc))
            return True
        if held:
            return True
        log.warning("another process holds this table's lease")
        if self.on_lease_lost is not None:
            self.on_lease_lost(self)
            return False
        return True

    async def _bot_turn(self, request: BotRequest) -> None:
        structlog.contextvars.bind_contextvars(seat=request.seat, last_event=request.at)
        action = await self.bots.decide(request.level, request.view, request.legal, request.seed)
        self.metrics.bot_moves.labels(level=str(request.level)).inc()
        await self.run(BotAnswer(request.seat, request.at, action), wake=False)
