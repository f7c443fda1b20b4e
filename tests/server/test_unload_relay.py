"""An unloaded table's last lease renewal leaves no relay behind (Redis store, one process).

The room of a table unloaded for idleness is retired: its store refuses to take the lease
back, and a renewal its clock makes after the unload reads as the lease lost. With nobody of
this process at the table there is nothing to relay, so no ``RemoteRoom`` may be kept for it:
the soak (``cuarenta bench soak --store redis``) counted one more per ~36 games, never dropped.
"""

from __future__ import annotations

import asyncio

import pytest

from bench.store import new_table
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import StartServer

pytestmark = pytest.mark.redis


async def test_a_renewal_after_the_idle_unload_keeps_no_relay(
    redis_server: RedisServer, start_server: StartServer
) -> None:
    store = await open_store(redis_server.url)
    async with start_server(store=store, idle_unload_s=0.2, claim_window_s=0.05) as server:
        host, created = await new_table(server.ws_url, seated=False)
        await host.next_snapshot(lambda snap: snap.info.stage == "finished", wait_s=60)
        room = server.lobby.rooms[created.table]
        await host.close()
        async with asyncio.timeout(30):
            while True:
                if server.lobby.unloaded:  # closed, its lease given up: not only unlisted
                    break
                await asyncio.sleep(0.02)  # the lobby's idle check is a timer
        cluster = server.lobby.cluster
        assert cluster is not None

        await room._renew_lease()  # the retired room's clock, one renewal late: lost

        assert created.table not in cluster.remotes
        assert created.table not in server.lobby.rooms
        assert await store.lease_owner(created.table) is None


async def test_one_idle_sweep_unloads_every_idle_table_and_releases_each_lease(
    redis_server: RedisServer, start_server: StartServer
) -> None:
    """The sweep closes its idle tables together (closed one after another, a busy process
    fell behind its finishing games): still each one leaves and each lease is freed."""
    store = await open_store(redis_server.url)
    async with start_server(store=store, idle_unload_s=0.0, claim_window_s=0.05) as server:
        tables = []
        for _ in range(6):
            host, created = await new_table(server.ws_url, seated=False)
            await host.next_snapshot(lambda snap: snap.info.stage == "finished", wait_s=60)
            await host.close()
            tables.append(created.table)
        async with asyncio.timeout(30):
            while True:
                if not any(server.lobby.rooms[t].referee.viewers for t in tables):
                    break
                await asyncio.sleep(0.02)  # the watchers' detaches are still being applied
        server.lobby.idle_unload_s = 1e-9
        await server.lobby.unload_idle()  # the first look marks every table idle …

        unloaded = await server.lobby.unload_idle()  # … the second unloads them

        assert sorted(unloaded) == sorted(tables)
        assert server.lobby.unloaded == len(tables)
        for table in tables:
            assert table not in server.lobby.rooms
            assert await store.lease_owner(table) is None
