"""A finished game's review is kept beside its record, once, for as long as the record; each
person's accuracy joins their history line. Memory and a private real redis-server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.people.model import Outcome, SettledGame, key_digest
from server.people.redis_store import RedisPlayerStore
from server.people.store import MemoryPlayerStore, PlayerStore
from server.store import KeptRecord, MemoryStore, Store
from tests.durability.test_records import Clock, finish_a_game
from tests.redis_server import RedisServer
from tests.server.people.test_store import summary

REVIEW = b'{"format":"cuarenta-review/1","steps":[],"seats":[]}'
KINDS = ["memory", pytest.param("redis", marks=pytest.mark.redis)]
RECORD = KeptRecord(1, b'{"format":"cuarenta-record/1","actions":[]}', ())


@pytest.fixture(params=KINDS)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    from server.store.redis import open_store

    made = await open_store(request.getfixturevalue("redis_server").url)
    yield made
    await made.close()


@pytest.fixture(params=KINDS)
async def people(request: pytest.FixtureRequest) -> AsyncIterator[PlayerStore]:
    if request.param == "memory":
        yield MemoryPlayerStore()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    client = Redis.from_url(server.url)
    try:
        yield RedisPlayerStore(client)
    finally:
        await client.aclose()


async def test_a_review_is_kept_once_beside_its_game(store: Store) -> None:
    await finish_a_game(store, RECORD)
    assert await store.find_review("t1", 1) is None
    assert await store.keep_review("t1", 1, REVIEW)
    assert not await store.keep_review("t1", 1, REVIEW.replace(b"[]", b"[1]"))  # first stays
    assert await store.find_review("t1", 1) == REVIEW
    assert await store.find_review("t1", 2) is None  # another game of the table: none


async def test_memory_a_review_lapses_with_its_record() -> None:
    clock = Clock()
    store = MemoryStore(clock, table_ttl_s=60, record_ttl_s=3600)
    await finish_a_game(store, RECORD)
    assert await store.keep_review("t1", 1, REVIEW)
    clock.now += 3601
    assert await store.find_review("t1", 1) is None
    assert not await store.keep_review("t1", 1, REVIEW)  # no record: nothing to review


async def test_an_accuracy_joins_its_game_in_the_persons_history(people: PlayerStore) -> None:
    ana = (await people.enter(key_digest("a" * 40), "Ana", "es")).id
    for n in (1, 2):
        await people.settle(SettledGame(f"T1#{n}", "pairs", False, (Outcome(ana, summary(n)),)))
    await people.record_accuracy(ana, "T1#1", 87.5)
    await people.record_accuracy("nobody-here", "T1#1", 50.0)  # a person not stored: nothing
    shown = [(game.game, game.accuracy) for game in await people.history(ana, 0, 10)]
    assert shown == [(2, None), (1, 87.5)]
    await people.forget(ana)
    assert await people.history(ana, 0, 10) == []
