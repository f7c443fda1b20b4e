"""``MemoryStore``: the embedded default, for one process; nothing survives the process.

Each method finishes without awaiting anything, so on one event loop every call is atomic: the
contract's compare-and-set holds without locks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from server.store.base import (
    KeyRef,
    KeyRole,
    StoredEvent,
    StoredTable,
    TableExists,
    TableNotFound,
    VersionConflict,
)


@dataclass(slots=True)
class _Lease:
    owner: str
    expires: float


@dataclass(slots=True)
class _Table:
    stored: StoredTable
    log: list[bytes] = field(default_factory=list)


class MemoryStore:
    """Tables, logs, keys and leases in dictionaries."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._tables: dict[str, _Table] = {}
        self._keys: dict[str, KeyRef] = {}
        self._leases: dict[str, _Lease] = {}
        self._clock = clock

    async def create_table(
        self, table_id: str, state: bytes, keys: Mapping[str, KeyRole]
    ) -> StoredTable:
        if table_id in self._tables:
            raise TableExists(f"table {table_id!r} already exists")
        taken = [key for key in keys if key in self._keys]
        if taken:
            raise TableExists(f"{len(taken)} link key(s) already in use")
        stored = StoredTable(table_id=table_id, version=0, state=state, last_event=0)
        self._tables[table_id] = _Table(stored)
        self._keys.update({key: KeyRef(table_id, role) for key, role in keys.items()})
        return stored

    async def find_key(self, key: str) -> KeyRef | None:
        return self._keys.get(key)

    async def load(self, table_id: str) -> StoredTable | None:
        table = self._tables.get(table_id)
        return table.stored if table else None

    async def commit(
        self, table_id: str, expected_version: int, state: bytes, events: Sequence[bytes]
    ) -> StoredTable:
        table = self._tables.get(table_id)
        if table is None:
            raise TableNotFound(f"table {table_id!r} does not exist")
        if table.stored.version != expected_version:
            raise VersionConflict(
                f"table {table_id!r} is at version {table.stored.version}, "
                f"not the expected {expected_version}"
            )
        table.log.extend(bytes(event) for event in events)
        table.stored = StoredTable(
            table_id=table_id,
            version=expected_version + 1,
            state=bytes(state),
            last_event=len(table.log),
        )
        return table.stored

    async def events_after(self, table_id: str, after: int) -> list[StoredEvent]:
        table = self._tables.get(table_id)
        if table is None:
            raise TableNotFound(f"table {table_id!r} does not exist")
        start = max(after, 0)
        return [StoredEvent(n, data) for n, data in enumerate(table.log[start:], start + 1)]

    async def acquire_lease(self, table_id: str, owner: str, ttl_s: float) -> bool:
        now = self._clock()
        lease = self._leases.get(table_id)
        if lease is not None and lease.owner != owner and lease.expires > now:
            return False
        self._leases[table_id] = _Lease(owner, now + ttl_s)
        return True

    async def release_lease(self, table_id: str, owner: str) -> None:
        lease = self._leases.get(table_id)
        if lease is not None and lease.owner == owner:
            del self._leases[table_id]

    async def table_ids(self) -> list[str]:
        return list(self._tables)

    async def close(self) -> None:
        return None
