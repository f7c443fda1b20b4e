"""The ``Store`` protocol: what the table server needs from any persistence.

A table is stored as two things: its **state** (a JSON object the room core writes: the engine
record, seating, deadlines — enough to rebuild the room after a restart) and its **event log**
(opaque bytes per event, numbered 1, 2, 3 … by the store). The state is kept as a **snapshot**
plus a **tail** of deltas: a commit either replaces the snapshot (and empties the tail) or, with
``delta=True``, appends a delta to the tail, so a move stores what it changed, not the whole
table. ``load`` returns the state joined (``joined``): the snapshot with each delta applied.
The contract every store keeps:

- ``commit`` is ONE atomic step: it checks the expected version, stores the state (or appends
  the delta) and appends the events, or does nothing and raises ``VersionConflict``. The room
  calls it before sending anything to anyone (ARCHITECTURE invariant 3, write before send), so
  a crash can never show a viewer a move that is then lost.
- Versions count commits (a new table is version 0); event numbers are contiguous and never reused.
- One writer per table: a process owns a table while it holds its lease (invariant 4). A lease
  comes with a **fencing token** that grows with every fresh acquisition (a takeover, or the
  owner taking it back after it lapsed); a commit that carries a ``Lease`` is refused
  (``LeaseLost``) unless that owner still holds the lease with that token, checked in the same
  atomic step as the version (invariant 9): a process whose lease was taken can never write.
- A commit whose outcome is unknown (``CommitUncertain``: Redis timed out after the script was
  sent) is settled by ``fence`` then ``load``: ``fence`` takes the lease with a new token, so the
  commit, should it still be queued, is refused when it runs; the stored version and
  ``commit_id`` then say whether it was stored.
- Link keys (join, watch, host, a club's stable name) map to a table and a role.
- A finished game's R15 record is kept apart from its table (``commit(record=…)``, in the same
  atomic step) for its own, longer retention: it can be downloaded after the table expired.

Errors::

    StoreError
    ├── TableExists      create_table with an id or key already in use
    ├── TableNotFound    commit/events on a table that does not exist
    ├── VersionConflict  commit whose expected version is not the stored one
    ├── LeaseLost        commit (or fence) by a process that no longer holds the table's
    │                    lease with the token it carries: nothing was stored; stop writing
    └── StoreUnavailable the storage cannot be reached (Redis down): nothing was changed
        │                that the caller may count on; refuse the command, retry later
        └── CommitUncertain  a commit was sent but not answered (a timeout, a broken
                             connection): it may have been stored; settle it (fence, load)
                             before anyone is told anything
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import orjson

KeyRole = Literal["join", "watch", "host", "club"]


class StoreError(Exception):
    """Base of every store error."""


class TableExists(StoreError):
    pass


class TableNotFound(StoreError):
    pass


class VersionConflict(StoreError):
    """Another writer changed the table since the caller read it: reload, never overwrite."""


class LeaseLost(StoreError):
    """The writer's lease was taken over (or lapsed): the store refused the commit (invariant 9)."""


class StoreUnavailable(StoreError):
    """The storage did not answer; the command must be refused, never shown (invariant 3)."""


class CommitUncertain(StoreUnavailable):
    """The commit was sent and not answered: it may be stored. Settle it before answering."""


@dataclass(frozen=True, slots=True)
class Lease:
    """A writer's lease on a table: the owner and the fencing token its acquisition got."""

    owner: str
    token: int


