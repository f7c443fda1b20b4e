"""The Redis store on a Redis Cluster of three masters (``--store redis+cluster://…``).

Every key of a table shares one hash tag, so its Lua scripts touch one slot; tables spread
over the masters; the processes' relay (pub/sub) works through the cluster. The cluster is a
private one the fixture starts (tests/redis_server.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from redis.crc import key_slot

from server.store import KeptRecord
from server.store.base import Lease, LeaseLost, VersionConflict
from server.store.redis import RedisStore, open_store, table_key
from tests.durability.players import (
    assert_record_replays_to,
    contiguous,
    play_all,
    play_until_mid_hand,
    seat_four,
)
from tests.redis_server import RedisClusterServers
from tests.serving import ServerProcess

pytestmark = pytest.mark.redis


@pytest.fixture
async def store(redis_cluster: RedisClusterServers) -> AsyncIterator[RedisStore]:
    opened = await open_store(redis_cluster.url)
    assert opened.cluster is not None
    yield opened
    await opened.close()


async def test_a_table_plays_through_the_cluster_commit_load_events_and_lease(
    store: RedisStore,
) -> None:
    await store.create_table("t1", b"s0", {"join-key-aaaaaaaa": "join"})
    await store.commit("t1", 0, b"s1", [b"e1", b"e2"])
    record = KeptRecord(1, b'{"format":"x"}', ("digest",))
    await store.commit("t1", 1, b"s2", [b"e3"], record)
    with pytest.raises(VersionConflict):
        await store.commit("t1", 1, b"lost", [b"lost"])

    loaded = await store.load("t1")
    assert loaded is not None
    assert (loaded.version, loaded.state, loaded.last_event) == (2, b"s2", 3)
    assert [event.data for event in await store.events_after("t1", 1)] == [b"e2", b"e3"]
    assert await store.find_record("t1") == record
    found = await store.find_key("join-key-aaaaaaaa")
    assert found is not None
    assert found.table_id == "t1"

    assert await store.acquire_lease("t1", "proc-a", 30)
    assert not await store.acquire_lease("t1", "proc-b", 30)
    assert await store.lease_owner("t1") == "proc-a"
    await store.release_lease("t1", "proc-a")
    assert await store.lapsed_leases() == ["t1"]
    assert await store.table_ids() == ["t1"]


async def test_the_fence_holds_on_the_cluster_a_taken_lease_refuses_the_old_owners_commit(
    store: RedisStore,
) -> None:
    """Invariant 9 on a Cluster: the lease check runs in the commit's own script (one slot)."""
    await store.create_table("t1", b"s0", {})
    first = await store.acquire_lease("t1", "proc-a", 30)
    await store.commit("t1", 0, b"s1", [b"e1"], lease=Lease("proc-a", first), commit_id="c1")
    await store.release_leases(["t1"], "proc-a")  # a Cluster: one release a table, gathered
    second = await store.acquire_lease("t1", "proc-b", 30)
    assert second > first
    with pytest.raises(LeaseLost):
        await store.commit("t1", 1, b"stale", [b"stale"], lease=Lease("proc-a", first))
    third = await store.fence("t1", "proc-b", 30)
    with pytest.raises(LeaseLost):
        await store.commit("t1", 1, b"stale", [b"stale"], lease=Lease("proc-b", second))
    await store.commit("t1", 1, b"s2", [b"e2"], lease=Lease("proc-b", third), commit_id="c2")
    loaded = await store.load("t1")
    assert loaded is not None
    assert (loaded.version, loaded.last_event, loaded.commit_id) == (2, 2, "c2")


async def test_a_tables_keys_share_a_slot_and_tables_spread_over_the_masters(
    store: RedisStore,
) -> None:
    assert store.cluster is not None
    slots = {
        key_slot(table_key("t1", part).encode())
        for part in ("meta", "log", "lease", "record:1", "records")
    }
    assert len(slots) == 1
    nodes = set()
    for index in range(12):
        table_id = f"table-{index}"
        await store.create_table(table_id, b"s0", {})
        await store.commit(table_id, 0, b"s1", [b"e1"])
        node = store.cluster.get_node_from_key(table_key(table_id, "meta"))
        assert node is not None
        nodes.add(node.name)
    assert len(nodes) >= 2, "twelve tables all on one master"
    assert len(await store.table_ids()) == 12


async def test_two_processes_on_a_cluster_share_a_table_and_take_over_from_a_dead_owner(
    redis_cluster: RedisClusterServers,
    server_process: Callable[..., ServerProcess],
) -> None:
    """Invariant 4 through the cluster: commands forwarded and events relayed over pub/sub."""
    args = (
        "--store",
        redis_cluster.url,
        "--lease",
        "2",
        "--claim-window",
        "0.1",
        "--commands-per-s",
        "10000",
        "--away-turn",
        "0",
        "--grace",
        "60",
    )
    owner, other = server_process(*args), server_process(*args)
    sessions, _ = await seat_four([owner.ws_url, other.ws_url])  # seats 1, 3 relayed
    await play_until_mid_hand(sessions, seed=41, events=20)
    owner.kill()
    for seat in (0, 2):
        await sessions[seat].close()
        sessions[seat] = await sessions[seat].reconnect(other.ws_url, f"seat-{seat}")
    finals = await play_all(sessions, seed=43)
    assert all(contiguous(session) for session in sessions), [s.problems for s in sessions]
    await assert_record_replays_to(sessions[1], finals)
    for session in sessions:
        await session.close()
