"""Viewers relayed through a second process while relay envelopes are lost (server.cluster).

Two table servers in this process share one private redis-server. The table is owned by the
first; two of its seats and two spectators are connected to the second, which relays the
owner's messages to them. A seeded share of those relay envelopes is lost on its way (their
publish fails, as on a lossy link to Redis): the relaying process must notice each loss (the
next message's gap, or the owner's notice) and resume the connection, and every
viewer must still receive every event once and in order (invariant 2), however the resumes
and the envelopes still on their way interleave.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest

from bench.log_audit import check_table
from bench.recording import close_all, play_table, seat_table
from server.app import TableServer
from server.cluster.relay import Envelope, PeerGone
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
SETTINGS = replace(TEST_SETTINGS, claim_window_s=0.1, lease_s=2.0, away_turn_s=30.0)
"""A 2 s lease: the owner's watcher, which re-sends a lost envelope's resync notice, runs every
0.67 s, so a viewer left waiting on a lost frame waits less than a second."""
LOSS = 0.08  # the share of relayed messages lost


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_relayed_viewers_get_every_event_once_and_in_order_while_frames_are_lost(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer, seed: int
) -> None:
    owner, origin = pair
    table = await seat_table(
        [owner.ws_url, origin.ws_url], [origin.ws_url, origin.ws_url, owner.ws_url]
    )
    assert owner.cluster is not None
    relay = owner.cluster.relay
    send = relay.send
    rng = random.Random(seed)
    lost: list[Envelope] = []

    def lossy(process: str, envelope: Envelope) -> asyncio.Future[int]:
        """A seeded share of the owner's messages to the relaying process is cut on its way
        to Redis: the publish fails, as on a lossy link."""
        if envelope.get("k") in ("msg", "resync") and rng.random() < LOSS:
            lost.append(envelope)
            failed: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            failed.set_exception(PeerGone("the link to Redis cut this publish"))
            return failed
        return send(process, envelope)

    relay.send = lossy  # type: ignore[method-assign]
    store = await open_store(redis_server.url)
    halt = asyncio.Event()
    try:
        try:
            await asyncio.wait_for(play_table(table, seed, halt), 90)
        except TimeoutError:
            problems = [(p.name, p.session.last_event, p.session.problems) for p in table.people]
            raise AssertionError(f"the game did not end: {problems}") from None
        assert lost, "envelopes were lost"
        relay.send = send  # type: ignore[method-assign]  # the link heals
        counts = await check_table(store, table)
        assert counts["events"] > 0
    finally:
        halt.set()
        await close_all([table])
        await store.close()
