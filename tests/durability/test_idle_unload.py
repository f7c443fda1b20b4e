"""Idle tables leave a process's memory and come back from the store when someone returns.

A table with nobody connected and nothing due on its clocks for ``idle_unload_s`` is unloaded;
the next resume rebuilds it from the store, as a takeover does. People play over real
WebSockets on an in-process server (memory store, or a private redis-server where a second
process could otherwise take the released table over).
"""

from __future__ import annotations

import asyncio

import pytest

from server.app import TableServer
from server.store import MemoryStore, Store
from server.store.redis import RedisStore, open_store
from tests.durability.players import contiguous, finished, play_until_mid_hand, seat_four
from tests.serving import StartServer

IDLE_S = 0.3


async def until_unloaded(server: TableServer, timeout_s: float = 30.0) -> None:
    """Wait, bounded, for the lobby's idle check (a timer) to unload a table, lease and all."""
    async with asyncio.timeout(timeout_s):
        while True:
            if server.lobby.unloaded:
                return
            await asyncio.sleep(0.02)


async def make_store(kind: str, request: pytest.FixtureRequest) -> Store:
    if kind == "memory":
        return MemoryStore()
    return await open_store(request.getfixturevalue("redis_server").url)


@pytest.mark.parametrize("kind", ["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def test_an_idle_table_is_unloaded_and_a_returning_player_resumes_it_contiguously(
    kind: str,
    request: pytest.FixtureRequest,
    start_server: StartServer,
) -> None:
    """Invariants 2 and 5: everyone leaves mid-hand, stand-ins finish the game, the table
    leaves memory; each player comes back with the seat token and misses nothing."""
    store = await make_store(kind, request)
    async with start_server(
        store=store, idle_unload_s=IDLE_S, grace_s=3600.0, claim_window_s=0.1, lease_s=2.0
    ) as server:
        sessions, created = await seat_four([server.ws_url])
        await play_until_mid_hand(sessions, seed=3, events=20)
        assert created.table in server.lobby.rooms
        for session in sessions:
            await session.close()

        await until_unloaded(server)  # after the stand-ins finished the game
        assert created.table not in server.lobby.rooms
        stored = await store.load(created.table)
        assert stored is not None, "its state stays in the store"
        if isinstance(store, RedisStore):  # released and not listed for a takeover
            assert await store.lease_owner(created.table) is None
            assert created.table not in await store.lapsed_leases()

        resumed = [
            await session.reconnect(server.ws_url, f"back-{seat}")
            for seat, session in enumerate(sessions)
        ]
        assert created.table in server.lobby.rooms
        for session in resumed:
            assert contiguous(session), session.problems
            assert session.snapshot is not None
            assert finished(session.snapshot)
        assert resumed[0].last_event >= stored.last_event
        for session in resumed:
            await session.close()
