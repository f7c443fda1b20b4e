"""``RedisStore``: tables that survive crashes and are shared by several server processes.

Layout (every key of one table shares the hash tag ``{t:<id>}``, so Redis Cluster keeps a table
on one node and its scripts never cross slots)::

    cuarenta:{t:<id>}:meta    hash  version, last_event, state
    cuarenta:{t:<id>}:log     list  event 1, event 2, …
    cuarenta:{t:<id>}:lease   str   the owning process (PX = lease time)
    cuarenta:{t:<id>}:record:<game>  hash  a finished game's R15 record and its readers' digests
    cuarenta:{t:<id>}:records str   the latest kept game number
    cuarenta:{keys}           hash  link key -> "<role> <table id>"
    cuarenta:{tables}         zset  table id -> creation time (ms), for reloading after a restart
    cuarenta:{leases}         zset  table id -> when its lease lapses (ms; 0 = handed over)

Invariant 3 (write before send) rests on ``commit``: one Lua script checks the expected version,
appends the events and replaces the state, so the write path costs one round trip and is never
half-applied. A table's keys expire ``table_ttl_s`` after its last write (default 7 days): a
finished table is never written again, so it lapses 7 days after its last event. A finished
game's record is written by the commit that ends the game (same script, same slot) and kept
``record_ttl_s`` (default 90 days; 0 = for ever), so it can be downloaded after the table lapsed.
Any Redis failure surfaces as ``StoreUnavailable``: the caller refuses the command and nothing
was shown.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from typing import Any, TypeVar, cast

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from server.store.base import (
    KeptRecord,
    KeyRef,
    KeyRole,
    StoredEvent,
    StoredTable,
    StoreUnavailable,
    TableExists,
    TableNotFound,
    VersionConflict,
)

PREFIX = "cuarenta"
KEYS_INDEX = f"{PREFIX}:{{keys}}"
TABLES_INDEX = f"{PREFIX}:{{tables}}"
LEASES_INDEX = f"{PREFIX}:{{leases}}"
TABLE_TTL_S = 7 * 24 * 3600.0
RECORD_TTL_S = 90 * 24 * 3600.0
RELAY_KEY = f"{PREFIX}:{{relay}}"  # in a Cluster, every process's relay uses this key's node
CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
CONNECT_TIMEOUT_S = 2.0
COMMAND_TIMEOUT_S = 5.0
T = TypeVar("T")
Client = Redis | RedisCluster

# KEYS: meta. ARGV: state, ttl_ms. 1 = created, 0 = the id is taken.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 0, 'last_event', 0, 'state', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: the keys index. ARGV: key1, value1, key2, value2 … All or nothing: 1, or 0 if one is taken.
_REGISTER_KEYS = """
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then return 0 end
end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 1
"""

# KEYS: meta, log [, record, records]. ARGV: expected version, state, ttl_ms
#   [, game, readers, record, record_ttl_ms], event1, event2 … (the record part iff 4 KEYS).
# Returns {version, last_event}, or {-1} (no table) / {-2, stored version} (conflict).
_COMMIT = """
local version = redis.call('HGET', KEYS[1], 'version')
if not version then return {-1} end
version = tonumber(version)
if version ~= tonumber(ARGV[1]) then return {-2, version} end
local first = 4
if #KEYS == 4 then
  first = 8
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('HSET', KEYS[3], 'game', ARGV[4], 'readers', ARGV[5], 'record', ARGV[6])
    redis.call('SET', KEYS[4], ARGV[4])
    if tonumber(ARGV[7]) > 0 then
      redis.call('PEXPIRE', KEYS[3], ARGV[7])
      redis.call('PEXPIRE', KEYS[4], ARGV[7])
    end
  end
end
local last = tonumber(redis.call('HGET', KEYS[1], 'last_event'))
local count = #ARGV - first + 1
if count > 0 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, first))
  last = last + count
