"""A table's event log sealed into compressed segments reads back exactly as it was written.

Random games (``tests/server/test_store_tail.py``'s: bots, people who leave and come back,
clocks, rematches) are committed move by move as the room commits them; the commit that ends a
game carries its record (and so seals every open event). At random moves, a viewer resuming
from any event number ``k`` must get exactly the events numbered above ``k`` (invariant 2: every
event once, no gap), whether they were sealed or not, and the table must rebuild from the store
as it was; on the memory store and on a real Redis. On Redis a seal also costs no extra call,
and a writer whose remembered open events are not the stored ones still stores its move.
"""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.redis_trips import client_commands
from server.store import MemoryStore, Store
from server.store.base import KeptRecord
from server.store.segments import SEAL_MIN
from tests.redis_server import RedisServer
from tests.server.test_store_tail import Game, games, played, same_table


def endings(game: Game) -> set[int]:
    """The commits (0-based) that end a game: the room's commit then carries its record."""
    records = [json.loads(commit.whole)["finished_record"] for commit in game.commits]
    return {
        n
        for n, record in enumerate(records)
        if record is not None and record != (records[n - 1] if n else None)
    }


async def check(store: Store, game: Game, seed: int) -> None:
    """Commit every form; after some commits, read from random event numbers and rebuild."""
    pick = random.Random(seed)
    ref = game.ref
    await store.create_table(ref.table_id, game.created, {})
    log: list[bytes] = []
    ends = endings(game)
    for n, commit in enumerate(game.commits):
        record = KeptRecord(n, b"{}", ()) if n in ends else None
        await store.commit(ref.table_id, n, commit.form, commit.entries, record, delta=commit.delta)
        log += commit.entries
        if pick.random() < 0.2 or n == len(game.commits) - 1:
            for after in {0, len(log), *(pick.randint(0, len(log)) for _ in range(4))}:
                events = await store.events_after(ref.table_id, after)
                assert [(e.n, e.data) for e in events] == list(enumerate(log[after:], after + 1))
    loaded = await store.load(ref.table_id)
    assert loaded is not None
    assert loaded.last_event == len(log)
    stored = [event.data for event in await store.events_after(ref.table_id, 0)]
    same_table(loaded.state, game.commits[-1].whole, stored)


@settings(max_examples=15, deadline=None)
@given(game=games, seed=st.integers(0, 1_000))
def test_memory_reads_sealed_and_open_events_from_any_number(
    game: tuple[int, int, int, list[tuple[str, int]]], seed: int
) -> None:
    asyncio.run(check(MemoryStore(), played(*game), seed))


@pytest.mark.redis
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(game=games, seed=st.integers(0, 1_000))
def test_redis_reads_sealed_and_open_events_from_any_number(
    redis_server: RedisServer, game: tuple[int, int, int, list[tuple[str, int]]], seed: int
) -> None:
    from server.store.redis import open_store

    async def on_redis() -> None:
        store = await open_store(redis_server.url)
        try:
            await check(store, played(*game), seed)
        finally:
            await store.close()

    asyncio.run(on_redis())


def finished_game() -> Game:
    game = played(7, 0, 0, [("all", 1)])
    assert endings(game), "the game reached its end"
    return game


@pytest.mark.redis
async def test_a_finished_table_keeps_its_log_sealed_and_a_seal_costs_no_extra_call(
    redis_server: RedisServer,
) -> None:
    from server.store.redis import open_store, table_key

    game, store = finished_game(), await open_store(redis_server.url)
    table = game.ref.table_id
    try:
        await store.create_table(table, game.created, {})
        end = min(endings(game))
        for n, commit in enumerate(game.commits[:end]):
            await store.commit(table, n, commit.form, commit.entries, delta=commit.delta)
        last = game.commits[end]
        assert not last.delta, "a game's end is a snapshot"
        record = KeptRecord(1, b"{}", ())
        sent = await client_commands(
            redis_server.url,
            lambda: store.commit(table, end, last.form, last.entries, record, delta=False),
        )
        assert sent == {"EVALSHA": 1}
        assert await store.client.llen(table_key(table, "log")) == 0  # type: ignore[misc]
        segments = await store.client.hlen(table_key(table, "segs"))  # type: ignore[misc]
        events = sum(len(commit.entries) for commit in game.commits[: end + 1])
        assert 1 <= segments <= events // SEAL_MIN + 1
    finally:
        await store.close()


@pytest.mark.redis
async def test_a_writer_that_did_not_write_the_open_events_still_seals_them_right(
    redis_server: RedisServer,
) -> None:
    """Processes take turns writing a table (takeovers): each seal gathers open events that
    another process wrote, and every event reads back once, in order."""
    from server.store.redis import open_store

    game = finished_game()
    table, log = game.ref.table_id, list[bytes]()
    first, second = await open_store(redis_server.url), await open_store(redis_server.url)
    try:
        await first.create_table(table, game.created, {})
        for n, commit in enumerate(game.commits):
            writer = first if (n // 7) % 2 == 0 else second
            await writer.commit(table, n, commit.form, commit.entries, delta=commit.delta)
            log += commit.entries
        events = await second.events_after(table, 0)
        assert [(event.n, event.data) for event in events] == list(enumerate(log, 1))
    finally:
        await first.close()
        await second.close()


@pytest.mark.redis
async def test_a_seal_from_stale_open_events_is_refused_and_the_move_stored_unsealed(
    redis_server: RedisServer,
) -> None:
    """A writer read the open events, another sealed them, and the first (reloaded to the new
    version) commits a snapshot: the script refuses its seal, the move is stored without one."""
    from server.store.redis import open_store

    log = [f"e{n}".encode() for n in range(1, 23)]
    first, second = await open_store(redis_server.url), await open_store(redis_server.url)
    try:
        await first.create_table("t1", b'{"a": 0}', {})
        await first.commit("t1", 0, b'{"a": 1}', log[:20], delta=True)
        await first.events_after("t1", 0)  # remembers the open events 1-20
        await second.commit("t1", 1, b'{"a": 2}', log[20:21], delta=False)  # seals 1-21
        stored = await first.commit("t1", 2, b'{"a": 3}', log[21:], delta=False)
        assert stored.last_event == 22
        for after in range(23):
            events = await first.events_after("t1", after)
            assert [(e.n, e.data) for e in events] == list(enumerate(log[after:], after + 1))
    finally:
        await first.close()
        await second.close()
