"""A relayed viewer's last event lost with the relay's subscription is sent again (server.cluster).

Redis counts a subscriber as reached when it writes the envelope to its socket; if that
connection breaks before the bytes arrive (a lossy link cut it), the envelope is gone and the
owner believes it delivered. When it was the table's last event (the table then waits for a
move), no later envelope shows the gap, and the viewer stays behind for good: seen once at the
end of a 30-minute chaos run. Here the relaying process's subscription breaks exactly as the
envelope of a move arrives; once it has subscribed again every viewer it relays is resumed from
what it received, and is sent the move (invariant 2: every event, once, in order).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from bench.log_audit import check_table
from bench.recording import a_move, close_all, seat_table, wait_for
from server.app import TableServer
from server.cluster.relay import Envelope
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
SETTINGS = replace(TEST_SETTINGS, lease_s=5.0, away_turn_s=30.0)


async def test_a_relayed_event_lost_with_the_subscription_is_sent_once_it_is_back(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    owner, origin = pair
    table = await seat_table([owner.ws_url], [origin.ws_url])  # the watcher is relayed
    watcher = table.people[-1]
    assert origin.cluster is not None
    relay = origin.cluster.relay
    dispatch = relay._dispatch
    cut: list[Envelope] = []

    def cut_with_the_link(envelope: Envelope) -> None:
        """The first message envelope for the watcher after the move is lost, and the
        subscription's connection breaks with it."""
        if not cut and armed and envelope.get("k") == "msg":
            cut.append(envelope)
            raise RedisConnectionError("the link to Redis was cut")
        dispatch(envelope)

    armed = False
    relay._dispatch = cut_with_the_link  # type: ignore[method-assign]
    store = await open_store(redis_server.url)
    try:
        stored = await store.load(table.table_id)
        assert stored is not None

        async def everyone_at(last: int) -> bool:
            return all(person.session.last_event >= last for person in table.people)

        await wait_for(lambda: everyone_at(stored.last_event), 10, "the game's start")
        mover, action = a_move(table)
        armed = True
        await mover.session.request(action.model_copy(update={"at": mover.session.last_event}))
        moved = await store.load(table.table_id)
        assert moved is not None
        assert moved.last_event > stored.last_event
        await wait_for(lambda: everyone_at(moved.last_event), 10, "the watcher sent the move")
        assert cut, "no envelope was cut"
        assert watcher.session.last_event == moved.last_event
        await check_table(store, table)
    finally:
        relay._dispatch = dispatch  # type: ignore[method-assign]
        await close_all([table])
        await store.close()
