"""A relayed newcomer whose first snapshot is lost on its way is resumed, not sent events it
cannot place (server.cluster, invariant 2).

A spectator watches a table owned by another process; the envelope with its first snapshot
(its baseline: a newcomer gets the state, not the history) is lost on a lossy link to Redis,
and the subscription stays up, so nothing else shows the loss. The next move's event must not
reach it as the first thing it numbers (the 30-minute chaos run counted one seat "event 2 after
event 0" that way): the relaying process resumes it, and it is sent a whole snapshot.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.log_audit import check_table
from bench.recording import Person, Recorder, a_move, caught_up, close_all, seat_table
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from server.cluster.relay import Envelope
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
SETTINGS = replace(TEST_SETTINGS, lease_s=30.0, away_turn_s=600.0)  # nobody's lease lapses


async def test_a_relayed_newcomer_whose_first_snapshot_is_lost_is_sent_one(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    owner, origin = pair
    assert origin.cluster is not None
    table = await seat_table([owner.ws_url])
    relay = origin.cluster.relay
    dispatch = relay._dispatch
    lost: list[Envelope] = []

    def lossy(envelope: Envelope) -> None:
        """The newcomer's first snapshot is lost; the subscription stays up."""
        if not lost and envelope.get("k") == "msg" and envelope.get("t") == "snapshot":
            lost.append(envelope)
            return
        dispatch(envelope)

    relay._dispatch = lossy  # type: ignore[method-assign]
    store = await open_store(redis_server.url)
    try:
        watcher = await Recorder.connect(origin.ws_url, "watcher")
        assert isinstance(watcher, Recorder)
        await watcher.request(c.Watch(key=table.keys.watch_key))
        table.people.append(Person("watcher", None, [watcher]))
        mover, action = a_move(table)
        await mover.session.request(action.model_copy(update={"at": mover.session.last_event}))
        await caught_up(store, table)
        assert lost, "no snapshot was lost"
        snapshots = [m for m in watcher.stream if isinstance(m, s.Snapshot)]
        assert snapshots, "the watcher was never sent a whole snapshot"
        await check_table(store, table)
    finally:
        relay._dispatch = dispatch  # type: ignore[method-assign]
        await close_all([table])
        await store.close()
