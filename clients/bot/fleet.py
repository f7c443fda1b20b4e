"""A fleet of wire bots: create K tables on a server and fill every seat with a `WireBot`.

This is the load the benchmarks put on a server: every bot is its own WebSocket connection
speaking the public protocol at a chosen pace, exactly as people would; the first bot of each
table holds the host link and starts the game once the table is full.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace

from clients.bot.player import BotPlan, BotTally, WireBot
from clients.reconnect import LastingSession
from clients.table import TableLinks, create_table

SEATS_OF = {"pagat-4p": 4, "heads-up": 2, "libre-2p": 2}


@dataclass(frozen=True, slots=True)
class TableResult:
    """One table's outcome as its host bot saw it."""

    table: str
    games: int
    scores: tuple[int, int]
    winner: int | str | None
    actions: int


@dataclass(frozen=True, slots=True)
class FleetResult:
    tables: tuple[TableResult, ...]
    seconds: float

    @property
    def actions(self) -> int:
        return sum(table.actions for table in self.tables)


async def play_table(
    links: TableLinks,
    plan: BotPlan,
    seats: int,
    name: str = "bot",
    seated: list[WireBot] | None = None,
) -> TableResult:
    """Seat ``seats`` wire bots at one table (the first as host) and play ``plan.games``;
    ``seated`` gets the bots (what they did, even if the game is given up on)."""
    places = [LastingSession(links.host, f"{name} 0")]
    places += [LastingSession(links.join, f"{name} {i}") for i in range(1, seats)]
    for place in places:  # one by one: seats fill in order, the host last to see it full
        await place.open()
    seed = plan.seed
    players = [
        WireBot(place, replace(plan, seed=None if seed is None else seed + i))
        for i, place in enumerate(places)
    ]
    if seated is not None:
        seated += players
    try:
        tallies: list[BotTally] = await asyncio.gather(*(bot.run() for bot in players))
    finally:
        for place in places:
            await place.close()
    last = tallies[0].games[-1]
    assert last.view is not None
    return TableResult(
        table=links.table,
        games=len(tallies[0].games),
        scores=(last.view.scores[0], last.view.scores[1]),
        winner=last.view.winner,
        actions=sum(tally.actions for tally in tallies),
    )


async def run_fleet(
    server: str, tables: int, plan: BotPlan, profile: str = "pagat-4p"
) -> FleetResult:
    """Create ``tables`` tables on ``server`` and play them all at once."""
    started = time.perf_counter()
    created = [await create_table(server, "bot host", profile=profile) for _ in range(tables)]
    results = await asyncio.gather(
        *(play_table(links, plan, SEATS_OF[profile], f"bot{i}") for i, links in enumerate(created))
    )
    return FleetResult(tuple(results), time.perf_counter() - started)