def joined(snapshot: bytes, tail: Sequence[bytes]) -> bytes:
    """The state a snapshot and its tail of deltas stand for (the snapshot itself if no tail).

    A delta is a JSON object: each of its fields replaces the state's field of that name, and a
    field ``"<name>+"`` appends its items to the state's list ``<name>``.
    """
    if not tail:
        return snapshot
    state: dict[str, Any] = orjson.loads(snapshot)
    for delta in tail:
        for name, value in orjson.loads(delta).items():
            if name.endswith("+"):
                state[name[:-1]].extend(value)
            else:
                state[name] = value
    return orjson.dumps(state)


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A table as stored: its state after ``version`` commits and its last event number.

    ``load`` gives the whole state (its snapshot and tail joined); ``commit`` gives back the
    state it was given, a delta if it was one.
    """

    table_id: str
    version: int
    state: bytes
    last_event: int
    commit_id: str = ""  # the id the last commit carried ("" for none)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    n: int
    data: bytes


@dataclass(frozen=True, slots=True)
class KeyRef:
    """What a link key opens: a table and the role the key grants there."""

    table_id: str
    role: KeyRole


def credential_digest(credential: str) -> str:
    """What a kept record stores of a credential: its SHA-256, never the secret itself."""
    return hashlib.sha256(credential.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class KeptRecord:
    """A finished game's R15 record (JSON), kept after its table for the record retention.

    ``readers`` are the digests of the credentials that may download it: the host key and the
    seat tokens held when the game ended (the same people the live table gives it to).
    """

    game: int
    record: bytes
    readers: tuple[str, ...]

    def readable_by(self, credential: str) -> bool:
        digest = credential_digest(credential)
        return any(hmac.compare_digest(digest, reader) for reader in self.readers)


@runtime_checkable
class Store(Protocol):
    """Persistence for tables; every method is a coroutine so network stores fit."""

    async def create_table(
        self, table_id: str, state: bytes, keys: Mapping[str, KeyRole]
    ) -> StoredTable:
        """Store a new table at version 0 with no events and register its link keys.

        Raises ``TableExists`` if the id or any key is taken (nothing is stored then).
        """
        ...

    async def find_key(self, key: str) -> KeyRef | None:
        """Return the table and role a link key opens, or None."""
        ...

    async def load(self, table_id: str) -> StoredTable | None:
        """Return the table's current state (snapshot and tail joined), version and last event
        number, or None."""
        ...

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
        """Atomically check the lease and version, store the state and append the events.

        ``delta``: ``state`` is a delta (see ``joined``), appended to the table's tail; else it
        is the whole state, the new snapshot (the tail is emptied). The events get the numbers
        ``last_event + 1 …`` in order. Returns the new stored table
        (version ``expected_version + 1``, carrying ``commit_id``). Raises ``TableNotFound``,
        ``LeaseLost`` (``lease`` given and not held with that token) or ``VersionConflict``,
        and then changes nothing. A ``record`` is kept in the same step unless that game's
        record is kept already (the first one stays: its readers are those of the game's end).
        """
        ...

    async def find_record(self, table_id: str, game: int | None = None) -> KeptRecord | None:
        """A kept record of the table (``game`` None: its latest), even after the table expired."""
        ...

    async def keep_review(self, table_id: str, game: int, review: bytes) -> bool:
        """Keep a finished game's review (JSON naming its format) beside its kept record, for
        as long as the record; the first one stays. True if this one was kept."""
        ...

    async def find_review(self, table_id: str, game: int) -> bytes | None:
        """The review kept for the table's ``game``, or None."""
        ...

    async def events_after(self, table_id: str, after: int) -> list[StoredEvent]:
        """Return the events numbered above ``after``, in order (all of them for 0)."""
        ...

    async def acquire_lease(
        self, table_id: str, owner: str, ttl_s: float, before_load: bool = False
    ) -> int:
        """Take or renew the writer lease for ``ttl_s`` seconds: its fencing token, 0 if another
        owner holds it. A renewal keeps the token; a fresh acquisition gets a larger one.

        ``before_load``: the caller reads the table next (a load, a takeover). A store with
        replicas answers only once one holds the lease, and so everything written before it:
        a takeover never shows a move a failover could still lose. Renewals do not wait (a
        replica lagging after a failover must not cost a table its owner)."""
        ...

    async def fence(self, table_id: str, owner: str, ttl_s: float) -> int:
        """Take the lease with a NEW token (0 if another owner holds it): any commit still
        carrying the old one is refused from now on, so a ``load`` afterwards is final."""
        ...

    async def release_lease(self, table_id: str, owner: str, handover: bool = True) -> None:
        """Give the lease up if ``owner`` holds it (a no-op otherwise).

        ``handover``: another process should take the table over now (a shutdown); False when
        nobody need own it until it is asked for (it was unloaded as idle).
        """
        ...

    async def release_leases(self, table_ids: Sequence[str], owner: str) -> None:
        """Release many leases at once for a handover (a shutdown: one round trip, not one a
        table)."""
        ...

    async def table_ids(self) -> list[str]:
        """Every stored table id (for reloading tables after a restart)."""
        ...

    async def ping(self) -> None:
        """Return if the storage answers, else raise ``StoreUnavailable`` (``/readyz``)."""
        ...

    async def close(self) -> None:
        """Release connections; the store is not used afterwards."""
        ...
