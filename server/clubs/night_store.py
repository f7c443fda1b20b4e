"""Where a club's nights are kept: one versioned document per key, beside the club's tables.

A club has one document (its members, its nights' ids, the night in progress) and one per night
(the tournament, its tables). Every write names the version it read and is refused
(``VersionConflict``) if another writer got there first, as a table's commit is: two processes
may both try to record a finished game, one wins and the other reads again. With a Redis table
store the documents live in the same Redis (a compare-and-set script, atomic on the server), so
a restarted server finds the night where it was; else in this process's memory.

A night's document gained ``pace`` and ``paces`` (issue 41: how its rounds are played) and each
round table's entry ``move_deadline``; the keys are optional, a night written before them reads
as live (``server.clubs.night.round_pace``), so the data format stays 1.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

from server.store.base import Store, VersionConflict

if TYPE_CHECKING:
    from redis.asyncio import Redis

Doc = dict[str, Any]
NIGHT_TTL_S = 400 * 24 * 3600  # a season's nights outlive any table: about a year and a month

_CAS = """
local current = redis.call('HGET', KEYS[1], 'v') or '0'
if current ~= ARGV[1] then return -1 end
local version = tonumber(ARGV[1]) + 1
redis.call('HSET', KEYS[1], 'v', version, 'd', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return version
"""


def club_key(club: str) -> str:
    return f"cuarenta:{{club:{club}}}:club"


def night_key(club: str, night: int) -> str:
    return f"cuarenta:{{club:{club}}}:night:{night}"


class NightStore(Protocol):
    async def get(self, key: str) -> tuple[Doc, int] | None:
        """The document and its version (None: never written)."""
        ...

    async def put(self, key: str, doc: Doc, version: int) -> int:
        """Write ``doc`` over ``version`` (0: new); the new version, or ``VersionConflict``."""
        ...


class MemoryNightStore:
    def __init__(self) -> None:
        self.docs: dict[str, tuple[bytes, int]] = {}

    async def get(self, key: str) -> tuple[Doc, int] | None:
        found = self.docs.get(key)
        return None if found is None else (json.loads(found[0]), found[1])

    async def put(self, key: str, doc: Doc, version: int) -> int:
        current = self.docs.get(key, (b"", 0))[1]
        if current != version:
            raise VersionConflict(f"{key}: version {current}, not {version}")
        self.docs[key] = (json.dumps(doc).encode(), version + 1)
        return version + 1


class RedisNightStore:
    def __init__(self, client: Redis) -> None:
        self.client = client
        self._cas = client.register_script(_CAS)

    async def get(self, key: str) -> tuple[Doc, int] | None:
        found: list[Any] = await self.client.hmget(key, ["d", "v"])  # type: ignore[misc]
        if found[0] is None:
            return None
        return json.loads(found[0]), int(found[1])

    async def put(self, key: str, doc: Doc, version: int) -> int:
        written = int(await self._cas(keys=[key], args=[version, json.dumps(doc), NIGHT_TTL_S]))
        if written < 0:
            raise VersionConflict(f"{key}: changed since version {version}")
        return written


def night_store_for(tables: Store) -> NightStore:
    """Keep the nights where the tables are: Redis beside a ``RedisStore``, else memory."""
    from server.store.redis import RedisStore

    if isinstance(tables, RedisStore):
        return RedisNightStore(tables.client)
    return MemoryNightStore()
