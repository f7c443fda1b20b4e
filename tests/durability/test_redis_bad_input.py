"""The server issue's bad-input rules hold with the Redis store too (invariant 7).

A bad frame gets a clear error or a policy close; nothing is stored for it, and another table in
the same Redis goes on untouched.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgpack
import pytest

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol.errors import ErrorCode
from server.app import TableServer
from server.store.redis import RedisStore, open_store
from tests.durability.players import play_until_mid_hand, seat_four
from tests.redis_server import RedisServer
from tests.serving import StartServer

pytestmark = pytest.mark.redis


@pytest.fixture
async def redis_table_server(
    redis_server: RedisServer,
    start_server: StartServer,
) -> AsyncIterator[tuple[TableServer, RedisStore]]:
    store = await open_store(redis_server.url)
    async with start_server(store=store, claim_window_s=0.1) as server:
        yield server, store


async def test_bad_frames_are_refused_and_store_nothing(
    redis_table_server: tuple[TableServer, RedisStore],
) -> None:
    server, store = redis_table_server
    sessions, created = await seat_four([server.ws_url])
    await play_until_mid_hand(sessions, seed=41, events=10)
    before = await store.load(created.table)
    assert before is not None

    intruder = sessions[1]
    with pytest.raises(RequestRefused) as refused:  # R7: no play takes A, A and K at once
        await intruder.request(c.Play(card="KS", take=["AS", "AC", "KC"], at=intruder.last_event))
    assert refused.value.code in {
        ErrorCode.ILLEGAL_ACTION,
        ErrorCode.NOT_YOUR_TURN,
        ErrorCode.INVALID_MESSAGE,
    }
    await intruder.send_raw(msgpack.packb({"type": "no_such_message", "rid": 77}))
    error = await intruder.next_of(type(refused.value.error), lambda e: e.rid == 77)
    assert error.code == ErrorCode.UNKNOWN_TYPE

    spoiler = await ClientSession.connect(server.ws_url, "spoiler")
    await spoiler.send_raw(b"\xc1 not msgpack")
    await spoiler.closed.wait()
    assert spoiler.ws.close_code == 1008
    huge = await ClientSession.connect(server.ws_url, "huge")
    await huge.send_raw(b"\x00" * (server.settings.max_frame_bytes + 1))
    await huge.closed.wait()
    assert huge.ws.close_code == 1009

    after = await store.load(created.table)
    assert after is not None
    assert (after.version, after.last_event, after.state) == (
        before.version,
        before.last_event,
        before.state,
    ), "no bad frame changed the stored table"
    for session in [*sessions, spoiler, huge]:
        await session.close()
