"""Everything a club has in one file: every ``cuarenta:`` key of a Redis store, dumped and
restored (``cuarenta backup FILE``, ``cuarenta restore FILE``; the file: ``server.store.formats``).

What is saved: tables (state, event log, deltas, sealed segments), kept records and reviews,
link keys and the tables index, people (profiles, histories, ratings, friends, requests), the
rating boards, the ladder, and each club's document, nights and results, each key with its
remaining time to live. What is left out is what lives only while a process does, and the next
server rebuilds: table leases and the lease index (a restored table has no owner until it is
asked for), who is online, the processes' membership, and the live listing of public tables.

Consistency: the servers may keep playing while a backup runs. Keys are found with ``SCAN`` and
grouped by their hash tag (a table ``{t:<id>}``, a person ``{<id>}``, a club ``{club:<name>}``
…); each group is dumped by one Lua script (``DUMP`` + ``PTTL`` of every key), so it is one
instant of that table, person or club. A table's commit writes only its own tag's keys (meta,
log, tail, segments, its record) in one script, so a restored table is always one whole commit;
the script also takes the table's layout keys and every kept record and review named by its
``records`` counter, so a commit or a finished game landing between the ``SCAN`` and the dump is
taken whole, never half. Across groups there is no single instant: what the server writes in two
steps (a new table and its link keys; a friendship's two sides; a club result after the game's
record) may be found on one side only, exactly as a crash between the two steps would leave it,
which the server already tolerates. A key made after the ``SCAN`` in a group not yet found
(a table created mid-backup) is not in the backup. One instant of everything needs the servers
stopped (or a Redis ``BGSAVE``); a Lua script over the whole keyspace would stall Redis for every
player for the whole dump and cannot span a Cluster's nodes, so it is not done.

Restore writes with ``RESTORE`` (the key's remaining time from when the backup was taken, counted
again from the restore) into a target holding no ``cuarenta:`` key (``force``: ``REPLACE`` over
one that does; keys absent from the backup stay). A ``DUMP`` payload is read only by the same or
a newer Redis. The memory store keeps nothing outside its process: there is nothing to back up.
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.sentinel import Sentinel
from redis.exceptions import RedisError

from server.store.base import StoreError, StoreUnavailable
from server.store.formats import (
    DATA_FORMAT,
    FORMAT_KEY,
    PREFIX,
    Backup,
    BackupError,
    Entry,
    header,
    parse_format,
)
from server.store.redis_client import client_for

#: keys a running process keeps for itself: never saved, never counted against a target
TRANSIENT = (
    f"{PREFIX}:{{t:*}}:lease",
    f"{PREFIX}:{{leases}}",
    f"{PREFIX}:online:*",
    f"{PREFIX}:members",
    f"{PREFIX}:{{listing}}",
)
TABLE_PARTS = ("meta", "log", "tail", "segs", "records")
RESTORE_BATCH = 256

# KEYS: the keys of one hash tag. ARGV: a table's key prefix ("cuarenta:{t:<id>}:"), or "".
# Returns {name, payload, pttl, …} for each key that exists, all read in one step; for a table
# also its layout keys and the records and reviews its ``records`` counter names.
DUMP_GROUP = """
local out, seen = {}, {}
local function take(key)
  if seen[key] then return end
  seen[key] = true
  local payload = redis.call('DUMP', key)
  if payload then
    out[#out + 1] = key
    out[#out + 1] = payload
    out[#out + 1] = redis.call('PTTL', key)
  end
end
for i = 1, #KEYS do take(KEYS[i]) end
if ARGV[1] ~= '' then
  for part in string.gmatch(ARGV[2], '%S+') do take(ARGV[1] .. part) end
  local games = tonumber(redis.call('GET', ARGV[1] .. 'records') or '0') or 0
  for game = 1, games do
    take(ARGV[1] .. 'record:' .. game)
    take(ARGV[1] .. 'review:' .. game)
  end
end
return out
"""


class TargetNotEmpty(StoreError):
    """The restore's target already holds a club's data (nothing was written)."""


def is_transient(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in TRANSIENT)


def hash_tag(name: str) -> str:
    """Redis Cluster's hash tag of a key (the key itself if it has none): one group's name."""
    start = name.find("{")
    if start >= 0:
        end = name.find("}", start + 1)
        if end > start + 1:
            return name[start + 1 : end]
    return name


@contextlib.asynccontextmanager
async def connected(url: str) -> AsyncIterator[Redis]:
    """A client to the store at ``url``, closed afterwards (with a Sentinel's own clients); a
    memory store has nothing to back up."""
    if url == "memory":
        raise StoreError(
            "the memory store keeps nothing outside its process: there is nothing to back up "
            "or restore; run the server with --store redis://… to keep a club's data"
        )
    watchers: list[Redis] = []
    if url.startswith("redis+sentinel://"):
        from server.store.sentinel import parse_url

        spec = parse_url(url)
        sentinel = Sentinel(list(spec.sentinels))  # type: ignore[no-untyped-call]
        watchers = list(sentinel.sentinels)
        client = cast(Redis, sentinel.master_for(spec.service, db=spec.db))
    elif url.startswith(
        ("redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://")
    ):
        client = cast(Redis, client_for(url, timeout_s=60.0))
    else:
        raise StoreError(f"unknown store {url!r}: use a redis://, redis+cluster:// or sentinel URL")
    try:
        yield client
    finally:
        await client.aclose()
        for watcher in watchers:
            await watcher.aclose()


async def names(client: Redis) -> list[str]:
    """Every key of the prefix, found with ``SCAN`` (on a Cluster: on every primary)."""
    found = {_text(raw) async for raw in client.scan_iter(match=f"{PREFIX}:*", count=1000)}
    return sorted(name for name in found if not is_transient(name))


async def dump(
    client: Redis, found: Sequence[str] | None = None
) -> tuple[dict[str, Any], list[Entry]]:
    """The backup's header and its keys, a group (hash tag) at a time; see the docstring.

    ``found``: the key names, if already scanned (a test stands for keys that changed since)."""
    try:
        groups: dict[str, list[str]] = defaultdict(list)
        for name in await names(client) if found is None else found:
            groups[hash_tag(name)].append(name)
        script = client.register_script(DUMP_GROUP)
        entries: list[Entry] = []
        for tag, keys in groups.items():
            table = f"{PREFIX}:{{{tag}}}:" if tag.startswith("t:") else ""
            reply = await script(keys=keys, args=[table, " ".join(TABLE_PARTS)])
            for at in range(0, len(reply), 3):
                name = _text(reply[at])
                if not is_transient(name):
                    entries.append(Entry(name.encode(), int(reply[at + 2]), bytes(reply[at + 1])))
        data_format = parse_format(await client.get(FORMAT_KEY))
        info = await client.info("server")
    except RedisError as exc:
        raise StoreUnavailable(f"storage unavailable: could not back up ({exc})") from exc
    version = str(_first(info).get("redis_version", "?"))
    return header(len(entries), data_format, version), entries


async def restore(client: Redis, backup: Backup, force: bool = False) -> int:
    """Write every key of ``backup``; ``TargetNotEmpty`` (nothing written) if the target holds
    any ``cuarenta:`` key besides its format and ``force`` is not given. The keys written."""
    if backup.header["data_format"] > DATA_FORMAT:  # read_backup refuses it first
        raise BackupError("the backup's data format is newer than this cuarenta's")
    try:
        held = [name for name in await names(client) if name != FORMAT_KEY]
        if held and not force:
            raise TargetNotEmpty(
                f"the target already holds {len(held)} cuarenta key(s) (e.g. {held[0]}): "
                "restore into an empty Redis, or give --force to overwrite (nothing was written)"
            )
        target_format = parse_format(await client.get(FORMAT_KEY))
        if target_format > DATA_FORMAT:
            raise BackupError(
                f"the target holds data format {target_format}, newer than this cuarenta's "
                f"{DATA_FORMAT} (nothing was written)"
            )
        await _write(client, backup.entries, force)
    except RedisError as exc:
        raise StoreUnavailable(f"storage unavailable: restore stopped ({exc})") from exc
    return len(backup.entries)


async def _write(client: Redis, entries: Sequence[Entry], force: bool) -> None:
    """``RESTORE`` each key, a pipelined batch at a time (per node on a Cluster); the format
    key replaces the one a server that opened the empty target wrote."""
    for start in range(0, len(entries), RESTORE_BATCH):
        async with client.pipeline(transaction=False) as pipe:
            for entry in entries[start : start + RESTORE_BATCH]:
                ttl = max(entry.pttl_ms, 0)
                replace = force or entry.name == FORMAT_KEY.encode()
                pipe.restore(entry.name, ttl, entry.payload, replace=replace)
            await pipe.execute()


def _text(raw: object) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _first(info: Any) -> dict[str, Any]:
    """``INFO``'s answer (a Cluster client answers one per node: any one of them)."""
    if isinstance(info, dict) and info and all(isinstance(v, dict) for v in info.values()):
        return cast(dict[str, Any], next(iter(info.values())))
    return cast(dict[str, Any], info)
