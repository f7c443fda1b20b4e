"""Wire bots relayed through one process play on when a third process takes their table over.

Three table servers in this process share one private redis-server. The table is owned by the
first; three of its four wire bots are connected to the second, which relays their requests.
The lease is then taken by the third (as after its owner died): it rebuilds the table and seats
nobody of the second's, so until the second's lease watcher notices the new owner and seats its
connections again there, their moves are refused as "not at the table". A bot must decide
again once seated (the chaos run's wire-bot tables finished no game in 30 minutes): it is a
connected seat, so no stand-in plays for it, and the game would stall for good.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import replace

import pytest

from bench.recording import wait_for
from clients.bot.fleet import play_table
from clients.bot.player import BotPlan, WireBot
from clients.links import TableLink
from clients.table import create_table
from protocol.errors import ErrorCode
from server.app import TableServer
from server.store.redis import open_store, table_key
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
# a long lease: the second process's watcher (every third of it) notices the new owner late,
# and a long away turn: no stand-in plays for seats the new owner has not seen yet
SETTINGS = replace(TEST_SETTINGS, lease_s=30.0, away_turn_s=600.0, claim_window_s=0.1)
GAME_S = 120.0


@pytest.fixture
async def three(redis_server: RedisServer) -> AsyncIterator[list[TableServer]]:
    async with AsyncExitStack() as stack:
        servers = []
        for _ in range(3):
            server = TableServer(SETTINGS, store=await open_store(redis_server.url))
            await server.start()
            stack.push_async_callback(server.close)
            servers.append(server)
        yield servers


async def test_relayed_wire_bots_refused_by_a_new_owner_play_on_once_it_seats_them(
    three: list[TableServer], redis_server: RedisServer
) -> None:
    owner, origin, third = three
    assert origin.cluster is not None
    cluster = origin.cluster
    follow = cluster._follow_owners
    released = asyncio.Event()

    async def follow_once_refused() -> None:
        """The relaying process notices the new owner only once a bot was refused by it (its
        watcher might otherwise win the race, and the refusal never happen)."""
        if released.is_set():
            await follow()

    cluster._follow_owners = follow_once_refused  # type: ignore[method-assign]
    created = await create_table(owner.ws_url, "bot host")
    links = replace(created, join=TableLink.of(origin.ws_url, created.join.key))
    bots: list[WireBot] = []
    game = asyncio.create_task(play_table(links, BotPlan(level=1, pace_s=0.05), 4, "b", bots))
    store = await open_store(redis_server.url)
    code = ErrorCode.NOT_AT_TABLE.value
    try:

        async def under_way() -> bool:
            stored = await store.load(created.table)
            return stored is not None and stored.last_event > 20

        async def refused() -> bool:
            return any(f": {code}: " in text for bot in bots for text in bot.tally.refused)

        await wait_for(under_way, 30, "the game to be under way")
        await store.client.delete(table_key(created.table, "lease"))  # the owner "died"
        assert await third.lobby.room(created.table) is third.lobby.loaded(created.table)
        with contextlib.suppress(AssertionError):  # most runs; the game must end either way
            await wait_for(refused, 10, "a relayed bot's move refused by the new owner")
        released.set()
        result = await asyncio.wait_for(game, GAME_S)
    finally:
        game.cancel()
        await asyncio.gather(game, return_exceptions=True)
        await store.close()
    assert result.games == 1
