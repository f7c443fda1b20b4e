"""The Store contract (server/store/base.py), one suite for every store.

The durability engineer adds ``"redis"`` to ``STORE_KINDS`` and a branch in ``make_store``; every
test here must then pass unchanged against a real redis-server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest

from server.store import (
    KeyRef,
    MemoryStore,
    Store,
    TableExists,
    TableNotFound,
    VersionConflict,
)
from server.store.base import KeyRole

STORE_KINDS = ["memory", pytest.param("redis", marks=pytest.mark.redis)]


async def make_store(kind: str, request: pytest.FixtureRequest) -> Store:
    """Build a fresh, empty store of ``kind`` (extend for new stores)."""
    if kind == "memory":
        return MemoryStore()
    if kind == "redis":
        from server.store.redis import open_store

        return await open_store(request.getfixturevalue("redis_server").url)
    raise AssertionError(f"no factory for store kind {kind!r}")


@pytest.fixture(params=STORE_KINDS)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    made = await make_store(request.param, request)
    yield made
    await made.close()


KEYS: dict[str, KeyRole] = {
    "join-aaaaaaaa": "join",
    "watch-aaaaaaa": "watch",
    "host-aaaaaaaa": "host",
}


async def test_a_new_table_is_version_0_with_no_events(store: Store) -> None:
    created = await store.create_table("t1", b"state-0", KEYS)
    assert (created.version, created.last_event, created.state) == (0, 0, b"state-0")
    assert await store.load("t1") == created
    assert await store.events_after("t1", 0) == []
    assert "t1" in await store.table_ids()


async def test_link_keys_open_their_table_with_their_role(store: Store) -> None:
    await store.create_table("t1", b"s", KEYS)
    assert await store.find_key("watch-aaaaaaa") == KeyRef("t1", "watch")
    assert await store.find_key("host-aaaaaaaa") == KeyRef("t1", "host")
    assert await store.find_key("nobody-aaaaaa") is None


async def test_creating_a_table_twice_or_reusing_a_key_fails_and_stores_nothing(
    store: Store,
) -> None:
    await store.create_table("t1", b"s", KEYS)
    with pytest.raises(TableExists):
        await store.create_table("t1", b"other", {})
    with pytest.raises(TableExists):
        await store.create_table("t2", b"other", {"fresh-key-aaa": "join", "join-aaaaaaaa": "join"})
    assert await store.load("t2") is None
    assert await store.find_key("fresh-key-aaa") is None


async def test_commit_replaces_state_and_numbers_events_contiguously(store: Store) -> None:
    await store.create_table("t1", b"s0", {})
    first = await store.commit("t1", 0, b"s1", [b"e1", b"e2"])
    second = await store.commit("t1", 1, b"s2", [])
    third = await store.commit("t1", 2, b"s3", [b"e3"])
    assert (first.version, first.last_event) == (1, 2)
    assert (second.version, second.last_event) == (2, 2)
    assert (third.version, third.last_event, third.state) == (3, 3, b"s3")
    assert [(e.n, e.data) for e in await store.events_after("t1", 0)] == [
        (1, b"e1"),
        (2, b"e2"),
        (3, b"e3"),
    ]
    assert [e.n for e in await store.events_after("t1", 2)] == [3]
    assert await store.events_after("t1", 3) == []


async def test_a_stale_commit_changes_nothing(store: Store) -> None:
    await store.create_table("t1", b"s0", {})
    await store.commit("t1", 0, b"s1", [b"e1"])
    with pytest.raises(VersionConflict):
        await store.commit("t1", 0, b"lost", [b"lost"])
    loaded = await store.load("t1")
    assert loaded is not None
    assert (loaded.version, loaded.state, loaded.last_event) == (1, b"s1", 1)
    assert [e.data for e in await store.events_after("t1", 0)] == [b"e1"]


async def test_of_two_concurrent_writers_exactly_one_wins(store: Store) -> None:
    await store.create_table("t1", b"s0", {})
    results = await asyncio.gather(
        store.commit("t1", 0, b"a", [b"a"]),
        store.commit("t1", 0, b"b", [b"b"]),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["StoredTable", "VersionConflict"]
    assert len(await store.events_after("t1", 0)) == 1


async def test_commit_to_a_missing_table_fails(store: Store) -> None:
    with pytest.raises(TableNotFound):
        await store.commit("nope", 0, b"s", [])
    with pytest.raises(TableNotFound):
        await store.events_after("nope", 0)
    assert await store.load("nope") is None


async def test_a_lease_has_one_owner_until_released(store: Store) -> None:
    await store.create_table("t1", b"s0", {})
    assert await store.acquire_lease("t1", "proc-a", 30)
    assert await store.acquire_lease("t1", "proc-a", 30), "the owner renews its lease"
    assert not await store.acquire_lease("t1", "proc-b", 30)
    await store.release_lease("t1", "proc-b")  # not the owner: no effect
    assert not await store.acquire_lease("t1", "proc-b", 30)
    await store.release_lease("t1", "proc-a")
    assert await store.acquire_lease("t1", "proc-b", 30)


def test_memory_lease_lapses_after_its_ttl() -> None:
    now = [100.0]
    clock: Callable[[], float] = lambda: now[0]  # noqa: E731
    store = MemoryStore(clock=clock)

    async def scenario() -> None:
        assert await store.acquire_lease("t1", "a", 5)
        now[0] += 4.9
        assert not await store.acquire_lease("t1", "b", 5)
        now[0] += 0.2
        assert await store.acquire_lease("t1", "b", 5)

    asyncio.run(scenario())


def test_memory_store_satisfies_the_protocol() -> None:
    assert isinstance(MemoryStore(), Store)
