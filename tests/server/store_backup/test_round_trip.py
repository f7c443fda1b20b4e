"""A club's Redis, used for real, backed up with ``cuarenta backup`` and restored with
``cuarenta restore`` into a second, empty redis-server, reads back the same: the club page's
results, the night's pairs, a person's ratings, history and friends, a finished game's record,
and every key but the ones a running process keeps for itself."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from protocol import client_messages as c
from protocol import clubs as m
from protocol import players as p
from server.app import TableServer
from server.cli import main
from server.people import player_store_for
from server.store import backup
from tests.redis_server import RedisServer
from tests.server.people.test_friends_over_the_wire import befriend
from tests.server.people.wire import me, new_key, person, play_out, table_of
from tests.server.test_club_export import CLUB, play_with_hostile_names
from tests.server.test_http import get
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
PAIRS = [["Eva", "Flor"], ["Gabi", "Hugo"]]


def settings_for(url: str) -> Any:
    return replace(TEST_SETTINGS, store=url, clubs=(CLUB,), claim_window_s=0.05, grace_s=600.0)


async def club_page(server: TableServer) -> dict[str, Any]:
    status, _, body = await get(server, f"/c/{CLUB}.json")
    assert status == 200
    page: dict[str, Any] = json.loads(body)
    return page


async def results_kept(server: TableServer) -> list[Any]:
    """The club's results once the listing's pass has kept the finished game."""
    async with asyncio.timeout(10):
        while not (results := (await club_page(server))["results"]):  # noqa: ASYNC110
            await asyncio.sleep(0.05)  # kept by the listing's next pass: polled over HTTP
    return list(results)


async def reads(server: TableServer, player: str, table: str) -> dict[str, Any]:
    """What the store gives back for a person, a finished game and the club."""
    players = player_store_for(server.lobby.store)
    record = await server.lobby.store.find_record(table)
    assert record is not None
    assert server.nights is not None
    return {
        "player": await players.get(player),
        "history": await players.history(player, 0, 10),
        "relations": await players.relations(player),
        "record": (record.game, record.record, record.readers),
        "host key": await server.club_host_key(CLUB),
        "night": (await server.nights.state(CLUB)).state["night"],
    }


async def value_of(client: Redis, name: str) -> object:
    """A key's value, whatever its type (a large hash's ``DUMP`` follows its table's order,
    which a restore need not keep)."""
    kind = (await client.type(name)).decode()
    reads: dict[str, Any] = {
        "string": lambda: client.get(name),
        "hash": lambda: client.hgetall(name),
        "list": lambda: client.lrange(name, 0, -1),
        "set": lambda: client.smembers(name),
        "zset": lambda: client.zrange(name, 0, -1, withscores=True),
    }
    return kind, await reads[kind]()


async def keys_of(url: str) -> dict[str, tuple[object, bool]]:
    """Every saved key: its value and whether it has a time to live."""
    client = Redis.from_url(url)
    try:
        names = await backup.names(client)
        return {name: (await value_of(client, name), await client.pttl(name) > 0) for name in names}
    finally:
        await client.aclose()


async def busy_club(server: TableServer, ana_key: str) -> tuple[str, str, dict[str, Any]]:
    """Ana befriends Beto and finishes a rated game; a club game ends; two pairs sign up for
    the night. Ana's id, her table, and what her ``me`` says."""
    ana, beto = await person(server, "Ana", ana_key), await person(server, "Beto", new_key())
    try:
        ana_id, _ = await befriend(ana, beto)
        created = await table_of(ana, [], "heads-up", 3, casual=False)
        await ana.request(c.Start())
        await play_out([ana])
        await ana.next_of(p.Rated)
        seen = (await me(ana)).model_dump(exclude={"rid"})
    finally:
        await ana.close()
        await beto.close()
    await play_with_hostile_names(server)
    key = await server.club_host_key(CLUB)
    assert key is not None
    assert server.nights is not None
    server.nights.seat_wait_s = 3600.0
    async with await person(server, "host", new_key()) as host:
        await host.request(m.ClubOpen(club=CLUB, key=key))
        for members in PAIRS:
            await host.request(m.ClubPair(club=CLUB, key=key, members=members))
    return ana_id, created.table, seen


async def test_a_club_restored_into_an_empty_redis_reads_back_the_same(
    redis_server: RedisServer, target_redis: RedisServer, tmp_path: Path
) -> None:
    ana_key = new_key()
    source = TableServer(settings_for(redis_server.url))
    await source.start()
    try:
        ana_id, table, seen = await busy_club(source, ana_key)
        results = await results_kept(source)
        before = await reads(source, ana_id, table)
    finally:
        await source.close()
    assert before["night"] is not None
    assert before["history"]
    assert [friend.id for friend in before["relations"].friends]

    file = tmp_path / "club.backup"
    assert await asyncio.to_thread(main, ["backup", str(file), "--store", redis_server.url]) == 0
    assert await asyncio.to_thread(main, ["restore", str(file), "--store", target_redis.url]) == 0
    assert await keys_of(target_redis.url) == await keys_of(redis_server.url)

    restored = TableServer(settings_for(target_redis.url))
    await restored.start()
    try:
        assert await results_kept(restored) == results
        assert await reads(restored, ana_id, table) == before
        async with await person(restored, "Ana", ana_key) as back:  # her key finds her
            assert (await me(back)).model_dump(exclude={"rid"}) == seen
    finally:
        await restored.close()
    assert seen["id"] == ana_id
    assert seen["ratings"]
