"""The deployment, run: Debian's caddy with the repository's Caddyfile before three processes.

A private redis-server, three ``cuarenta serve`` processes on it, and caddy running
``deploy/Caddyfile`` (static upstreams: the same file compose runs with dynamic ones). People
play through the proxy, every socket naming its table once the table exists (``?t=``): the
proxy's hash and the servers' placement agree, so a table's sockets reach the process that owns
it and nothing is relayed. Then the owner of a table is killed with SIGKILL (its people
reconnect through the proxy, its tables move) and a fourth process is added (the proxy
reloaded): no viewer misses, repeats or reorders an event (``check_table``). Loopback only,
every wait bounded.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis
from websockets.exceptions import WebSocketException

from bench.caddy import Caddy, running
from bench.log_audit import check_table
from bench.recording import NAMES, Person, Recorder, Table, close_all, play_table, wait_for
from clients.session import SessionError
from protocol import client_messages as c
from protocol import server_messages as s
from server.cluster.membership import MEMBERS_KEY, place
from server.store.redis import RedisStore, open_store
from tests.durability.test_failover import serve_args
from tests.redis_server import RedisServer
from tests.serving import ServerProcess

pytestmark = [
    pytest.mark.redis,
    pytest.mark.deploy,
    pytest.mark.skipif(shutil.which("caddy") is None, reason="Debian's caddy is not installed"),
    pytest.mark.timeout(240),
]
RELAYED_SHARE_MAX = 0.02
# An absent seat's turn waits 2 s before its stand-in plays (the suite's servers wait 0 s): a
# person whose socket is moving between processes (a handover, a reconnect through the proxy)
# is not played for meanwhile, so a move refused in that window is the only move its seat made
# there (the log does not say whether a stand-in assumed after a takeover played).
HASHED = ("--placement", "rendezvous", "--away-turn", "2")


def routed(proxy: Caddy, table_id: str) -> str:
    return f"{proxy.ws_url}?t={table_id}"


def address(process: ServerProcess) -> str:
    return process.url.removeprefix("http://").rstrip("/")


async def seat_routed(proxy: Caddy) -> Table:
    """A table created through the proxy (anywhere), then everyone at it through its route:
    three players and a spectator, and the host back on its route before the game starts."""
    host = await Recorder.connect(proxy.ws_url, NAMES[0])
    assert isinstance(host, Recorder)
    created = await host.request(c.CreateTable(profile="pagat-4p"))
    assert isinstance(created, s.TableCreated)
    await host.request(c.Join(key=created.host_key))
    people = [Person(NAMES[0], 0, [host])]
    url = routed(proxy, created.table)
    for index, name in enumerate(NAMES[1:], 1):
        session = await Recorder.connect(url, name)
        assert isinstance(session, Recorder)
        await session.request(c.Join(key=created.join_key))
        people.append(Person(name, index, [session]))
    spectator = await Recorder.connect(url, "watcher")
    assert isinstance(spectator, Recorder)
    await spectator.request(c.Watch(key=created.watch_key))
    people.append(Person("watcher", None, [spectator]))
    await people[0].reconnect(url)  # the host too, now that the table has an id
    await people[0].session.request(c.Start())
    return Table(created.table, created, people)


async def keep_connected(proxy: Caddy, table: Table, person: Person) -> None:
    """Whenever the person's socket closes (its process died), come back through the proxy."""
    while True:
        await person.session.closed.wait()
        try:
            if person.seat is None:
                await person.rewatch(routed(proxy, table.table_id), table.keys.watch_key)
            else:
                await person.reconnect(routed(proxy, table.table_id))
        except (SessionError, OSError, TimeoutError, WebSocketException):
            # refused, unreachable, or its new socket closed too (the proxy reloading, the
            # process it reached dying): try again, as a browser does
            await asyncio.sleep(0.2)  # back-off before the next attempt, not a synchronisation


async def registered(store: RedisStore) -> dict[str, str]:
    """The live processes' registrations: address -> process id."""
    entries = await store.client.zrangebyscore(MEMBERS_KEY, time.time(), "+inf")
    return dict(entry.decode().split(" ", 1) for entry in entries)


