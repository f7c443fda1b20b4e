"""Two table servers in this process sharing one private redis-server (server.cluster).

Deterministic takes on the faults the durability suite provokes from outside: a table's lease
taken while its owner still has it loaded (the owner's next commit is refused by the store, and
it hands its connections over), and a relayed envelope lost on its way (the origin notices the gap
and resumes that connection). Each connection records what it receives; the fault suite's checks
(``bench.recording``) judge the records against the stored log.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bench.log_audit import check_table
from bench.recording import close_all, play_table, seat_table, wait_for
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from server.cluster.relay import Envelope
from server.store.redis import RedisStore, open_store, table_key
from server.tasks import cancel_and_wait
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
SETTINGS = replace(TEST_SETTINGS, claim_window_s=0.1, lease_s=2.0, away_turn_s=30.0)


async def last_stored(store: RedisStore, table_id: str) -> int:
    stored = await store.load(table_id)
    assert stored is not None
    return stored.last_event


async def test_an_owner_whose_lease_was_taken_stops_writing_and_hands_its_connections_over(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    owner, peer = pair
    table = await seat_table([owner.ws_url], [owner.ws_url, peer.ws_url])
    store = await open_store(redis_server.url)
    halt = asyncio.Event()
    game = asyncio.create_task(play_table(table, 5, halt))
    try:

        async def moving() -> bool:
            return await last_stored(store, table.table_id) > 20

        await wait_for(moving, 30, "play to be under way")
        # The lease is taken from under the owner (as after an outage longer than the lease):
        # the peer owns the table now, with a larger fencing token.
        await store.client.delete(table_key(table.table_id, "lease"))
        taken = await peer.lobby.room(table.table_id)
        assert taken is peer.lobby.loaded(table.table_id)

        async def handed_over() -> bool:
            return owner.lobby.loaded(table.table_id) is None

        await wait_for(handed_over, 30, "the old owner to hand the table over")
        await asyncio.wait_for(game, 120)
    finally:
        halt.set()
        await asyncio.gather(game, return_exceptions=True)
    assert await store.lease_owner(table.table_id) == peer.lobby.owner
    counts = await check_table(store, table)
    assert counts["acked"] > 0
    await close_all([table])
    await store.close()


async def test_a_relayed_frame_lost_on_its_way_is_made_up_for_by_a_resume(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    owner, origin = pair
    table = await seat_table([owner.ws_url, origin.ws_url], [origin.ws_url])
    assert origin.cluster is not None
    relay = origin.cluster.relay
    handle = relay.handler
    dropped: list[Envelope] = []

    spectator = table.people[4].session.connection_id

    def lossy(envelope: Envelope) -> None:  # the spectator's first update after this is lost
        kind = (envelope.get("k"), envelope.get("conn"), envelope.get("t"))
        if kind == ("msg", spectator, "update") and not dropped:
            dropped.append(envelope)
            return
        handle(envelope)

    relay.handler = lossy
    store = await open_store(redis_server.url)
    halt = asyncio.Event()
    try:
        await asyncio.wait_for(play_table(table, 9, halt), 120)
    finally:
        halt.set()
    assert dropped, "an envelope was dropped"
    counts = await check_table(store, table)
    assert counts["events"] > 0
    await close_all([table])
    await store.close()


async def test_a_late_rejoin_resumes_each_connection_from_where_it_is_by_then(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    """An owner change spawns a rejoin with the tickets of that moment; it may run seconds
    later (a command forwarded to a dead peer waits first), when the connections were sent
    more events: each must go on from its ticket as it is then, never replay what it has."""
    owner, origin = pair
    table = await seat_table([owner.ws_url, origin.ws_url], [origin.ws_url])
    assert origin.cluster is not None
    store = await open_store(redis_server.url)
    halt = asyncio.Event()
    game = asyncio.create_task(play_table(table, 13, halt))
    try:

        async def past(n: int) -> bool:
            return await last_stored(store, table.table_id) > n

        await wait_for(lambda: past(10), 30, "play to be under way")
        remote = origin.cluster.remotes[table.table_id]
        taken = remote.settled_tickets()  # what an owner change would hand its rejoin
        assert {ticket.last_event for ticket in taken} != {None}
        await wait_for(lambda: past(30), 30, "twenty more events")
        await remote.rejoin(taken)  # the rejoin, late
        await asyncio.wait_for(game, 120)
    finally:
        halt.set()
        await asyncio.gather(game, return_exceptions=True)
    counts = await check_table(store, table)  # no viewer was sent an event twice
    assert counts["sessions"] == 5
    await close_all([table])
    await store.close()


async def test_a_rejoin_left_over_from_before_a_takeover_resumes_nobody(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    """A rejoin the relay spawned runs after this process took the table over: the takeover
    reattached the connections and the local room serves them; the relay's tickets stopped at
    the takeover, so a resume from them would replay what the room has sent since."""
    owner, origin = pair
    table = await seat_table([owner.ws_url, origin.ws_url], [origin.ws_url])
    assert origin.cluster is not None
    store = await open_store(redis_server.url)
    halt = asyncio.Event()
    game = asyncio.create_task(play_table(table, 17, halt))
    try:

        async def past(n: int) -> bool:
            return await last_stored(store, table.table_id) > n

        await wait_for(lambda: past(10), 30, "play to be under way")
        remote = origin.cluster.remotes[table.table_id]
        for _ in range(50):  # the owner's lease lapsed; its renewal may win the race: again
            await store.client.delete(table_key(table.table_id, "lease"))
            taken = await origin.lobby.room(table.table_id)
            if taken is not None and taken is origin.lobby.loaded(table.table_id):
                break
        else:
            pytest.fail("the origin never took the table over")
        taken_at = await last_stored(store, table.table_id)
        await wait_for(lambda: past(taken_at + 20), 30, "twenty more events, served here")
        await remote.rejoin()  # the old relay's, late
        await asyncio.wait_for(game, 120)
    finally:
        halt.set()
        await asyncio.gather(game, return_exceptions=True)
    counts = await check_table(store, table)  # no viewer was sent an event twice
    assert counts["sessions"] == 5
    await close_all([table])
    await store.close()


async def test_a_closing_process_takes_no_table_back(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    """Once it shuts down, the lease watcher and the loads stop: it would otherwise take back
    a lease it has just released (and play on until it exits)."""
    owner, _ = pair
    assert owner.cluster is not None
    owner.cluster.closing = True
    with pytest.raises(Exception, match="shutting down"):
        await owner.cluster.open("no-such-table")
    owner.cluster.closing = False


async def test_a_relayed_request_waiting_for_a_table_handed_over_goes_on_to_its_next_owner(
    pair: tuple[TableServer, TableServer], redis_server: RedisServer
) -> None:
    """The owner hands a table over to its place (rendezvous: the peer) between two commands
    while a relayed request waits for the table's lock: the request is sent on to the table's
    next owner and carried out there, not answered "storage unavailable"."""
    owner, peer = pair
    assert owner.cluster is not None
    assert peer.cluster is not None
    await owner.cluster.members.beat()  # the owner knows its peer (else it places all on itself)
    assert peer.lobby.owner in owner.cluster.members.live.values()
    for _ in range(20):  # a table whose rendezvous place is the peer
        table = await seat_table([owner.ws_url], [peer.ws_url])
        owner.cluster.members.hashed = True
        if owner.cluster.members.owner_of(table.table_id) == peer.lobby.owner:
            break
        owner.cluster.members.hashed = False
        await close_all([table])
    else:
        pytest.fail("no table of 20 was placed on the peer")
    watcher = table.people[4]  # on the peer: relayed to the owner
    room = owner.lobby.loaded(table.table_id)
    assert room is not None
    store = await open_store(redis_server.url)

    async def request_waiting() -> bool:
        return bool(room.lock._waiters)

    async with room.lock:  # the handover's own steps (``_hand_over_misplaced``)
        peer.cluster.members.hashed = True
        chat = asyncio.create_task(watcher.session.request(c.Chat(text="still here?")))
        await wait_for(request_waiting, 30, "the relayed request to wait for the table")
        owner.lobby.forget(room)
        await cancel_and_wait([room.stop()])
        await store.release_lease(table.table_id, owner.lobby.owner)
    owner.cluster.relinquish(room)
    assert isinstance(await chat, s.Ack)
    assert peer.lobby.loaded(table.table_id) is not None  # loaded where the request went on
    await close_all([table])
    await store.close()
