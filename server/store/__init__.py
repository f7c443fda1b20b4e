"""Where tables live between commands: the ``Store`` protocol and its implementations."""

import importlib

from server.store.base import (
    CommitUncertain,
    KeptRecord,
    KeyRef,
    Lease,
    LeaseLost,
    Store,
    StoredEvent,
    StoredTable,
    StoreError,
    StoreUnavailable,
    TableExists,
    TableNotFound,
    VersionConflict,
)
from server.store.formats import claim_format
from server.store.memory import RECORD_TTL_S, TABLE_TTL_S, MemoryStore


async def open_store(
    spec: str,
    table_ttl_s: float = TABLE_TTL_S,
    record_ttl_s: float = RECORD_TTL_S,
    timeout_s: float | None = None,
    *,
    wait: int | None = None,
    wait_timeout_s: float | None = None,
) -> Store:
    """The store named by ``--store``: ``memory``, a ``redis://``, ``redis+cluster://`` or
    ``redis+sentinel://`` URL.

    A Redis store comes from ``server.store.redis.open_store(url)``, imported only
    when asked for so the embedded default never needs Redis; ``timeout_s`` is its command
    timeout (None: the Redis store's default); ``wait`` and ``wait_timeout_s`` are the Sentinel
    store's replica wait where its URL does not say (None: its defaults).
    """
    if spec == "memory":
        return MemoryStore(table_ttl_s=table_ttl_s, record_ttl_s=record_ttl_s)
    if spec.startswith(
        ("redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://")
    ):
        redis_store = importlib.import_module("server.store.redis")
        opened: Store = await redis_store.open_store(spec, table_ttl_s, record_ttl_s, timeout_s)
        return opened
    if spec.startswith("redis+sentinel://"):  # a primary, its replicas, and Sentinel's failover
        sentinel_store = importlib.import_module("server.store.sentinel")
        watched = await sentinel_store.open_store(
            spec, table_ttl_s, record_ttl_s, timeout_s, wait=wait, wait_timeout_s=wait_timeout_s
        )
        try:  # as ``server.store.redis.open_store`` does: refuse a newer data format
            await claim_format(watched.client)
        except StoreUnavailable:
            await watched.close()
            raise
        sentinel_watched: Store = watched
        return sentinel_watched
    raise ValueError(
        f"unknown store {spec!r}: use memory, a redis://, redis+cluster:// or redis+sentinel:// URL"
    )


__all__ = [
    "CommitUncertain",
    "KeptRecord",
    "KeyRef",
    "Lease",
    "LeaseLost",
    "MemoryStore",
    "Store",
    "StoreError",
    "StoredEvent",
    "StoredTable",
    "TableExists",
    "TableNotFound",
    "VersionConflict",
    "open_store",
]
