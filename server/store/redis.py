"""``RedisStore``: tables that survive crashes and are shared by several server processes.

Layout (every key of one table shares the hash tag ``{t:<id>}``, so Redis Cluster keeps a table
on one node and its scripts never cross slots)::

    cuarenta:{t:<id>}:meta    hash  version, last_event, state (the snapshot, zlib-compressed),
                                    commit (the last commit's id), fence (the last fencing token
                                    given out), sealed (the last sealed event's number)
    cuarenta:{t:<id>}:segs    hash  first event number -> sealed segment (server.store.segments)
    cuarenta:{t:<id>}:log     list  the open events: sealed + 1, sealed + 2, …
    cuarenta:{t:<id>}:tail    list  the state's deltas since the snapshot, in order
    cuarenta:{t:<id>}:lease   str   "<owning process> <fencing token>" (PX = lease time)
    cuarenta:{t:<id>}:record:<game>  hash  a finished game's R15 record (compressed) and its
                                           readers' digests
    cuarenta:{t:<id>}:records str   the latest kept game number
    cuarenta:{t:<id>}:review:<game>  str  its review (compressed JSON), as long as the record
    cuarenta:{keys}           hash  link key -> "<role> <table id>"
    cuarenta:{tables}         zset  table id -> creation time (ms), for reloading after a restart
    cuarenta:{leases}         zset  table id -> when its lease lapses (ms; 0 = handed over)
    cuarenta:format           str   the data format of every key here (server.store.formats)

Invariant 3 (write before send) rests on ``commit``: one Lua script checks the writer's lease
(owner and fencing token: invariant 9) and the expected version, appends the events and the
state's delta to the tail (or, every few commits, replaces the snapshot and empties the tail),
so the write path costs one round trip, is never half-applied, and sends Redis what the move
changed rather than the whole table; ``load`` reads the snapshot and its tail in one script.
A snapshot commit also seals the open events into one segment (``segments``), sent in the same
call (the store remembers the open events it wrote or read); the script stores it only if it
matches the open log, else the commit is sent again without one. Snapshots, segments and kept
records are stored compressed: they are a finished table's memory for the table TTL.
A table's keys expire ``table_ttl_s`` after its last write (default 7 days): a finished table is
never written again, so it lapses 7 days after its last event. A finished game's record is written
by the commit that ends the game (same script, same slot) and kept ``record_ttl_s`` (default 90
days; 0 = for ever), so it can be downloaded after the table lapsed. Any Redis failure surfaces as
``StoreUnavailable``: the caller refuses the command and nothing was shown. A commit that was sent
but not answered (a command timeout: Redis stalled; a connection broken mid-command) is
``CommitUncertain``: the script may still run. The room settles it with ``fence`` (a new token, so
the script is refused should it run later) and ``load``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, cast

from redis.asyncio import Redis, RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from server.store import segments
from server.store.base import (
    CommitUncertain,
    KeptRecord,
    KeyRef,
    KeyRole,
    Lease,
    LeaseLost,
    StoredEvent,
    StoredTable,
    StoreUnavailable,
    TableExists,
    TableNotFound,
    VersionConflict,
    joined,
)
from server.store.formats import claim_format
from server.store.redis_client import Client, client_for
from server.store.redis_scripts import (
    ACQUIRE,
    COMMIT,
    CREATE,
    EVENTS,
    LOAD,
    REGISTER_KEYS,
    RELEASE,
)
from server.store.redis_values import (
    _now_ms,
    _packed,
    _result,
    _text,
    _unpacked,
)
from server.store.redis_values import (
    _unavailable_on_error as _unavailable_on_error,  # sentinel's too
)

PREFIX = "cuarenta"
KEYS_INDEX = f"{PREFIX}:{{keys}}"
TABLES_INDEX = f"{PREFIX}:{{tables}}"
LEASES_INDEX = f"{PREFIX}:{{leases}}"
TABLE_TTL_S = 7 * 24 * 3600.0
RECORD_TTL_S = 90 * 24 * 3600.0
NOT_SENT = " connecting to "  # redis-py's text for a connection that failed before any command


def table_key(table_id: str, part: str) -> str:
    """The Redis key of one part (meta, log, lease) of a table; all share one hash tag."""
    return f"{PREFIX}:{{t:{table_id}}}:{part}"


class RedisStore:
    """The ``Store`` protocol on one Redis (or a Cluster: every script touches one slot)."""

    def __init__(
        self, client: Client, table_ttl_s: float = TABLE_TTL_S, record_ttl_s: float = RECORD_TTL_S
    ) -> None:
        # A Cluster client answers the same commands, each sent to its key's node; it is typed
        # as the one-node client for the code sharing it (the ladder), ``cluster`` says which.
        self.client = cast(Redis, client)
        self.cluster = client if isinstance(client, RedisCluster) else None
        self.table_ttl_ms = int(table_ttl_s * 1000)
        self.record_ttl_ms = int(record_ttl_s * 1000)
        self._create = self._script(CREATE)
        self._register = self._script(REGISTER_KEYS)
        self._commit = self._script(COMMIT)
        self._load = self._script(LOAD)
        self._acquire = self._script(ACQUIRE)
        self._release = self._script(RELEASE)
        self._events = self._script(EVENTS)
        self._open = segments.OpenEvents()

    def _script(self, source: str) -> AsyncScript:
        return self.client.register_script(source)  # EVALSHA: a Cluster routes it by its keys

    async def create_table(
        self, table_id: str, state: bytes, keys: Mapping[str, KeyRole]
    ) -> StoredTable:
        meta = table_key(table_id, "meta")
        async with _unavailable_on_error("create a table"):
            created = await self._create(
                keys=[meta, table_key(table_id, "tail")],
                args=[_packed(state), self.table_ttl_ms],
            )
            if not created:
                raise TableExists(f"table {table_id!r} already exists")
            pairs = [part for key, role in keys.items() for part in (key, f"{role} {table_id}")]
            if not await self._register(keys=[KEYS_INDEX], args=pairs):
                await self.client.delete(meta)
                raise TableExists(f"{len(keys)} link key(s): one is already in use")
            await self.client.zadd(TABLES_INDEX, {table_id: _now_ms()})
        self._open.keep(table_id, 1, [])
        return StoredTable(table_id=table_id, version=0, state=bytes(state), last_event=0)

    async def find_key(self, key: str) -> KeyRef | None:
        async with _unavailable_on_error("look up a link"):
            value = await _result(self.client.hget(KEYS_INDEX, key))
            if value is None:
                return None
            role, table_id = _text(value).split(" ", 1)
            if not await self.client.exists(table_key(table_id, "meta")):
                # The table expired: forget its key so a club name can be used again.
                await _result(self.client.hdel(KEYS_INDEX, key))
                return None
        return KeyRef(table_id, cast(KeyRole, role))

    async def load(self, table_id: str) -> StoredTable | None:
        keys = [table_key(table_id, "meta"), table_key(table_id, "tail")]
        async with _unavailable_on_error("load a table"):
            values = await self._load(keys=keys)
        if not values:
            return None
        version, last_event, state, commit_id, *tail = values
        return StoredTable(
            table_id=table_id,
            version=int(version),
            state=joined(_unpacked(bytes(state)), [bytes(delta) for delta in tail]),
            last_event=int(last_event),
            commit_id=_text(commit_id),
        )

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
        seal = b"" if delta else await self._segment(table_id, events, final=record is not None)
        keys = [table_key(table_id, part) for part in ("meta", "log", "lease", "tail", "segs")]
        first, known = self._open.get(table_id) or (0, [])
        holder = "" if lease is None else f"{lease.owner} {lease.token}"
        form = state if delta else _packed(state)
        args: list[Any] = [expected_version, form, self.table_ttl_ms, holder, commit_id]
        args += ["1" if delta else "0", seal, first, first + len(known) - 1]
        if record is not None:
            keys += [table_key(table_id, f"record:{record.game}"), table_key(table_id, "records")]
            kept = _packed(record.record)
            args += [record.game, " ".join(record.readers), kept, self.record_ttl_ms]
        args += events
        try:
            result = await self._send_commit(keys, args)
            if result[0] == -4:  # the open events remembered were not the stored ones
                args[6] = b""
                result = await self._send_commit(keys, args)
        except BaseException:
            self._open.forget(table_id)
            raise
        if result[0] < 0:
            self._open.forget(table_id)
        if result[0] == -1:
            raise TableNotFound(f"table {table_id!r} does not exist")
        if result[0] == -3:
            raise LeaseLost(f"table {table_id!r}: this process no longer holds its lease")
        if result[0] == -2:
            raise VersionConflict(
                f"table {table_id!r} is at version {result[1]}, not the expected {expected_version}"
            )
        self._open.committed(table_id, int(result[1]), events, sealed=bool(result[2]))
        return StoredTable(
            table_id=table_id,
            version=int(result[0]),
            state=bytes(state),
            last_event=int(result[1]),
            commit_id=commit_id,
        )

    async def _send_commit(self, keys: list[str], args: list[Any]) -> Any:
        """One commit script call; a failure says whether it may have been stored."""
        try:
            return await self._run_commit(keys, args)
        except (RedisError, OSError) as exc:
            if NOT_SENT in str(exc):  # no connection: the script never left this process
                raise StoreUnavailable(
                    f"storage unavailable: could not store a move ({exc})"
                ) from exc
            raise CommitUncertain(
                f"storage unavailable: a move's commit was not answered ({exc})"
            ) from exc

    async def _segment(self, table_id: str, events: Sequence[bytes], final: bool) -> bytes:
        """The segment a snapshot commit seals (b"" for none): the open events and ``events``.

        The open events come from memory; a table not remembered (another process wrote it, or
        it was forgotten) is read once first, off the usual path."""
        if self._open.get(table_id) is None:
            await self._read(table_id, -1)  # remembers the open events
        first, known = self._open.get(table_id) or (0, [])
        if not first or not segments.should_seal(len(known) + len(events), final):
            return b""
        return segments.sealed([*known, *events])

    async def _run_commit(self, keys: list[str], args: list[Any]) -> Any:
        """The commit script's reply; a subclass may also make sure a replica holds it."""
        return await self._commit(keys=keys, args=args)

    async def find_record(self, table_id: str, game: int | None = None) -> KeptRecord | None:
        async with _unavailable_on_error("read a game record"):
            if game is None:
                latest = await self.client.get(table_key(table_id, "records"))
                if latest is None:
                    return None
                game = int(latest)
            values = await _result(
                self.client.hmget(table_key(table_id, f"record:{game}"), ["readers", "record"])
            )
        readers, record = values
        if record is None:
            return None
        return KeptRecord(game, _unpacked(bytes(record)), tuple(_text(readers).split()))

    async def keep_review(self, table_id: str, game: int, review: bytes) -> bool:
        key, ttl = table_key(table_id, f"review:{game}"), self.record_ttl_ms or None
        async with _unavailable_on_error("keep a review"):
            return bool(await self.client.set(key, _packed(review), nx=True, px=ttl))

    async def find_review(self, table_id: str, game: int) -> bytes | None:
        async with _unavailable_on_error("read a review"):
            kept = await self.client.get(table_key(table_id, f"review:{game}"))
        return None if kept is None else _unpacked(bytes(kept))

    async def events_after(self, table_id: str, after: int) -> list[StoredEvent]:
        """The events above ``after``: from the segments holding any, then the open log (read in
        one script, so a seal cannot land in between)."""
        start = max(after, 0)
        sealed, found, open_events = await self._read(table_id, start)
        events = [StoredEvent(n, data) for n, data in segments.events_from(found, start)]
        opened = max(start, sealed) + 1
        return events + [StoredEvent(n, data) for n, data in enumerate(open_events, opened)]

    async def _read(
        self, table_id: str, after: int
    ) -> tuple[int, list[tuple[int, bytes]], list[bytes]]:
        """The last sealed number, the segments holding an event above ``after`` and the open
        events above it (``after`` -1: the open events only). A read of every open event is
        remembered for the next seal."""
        keys = [table_key(table_id, part) for part in ("meta", "log", "segs")]
        async with _unavailable_on_error("read events"):
            reply = await self._events(keys=keys, args=[after])
        if not reply:
            raise TableNotFound(f"table {table_id!r} does not exist")
        sealed, index, found = int(reply[0]), 1, list[tuple[int, bytes]]()
        while reply[index] != 0:
            found.append((int(reply[index]), bytes(reply[index + 1])))
            index += 2
        open_events = [bytes(data) for data in reply[index + 1 :]]
        if after <= sealed:
            self._open.keep(table_id, sealed + 1, list(open_events))
        return sealed, found, open_events

    async def acquire_lease(
        self, table_id: str, owner: str, ttl_s: float, before_load: bool = False
    ) -> int:
        """Take or renew the lease; a held lease is noted in the lease index with its lapse time.

        Renewals are off the write path (every third of the lease time), so the index update is
        a second round trip rather than a cross-slot script.
        """
        return await self._take(table_id, owner, ttl_s, fresh=False)

    async def fence(self, table_id: str, owner: str, ttl_s: float) -> int:
        return await self._take(table_id, owner, ttl_s, fresh=True)

    async def _take(self, table_id: str, owner: str, ttl_s: float, fresh: bool) -> int:
        ttl_ms = max(1, int(ttl_s * 1000))
        keys = [table_key(table_id, "lease"), table_key(table_id, "meta")]
        async with _unavailable_on_error("renew a lease"):
            token = await self._acquire(keys=keys, args=[owner, ttl_ms, "1" if fresh else "0"])
        if token:
            await self._index_lease(table_id, ttl_ms)
        return int(token)

    async def _index_lease(self, table_id: str, ttl_ms: int) -> None:
        """Note a held lease's lapse time in the lease index."""
        async with _unavailable_on_error("renew a lease"):
            await _result(self.client.zadd(LEASES_INDEX, {table_id: _now_ms() + ttl_ms}))

    async def release_lease(self, table_id: str, owner: str, handover: bool = True) -> None:
        """Give the lease up and mark it lapsed now, so a peer takes the table over at once.

        Without ``handover`` the table leaves the lease index instead: no peer takes it over
        (an idle table unloaded; the next request for it loads it wherever it arrives).
        """
        self._open.forget(table_id)  # its next writer may be another process
        async with _unavailable_on_error("release a lease"):
            released = await self._release(keys=[table_key(table_id, "lease")], args=[owner])
            if released and handover:
                await _result(self.client.zadd(LEASES_INDEX, {table_id: 0}))
            elif released:
                await _result(self.client.zrem(LEASES_INDEX, table_id))

    async def release_leases(self, table_ids: Sequence[str], owner: str) -> None:
        """A shutdown's handover: every release in one pipelined round trip (one a node on a
        Cluster), then the released ones marked lapsed now in the lease index."""
        if not table_ids:
            return
        for table_id in table_ids:
            self._open.forget(table_id)
        if self.cluster is not None:  # a Cluster's pipeline sends no scripts: one call a table
            await asyncio.gather(*(self.release_lease(table_id, owner) for table_id in table_ids))
            return
        async with _unavailable_on_error("release leases"):
            async with self.client.pipeline(transaction=False) as pipe:
                for table_id in table_ids:
                    await self._release(
                        keys=[table_key(table_id, "lease")], args=[owner], client=pipe
                    )
                released = await pipe.execute()
            handed = {
                table_id: 0 for table_id, done in zip(table_ids, released, strict=True) if done
            }
            if handed:
                await _result(self.client.zadd(LEASES_INDEX, handed))

    async def lapsed_leases(self, limit: int = 100) -> list[str]:
        """Tables whose owner stopped renewing (crashed or handed over): candidates to take over."""
        async with _unavailable_on_error("list lapsed leases"):
            ids = await _result(
                self.client.zrangebyscore(LEASES_INDEX, "-inf", _now_ms(), start=0, num=limit)
            )
        return [_text(table_id) for table_id in ids]

    async def forget_lease(self, table_id: str) -> None:
        """Drop a table from the lease index (it expired, or nobody needs to own it)."""
        async with _unavailable_on_error("forget a lease"):
            await _result(self.client.zrem(LEASES_INDEX, table_id))

    async def lease_owner(self, table_id: str) -> str | None:
        """The process holding the table's lease now, or None (for forwarding, invariant 4)."""
        async with _unavailable_on_error("find a table's owner"):
            holder = await self.client.get(table_key(table_id, "lease"))
        return None if holder is None else _text(holder).split(" ", 1)[0]

    async def table_ids(self) -> list[str]:
        """Every stored table; ids of tables that expired are swept out of the index here."""
        async with _unavailable_on_error("list tables"):
            ids = [_text(raw) for raw in await self.client.zrange(TABLES_INDEX, 0, -1)]
            async with self.client.pipeline(transaction=False) as pipe:
                for table_id in ids:
                    pipe.exists(table_key(table_id, "meta"))
                alive = await pipe.execute()
            gone = [table_id for table_id, exists in zip(ids, alive, strict=True) if not exists]
            if gone:
                await self.client.zrem(TABLES_INDEX, *gone)
        return [table_id for table_id, exists in zip(ids, alive, strict=True) if exists]

    async def ping(self) -> None:
        """Raise ``StoreUnavailable`` unless Redis answers (used at start-up and for health)."""
        async with _unavailable_on_error("reach Redis"):
            await _result(self.client.ping())

    def relay_client(self) -> Client:
        """The client for the processes' pub/sub relay (``server.cluster.relay``): the store's
        own (a Cluster client too: the relay opens its subscription on its channel's node)."""
        return self.cluster if self.cluster is not None else self.client

    async def close(self) -> None:
        await self.client.aclose()


async def open_store(
    url: str,
    table_ttl_s: float = TABLE_TTL_S,
    record_ttl_s: float = RECORD_TTL_S,
    timeout_s: float | None = None,
) -> RedisStore:
    """Connect and check Redis answers; ``StoreUnavailable`` (a clear error) if it does not.

    ``timeout_s``: how long a command may go unanswered (default ``COMMAND_TIMEOUT_S``)."""
    store = RedisStore(client_for(url, timeout_s), table_ttl_s, record_ttl_s)
    try:
        await store.ping()
        await claim_format(store.client)  # refused, writing nothing, if newer (formats)
    except StoreUnavailable:
        await store.close()
        raise
    return store
