"""The chaos run's players: recording people at tables, and wire bots at tables of their own.

People are ``bench.recording`` persons (the client library's session, keeping every message):
four at a table and a spectator, all through the proxy, playing random legal moves game after
game (a new table each game). Each has a keeper that brings them back when their connection
goes (a server killed, a slow client dropped, a vanishing one): a player resumes with the seat
token after the last event seen, a spectator watches again. Every table, finished or not, is
kept for the audit. Wire bots (``clients.bot``) fill other tables with their own reconnecting
sessions: load that meets the same faults.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from bench.recording import NAMES, Person, Recorder, Table, finished, play_table
from clients.bot.fleet import play_table as play_bot_table
from clients.bot.player import BotPlan, WireBot
from clients.table import create_table
from protocol import client_messages as c
from protocol import server_messages as s

BACKOFF_S = (0.1, 0.25, 0.5, 1.0, 2.0)
BOT_GAME_S = 240.0  # a bot table's game not over by then counts as stuck; a new one is set
SETUP_PAUSE_S = 1.0  # after a table could not be seated (a server away): try again, not spin


@dataclass
class Crowd:
    """Every person and bot of the run, playing through ``url`` (the proxy)."""

    url: str
    rng: random.Random
    tables: int = 4
    bot_tables: int = 2
    bot_pace_s: float = 0.05
    halt: asyncio.Event = field(default_factory=asyncio.Event)  # no new moves, no new tables
    closing: asyncio.Event = field(default_factory=asyncio.Event)  # no more reconnects
    live: list[Table] = field(default_factory=list)
    done: list[Table] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)
    away_until: dict[int, float] = field(default_factory=dict)  # id(person): back after this
    keepers: list[asyncio.Task[None]] = field(default_factory=list)

    async def run(self) -> None:
        """Play until ``halt``: each slot seats a table, plays its game, and seats the next."""
        bots = [asyncio.create_task(self._bot_slot(index)) for index in range(self.bot_tables)]
        try:
            await asyncio.gather(*(self._table_slot() for _ in range(self.tables)))
        finally:
            for bot in bots:
                bot.cancel()
            await asyncio.gather(*bots, return_exceptions=True)

    # ------------------------------------------------------------------ people
    async def _table_slot(self) -> None:
        while not self.halt.is_set():
            table = await self._seat()
            if table is None:
                await asyncio.sleep(SETUP_PAUSE_S)
                continue
            self.live.append(table)
            keepers = [asyncio.create_task(self._keep(table, p)) for p in table.people]
            self.keepers += keepers
            await play_table(table, self.rng.randrange(1 << 30), self.halt)
            if not all(_over(person) for person in table.players):
                return  # halted mid-game: its keepers go on until the run closes
            self.stats["games"] += 1
            for keeper in keepers:
                keeper.cancel()
            self.live.remove(table)
            self.done.append(table)
            for person in table.people:
                await person.session.close()

    async def _seat(self) -> Table | None:
        """Four people and a spectator at a new table, the game started; None if a fault got
        in the way (those sessions closed: a table nobody plays is not audited)."""
        opened: list[Recorder] = []

        async def connect(name: str) -> Recorder:
            session = await Recorder.connect(self.url, name, wait_s=30)
            assert isinstance(session, Recorder)
            opened.append(session)
            return session

        try:
            host = await connect(NAMES[0])
            # a turn timer: without one a person has the claim window (0.1 s here) to announce,
            # and a stand-in announces for them past it: a move nobody can tell from theirs
            created = await host.request(
                c.CreateTable(profile="pagat-4p", turn_timer=60), wait_s=30
            )
            assert isinstance(created, s.TableCreated)
            await host.request(c.Join(key=created.host_key), wait_s=30)
            people = [Person(NAMES[0], 0, [host])]
            for seat, name in enumerate(NAMES[1:], 1):
                session = await connect(name)
                await session.request(c.Join(key=created.join_key), wait_s=30)
                people.append(Person(name, seat, [session]))
            watcher = await connect("watcher")
            await watcher.request(c.Watch(key=created.watch_key), wait_s=30)
            people.append(Person("watcher", None, [watcher]))
            await host.request(c.Start(), wait_s=30)
        except Exception as exc:  # any fault: a refusal, a lost socket, a proxy's 502
            self.stats[f"seating failed: {type(exc).__name__}"] += 1
            for session in opened:
                await session.close()
            return None
        self.stats["tables"] += 1
        return Table(created.table, created, people)

    async def _keep(self, table: Table, person: Person) -> None:
        """Bring ``person`` back whenever their connection goes, until the run closes."""
        while not self.closing.is_set():
            closed = asyncio.ensure_future(person.session.closed.wait())
            closing = asyncio.ensure_future(self.closing.wait())
            await asyncio.wait([closed, closing], return_when=asyncio.FIRST_COMPLETED)
            closed.cancel()
            closing.cancel()
            if self.closing.is_set():
                return
            back_at = self.away_until.pop(id(person), 0.0)
            if back_at > time.monotonic():
                await asyncio.sleep(back_at - time.monotonic())  # a vanished person's absence
            await self._come_back(table, person)

    async def _come_back(self, table: Table, person: Person) -> None:
        for attempt in range(10_000):
            if self.closing.is_set():
                return
            try:
                if person.seat is None:
                    await person.rewatch(self.url, table.keys.watch_key, table.table_id)
                else:
                    await person.reconnect(self.url)
                self.stats["reconnects"] += 1
                return
            except Exception as exc:  # away, refusing, a proxy's 502: try again, backing off
                self.stats[f"reconnect failed: {type(exc).__name__}"] += 1
                await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])

    def people_in_play(self) -> list[Person]:
        """Connected people at tables still playing (what a client fault may pick)."""
        return [
            person
            for table in self.live
            for person in table.people
            if not person.session.closed.is_set() and not _over(person)
        ]

    def vanish(self, person: Person, away_s: float) -> None:
        """Drop the connection without a goodbye; the keeper brings them back after away_s."""
        self.away_until[id(person)] = time.monotonic() + away_s
        person.session.ws.transport.abort()

    # ------------------------------------------------------------------ bots
    async def _bot_slot(self, index: int) -> None:
        while not self.halt.is_set():
            bots: list[WireBot] = []
            try:
                links = await create_table(self.url, f"bot host {index}")
                plan = BotPlan(level=1, pace_s=self.bot_pace_s, games=1)
                result = await asyncio.wait_for(
                    play_bot_table(links, plan, 4, f"bot{index}", bots), BOT_GAME_S
                )
                self.stats["bot games"] += result.games
            except Exception as exc:  # a table lost for good, or never made: the next one
                self.stats[f"bot table failed: {type(exc).__name__}"] += 1
                await asyncio.sleep(SETUP_PAUSE_S)
            finally:
                for bot in bots:  # what the server refused them, by code
                    for refusal in bot.tally.refused:
                        self.stats[f"bot refused: {refusal.split(': ', 2)[1]}"] += 1

    async def close(self) -> None:
        self.closing.set()
        await asyncio.gather(*self.keepers, return_exceptions=True)
        for table in self.live + self.done:
            for person in table.people:
                with contextlib.suppress(Exception):
                    await person.session.close()


def _over(person: Person) -> bool:
    snap = person.session.snapshot
    return snap is not None and finished(snap)
