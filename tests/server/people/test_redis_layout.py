"""What only Redis shows: the keys a person leaves, their expiry, one slot each on a Cluster."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis, RedisCluster

from server.people import FinishedGame, Players, Seat
from server.people.model import key_digest
from server.people.redis_store import RedisPlayerStore, index_key, player_key
from server.people.store import PLAYER_TTL_S
from tests.redis_server import RedisClusterServers, RedisServer

pytestmark = pytest.mark.redis

KEYS = ["a" * 43, "b" * 43, "c" * 43]


async def busy_people(players: Players) -> list[str]:
    """Three people with friends, a request, a block, and a rated game behind them."""
    ana, beto, caro = [
        (await players.enter(key, name)).id for key, name in zip(KEYS, "ABC", strict=True)
    ]
    store = players.store
    await store.request_friend(ana, beto)
    await store.accept_friend(beto, ana)
    await store.request_friend(ana, caro)
    await store.block(ana, caro)
    await store.request_friend(caro, ana)
    teams = ((Seat("A", ana), Seat("B", beto)), (Seat("C", caro), Seat("Bot", bot_level=2)))
    for n in range(1, 7):  # enough for the leaderboard
        game = FinishedGame("T1", n, "pagat-4p", 1.7e9, False, teams, (40, 12), 0)
        await players.record_game(game)
    return [ana, beto, caro]


async def keys_of(client: Redis) -> list[str]:
    return sorted([key.decode() async for key in client.scan_iter("*")])


@pytest.fixture
async def client(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_server.url)
    try:
        yield client
    finally:
        await client.aclose()


async def test_forget_leaves_no_key_of_the_person_behind(client: Redis) -> None:
    players = Players(RedisPlayerStore(client))
    ana, beto, _ = await busy_people(players)
    assert any(ana in key for key in await keys_of(client))
    await players.store.forget(ana)
    left = await keys_of(client)
    assert not [key for key in left if ana in key or key_digest(KEYS[0]) in key]
    for key in left:  # nor in the values of the sets and boards that named her
        kind = (await client.type(key)).decode()
        if kind == "set":
            assert ana.encode() not in await client.smembers(key)  # type: ignore[misc]
        elif kind == "zset" and "settled" not in key and ":sent" not in key:
            assert await client.zscore(key, ana) is None
    beto_history = await players.store.history(beto, 0, 1)
    assert beto_history[0].partners == (Seat("A", ana),)  # the game keeps the name she played


async def test_every_key_of_a_person_lapses_a_year_after_the_last_visit(client: Redis) -> None:
    players = Players(RedisPlayerStore(client))
    ana, _, _ = await busy_people(players)
    mine = [key for key in await keys_of(client) if f"{{{ana}}}" in key]
    mine.append(index_key(key_digest(KEYS[0])))
    year_ms = PLAYER_TTL_S * 1000
    for key in mine:
        ttl = await client.pttl(key)
        assert (0 < ttl <= year_ms) or key.endswith(":sent"), key  # :sent lapses in a minute
        await client.pexpire(key, 5_000)  # as if the year had almost passed
    await players.enter(KEYS[0], "A")  # she comes back: everything is renewed
    for key in mine:
        if not key.endswith(":sent"):
            assert await client.pttl(key) > year_ms - 60_000, key


async def test_on_a_cluster_each_person_lives_in_one_slot(
    redis_cluster: RedisClusterServers,
) -> None:
    client = RedisCluster.from_url(redis_cluster.url.replace("+cluster", "", 1))
    try:
        await lives_in_one_slot(client)
    finally:
        await client.aclose()


async def lives_in_one_slot(client: RedisCluster) -> None:
    players = Players(RedisPlayerStore(client))
    ana, beto, caro = await busy_people(players)  # every script would fail on CROSSSLOT
    slots = {client.keyslot(player_key(ana, part)) for part in ("p", "history", "friends")}
    assert len(slots) == 1
    assert [game.game for game in await players.store.history(beto, 0, 2)] == [6, 5]
    board = await players.store.board("pairs", 10)
    assert {entry.player.id for entry in board} == {ana, beto, caro}
    await players.store.forget(ana)
    assert await players.store.get(ana) is None
