"""Turn-based tables over the wire, on a fake clock whose deadlines are hours (issue 41): a
waiting table leaves memory, its deadline lives in the store and brings it back, in whichever
process is alive, once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace

import msgpack
import pytest

from clients.session import ClientSession, RequestRefused
from engine.bots.learned import CHEAP_LEVEL
from protocol import away as a
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from protocol.base import OnDeadline
from protocol.errors import ErrorCode
from server.app import TableServer
from server.notices import Notice
from server.store.base import Store
from server.store.memory import MemoryStore
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.server.people.wire import new_key
from tests.serving import TEST_SETTINGS

HOUR = 3600
T0 = 1_800_000_000.0
SETTINGS = replace(TEST_SETTINGS, idle_unload_s=0.0, lease_s=2.0)


class FakeClock:
    """The servers' clock: hours pass when the test says so."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class Told:
    """Where the servers' notices go: the test reads them as they come."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Notice] = asyncio.Queue()

    async def send(self, notice: Notice) -> None:
        self.queue.put_nowait(notice)

    async def next(self, kind: str = "your_turn") -> Notice:
        async with asyncio.timeout(20):
            while True:
                notice = await self.queue.get()
                if notice.kind == kind:
                    return notice


async def started(store: Store, clock: FakeClock, told: Told) -> TableServer:
    server = TableServer(SETTINGS, store=store, clock=clock, notices=told)
    await server.start()
    return server


async def ana_at_a_turn_based_table(
    server: TableServer, rule: OnDeadline = "stand_in", key: str | None = None
) -> tuple[ClientSession, s.TableCreated]:
    """Ana with three bots at a one-hour table, her first decision awaited."""
    ana = await ClientSession.connect(server.ws_url, "Ana", player_key=key or new_key())
    create = c.CreateTable(profile="pagat-4p", move_deadline=HOUR, on_deadline=rule)
    created = await ana.request(create)
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key))
    for _ in range(3):
        await ana.request(c.AddBot(level=1))
    await ana.request(c.Start())
    while True:
        snap = await ana.next_snapshot(wait_s=20)
        assert snap.info.move_deadline == HOUR
        if any(isinstance(action, c.Play | c.Announce) for action in snap.legal):
            return ana, created


async def moves_of(store: Store, table: str, seat: int) -> int:
    """The plays and announcements stored for ``seat``, by anyone (the person or a stand-in)."""
    count = 0
    for event in await store.events_after(table, 0):
        entry = json.loads(event.data)
        form = entry.get("a") or entry["v"][-1]
        count += form.get("type") in ("played", "announced") and form.get("seat") == seat
    return count


@pytest.fixture
async def memory_server() -> AsyncIterator[tuple[TableServer, FakeClock, Told]]:
    clock, told = FakeClock(), Told()
    server = await started(MemoryStore(), clock, told)
    yield server, clock, told
    await server.close()


async def test_a_waiting_table_leaves_memory_and_its_deadline_brings_it_back(
    memory_server: tuple[TableServer, FakeClock, Told],
) -> None:
    server, clock, told = memory_server
    ana, created = await ana_at_a_turn_based_table(server)
    await ana.close()
    table = created.table
    assert await server.lobby.unload_idle() == [table]  # nobody there, nothing due for an hour
    board = server.waiting.board
    assert await board.due(clock.now, 10) == []
    assert await board.due(clock.now + HOUR, 10) == [table]
    before = await moves_of(server.lobby.store, table, 0)
    clock.now += HOUR + 1
    assert await server.watch.scan() == [table]  # loaded: its clock acts
    notice = await told.next()  # the stand-in played her turn, and her next one is awaited
    assert (notice.room_id, notice.url) == (table, f"/me?open={table}")
    assert notice.deadline == pytest.approx(clock.now + HOUR)
    assert await moves_of(server.lobby.store, table, 0) == before + 1
    assert await board.due(clock.now, 10) == []  # the next deadline is an hour away


async def test_a_forfeit_rule_is_offered_only_to_turn_based_tables_and_bad_values_make_nothing(
    memory_server: tuple[TableServer, FakeClock, Told],
) -> None:
    server, _, _ = memory_server
    store = server.lobby.store
    async with await ClientSession.connect(server.ws_url, "Ana") as ana:
        with pytest.raises(RequestRefused) as live:  # a live table has no deadline to miss
            await ana.request(c.CreateTable(on_deadline="forfeit"))
        assert live.value.code is ErrorCode.BAD_OPTIONS
        assert "turn-based" in live.value.error.message
        await ana.send_raw(
            msgpack.packb(
                {"type": "create", "rid": 77, "move_deadline": HOUR, "on_deadline": "lose"}
            )
        )
        unknown = await ana.next_of(s.Error, lambda e: e.rid == 77, wait_s=5)
        assert unknown.code is ErrorCode.INVALID_MESSAGE
        assert "on_deadline" in unknown.message
        assert await store.table_ids() == []  # nothing was made
        created = await ana.request(c.CreateTable(move_deadline=HOUR, on_deadline="forfeit"))
        assert isinstance(created, s.TableCreated)
        watched = await ana.request(c.Watch(key=created.join_key))  # before anyone sits
        assert isinstance(watched, s.Ack)
        snap = await ana.next_snapshot(wait_s=5)
        assert (snap.info.move_deadline, snap.info.on_deadline) == (HOUR, "forfeit")
        assert (snap.info.missed, snap.info.ended) == ((0, 0), None)


async def test_a_person_away_for_two_deadlines_forfeits_the_game_and_it_counts_as_a_loss(
    memory_server: tuple[TableServer, FakeClock, Told],
) -> None:
    server, clock, told = memory_server
    key = new_key()
    ana, created = await ana_at_a_turn_based_table(server, "forfeit", key)
    await ana.close()  # her tab closed: the table waits in the store, out of memory
    table = created.table
    assert await server.lobby.unload_idle() == [table]
    clock.now += HOUR + 1
    assert await server.watch.scan() == [table]  # her first missed deadline: the stand-in plays
    await told.next()  # and her next decision is awaited
    assert await server.lobby.unload_idle() == [table]
    clock.now += HOUR + 1
    assert await server.watch.scan() == [table]  # her team's second in a row: the game is lost
    async with await ClientSession.connect(server.ws_url, "Ana", player_key=key) as back:
        await back.request(c.Watch(key=created.watch_key))  # her page, as a spectator's
        snap = await back.next_snapshot(wait_s=20)
        while snap.info.stage != "finished":  # the stand-in's card, then the forfeit
            snap = await back.next_snapshot(wait_s=20)
        assert snap.info.ended == s.Ended(by="forfeit", team=0)
        assert snap.view is not None
        assert (snap.view.phase, snap.view.winner) == ("finished", 1)
        stored = await server.lobby.store.load(table)
        assert stored is not None
        state = json.loads(stored.state)
        assert (state["stage"], state["ended"]) == ("finished", {"by": "forfeit", "team": 0})
        assert state["pace"]["missed"] == [2, 0]
        assert await server.waiting.board.due(clock.now + 10 * HOUR, 10) == []  # nothing due
        for _ in range(500):  # recorded off the table's path, after its commit: a few trips
            history = await back.request(p.HistoryRequest())
            assert isinstance(history, p.History)
            if history.games:
                break
        assert [(g.table, g.result, g.by) for g in history.games] == [(table, "lost", "forfeit")]
        assert history.games[0].rating_change is not None
        assert history.games[0].rating_change < 0
        turns = await back.request(a.TurnsRequest())  # the table's line on her /me says it too
        assert isinstance(turns, a.Turns)
        assert [(line.stage, line.forfeit) for line in turns.tables] == [("finished", "lost")]


@pytest.mark.redis
async def test_a_deadline_due_while_no_process_ran_fires_once_when_two_start(
    redis_server: RedisServer,
) -> None:
    clock, told = FakeClock(), Told()
    first = await started(await open_store(redis_server.url), clock, told)
    ana, created = await ana_at_a_turn_based_table(first)
    await ana.close()
    table = created.table
    await first.close()  # the last process stops (SIGTERM's path); the table waits in Redis
    reader = await open_store(redis_server.url)
    before = await moves_of(reader, table, 0)
    clock.now += 3 * HOUR  # nobody ran when the deadline passed
    stores = [await open_store(redis_server.url) for _ in range(2)]
    one, two = await asyncio.gather(*(started(store, clock, told) for store in stores))
    try:
        await told.next()  # the stand-in played her turn; her next decision is awaited
        assert await moves_of(reader, table, 0) == before + 1  # one stand-in move
        assert one.watch is not None
        assert two.watch is not None
        assert await one.watch.scan() == []
        assert await two.watch.scan() == []
        assert one.watch.woken + two.watch.woken == 1  # one process took it, once
    finally:
        await one.close()
        await two.close()
        await reader.close()


def _bot_moves(server: TableServer) -> dict[tuple[str, str], float]:
    """``cuarenta_bot_moves_total`` by (level asked, policy that ran)."""
    found: dict[tuple[str, str], float] = {}
    for metric in server.metrics.registry.collect():
        for sample in metric.samples:
            if sample.name == "cuarenta_bot_moves_total":
                found[sample.labels["level"], sample.labels["ran"]] = sample.value
    return found


async def test_the_bots_metrics_count_which_policy_ran_for_the_stand_in_and_the_bots(
    memory_server: tuple[TableServer, FakeClock, Told],
) -> None:
    """The bots' own moves are counted as their level; the stand-in's move for the person
    past her deadline as the learned policy (`CHEAP_LEVEL`), which is what ran."""
    server, clock, told = memory_server
    ana, created = await ana_at_a_turn_based_table(server)
    await ana.close()
    assert await server.lobby.unload_idle() == [created.table]
    before = _bot_moves(server)
    assert {ran for _, ran in before} <= {"1"}, "only the level-1 bots have moved"
    clock.now += HOUR + 1
    assert await server.watch.scan() == [created.table]
    await told.next()  # the stand-in played her turn
    stood_in = {
        key: count - before.get(key, 0.0)
        for key, count in _bot_moves(server).items()
        if key[1] == str(CHEAP_LEVEL)
    }
    assert sum(stood_in.values()) == 1
