"""Finished games' records outlive their tables: kept apart, for their own retention.

The store keeps a finished game's R15 record under its own key in the commit that ends the
game; the table lapses after ``table_ttl_s``, the record after ``record_ttl_s`` (0: never). The
memory store runs on a hand-driven clock; the Redis store on a private redis-server with short
times (its expiry cannot be driven, so those tests wait for it, bounded).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable

import pytest

from bench.redis_trips import client_commands
from engine.record import Record
from engine.replay import replay
from server.store import KeptRecord, MemoryStore, Store
from server.store.base import credential_digest
from server.store.redis import open_store, table_key
from tests.durability.players import play_all, seat_four
from tests.redis_server import RedisServer
from tests.serving import ServerProcess

RECORD = b'{"format":"cuarenta-record/1","actions":[]}'
HOST = "host-key-aaaaaaaa"


def kept(game: int, *readers: str) -> KeptRecord:
    return KeptRecord(
        game,
        RECORD.replace(b"[]", f"[{game}]".encode()),
        tuple(credential_digest(reader) for reader in readers),
    )


async def until(condition: Callable[[], Awaitable[bool]], timeout_s: float = 30.0) -> None:
    """Wait for an expiry in Redis (nothing can signal it), checking every 50 ms, bounded."""
    async with asyncio.timeout(timeout_s):
        while True:
            if await condition():
                return
            await asyncio.sleep(0.05)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def finish_a_game(store: Store, record: KeptRecord) -> None:
    await store.create_table("t1", b"s0", {"join-key-aaaaaaaa": "join"})
    await store.commit("t1", 0, b"s1", [b"e1"])
    await store.commit("t1", 1, b"s2", [b"game over"], record)


async def test_memory_a_record_stays_after_its_table_lapsed_until_its_own_retention() -> None:
    clock = Clock()
    store = MemoryStore(clock, table_ttl_s=60, record_ttl_s=3600)
    await finish_a_game(store, kept(1, HOST, "t1.seat-token"))
    clock.now += 61
    assert await store.load("t1") is None
    assert await store.find_key("join-key-aaaaaaaa") is None
    found = await store.find_record("t1")
    assert found == kept(1, HOST, "t1.seat-token")
    assert found.readable_by("t1.seat-token")
    assert not found.readable_by("t1.forged-token")
    clock.now += 3600
    assert await store.find_record("t1") is None


async def test_memory_a_record_retention_of_0_keeps_it_for_ever() -> None:
    clock = Clock()
    store = MemoryStore(clock, table_ttl_s=60, record_ttl_s=0)
    await finish_a_game(store, kept(1, HOST))
    clock.now += 10 * 365 * 24 * 3600.0
    assert await store.find_record("t1", 1) == kept(1, HOST)


async def test_memory_the_first_keeping_of_a_game_stands_and_the_latest_game_is_found() -> None:
    """A reloaded table keeps its record again: the readers of the game's end stay."""
    store = MemoryStore()
    await finish_a_game(store, kept(1, HOST, "t1.first"))
    await store.commit("t1", 2, b"s3", [], kept(1, HOST, "t1.newcomer"))
    await store.commit("t1", 3, b"s4", [b"game 2 over"], kept(2, HOST))
    assert await store.find_record("t1", 1) == kept(1, HOST, "t1.first")
    assert await store.find_record("t1") == kept(2, HOST)
    assert await store.find_record("t1", 3) is None
    assert await store.find_record("nope") is None


@pytest.mark.redis
async def test_redis_a_record_stays_after_its_table_lapsed(redis_server: RedisServer) -> None:
    store = await open_store(redis_server.url, table_ttl_s=0.3, record_ttl_s=3600)
    try:
        await finish_a_game(store, kept(1, HOST, "t1.seat-token"))
        await store.commit("t1", 2, b"s3", [], kept(1, "t1.newcomer"))  # the first one stands

        async def table_gone() -> bool:
            return await store.load("t1") is None

        await until(table_gone)
        assert await store.find_record("t1") == kept(1, HOST, "t1.seat-token")
        assert await store.find_record("t1", 1) == kept(1, HOST, "t1.seat-token")
        ttl_ms = await store.client.pttl(table_key("t1", "record:1"))
        assert 3_500_000 < ttl_ms <= 3_600_000
    finally:
        await store.close()


@pytest.mark.redis
async def test_redis_the_commit_that_ends_a_game_keeps_its_record_in_the_same_round_trip(
    redis_server: RedisServer,
) -> None:
    """Invariant 3's one atomic write holds with the record too: one EVALSHA, one slot."""
    store = await open_store(redis_server.url)
    try:
        await store.create_table("t1", b"s0", {})
        await store.commit("t1", 0, b"s1", [b"warm-up"])  # loads the script into Redis' cache
        sent = await client_commands(
            redis_server.url, lambda: store.commit("t1", 1, b"s2", [b"over"], kept(1, HOST))
        )
        assert sent == {"EVALSHA": 1}
        assert await store.find_record("t1") == kept(1, HOST)
    finally:
        await store.close()


@pytest.mark.redis
async def test_redis_a_record_retention_of_0_keeps_it_for_ever(redis_server: RedisServer) -> None:
    store = await open_store(redis_server.url, record_ttl_s=0)
    try:
        await finish_a_game(store, kept(1, HOST))
        assert await store.client.pttl(table_key("t1", "record:1")) == -1  # no expiry
        assert await store.client.pttl(table_key("t1", "records")) == -1
    finally:
        await store.close()


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.mark.redis
async def test_a_finished_games_record_downloads_and_replays_after_the_table_expired_r15(
    redis_server: RedisServer,
    server_process: Callable[..., ServerProcess],
) -> None:
    """The table lapses (short table TTL); a new server still serves the record, which replays."""
    first = server_process(
        "--store",
        redis_server.url,
        "--table-ttl",
        "5",
        "--lease",
        "2",
        "--commands-per-s",
        "10000",
        "--claim-window",
        "0.1",
        "--away-turn",
        "0",
    )
    sessions, created = await seat_four([first.ws_url])
    finals = await play_all(sessions, seed=31)
    tokens = [session.token for session in sessions]
    for session in sessions:
        await session.close()
    first.kill()

    store = await open_store(redis_server.url)
    try:

        async def table_gone() -> bool:
            return await store.load(created.table) is None

        await until(table_gone)
    finally:
        await store.close()

    second = server_process("--store", redis_server.url, "--lease", "2")
    base = f"{second.url.rstrip('/')}/record/{created.table}"
    for key in (created.host_key, tokens[2]):
        record = await asyncio.to_thread(get_json, f"{base}?key={key}")
        result = replay(Record.from_json(record))
        assert result["status"] == "finished"
        assert all(
            final.view is not None and final.view.scores == result["scores"] for final in finals
        )
    game_1 = await asyncio.to_thread(get_json, f"{base}/1?key={created.host_key}")
    assert game_1 == record, "/record/<table>/<game>: the same game by its number"
    for wrong in (
        f"?key={created.join_key}",
        f"/2?key={created.host_key}",
        f"/x?key={created.host_key}",
    ):
        with pytest.raises(urllib.error.HTTPError, match="404"):
            await asyncio.to_thread(get_json, base + wrong)
