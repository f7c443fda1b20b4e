"""The registry of loaded tables: create them, find them by link key, load them from the store.

A table not loaded in this process is rebuilt from the store alone (state + event log), so a
restarted server loses nothing; concurrent first requests for one table share one load. The same
reload brings back a table the lobby **unloaded** because it sat idle (nobody connected, nothing
due on its clocks) for ``idle_unload_s``: its memory is freed, its state stays in the store, and
the next join, resume or watch rebuilds it with its deadlines re-armed, as after a takeover.

A room the lobby unloaded can no longer write: it is stopped as it leaves the registry (a
request that raced the unload is refused, not lost; its clock takes no lease back), and its lease
is released, which fences off any write still on its way (invariant 9).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog

from protocol.base import TurnTimer
from server.bots import BotRunner
from server.config import Settings
from server.core.referee import Outcome, Referee, RefereeConfig
from server.core.table import LIVE, Pace
from server.metrics import Metrics
from server.placement import Placement
from server.rebuild import rebuild
from server.room import Deliver, Room
from server.store.base import (
    KeyRef,
    Lease,
    LeaseLost,
    Store,
    StoreUnavailable,
    TableExists,
)
from server.tasks import STOP_WAIT_S, cancel_and_wait
from server.waiting import Waiting

if TYPE_CHECKING:
    from server.cluster import Cluster, RemoteRoom

log = structlog.get_logger("server.lobby")
IDLE_UNLOAD_S = Settings().idle_unload_s  # one default each, the settings' own
IDLE_CHECK_MAX_S = 30.0  # the idle check runs every quarter of the idle time, at most this apart
LEASE_S = Settings().lease_s
RESOLVE_S = Settings().resolve_s


class Lobby:
    """All tables this process serves, and where their messages go."""

    def __init__(
        self,
        store: Store,
        config: RefereeConfig,
        bots: BotRunner,
        metrics: Metrics,
        deliver: Deliver,
        on_detach: Callable[[str, Room], None],
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] | None = None,
        lease_s: float = LEASE_S,
        idle_unload_s: float = IDLE_UNLOAD_S,
        share: Callable[[Lobby], Cluster] | None = None,
        resolve_s: float = RESOLVE_S,
        on_finished: Callable[[Room, Outcome], None] | None = None,
        waiting: Waiting | None = None,
    ) -> None:
        """``share`` makes the cluster that shares this lobby's tables with other processes
        (with a Redis store); ``idle_unload_s`` 0 never unloads an idle table; ``on_finished``
        is told when a room here committed the end of a game (``server.people.games``);
        ``waiting`` is where turn-based tables file themselves between moves."""
        self.store = store
        self.config = config
        self.bots = bots
        self.metrics = metrics
        self.deliver = deliver
        self.on_detach = on_detach
        self.clock = clock
        self.seeds = seeds
        self.owner = f"proc-{secrets.token_hex(6)}"
        self.rooms: dict[str, Room] = {}
        #: which table each connection here is at
        self.placement: Placement[Room | RemoteRoom] = Placement()
        self.on_finished = on_finished
        self.waiting = waiting or Waiting()
        self.lease_s = lease_s
        self.resolve_s = resolve_s
        self.idle_unload_s = idle_unload_s
        self._loading: dict[str, asyncio.Future[Room | RemoteRoom | None]] = {}
        self._idle_since: dict[str, float] = {}
        self.closing = False
        self.unloaded = 0  # idle tables unloaded (and their leases given up) so far
        self._reaper: asyncio.Task[None] | None = None
        self.cluster = share(self) if share is not None else None

    def start(self) -> None:
        """Start unloading idle tables (unless ``idle_unload_s`` is 0)."""
        if self.idle_unload_s > 0:
            self._reaper = asyncio.create_task(self._reap_idle(), name="idle-tables")

    async def create(
        self,
        profile: str,
        options: dict[str, Any],
        turn_timer: TurnTimer,
        club: str | None = None,
        public: bool = False,
        casual: bool = False,
        pace: Pace = LIVE,
    ) -> Room:
        """Create and store a new table (``Refused`` for bad options); a public one is listed,
        a casual one is not rated, ``pace`` may make it turn-based."""
        referee = Referee.create(
            profile, options, turn_timer, self.config, self.seeds, club, public, casual, pace
        )
        keys = {key: role for role, key in referee.table.keys.items()}
        stored = await self.store.create_table(referee.table_id, referee.to_state(), keys)
        token = await self.store.acquire_lease(referee.table_id, self.owner, self.lease_s)
        room = self._adopt(referee, stored.version, token)
        log.info("table created", table=referee.table_id, profile=profile)
        return room

    async def ensure_club(self, name: str, profile: str = "pagat-4p") -> Room | RemoteRoom:
        """The club table whose stable join link is ``/t/<name>``, created on first use."""
        found = await self.by_key(name)
        if found is not None:
            return found[0]
        try:
            return await self.create(profile, {}, 0, club=name)
        except TableExists:
            found = await self.by_key(name)
            assert found is not None
            return found[0]

    async def by_key(self, key: str) -> tuple[Room | RemoteRoom, KeyRef] | None:
        ref = await self.store.find_key(key)
        if ref is None:
            return None
        room = await self.room(ref.table_id)
        return None if room is None else (room, ref)

    async def room(self, table_id: str) -> Room | RemoteRoom | None:
        """The loaded table, loading it from the store if needed; None if it does not exist.

        With several processes (``server.cluster``) a table owned elsewhere is a ``RemoteRoom``.
        """
        room = self.rooms.get(table_id)
        if room is not None:
            return room  # a room whose commit failed reloads itself on its next change
        if self.closing:  # its tables are handed over: load none again
            raise StoreUnavailable("storage unavailable: this server is shutting down")
        pending = self._loading.get(table_id)
        if pending is not None:
            return await pending
        future: asyncio.Future[Room | RemoteRoom | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._loading[table_id] = future
        try:
            loaded = await (self.cluster.open(table_id) if self.cluster else self.load(table_id))
            future.set_result(loaded)
            return loaded
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning
            raise
        finally:
            del self._loading[table_id]

    async def load(self, table_id: str, token: int | None = None) -> Room | None:
        """Load the table from the store into this process, under the lease held here with
        fencing ``token`` (None: take the lease first; ``LeaseLost`` if another process has it).

        The state is read after the lease was taken: the previous owner can write no more."""
        old = self.rooms.pop(table_id, None)
        if old is not None:
            await old.close()
        if token is None:
            token = await self.store.acquire_lease(
                table_id, self.owner, self.lease_s, before_load=True
            )
            if not token:
                raise LeaseLost(f"table {table_id!r}: another process holds its lease")
        rebuilt = await rebuild(self.store, table_id, self.config, self.clock(), self.seeds)
        if rebuilt is None:
            return None
        referee, stored = rebuilt
        if self.closing:  # the shutdown began while it loaded: hand it straight back
            await self.store.release_lease(table_id, self.owner)
            raise StoreUnavailable("storage unavailable: this server is shutting down")
        log.info("table loaded", table=table_id, events=stored.last_event, version=stored.version)
        return self._adopt(referee, stored.version, token)

    def loaded(self, table_id: str) -> Room | None:
        """The table if it is loaded (owned) here."""
        return self.rooms.get(table_id)

    def forget(self, room: Room) -> None:
        """This process no longer owns the table: it leaves the registry (not the store)."""
        if self.rooms.get(room.table_id) is room:
            del self.rooms[room.table_id]

    def _adopt(self, referee: Referee, version: int, token: int) -> Room:
        lost = self.cluster.relinquish if self.cluster is not None else None
        room = Room(
            referee,
            self.store,
            version,
            self.bots,
            self.metrics,
            self.deliver,
            self.on_detach,
            Lease(self.owner, token),
            self.lease_s,
            self.resolve_s,
            self.clock,
            lost,
            self.on_finished,
            self.waiting,
        )
        self.rooms[referee.table_id] = room
        self._idle_since.pop(referee.table_id, None)
        room.start()
        self.metrics.tables.set(len(self.rooms))
        return room

    async def record(
        self, table_id: str, credential: str, game: int | None = None
    ) -> dict[str, Any] | None:
        """A finished game's R15 record (``game`` None: the latest) for a seat token or host key.

        The kept record answers first — it outlives the table and needs no table loaded; a live
        table answers for its latest game too, to whoever holds a seat or the host key now.
        """
        kept = await self.store.find_record(table_id, game)
        if kept is not None and kept.readable_by(credential):
            loaded: dict[str, Any] = json.loads(kept.record)
            return loaded
        if game is not None and (kept is not None or game < 1):
            return None
        room = await self.room(table_id)
        if room is None:
            return None
        if isinstance(room, Room):
            referee = room.referee
        else:  # owned elsewhere: read it from the store
            rebuilt = await rebuild(self.store, table_id, self.config, self.clock(), self.seeds)
            if rebuilt is None:
                return None
            referee = rebuilt[0]
        if game is not None and game != referee.table.game_no:
            return None
        return referee.record_for(credential)

    # ------------------------------------------------------------------ idle tables
    async def _reap_idle(self) -> None:
        period = max(0.05, min(self.idle_unload_s / 4, IDLE_CHECK_MAX_S))
        while True:
            await asyncio.sleep(period)  # a polling period, not a synchronisation
            try:
                await self.unload_idle()
            except Exception:
                log.exception("unloading idle tables failed")

    async def unload_idle(self) -> list[str]:
        """Unload every table idle for ``idle_unload_s``; return their ids.

        All leave the registry in the pass that found them idle, then close at once: closed one
        after another (a task to stop, a lease to release: loop turns and a round trip each), a
        busy process unloaded fewer tables a second than its tables finished games.
        """
        now, unloaded = self.clock(), list[Room]()
        for table_id, room in list(self.rooms.items()):
            if self.rooms.get(table_id) is not room or not self._idle(room, now):
                self._idle_since.pop(table_id, None)
                continue
            since = self._idle_since.setdefault(table_id, now)
            if now - since >= self.idle_unload_s:
                self._retire(room)
                unloaded.append(room)
        await asyncio.gather(*(self._close_unloaded(room) for room in unloaded))
        return [room.table_id for room in unloaded]

    def _idle(self, room: Room, now: float) -> bool:
        """Nobody connected, no game on, no request running, nothing due within the idle time.

        A game in progress is never idle: with nobody connected its stand-ins are playing it
        (between their moves its clock may show nothing due while a bot decides). A solo game
        is (it waits for its person; its state stays stored). A deadline
        further off (a long grace) does not keep a table loaded: nobody is there to see it
        pass, and the reload runs it, as a takeover does.
        """
        referee = room.referee
        if (
            referee.table.viewers
            or (referee.table.in_game and not referee.table.waits)
            or room.failed
            or room.lock.locked()
        ):
            return False
        wake = referee.next_wakeup()
        return wake is None or wake > now + self.idle_unload_s

    def _retire(self, room: Room) -> None:
        # Synchronously after the idle check: no request can reach this room between the two.
        # It stops here too, not when its close task first runs: a clock step already queued
        # for this loop turn (its renewal due) would renew through the retired store, read the
        # refusal as another process holding the lease, and warn that it hands the table over.
        del self.rooms[room.table_id]
        self._idle_since.pop(room.table_id, None)
        room.stop()  # its task is awaited, and its lease released, by ``_close_unloaded``
        self.metrics.tables.set(len(self.rooms))

    async def _close_unloaded(self, room: Room) -> None:
        await room.close(handover=False)  # its clock stops; nobody need take the lease over
        self.unloaded += 1
        log.info(
            "idle table unloaded", table=room.table_id, last_event=room.referee.table.last_event
        )

    async def close(self) -> None:
        """Stop every table at once and hand them all over in one round trip.

        Every room stops writing first (``Room.stop``: a clock task that swallowed its
        cancellation stops at its next check, and any commit still on its way is refused once
        the lease is gone), their tasks are cancelled together, and the leases are released in
        one pipelined call: a peer takes the tables over at once. Bounded: about
        ``2 * STOP_WAIT_S`` whatever the number of tables.
        """
        self.closing = True
        rooms = list(self.rooms.values())
        self.rooms.clear()
        await cancel_and_wait([self._reaper, *(room.stop() for room in rooms)])
        if rooms:
            try:
                async with asyncio.timeout(STOP_WAIT_S):
                    await self.store.release_leases([room.table_id for room in rooms], self.owner)
            except Exception as exc:  # the leases lapse by themselves; a peer then takes over
                log.warning("releasing the leases failed", error=str(exc), tables=len(rooms))
