"""``cuarenta backup`` and ``restore`` on the other Redis URL forms: a Cluster (its keys found on
every node, restored node by node) and a primary watched by Sentinel (found through them); a
server opening either claims the data format as on one Redis."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest

from server.cli import main
from server.store import open_store
from server.store.base import KeptRecord, Store
from server.store.formats import FORMAT_KEY
from tests.redis_server import RedisClusterServers, RedisServer
from tests.sentinel import SentinelServers, redis_sentinel

pytestmark = pytest.mark.redis
__all__ = ["redis_sentinel"]  # the fixture, imported for pytest
TABLES = ["t1", "t2", "t3", "t4"]  # hash tags spread over the Cluster's nodes
RECORD = KeptRecord(1, b'{"game": 1}', ("reader",))


async def fill(store: Store) -> None:
    for table in TABLES:
        await store.create_table(table, b'{"n": 0}', {f"join-{table}": "join"})
        await store.commit(table, 0, b'{"n": 1}', [b"e1", b"e2"], record=RECORD)


async def same_tables(store: Store) -> None:
    for table in TABLES:
        loaded = await store.load(table)
        assert loaded is not None
        assert (loaded.version, orjson.loads(loaded.state)) == (1, {"n": 1})
        assert [event.data for event in await store.events_after(table, 0)] == [b"e1", b"e2"]
        assert await store.find_record(table) == RECORD
        assert await store.find_key(f"join-{table}") is not None


async def cli(*args: str) -> int:
    return await asyncio.to_thread(main, list(args))


async def test_a_cluster_is_backed_up_from_every_node_and_restored_onto_one(
    redis_cluster: RedisClusterServers, target_redis: RedisServer, tmp_path: Path
) -> None:
    file = str(tmp_path / "cluster.backup")
    source = await open_store(redis_cluster.url)
    try:
        await fill(source)
        assert await cli("backup", file, "--store", redis_cluster.url) == 0
        assert await cli("restore", file, "--store", target_redis.url) == 0
        assert await cli("restore", file, "--store", redis_cluster.url) == 1  # not empty
        assert await cli("restore", file, "--store", redis_cluster.url, "--force") == 0
        await same_tables(source)
    finally:
        await source.close()
    target = await open_store(target_redis.url)
    try:
        await same_tables(target)
    finally:
        await target.close()


async def test_a_sentinel_primary_is_found_backed_up_and_restored(
    redis_sentinel: SentinelServers, target_redis: RedisServer, tmp_path: Path
) -> None:
    file = str(tmp_path / "sentinel.backup")
    source = await open_store(target_redis.url)
    try:
        await fill(source)
    finally:
        await source.close()
    assert await cli("backup", file, "--store", target_redis.url) == 0
    assert await cli("restore", file, "--store", redis_sentinel.url()) == 0
    primary = await open_store(redis_sentinel.url("?wait=0"))
    try:
        await same_tables(primary)
        assert await primary.client.get(FORMAT_KEY) == b"1"  # type: ignore[attr-defined]
    finally:
        await primary.close()
    assert await cli("backup", str(tmp_path / "again"), "--store", redis_sentinel.url()) == 0
