"""``SentinelStore``: the Redis store on a primary with replicas, failed over by Redis Sentinel.

``--store redis+sentinel://HOST:PORT[,HOST:PORT…]/SERVICE[/DB][?wait=N&wait_timeout=S]`` names
the sentinels and the service they watch; the client asks them for the primary and follows it
when they promote a replica. The wait's settings are also ``--store-wait`` and
``--store-wait-timeout`` (``server.config``); the URL's options, when given, win.

Redis replicates asynchronously: a primary that dies may take with it writes it already
answered, and the promoted replica never saw them. Invariant 3 (write before send) then needs
more than the primary's answer, so a commit is sent together with ``WAIT N timeout`` on the same
connection (WAIT counts the replicas holding that connection's writes) and is acknowledged only
once ``N`` replicas hold it. Fewer within the timeout is ``CommitUncertain``: the primary holds
the move, no replica is known to, so the primary's answer cannot settle it. The room settles it
by ``fence`` and ``load`` as for an unanswered commit, and here the fence waits for the replicas
too: a fence a replica holds means the replica holds everything written before it, the commit
included, so the load after it is final whatever a failover does next. A fence no replica takes
within the timeout is ``StoreUnavailable``, retried for up to ``--resolve``, then the mover hears
the outcome is unknown and the room rebuilds (fenced the same way) before its next command:
nobody is shown a move before a replica holds it. A process that takes a table over (or loads
it) takes its lease the same way, so it never reads a dead owner's commit only the primary
holds; renewals do not wait (a lagging replica must not cost a table its owner). ``wait=0``
turns the wait off (faster, not safe).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from redis.asyncio import Redis
from redis.asyncio.sentinel import Sentinel
from redis.commands.core import AsyncScript

from server.store.base import CommitUncertain, StoreUnavailable
from server.store.redis import (
    RECORD_TTL_S,
    TABLE_TTL_S,
    RedisStore,
    _unavailable_on_error,
    table_key,
)
from server.store.redis_client import COMMAND_TIMEOUT_S, client_options

SCHEME = "redis+sentinel://"
WAIT_REPLICAS = 1  # replicas that must hold a commit before it is acknowledged

# ``ACQUIRE`` with ARGV[3] = '1' (a fence), except that a fence refused (another owner holds the
# lease) writes too: it bumps the table's fence counter (tokens only grow; nobody's lease
# changes), so the ``WAIT`` after it covers every write before it, a commit of ours included.
FENCE = """
local held = redis.call('GET', KEYS[1])
local exists = redis.call('EXISTS', KEYS[2]) == 1
if held then
  local space = string.find(held, ' ', 1, true)
  if string.sub(held, 1, space - 1) ~= ARGV[1] then
    if exists then redis.call('HINCRBY', KEYS[2], 'fence', 1) end
    return 0
  end
end
local token = 1
if exists then token = redis.call('HINCRBY', KEYS[2], 'fence', 1) end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
return token
"""


@dataclass(frozen=True)
class SentinelSpec:
    """What a ``redis+sentinel://`` URL says."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    wait: int | None = None  # None: not in the URL (the setting, else WAIT_REPLICAS)
    wait_timeout_s: float | None = None  # None: not in the URL (the setting, else the timeout)


def parse_url(url: str) -> SentinelSpec:
    """Parse ``redis+sentinel://h:p[,h:p…]/service[/db][?wait=N&wait_timeout=S]``."""
    if not url.startswith(SCHEME):
        raise ValueError(f"not a {SCHEME} URL: {url!r}")
    parts = urlsplit(url)
    hosts = []
    for address in parts.netloc.split(","):
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"{url!r}: each sentinel is HOST:PORT, not {address!r}")
        hosts.append((host, int(port)))
    path = [part for part in parts.path.split("/") if part]
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError(f"{url!r}: the path is /SERVICE or /SERVICE/DB")
    query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
    unknown = set(query) - {"wait", "wait_timeout"}
    if unknown:
        raise ValueError(f"{url!r}: unknown option(s) {sorted(unknown)}")
    timeout = query.get("wait_timeout")
    return SentinelSpec(
        sentinels=tuple(hosts),
        service=path[0],
        db=int(path[1]) if len(path) == 2 else 0,
        wait=None if "wait" not in query else int(query["wait"]),
        wait_timeout_s=None if timeout is None else float(timeout),
    )


