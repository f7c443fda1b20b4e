"""A forwarded move the owner never answered in time is an unknown outcome, never "nothing was
changed" (server.cluster, invariant 9).

Two table servers in this process share one private redis-server; the table is owned by the
first, the mover is connected to the second, which forwards its move. The owner's table is busy
past the forwarding deadline (its lock held, as while it settles a commit through a Redis
failover for up to ``--resolve``): the second process gives up. The move reached the owner,
which stores it once the table is free, so the mover must not be told "nothing was changed"
(the chaos run counted two such moves as "refused, yet stored", both around a failover): it is
told the outcome is not known yet, and is then sent the move like everyone else.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.log_audit import check_table
from bench.recording import close_all, seat_table, wait_for
from clients.session import RequestRefused
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from server.cluster import remote
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
OWNER = replace(TEST_SETTINGS, lease_s=30.0, away_turn_s=600.0)  # its lease never lapses here
ORIGIN = replace(OWNER, lease_s=1.0)  # the forwarding process gives up after 2.5 s


async def test_a_forwarded_move_left_unanswered_is_unknown_to_its_mover_then_shown(
    pair: tuple[TableServer, TableServer],
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(remote, "REQUEST_TIMEOUT_S", 0.5)
    owner, origin = pair
    table = await seat_table([owner.ws_url, origin.ws_url])  # seats 1 and 3 are forwarded
    store = await open_store(redis_server.url)
    try:

        async def last_stored() -> int:
            stored = await store.load(table.table_id)
            assert stored is not None
            return stored.last_event

        async def mover_now() -> tuple[int, c.Play | c.Announce] | None:
            """The seat to move and its first legal move, once everyone saw the stored end."""
            last = await last_stored()
            if any(person.session.last_event != last for person in table.people):
                return None
            for person in table.players:
                snap = person.session.snapshot
                moves = (
                    []
                    if snap is None
                    else [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
                )
                if moves:
                    assert person.seat is not None
                    return person.seat, moves[0]
            return None

        found: list[tuple[int, c.Play | c.Announce]] = []

        async def a_seat_to_move() -> bool:
            now = await mover_now()
            found[:] = [] if now is None else [now]
            return bool(found)

        while True:  # the owner's seats play until it is a forwarded seat's turn
            await wait_for(a_seat_to_move, 10, "a seat to move")
            seat, action = found[0]
            person = table.players[seat]
            at = person.session.last_event
            if seat % 2 == 1:
                break
            await person.session.request(action.model_copy(update={"at": at}))
        room = owner.lobby.loaded(table.table_id)
        assert room is not None
        async with room.lock:  # the owner's table stays busy past the forwarding deadline
            with pytest.raises(RequestRefused) as refused:
                await person.session.request(action.model_copy(update={"at": at}), wait_s=30)
            assert await last_stored() == at  # not stored while the table is busy
        assert refused.value.code == "storage_unavailable"
        assert "not known yet" in str(refused.value), refused.value

        # the owner carries the move out once its table is free: everyone is sent it
        async def everyone_sent_the_move() -> bool:
            last = await last_stored()
            return last > at and all(p.session.last_event == last for p in table.people)

        await wait_for(everyone_sent_the_move, 10, "the move stored and sent")
        sent = [m for m in person.session.stream if isinstance(m, s.Event) and m.n == at + 1]
        assert len(sent) == 1, sent
        body = sent[0].event if isinstance(sent[0].event, dict) else sent[0].event.model_dump()
        assert body.get("seat") == seat, body  # the move "refused" is the one stored
        await check_table(store, table)
        await close_all([table])
    finally:
        await store.close()
