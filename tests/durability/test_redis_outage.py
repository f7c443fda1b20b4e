"""Redis lost during play: refuse clearly, apply nothing half-way, resume by itself.

The table server runs in this process on a private redis-server that the test kills (-9) in
the middle of a hand and restarts from its append-only file.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol.errors import ErrorCode
from server.store.base import StoredTable, StoreUnavailable
from server.store.redis import RedisStore, open_store
from tests.durability.players import (
    assert_record_replays_to,
    contiguous,
    play_all,
    play_until_mid_hand,
    seat_four,
)
from tests.redis_server import RedisServer
from tests.serving import StartServer

pytestmark = pytest.mark.redis


async def whose_turn(sessions: list[ClientSession]) -> tuple[ClientSession, c.GameAction]:
    """The person whose decision it is, and a legal move for them (R7)."""
    for session in sessions:
        snap = session.snapshot
        moves = (
            [] if snap is None else [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
        )
        if moves and snap is not None and snap.last_event == session.last_event:
            return session, random.Random(3).choice(moves)
    raise AssertionError("nobody has a decision to make")


async def test_commands_while_redis_is_down_are_refused_and_play_resumes_after_it_returns(
    redis_server: RedisServer,
    start_server: StartServer,
) -> None:
    store = await open_store(redis_server.url)
    # resolve_s: the unanswered commit is read back for a second, then its mover is told
    async with start_server(store=store, claim_window_s=0.1, lease_s=2.0, resolve_s=1.0) as server:
        sessions, created = await seat_four([server.ws_url])
        await play_until_mid_hand(sessions, seed=31, events=25)
        stored_before = await store.load(created.table)
        assert stored_before is not None
        last = stored_before.last_event
        for session in sessions:  # everyone has caught up with the table before Redis dies
            if session.last_event < stored_before.last_event:
                await session.next_snapshot(lambda snap: snap.last_event >= last)

        redis_server.kill()
        player, move = await whose_turn(sessions)
        with pytest.raises(RequestRefused, match="storage unavailable") as refused:
            await player.act(move, wait_s=60)  # the refusal may queue behind retries
        assert refused.value.code == ErrorCode.STORAGE_UNAVAILABLE
        assert all(session.last_event <= stored_before.last_event for session in sessions), (
            "nothing was shown that is not stored (invariant 3)"
        )

        redis_server.start()  # from the append-only file
        stored_after = await loaded_once_redis_answers(store, created.table)
        assert stored_after is not None
        assert stored_after.last_event == stored_before.last_event, "nothing applied half-way"
        finals = await play_all(sessions, seed=37)
        await assert_record_replays_to(sessions[0], finals)
        events = await store.events_after(created.table, 0)
        assert [event.n for event in events] == list(range(1, len(events) + 1))

    assert all(contiguous(session) for session in sessions), [s.problems for s in sessions]
    for session in sessions:
        await session.close()


async def loaded_once_redis_answers(store: RedisStore, table: str) -> StoredTable | None:
    """The table as stored, read as soon as the restarted Redis answers (a busy machine may
    take a few seconds to accept its first connection); bounded."""
    async with asyncio.timeout(30):
        while True:
            try:
                return await store.load(table)
            except StoreUnavailable:
                await asyncio.sleep(0.2)  # a retry period while Redis starts, not a sync