end
redis.call('HSET', KEYS[1], 'version', version + 1, 'last_event', last, 'state', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if last > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return {version + 1, last}
"""

# KEYS: lease. ARGV: owner, ttl_ms. 1 = taken or renewed, 0 = another owner holds it.
_ACQUIRE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS: lease. ARGV: owner. 1 = released, 0 = not held by this owner.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0
"""


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
        self._create = self._script(_CREATE)
        self._register = self._script(_REGISTER_KEYS)
        self._commit = self._script(_COMMIT)
        self._acquire = self._script(_ACQUIRE)
        self._release = self._script(_RELEASE)

    def _script(self, source: str) -> AsyncScript:
        return self.client.register_script(source)  # EVALSHA: a Cluster routes it by its keys

    async def create_table(
        self, table_id: str, state: bytes, keys: Mapping[str, KeyRole]
    ) -> StoredTable:
        meta = table_key(table_id, "meta")
        async with _unavailable_on_error("create a table"):
            if not await self._create(keys=[meta], args=[state, self.table_ttl_ms]):
                raise TableExists(f"table {table_id!r} already exists")
            pairs = [part for key, role in keys.items() for part in (key, f"{role} {table_id}")]
            if not await self._register(keys=[KEYS_INDEX], args=pairs):
                await self.client.delete(meta)
                raise TableExists(f"{len(keys)} link key(s): one is already in use")
            await self.client.zadd(TABLES_INDEX, {table_id: _now_ms()})
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
        async with _unavailable_on_error("load a table"):
            values = await _result(
                self.client.hmget(table_key(table_id, "meta"), ["version", "last_event", "state"])
            )
        version, last_event, state = values
        if version is None:
            return None
        return StoredTable(
            table_id=table_id,
            version=int(version),
            state=bytes(state),
            last_event=int(last_event),
        )

    async def commit(
        self,
        table_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[bytes],
        record: KeptRecord | None = None,
    ) -> StoredTable:
        keys = [table_key(table_id, "meta"), table_key(table_id, "log")]
        args: list[Any] = [expected_version, state, self.table_ttl_ms]
        if record is not None:
            keys += [table_key(table_id, f"record:{record.game}"), table_key(table_id, "records")]
            args += [record.game, " ".join(record.readers), record.record, self.record_ttl_ms]
        args += events
        async with _unavailable_on_error("store a move"):
            result = await self._commit(keys=keys, args=args)
        if result[0] == -1:
            raise TableNotFound(f"table {table_id!r} does not exist")
        if result[0] == -2:
            raise VersionConflict(
                f"table {table_id!r} is at version {result[1]}, not the expected {expected_version}"
            )
        return StoredTable(
            table_id=table_id,
            version=int(result[0]),
            state=bytes(state),
            last_event=int(result[1]),
        )

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
        return KeptRecord(game, bytes(record), tuple(_text(readers).split()))

    async def events_after(self, table_id: str, after: int) -> list[StoredEvent]:
        start = max(after, 0)
        async with (
            _unavailable_on_error("read events"),
            self.client.pipeline(transaction=False) as pipe,
        ):
            pipe.exists(table_key(table_id, "meta"))
            pipe.lrange(table_key(table_id, "log"), start, -1)
            exists, items = await pipe.execute()
        if not exists:
            raise TableNotFound(f"table {table_id!r} does not exist")
        return [StoredEvent(n, bytes(data)) for n, data in enumerate(items, start + 1)]

    async def acquire_lease(self, table_id: str, owner: str, ttl_s: float) -> bool:
        """Take or renew the lease; a held lease is noted in the lease index with its lapse time.

        Renewals are off the write path (every third of the lease time), so the index update is
        a second round trip rather than a cross-slot script.
        """
        ttl_ms = max(1, int(ttl_s * 1000))
        async with _unavailable_on_error("renew a lease"):
            taken = await self._acquire(keys=[table_key(table_id, "lease")], args=[owner, ttl_ms])
            if taken:
                await _result(self.client.zadd(LEASES_INDEX, {table_id: _now_ms() + ttl_ms}))
        return bool(taken)

    async def release_lease(self, table_id: str, owner: str, handover: bool = True) -> None:
        """Give the lease up and mark it lapsed now, so a peer takes the table over at once.

        Without ``handover`` the table leaves the lease index instead: no peer takes it over
        (an idle table unloaded; the next request for it loads it wherever it arrives).
        """
        async with _unavailable_on_error("release a lease"):
            released = await self._release(keys=[table_key(table_id, "lease")], args=[owner])
            if released and handover:
                await _result(self.client.zadd(LEASES_INDEX, {table_id: 0}))
            elif released:
                await _result(self.client.zrem(LEASES_INDEX, table_id))

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
        return None if holder is None else _text(holder)

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

    def relay_client(self) -> Redis:
        """A client for the processes' pub/sub relay (``server.cluster.relay``).

        On one Redis, the store's own client. A Cluster client has no pub/sub, so the relay
        talks to one node: the primary of ``RELAY_KEY``'s slot, the same for every process. A
        publish reaches subscribers on any node (the cluster bus carries it), but its receiver
        count is that node's only, and the relay reads a count of 0 as "that process is gone".
        """
        if self.cluster is None:
            return self.client
        node = self.cluster.get_node_from_key(RELAY_KEY)
        if node is None:
            raise StoreUnavailable("storage unavailable: no Redis Cluster node for the relay")
        return Redis(
            host=node.host, port=int(node.port), **_client_options(), **_credentials(self.cluster)
        )

    async def close(self) -> None:
        await self.client.aclose()


@contextlib.asynccontextmanager
async def _unavailable_on_error(doing: str) -> AsyncIterator[None]:
    """Turn any Redis or socket failure into ``StoreUnavailable`` naming what was attempted."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"storage unavailable: could not {doing} ({exc})") from exc


async def _result(reply: Awaitable[T] | T) -> T:
    """Await a redis-py command: its stubs type the async client's replies as maybe-awaitable."""
    return await reply if inspect.isawaitable(reply) else reply


def _text(reply: object) -> str:
    """A reply as text (the client returns bytes; its stubs say str)."""
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def _now_ms() -> int:
    return int(time.time() * 1000)


def client_for(url: str) -> Client:
    """A client whose calls fail fast while Redis is away, and never retry on their own.

    A retried commit could run twice (the first attempt may have been applied before the
    connection broke); the version check would refuse the second, but failing at once and
    letting the room reload from the store is simpler to reason about. A ``redis+cluster://``
    (or ``rediss+cluster://``) URL names any node of a Redis Cluster; the client finds the rest
    and sends each table's commands to the node holding its slot.
    """
    if url.startswith(CLUSTER_SCHEMES):
        return RedisCluster.from_url(url.replace("+cluster", "", 1), **_client_options())
    return Redis.from_url(url, **_client_options())


def _client_options() -> dict[str, Any]:
    return {
        "socket_connect_timeout": CONNECT_TIMEOUT_S,
        "socket_timeout": COMMAND_TIMEOUT_S,
        "retry": Retry(NoBackoff(), 0),
        "health_check_interval": 10,
    }


def _credentials(client: RedisCluster) -> dict[str, Any]:
    options = client.connection_kwargs
    return {name: options[name] for name in ("username", "password", "ssl") if name in options}


async def open_store(
    url: str, table_ttl_s: float = TABLE_TTL_S, record_ttl_s: float = RECORD_TTL_S
) -> RedisStore:
    """Connect and check Redis answers; ``StoreUnavailable`` (a clear error) if it does not."""
    store = RedisStore(client_for(url), table_ttl_s, record_ttl_s)
    try:
        await store.ping()
    except StoreUnavailable:
        await store.close()
        raise
    return store
