"""One contract for the ladder's stores: in memory, and in a private real redis-server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from server.ladder.redis_store import RedisLadderStore
from server.ladder.rules import Chica, LadderRun
from server.ladder.store import LadderConflict, LadderStore, MemoryLadderStore
from server.store.redis import open_store
from tests.redis_server import RedisClusterServers, RedisServer


@pytest.fixture(
    params=[
        "memory",
        pytest.param("redis_server", marks=pytest.mark.redis),
        pytest.param("redis_cluster", marks=pytest.mark.redis),  # every save touches one slot
    ]
)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[LadderStore]:
    if request.param == "memory":
        yield MemoryLadderStore()
        return
    server: RedisServer | RedisClusterServers = request.getfixturevalue(request.param)
    tables = await open_store(server.url)
    try:
        yield RedisLadderStore(tables.client)
    finally:
        await tables.close()


async def test_a_saved_run_loads_back_one_version_on(store: LadderStore) -> None:
    assert await store.load("tok") is None
    run = LadderRun("tok", name="Lucho").dealt(Chica("T1", "join-key-1", 0, "T1.secret", 1))
    saved = await store.save(run)
    assert saved.version == 1
    assert await store.load("tok") == saved
    won = await store.save(saved.won(12))
    assert (won.version, won.streak, won.best) == (2, 1, 10_012)
    assert await store.load("tok") == won


async def test_a_save_from_a_stale_version_changes_nothing(store: LadderStore) -> None:
    first = await store.save(LadderRun("tok"))
    await store.save(first.dealt(Chica("T1", "join-key-1", 0, "T1.secret", 1)))
    with pytest.raises(LadderConflict):
        await store.save(first.dealt(Chica("T2", "join-key-2", 0, "T2.secret", 1)))
    with pytest.raises(LadderConflict):
        await store.save(LadderRun("tok"))  # a second "new" run for a known token
    loaded = await store.load("tok")
    assert loaded is not None
    assert loaded.chica is not None
    assert loaded.chica.table == "T1"


async def test_the_board_keeps_each_ladders_best_score_highest_first(store: LadderStore) -> None:
    await store.offer_best("a", 10_012, "Ana")
    await store.offer_best("b", 30_101, None)
    await store.offer_best("c", 20_000, "Caro")
    await store.offer_best("a", 5, "Ana")  # a lower score never replaces the best
    await store.offer_best("d", 0, "Dani")  # nothing won yet: not on the board
    board = await store.board()
    assert [(entry.name, entry.score, entry.streak) for entry in board] == [
        (None, 30_101, 3),
        ("Caro", 20_000, 2),
        ("Ana", 10_012, 1),
    ]
    await store.offer_best("b", 30_101, "Beto")  # naming keeps the score
    assert (await store.board(size=1))[0].name == "Beto"


async def test_a_new_token_starts_at_version_zero(store: LadderStore) -> None:
    run = await store.save(LadderRun("fresh"))
    again = await store.save(replace(run, streak=0))
    assert again.version == 2