class SentinelStore(RedisStore):
    """A ``RedisStore`` on Sentinel's primary whose commits are acknowledged once replicated."""

    def __init__(
        self,
        client: Redis,
        sentinels: Sequence[Redis] = (),
        wait: int = WAIT_REPLICAS,
        wait_timeout_s: float = COMMAND_TIMEOUT_S,
        table_ttl_s: float = TABLE_TTL_S,
        record_ttl_s: float = RECORD_TTL_S,
    ) -> None:
        super().__init__(client, table_ttl_s, record_ttl_s)
        self.sentinels = list(sentinels)
        self.wait = wait
        self.wait_ms = max(1, int(wait_timeout_s * 1000))
        self._fence = self._script(FENCE)

    async def _run_commit(self, keys: list[str], args: list[Any]) -> Any:
        """The script and ``WAIT`` in one round trip on one connection (WAIT is per client)."""
        if self.wait <= 0:
            return await super()._run_commit(keys, args)
        async with self.client.pipeline(transaction=False) as pipe:
            await self._commit(keys=keys, args=args, client=pipe)
            pipe.execute_command("WAIT", self.wait, self.wait_ms)
            result, replicas = await pipe.execute()
        if int(result[0]) >= 0 and int(replicas) < self.wait:
            raise CommitUncertain(
                f"storage unavailable: a move reached {replicas} of {self.wait} replica(s) "
                f"within {self.wait_ms} ms"
            )
        return result

    async def fence(self, table_id: str, owner: str, ttl_s: float) -> int:
        """A new token, acknowledged once ``wait`` replicas hold it (and so everything written
        before it): what settles a commit the primary holds but no replica was known to.
        ``StoreUnavailable`` if fewer do within the wait's timeout (the caller retries). A
        refused fence waits too: it bumps the table's counter, covering our earlier writes."""
        if self.wait <= 0:
            return await super().fence(table_id, owner, ttl_s)
        token, replicas, ttl_ms = await self._take_and_wait(self._fence, table_id, owner, ttl_s)
        return await self._replicated(table_id, token, replicas, ttl_ms, "fence")

    async def acquire_lease(
        self, table_id: str, owner: str, ttl_s: float, before_load: bool = False
    ) -> int:
        """A take before a load is acknowledged once ``wait`` replicas hold it, as a fence is
        (``StoreUnavailable`` if fewer do: the caller retries); a renewal does not wait."""
        if self.wait <= 0 or not before_load:
            return await super().acquire_lease(table_id, owner, ttl_s)
        token, replicas, ttl_ms = await self._take_and_wait(self._acquire, table_id, owner, ttl_s)
        if not token:  # another owner holds it: nothing was written, nothing to wait for
            return 0
        return await self._replicated(table_id, token, replicas, ttl_ms, "lease")

    async def _take_and_wait(
        self, script: AsyncScript, table_id: str, owner: str, ttl_s: float
    ) -> tuple[int, int, int]:
        """The lease script (``ACQUIRE`` unforced, or ``FENCE``) and ``WAIT`` in one round trip
        on one connection: its token, the replicas holding what it wrote, the lease in ms."""
        ttl_ms = max(1, int(ttl_s * 1000))
        keys = [table_key(table_id, "lease"), table_key(table_id, "meta")]
        async with (
            _unavailable_on_error("take a table's lease"),
            self.client.pipeline(transaction=False) as pipe,
        ):
            await script(keys=keys, args=[owner, ttl_ms, "0"], client=pipe)
            pipe.execute_command("WAIT", self.wait, self.wait_ms)
            token, replicas = await pipe.execute()
        return int(token), int(replicas), ttl_ms

    async def _replicated(
        self, table_id: str, token: int, replicas: int, ttl_ms: int, what: str
    ) -> int:
        """The token of a take ``replicas`` hold, indexed; ``StoreUnavailable`` if too few do."""
        if replicas < self.wait:
            raise StoreUnavailable(
                f"storage unavailable: a {what} reached {replicas} of {self.wait} replica(s) "
                f"within {self.wait_ms} ms"
            )
        if token:
            await self._index_lease(table_id, ttl_ms)
        return token

    async def close(self) -> None:
        await super().close()
        for sentinel in self.sentinels:  # the clients that asked where the primary is
            await sentinel.aclose()


async def open_store(
    url: str,
    table_ttl_s: float = TABLE_TTL_S,
    record_ttl_s: float = RECORD_TTL_S,
    timeout_s: float | None = None,
    *,
    wait: int | None = None,
    wait_timeout_s: float | None = None,
) -> SentinelStore:
    """Ask the sentinels for the primary and check it answers (``StoreUnavailable`` if not).

    ``wait`` and ``wait_timeout_s`` (the settings) apply where the URL does not say; a command
    may take ``timeout_s`` plus the wait's timeout: the WAIT runs inside it."""
    spec = parse_url(url)
    timeout = COMMAND_TIMEOUT_S if timeout_s is None else timeout_s
    replicas = next(n for n in (spec.wait, wait, WAIT_REPLICAS) if n is not None)
    wait_timeout = next(s for s in (spec.wait_timeout_s, wait_timeout_s, timeout) if s is not None)
    options = client_options(timeout + (wait_timeout if replicas > 0 else 0.0))
    sentinel = Sentinel(  # type: ignore[no-untyped-call]
        list(spec.sentinels),
        sentinel_kwargs={"socket_timeout": timeout, "socket_connect_timeout": timeout},
    )
    client = sentinel.master_for(spec.service, db=spec.db, **options)
    store = SentinelStore(
        client, sentinel.sentinels, replicas, wait_timeout, table_ttl_s, record_ttl_s
    )
    try:
        await store.ping()
    except StoreUnavailable:
        await store.close()
        raise
    return store
