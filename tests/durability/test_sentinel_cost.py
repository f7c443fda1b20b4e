"""What the wait for a replica costs a commit: p50/p99 latency with and without it, side by side
on one primary and one replica on loopback (``pytest -m bench -s``)."""

from __future__ import annotations

import statistics
import time

import pytest

from server.store import open_store
from tests.sentinel import SentinelServers, redis_sentinel

pytestmark = [pytest.mark.redis, pytest.mark.bench]
__all__ = ["redis_sentinel"]  # the fixture, used by name below

COMMITS = 2000
STATE = b'{"seats":[' + b'"x",' * 200 + b'"x"]}'


async def _latencies(url: str, table_id: str) -> list[float]:
    store = await open_store(url)
    await store.create_table(table_id, STATE, {})
    taken = []
    for version in range(COMMITS):
        started = time.perf_counter()
        await store.commit(table_id, version, STATE, [b"event"], commit_id=f"c{version}")
        taken.append(time.perf_counter() - started)
    await store.close()
    return taken


def _p(taken: list[float], q: int) -> float:
    return statistics.quantiles(taken, n=100)[q - 1] * 1000


async def test_a_commit_waiting_for_a_replica_costs_about_one_more_replication_hop(
    redis_sentinel: SentinelServers,
) -> None:
    rows: dict[str, tuple[float, float]] = {}
    for name, options in (("no wait", "?wait=0"), ("wait 1", ""), ("no wait ", "?wait=0")):
        taken = await _latencies(redis_sentinel.url(options), f"t-{len(rows)}")
        rows[name] = (_p(taken, 50), _p(taken, 99))
    for name, (p50, p99) in rows.items():
        print(f"\n{name:9} p50 {p50:.3f} ms  p99 {p99:.3f} ms  ({COMMITS} commits)")
    assert rows["wait 1"][0] < 20 * rows["no wait"][0], rows
