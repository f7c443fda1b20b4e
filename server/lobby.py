"""The registry of loaded tables: create them, find them by link key, load them from the store.

A table not loaded in this process is rebuilt from the store alone (state + event log), so a
restarted server loses nothing; concurrent first requests for one table share one load.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog

from protocol import server_messages as s
from protocol.base import TurnTimer
from server.bots import BotRunner
from server.metrics import Metrics
from server.referee import Referee, RefereeConfig
from server.room import LEASE_TTL_S, Room
from server.store.base import KeyRef, Store, TableExists

if TYPE_CHECKING:
    from server.cluster import Cluster, RemoteRoom

log = structlog.get_logger("server.lobby")

Deliver = Callable[[str, s.ServerMessage], None]


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
    ) -> None:
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
        self.cluster: Cluster | None = None  # set when several processes share a Redis store
        self.lease_s = LEASE_TTL_S
        self._loading: dict[str, asyncio.Future[Room | RemoteRoom | None]] = {}

    async def create(self, profile: str, options: dict[str, Any], turn_timer: TurnTimer,
                     club: str | None = None) -> Room:
        """Create and store a new table (``Refused`` for bad options)."""
        referee = Referee.create(profile, options, turn_timer, self.config, self.seeds, club)
        keys = {key: role for role, key in referee.keys.items()}
        stored = await self.store.create_table(referee.table_id, referee.to_state(), keys)
        await self.store.acquire_lease(referee.table_id, self.owner, self.lease_s)
        room = self._adopt(referee, stored.version)
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

    async def load(self, table_id: str) -> Room | None:
        """Load the table from the store into this process (its lease must be held here)."""
        old = self.rooms.pop(table_id, None)
        if old is not None:
            await old.close()
        stored = await self.store.load(table_id)
        if stored is None:
            return None
        events = await self.store.events_after(table_id, 0)
        referee = Referee.from_state(
            stored.state, [event.data for event in events], self.config, self.clock(), self.seeds
        )
        log.info("table loaded", table=table_id, events=len(events), version=stored.version)
        return self._adopt(referee, stored.version)

    def _adopt(self, referee: Referee, version: int) -> Room:
        room = Room(referee, self.store, version, self.bots, self.metrics, self.deliver,
                    self.on_detach, self.owner, self.clock)
        self.rooms[referee.table_id] = room
        room.lease_s = self.lease_s
        if self.cluster is not None:
            room.on_lease_lost = self.cluster.relinquish
        room.start()
        self.metrics.tables.set(len(self.rooms))
        return room

    async def record(self, table_id: str, credential: str) -> dict[str, Any] | None:
        """The finished game's R15 record for a seat token or host key of that table."""
        room = await self.room(table_id)
        if room is None or isinstance(room, Room):
            return None if room is None else room.referee.record_for(credential)
        stored = await self.store.load(table_id)  # owned elsewhere: read it from the store
        if stored is None:
            return None
        events = await self.store.events_after(table_id, 0)
        referee = Referee.from_state(stored.state, [event.data for event in events], self.config,
                                     self.clock(), self.seeds)
        return referee.record_for(credential)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.close()
        self.rooms.clear()
