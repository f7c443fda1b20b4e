"""`LastingSession` against a real server: a dropped spectator watches again; a seat taken
back by another connection ends the stream instead of fighting over it (invariant 5)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from clients.reconnect import Item, LastingSession, Status
from clients.table import create_table, resume_seat
from protocol import server_messages as s
from server.app import TableServer

WAIT_S = 20.0


async def until(items: AsyncIterator[Item], wanted: type[s.Snapshot] | Status) -> Item:
    """The next item that is a snapshot (given the type) or equal to the given status."""
    async for item in items:
        if item == wanted or (isinstance(wanted, type) and isinstance(item, wanted)):
            return item
    raise AssertionError(f"the stream ended before {wanted}")


async def test_a_dropped_spectator_watches_again(table_server: TableServer) -> None:
    links = await create_table(table_server.url)
    eve = LastingSession(links.watch, "Eve", watch=True)
    first = await eve.open()
    items = aiter(eve.stream())
    assert await anext(items) == Status("connected")
    await until(items, s.Snapshot)
    assert first.ws.transport is not None
    first.ws.transport.abort()
    assert await until(items, Status("reconnecting", "the connection dropped")) is not None
    assert await until(items, Status("connected", "resumed", 1)) is not None
    snap = await until(items, s.Snapshot)
    assert isinstance(snap, s.Snapshot)
    assert snap.you.role == "spectator"
    assert eve.current is not first
    await eve.close()


async def test_a_seat_taken_back_elsewhere_ends_the_stream_without_a_fight(
    table_server: TableServer,
) -> None:
    links = await create_table(table_server.url)
    ana = LastingSession(links.join, "Ana")
    session = await ana.open()
    items = aiter(ana.stream())
    await until(items, s.Snapshot)
    assert session.token is not None
    other = await resume_seat(links.join.server, session.token, "Ana", session.last_event)
    statuses = [item async for item in items if isinstance(item, Status)]
    assert statuses[-1].state == "closed"
    assert "taken back" in statuses[-1].detail
    assert ana.reconnects == 0
    assert other.seat == session.seat
    await other.close()
    await ana.close()
