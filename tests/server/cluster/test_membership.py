"""The live processes in Redis and each table's place among them (rendezvous hashing).

The hash is Caddy 2.6's (FNV-1a over the table id and the upstream's address, highest wins):
``tests/deploy/test_caddy.py`` proves the proxy agrees; here, the properties the servers rely on.
"""

from __future__ import annotations

import pytest

from server.cluster.membership import MEMBERS_KEY, Membership, fnv32a, place
from server.store.redis import RedisStore, open_store
from tests.redis_server import RedisServer

pytestmark = pytest.mark.redis
ADDRESSES = ["10.0.0.1:8765", "10.0.0.2:8765", "10.0.0.3:8765"]
TABLES = [f"table{i}" for i in range(600)]


def test_fnv1a_is_the_reference_hash() -> None:
    assert fnv32a("") == 0x811C9DC5
    assert fnv32a("a") == 0xE40C292C
    assert fnv32a("foobar") == 0xBF9CF968


def test_a_place_is_the_highest_hash_of_the_id_and_the_address_whatever_the_order() -> None:
    for table in TABLES[:50]:
        best = max(ADDRESSES, key=lambda address: fnv32a(table + address))
        assert place(table, ADDRESSES) == best == place(table, reversed(ADDRESSES))
    assert place("t", []) is None


def test_tables_spread_over_the_processes_and_only_a_leaving_ones_move() -> None:
    before = {table: place(table, ADDRESSES) for table in TABLES}
    shares = [list(before.values()).count(address) / len(TABLES) for address in ADDRESSES]
    assert all(0.25 < share < 0.42 for share in shares), shares
    after = {table: place(table, ADDRESSES[:2]) for table in TABLES}
    moved = [table for table in TABLES if before[table] != after[table]]
    assert moved
    assert all(before[table] == ADDRESSES[2] for table in moved)


async def test_processes_register_see_each_other_and_leave(redis_server: RedisServer) -> None:
    store = await open_store(redis_server.url)
    assert isinstance(store, RedisStore)
    one = Membership(store.client, ADDRESSES[0], "proc-one", 5.0)
    two = Membership(store.client, ADDRESSES[1], "proc-two", 5.0)
    try:
        await one.start()
        await two.start()
        await one.beat()
        assert one.live == two.live == {ADDRESSES[0]: "proc-one", ADDRESSES[1]: "proc-two"}
        owners = {one.owner_of(table) for table in TABLES[:40]}
        assert owners == {"proc-one", "proc-two"}
        assert all(one.owner_of(table) == two.owner_of(table) for table in TABLES)
        one.suspect("proc-two")  # a relay nobody received: placed nowhere for a while
        assert {one.owner_of(table) for table in TABLES[:40]} == {"proc-one"}
        await two.close()
        await one.beat()
        assert one.live == {ADDRESSES[0]: "proc-one"}
        assert await store.client.zcard(MEMBERS_KEY) == 1
    finally:
        await one.close()
        await store.close()


async def test_without_hashing_every_table_is_placed_where_it_is_opened(
    redis_server: RedisServer,
) -> None:
    store = await open_store(redis_server.url)
    assert isinstance(store, RedisStore)
    first = Membership(store.client, ADDRESSES[0], "proc-one", 5.0, hashed=False)
    other = Membership(store.client, ADDRESSES[1], "proc-two", 5.0)
    try:
        await other.start()
        await first.start()
        assert all(first.placed_here(table) for table in TABLES[:40])
    finally:
        await first.close()
        await other.close()
        await store.close()
