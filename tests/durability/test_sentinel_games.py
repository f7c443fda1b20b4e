"""A server on ``--store redis+sentinel://…`` plays on through the death of its Redis primary.

People play at two tables (protocol clients recording everything each viewer is sent) while the
primary is killed (SIGKILL); the sentinels promote the replica, the server follows it, and the
killed primary comes back as the new primary's replica. Every move a player was told was made is
in the promoted primary's log, and no viewer saw a gap, a duplicate or a view going backwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from bench.log_audit import check_table
from bench.recording import close_all, seat_table, wait_for
from server.store import open_store
from tests.durability.test_faults import play_through, under_way
from tests.sentinel import SentinelServers, redis_sentinel
from tests.serving import ServerProcess

pytestmark = pytest.mark.redis
__all__ = ["redis_sentinel"]  # the fixture, used by name below


async def test_games_go_on_through_a_failover_and_lose_no_acknowledged_move(
    redis_sentinel: SentinelServers, server_process: Callable[..., ServerProcess]
) -> None:
    url = redis_sentinel.url("?wait_timeout=1")
    server = server_process(
        "--store", url, "--store-timeout", "1", "--resolve", "20", "--claim-window", "0.1",
        "--commands-per-s", "10000", "--grace", "60",
    )  # fmt: skip
    tables = [await seat_table([server.ws_url], [server.ws_url]) for _ in range(2)]
    store = await open_store(url)
    old_port = redis_sentinel.primary.port

    async def fault() -> None:
        await under_way(store, tables)
        await asyncio.to_thread(redis_sentinel.primary.kill)
        await asyncio.to_thread(redis_sentinel.wait_for_promotion)
        await asyncio.to_thread(redis_sentinel.primary.start)  # back, as the replica

        async def replicating() -> bool:
            info = await asyncio.to_thread(redis_sentinel.cli, old_port, "info", "replication")
            return "master_link_status:up" in info

        await wait_for(replicating, 30, "the old primary to follow the promoted one")

    try:
        await play_through(tables, fault, seed=81, timeout_s=120)
        counts = [await check_table(store, table) for table in tables]
        await close_all(tables)
    finally:
        await store.close()
    # the failover happened (``wait_for_promotion``); on a loaded machine the sentinels may
    # since have failed back to the old primary, which is theirs to decide
    assert sum(count["acked"] for count in counts) > 0, counts
