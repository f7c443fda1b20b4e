"""An unloaded table's last lease renewal leaves no relay behind (Redis store, one process).

The room of a table unloaded for idleness is retired: its store refuses to take the lease
back, and a renewal its clock makes after the unload reads as the lease lost. With nobody of
this process at the table there is nothing to relay, so no ``RemoteRoom`` may be kept for it:
the soak (``cuarenta bench soak --store redis``) counted one more per ~36 games, never dropped.
Nor may a clock step queued in the sweep's loop turn renew after the sweep: the room stops as
it is retired, so it never warns that another process holds the lease.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest
from structlog.testing import capture_logs

from bench.store import new_table
from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS, StartServer

HANDING_OVER = "another process holds this table's lease; handing it over"

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
                if not any(server.lobby.rooms[t].referee.table.viewers for t in tables):
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


async def test_a_renewal_due_as_the_idle_sweep_unloads_the_table_ends_quietly(
    redis_server: RedisServer,
) -> None:
    """A table's clock woken for its lease renewal in the loop turns around the idle sweep
    that unloads its table (a busy process wakes many clocks in one turn) must not renew
    through its retired store: it read the refusal as another process holding the lease,
    warned "handing it over" in a one-process deployment and passed the table to
    ``Cluster.relinquish``. Each attempt lets the clock run a few more steps before the
    sweep, so every interleaving of the two is tried, whatever the clock's step count."""
    store = await open_store(redis_server.url)
    skew = [0.0]  # the server's clock runs ahead on demand: a renewal falls due at once
    settings = replace(TEST_SETTINGS, lease_s=30.0, idle_unload_s=3600.0)
    server = TableServer(settings, store=store, clock=lambda: time.time() + skew[0])
    await server.start()
    try:
        lobby, cluster = server.lobby, server.lobby.cluster
        assert cluster is not None
        lobby.idle_unload_s = 1e-9  # the sweeps below are the test's, the timer's never run
        async with await ClientSession.connect(server.ws_url, "host") as host:
            for steps in range(6):
                created = await host.request(c.CreateTable())
                assert isinstance(created, s.TableCreated)
                room = lobby.rooms[created.table]
                async with asyncio.timeout(10):
                    while True:  # its first renewal (at the start) is still on its way
                        if room._asleep_until is not None:
                            break
                        await asyncio.sleep(0.01)  # polling a condition, bounded
                await lobby.unload_idle()  # the first look marks the table idle
                skew[0] += settings.lease_s  # its renewal is due the next time its clock wakes
                task = room._task
                assert task is not None
                assert not task.done()

                with capture_logs() as logs:
                    room._wake.set()
                    for _ in range(steps):
                        await asyncio.sleep(0)  # the clock's steps before the sweep's
                    unloaded = await lobby.unload_idle()  # the sweep that unloads the table
                    await asyncio.wait({task}, timeout=5)

                assert unloaded == [created.table]
                assert task.done(), "the unloaded table's clock ended"
                warnings = [entry["event"] for entry in logs if entry["log_level"] == "warning"]
                assert HANDING_OVER not in warnings, (steps, warnings)
                assert not room.lost, f"{steps} steps: an unloaded table is not handed over"
                assert created.table not in cluster.remotes
                assert created.table not in lobby.rooms
                assert await store.lease_owner(created.table) is None
                assert created.table not in await store.lapsed_leases(), "no peer takes it"
    finally:
        await server.close()
