"""``MemoryStore``: the embedded default, for one process; nothing survives the process.

Each method finishes without awaiting anything, so on one event loop every call is atomic: the
contract's compare-and-set holds without locks. Expiry follows the Redis store: a table lapses
``table_ttl_s`` after its last write, a finished game's record ``record_ttl_s`` after it was kept
(0: never); lapsed entries are dropped when next touched, and swept once a minute on create.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from server.store import segments
from server.store.base import (
    KeptRecord,
    KeyRef,
    KeyRole,
    Lease,
    LeaseLost,
    StoredEvent,
    StoredTable,
    TableExists,
    TableNotFound,
    VersionConflict,
    joined,
)


@dataclass(slots=True)
class _Lease:
    owner: str
    expires: float
    token: int


TABLE_TTL_S = 7 * 24 * 3600.0
RECORD_TTL_S = 90 * 24 * 3600.0
SWEEP_S = 60.0


@dataclass(slots=True)
class _Table:
    stored: StoredTable  # its state is the snapshot
    expires: float
    keys: list[str]
    log: list[bytes] = field(default_factory=list)  # the open events (``server.store.segments``)
    tail: list[bytes] = field(default_factory=list)  # the deltas since the snapshot
    #: the sealed events: (first event number, compressed segment), in order
    sealed: list[tuple[int, bytes]] = field(default_factory=list)

    @property
    def opened(self) -> int:
        """The number of the first open event."""
        return self.stored.last_event - len(self.log) + 1


class MemoryStore:
    """Tables, logs, keys, leases and kept records in dictionaries."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        table_ttl_s: float = TABLE_TTL_S,
        record_ttl_s: float = RECORD_TTL_S,
    ) -> None:
        self._tables: dict[str, _Table] = {}
        self._keys: dict[str, KeyRef] = {}
        self._leases: dict[str, _Lease] = {}
        self._fences: dict[str, int] = {}  # the last fencing token given out, per table
        self._records: dict[str, dict[int, tuple[KeptRecord, float]]] = {}  # game -> (it, lapse)
        self._reviews: dict[tuple[str, int], bytes] = {}  # (table, game): lapses with the record
        self._clock = clock
        self._table_ttl_s = table_ttl_s
        self._record_ttl_s = record_ttl_s
        self._next_sweep = clock() + SWEEP_S

    def _table(self, table_id: str) -> _Table | None:
        """The table if it has not lapsed (a lapsed one is dropped with its link keys)."""
        table = self._tables.get(table_id)
        if table is not None and table.expires <= self._clock():
            del self._tables[table_id]
            self._leases.pop(table_id, None)
            for key in table.keys:
                self._keys.pop(key, None)
            return None
        return table

    def _sweep(self) -> None:
        now = self._clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + SWEEP_S
        for table_id in list(self._tables):
            self._table(table_id)
        for table_id in list(self._records):
            self._kept(table_id)
        for table_id, game in list(self._reviews):
            if game not in self._records.get(table_id, {}):
                del self._reviews[(table_id, game)]

    async def create_table(
        self, table_id: str, state: bytes, keys: Mapping[str, KeyRole]
    ) -> StoredTable:
        self._sweep()
        if self._table(table_id) is not None:
            raise TableExists(f"table {table_id!r} already exists")
        for key in keys:
            ref = self._keys.get(key)
            if ref is not None:
                self._table(ref.table_id)  # a lapsed table frees its keys (a club's name)
        taken = [key for key in keys if key in self._keys]
        if taken:
            raise TableExists(f"{len(taken)} link key(s) already in use")
        stored = StoredTable(table_id=table_id, version=0, state=state, last_event=0)
        self._tables[table_id] = _Table(stored, self._clock() + self._table_ttl_s, list(keys))
        self._keys.update({key: KeyRef(table_id, role) for key, role in keys.items()})
        return stored

    async def find_key(self, key: str) -> KeyRef | None:
        ref = self._keys.get(key)
        if ref is None or self._table(ref.table_id) is None:
            return None
        return ref

    async def load(self, table_id: str) -> StoredTable | None:
        table = self._table(table_id)
        if table is None:
            return None
        if not table.tail:
            return table.stored
        return replace(table.stored, state=joined(table.stored.state, table.tail))

    async def commit(
        self,
        table_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[bytes],
        record: KeptRecord | None = None,
        lease: Lease | None = None,
        commit_id: str = "",
        delta: bool = False,
    ) -> StoredTable:
        table = self._table(table_id)
        if table is None:
            raise TableNotFound(f"table {table_id!r} does not exist")
        if lease is not None and not self._holds(table_id, lease):
            raise LeaseLost(f"table {table_id!r}: {lease.owner} no longer holds its lease")
        if table.stored.version != expected_version:
            raise VersionConflict(
                f"table {table_id!r} is at version {table.stored.version}, "
                f"not the expected {expected_version}"
            )
        first = table.opened
        table.log.extend(bytes(event) for event in events)
        if delta:
            table.tail.append(bytes(state))
        else:
            table.tail = []
            if segments.should_seal(len(table.log), final=record is not None):
                table.sealed.append((first, segments.sealed(table.log)))
                table.log = []
        version, last_event = expected_version + 1, table.stored.last_event + len(events)
        kept = table.stored.state if delta else bytes(state)
        table.stored = StoredTable(table_id, version, kept, last_event, commit_id)
        table.expires = self._clock() + self._table_ttl_s
        if record is not None:
            self._keep(table_id, record)
        if not delta:
            return table.stored
        return StoredTable(table_id, version, bytes(state), last_event, commit_id)

    def _keep(self, table_id: str, record: KeptRecord) -> None:
        games = self._kept(table_id)
        if record.game in games:
            return  # the first keeping stands (its readers are those of the game's end)
        lapses = self._clock() + self._record_ttl_s if self._record_ttl_s > 0 else float("inf")
        games[record.game] = (record, lapses)
        self._records[table_id] = games

    def _kept(self, table_id: str) -> dict[int, tuple[KeptRecord, float]]:
        """The table's records that have not lapsed (lapsed ones are dropped)."""
        now = self._clock()
        games = {
            game: kept for game, kept in self._records.pop(table_id, {}).items() if kept[1] > now
        }
        if games:
            self._records[table_id] = games
        return games

    async def find_record(self, table_id: str, game: int | None = None) -> KeptRecord | None:
        games = self._kept(table_id)
        if game is None:
            game = max(games, default=0)
        kept = games.get(game)
        return None if kept is None else kept[0]

    async def keep_review(self, table_id: str, game: int, review: bytes) -> bool:
        if game not in self._kept(table_id) or (table_id, game) in self._reviews:
            return False
        self._reviews[(table_id, game)] = bytes(review)
        return True

    async def find_review(self, table_id: str, game: int) -> bytes | None:
        if game not in self._kept(table_id):
            self._reviews.pop((table_id, game), None)
            return None
        return self._reviews.get((table_id, game))

    async def events_after(self, table_id: str, after: int) -> list[StoredEvent]:
        table = self._table(table_id)
        if table is None:
            raise TableNotFound(f"table {table_id!r} does not exist")
        after = max(after, 0)
        opened = table.opened
        found = [StoredEvent(n, data) for n, data in segments.events_from(table.sealed, after)]
        skip = max(after - opened + 1, 0)
        rest = enumerate(table.log[skip:], opened + skip)
        return found + [StoredEvent(n, data) for n, data in rest]

    def _holds(self, table_id: str, lease: Lease) -> bool:
        held = self._leases.get(table_id)
        return (
            held is not None
            and held.expires > self._clock()
            and held.owner == lease.owner
            and held.token == lease.token
        )

    async def acquire_lease(
        self, table_id: str, owner: str, ttl_s: float, before_load: bool = False
    ) -> int:
        return self._take(table_id, owner, ttl_s, fresh=False)

    async def fence(self, table_id: str, owner: str, ttl_s: float) -> int:
        return self._take(table_id, owner, ttl_s, fresh=True)

    def _take(self, table_id: str, owner: str, ttl_s: float, fresh: bool) -> int:
        now = self._clock()
        lease = self._leases.get(table_id)
        live = lease is not None and lease.expires > now
        if lease is not None and live and lease.owner != owner:
            return 0
        if lease is not None and live and not fresh:
            lease.expires = now + ttl_s  # a renewal keeps its token
            return lease.token
        token = self._fences.get(table_id, 0) + 1
        self._fences[table_id] = token
        self._leases[table_id] = _Lease(owner, now + ttl_s, token)
        return token

    async def release_lease(self, table_id: str, owner: str, handover: bool = True) -> None:
        lease = self._leases.get(table_id)
        if lease is not None and lease.owner == owner:
            del self._leases[table_id]

    async def release_leases(self, table_ids: Sequence[str], owner: str) -> None:
        for table_id in table_ids:
            await self.release_lease(table_id, owner)

    async def table_ids(self) -> list[str]:
        return [table_id for table_id in list(self._tables) if self._table(table_id)]

    async def ping(self) -> None:
        """The process's own memory always answers."""

    async def close(self) -> None:
        return None
