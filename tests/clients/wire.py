"""Helpers that seat wire bots at a real server for the client tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from clients.bot.player import BotPlan, BotTally, WireBot
from clients.links import TableLink
from clients.reconnect import LastingSession
from engine.record import Record
from engine.replay import replay
from server.app import TableServer


@contextlib.asynccontextmanager
async def wire_bots(
    link: TableLink,
    count: int,
    level: int = 2,
    host: TableLink | None = None,
) -> AsyncIterator[list[asyncio.Task[BotTally]]]:
    """``count`` wire bots seated through ``link`` (the first through ``host`` if given: it
    starts the game once the table is full), playing until their game ends."""
    links = [link] * count if host is None else [host] + [link] * (count - 1)
    places = [LastingSession(each, f"wire {i}") for i, each in enumerate(links)]
    for place in places:
        await place.open()
    tasks = [
        asyncio.create_task(WireBot(place, BotPlan(level=level, seed=i)).run())
        for i, place in enumerate(places)
    ]
    try:
        yield tasks
    finally:
        # Closing ends each bot's stream (its run() raises); cancelling alone is not enough on
        # Python 3.11, whose asyncio.wait_for may swallow a cancellation.
        for place in places:
            await place.close()
        await asyncio.gather(*tasks, return_exceptions=True)


def replayed(server: TableServer, table: str) -> dict[str, object]:
    """The R15 replay of the table's finished game, from the server's own record."""
    record = server.lobby.rooms[table].referee.table.finished_record
    assert record is not None, "the table has no finished game"
    return replay(Record.from_json(record))