async def placed_where_owned(store: RedisStore, tables: list[Table]) -> bool:
    """Every table's lease is held by its rendezvous place among the registered processes."""
    live = await registered(store)
    for table in tables:
        where = place(table.table_id, live)
        if where is None or await store.lease_owner(table.table_id) != live[where]:
            return False
    return True


async def publishes(client: Redis) -> int:
    stats = await client.info("commandstats")
    return int(stats.get("cmdstat_publish", {}).get("calls", 0))


async def stored_last(store: RedisStore, table: Table) -> int:
    stored = await store.load(table.table_id)
    assert stored is not None
    return stored.last_event


def over(table: Table) -> bool:
    """Someone at the table was shown its game finished."""
    return any(
        (snap := person.session.snapshot) is not None and snap.info.stage == "finished"
        for person in table.people
    )


async def events_pass(store: RedisStore, tables: list[Table], count: int) -> int:
    """Wait until the tables stored ``count`` more events between them (or all finished)."""
    start = sum([await stored_last(store, table) for table in tables])

    async def moved() -> bool:
        done = all(over(t) for t in tables)
        return done or sum([await stored_last(store, t) for t in tables]) >= start + count

    await wait_for(moved, 60, f"{count} more events")
    return sum([await stored_last(store, table) for table in tables]) - start


async def each_moves_on(store: RedisStore, tables: list[Table], count: int) -> None:
    """Wait until every table stored ``count`` more events (or finished its game)."""
    start = {table.table_id: await stored_last(store, table) for table in tables}

    async def moved() -> bool:
        for table in tables:
            if not over(table) and await stored_last(store, table) < start[table.table_id] + count:
                return False
        return True

    await wait_for(moved, 60, f"every table {count} more events")


async def test_through_the_proxy_one_hop_then_a_crash_and_a_new_process_lose_nothing(
    redis_server: RedisServer, server_process: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    processes = [server_process(*serve_args(redis_server), *HASHED) for _ in range(3)]
    store = await open_store(redis_server.url)
    assert isinstance(store, RedisStore)
    client = Redis.from_url(redis_server.url)
    with running([address(p) for p in processes], tmp_path) as proxy:
        tables = [await seat_routed(proxy) for _ in range(3)]
        halt = asyncio.Event()
        games = [
            asyncio.create_task(play_table(table, 300 + 10 * i, halt))
            for i, table in enumerate(tables)
        ]
        keepers = [
            asyncio.create_task(keep_connected(proxy, table, person))
            for table in tables
            for person in table.people
        ]
        try:
            # one hop: each table is owned where the proxy sends its sockets; nothing relayed
            await wait_for(lambda: placed_where_owned(store, tables), 30, "tables at their place")
            before = await publishes(client)
            events = await events_pass(store, tables, 30)
            relayed = await publishes(client) - before
            viewers = sum(len(table.people) for table in tables) // len(tables)
            assert relayed <= RELAYED_SHARE_MAX * events * viewers, (relayed, events)

            # a crash: the owner of the first table dies; its tables move, its people come back
            owner = await store.lease_owner(tables[0].table_id)
            members = await registered(store)
            victim = next(p for p in processes if members.get(address(p)) == owner)
            victim.kill()
            survivors = [p for p in processes if p is not victim]
            await each_moves_on(store, tables, 8)

            # a fourth process: the proxy reloaded; the tables placed on it move there
            fourth = server_process(*serve_args(redis_server), *HASHED)
            proxy.reload([address(p) for p in [*survivors, fourth]])
            await wait_for(lambda: placed_where_owned(store, tables), 30, "tables re-placed")
            async with asyncio.timeout(150):
                await asyncio.gather(*games)
        finally:
            halt.set()
            await asyncio.gather(*games, return_exceptions=True)
            for keeper in keepers:
                keeper.cancel()
            await asyncio.gather(*keepers, return_exceptions=True)
        try:
            for table in tables:  # people were away (their process died): stand-ins played
                await check_table(store, table, stand_ins=True)
            await close_all(tables)
        finally:
            await client.aclose()
            await store.close()
