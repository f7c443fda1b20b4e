"""A club night's rounds played live or turn-based, as the host chooses (issue 41).

The host sets the night's pace with ``club_start`` and may set another for each round with
``club_round``; the round's tables are created at that pace (stand-in at a missed deadline),
the night keeps each round's pace, and a night stored before paces existed reads as live.
Real Redis, real sockets, the servers' clock a fake one whose deadlines are hours: a turn-based
round's seat waits one move deadline for its person (nobody waits a day here).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any, Final

import msgpack
import pytest
from websockets.asyncio.client import connect

from clients.session import ClientSession, RequestRefused
from protocol import PROTOCOL_VERSION
from protocol import client_messages as c
from protocol import clubs as m
from protocol import players as p
from protocol import server_messages as s
from server.app import TableServer
from server.clubs.night_store import RedisNightStore, club_key, night_key
from server.listing import entry_of
from server.store.redis import RedisStore, open_store
from tests.redis_server import RedisServer
from tests.server.clubs.helpers import CLUB, follow, night_until
from tests.server.people.wire import new_key
from tests.server.test_turn_based_tables import FakeClock
from tests.server.test_turn_based_tables import Told as Collected
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
DAY: Final = 86400
SETTINGS = replace(
    TEST_SETTINGS, clubs=(CLUB,), claim_window_s=0.2, idle_unload_s=0.0
)  # unloaded when a test says
PAIRS = [["Ana", "Beto"], ["Carla", "Dani"], ["Eli", "Fer"], ["Gabo", "Hugo"]]
LIVE = {"move_deadline": 0, "on_deadline": "stand_in"}


class Night:
    """One server on the test's Redis, its host following the club."""

    def __init__(self, server: TableServer, host: ClientSession, key: str) -> None:
        self.server, self.host, self.key = server, host, key

    async def send(self, message: m.ClubRequest) -> m.ClubNight:
        answer = await self.host.request(message)
        assert isinstance(answer, m.ClubNight)
        return answer

    async def start(self, rounds: int, **pace: Any) -> None:
        for members in PAIRS:
            await self.send(m.ClubPair(club=CLUB, key=self.key, members=members))
        await self.send(m.ClubStart(club=CLUB, key=self.key, rounds=rounds, **pace))

    async def opened(self, number: int) -> dict[str, Any]:
        """The night once every table of round ``number`` is opened."""

        def done(night: dict[str, Any]) -> bool:
            rounds = (night["tournament"] or {}).get("rounds", [])
            keys = [f"{number}-{x['table']}" for x in rounds[number - 1]["matches"]]
            return len(rounds) >= number and all(key in night["tables"] for key in keys)

        answer = await self.send(m.ClubRound(club=CLUB, key=self.key, round=number))
        if answer.state["night"] and done(answer.state["night"]):
            return dict(answer.state["night"])
        return await night_until(self.host, done, 20)

    async def rule_all(self, night: dict[str, Any], number: int) -> None:
        for match in night["tournament"]["rounds"][number - 1]["matches"]:
            rule = m.ClubRule(club=CLUB, key=self.key, table=match["table"], score_a=40, score_b=8)
            await self.send(rule)

    async def stored_pace(self, table_id: str) -> int:
        """The move deadline the table's stored state holds (what any process loads)."""
        stored = await self.server.lobby.store.load(table_id)
        assert stored is not None
        pace = json.loads(stored.state).get("pace")
        return 0 if pace is None else int(pace["move_deadline"])


@pytest.fixture
async def opened(redis_server: RedisServer) -> AsyncIterator[tuple[Night, FakeClock, Collected]]:
    clock, collected = FakeClock(), Collected()
    store = await open_store(redis_server.url)
    server = TableServer(SETTINGS, store=store, clock=clock, notices=collected)
    await server.start()
    key = await server.club_host_key(CLUB)
    assert key is not None
    host = await follow(server, "host", key)
    try:
        yield Night(server, host, key), clock, collected
    finally:
        await host.close()
        await server.close()


def round_tables(night: dict[str, Any], number: int) -> list[dict[str, Any]]:
    return [entry for entry in night["tables"].values() if entry["round"] == number]


async def test_a_night_started_turn_based_opens_its_tables_with_that_deadline_and_calls_members(
    opened: tuple[Night, FakeClock, Collected],
) -> None:
    night, clock, collected = opened
    assert night.server.nights is not None
    night.server.nights.seat_wait_s = 0.0  # a live table would start with stand-ins at once
    ana = await ClientSession.connect(night.server.ws_url, "Ana", player_key=new_key())
    me = await ana.request(p.MeRequest())
    assert isinstance(me, p.Me)
    await ana.request(m.ClubOpen(club=CLUB, member=True))
    await night.start(1, move_deadline=DAY)
    state = await night.opened(1)
    assert state["pace"] == {"move_deadline": DAY, "on_deadline": "stand_in"}
    assert state["paces"] == [state["pace"]]
    tables = round_tables(state, 1)
    assert len(tables) == 2
    for entry in tables:
        assert entry["move_deadline"] == DAY
        assert await night.stored_pace(entry["id"]) == DAY  # the table itself is turn-based
    notice = await asyncio.wait_for(collected.queue.get(), 20)  # the round still calls Ana
    assert (notice.kind, notice.player_id, notice.url) == ("night_round", me.id, f"/c/{CLUB}")
    assert notice.pace == DAY  # and says how the round is played: 24 hours a move
    seat = await ana.next_of(m.ClubSeat, wait_s=20)  # her page is told too, with the pace
    assert seat.move_deadline == DAY
    # the seats wait one move deadline for their people, then the stand-ins sit and play
    clock.now += DAY - 1
    await night.server.nights.drive(CLUB)  # a driver pass a second before: nothing starts
    quiet = await night.server.nights.state(CLUB)
    assert not any(t["started"] for t in quiet.state["night"]["tables"].values())
    clock.now += 2
    await night.server.nights.drive(CLUB)
    going = await night.server.nights.state(CLUB)
    assert all(t["started"] for t in going.state["night"]["tables"].values())
    await ana.close()


async def test_a_live_first_round_then_a_turn_based_second_then_the_nights_pace_again(
    opened: tuple[Night, FakeClock, Collected],
) -> None:
    night, _, _ = opened
    await night.start(3)
    first = await night.opened(1)
    assert [t["move_deadline"] for t in round_tables(first, 1)] == [0, 0]
    assert [await night.stored_pace(t["id"]) for t in round_tables(first, 1)] == [0, 0]
    await night.rule_all(first, 1)
    answer = await night.send(m.ClubRound(club=CLUB, key=night.key, round=2, move_deadline=43200))
    assert answer.state["night"]["paces"][1]["move_deadline"] == 43200
    second = await night_until(night.host, lambda n: len(round_tables(n, 2)) == 2, 20)
    assert [t["move_deadline"] for t in round_tables(second, 2)] == [43200, 43200]
    assert [await night.stored_pace(t["id"]) for t in round_tables(second, 2)] == [43200] * 2
    assert [t["move_deadline"] for t in round_tables(second, 1)] == [0, 0]  # as they were
    await night.rule_all(second, 2)
    third = await night.opened(3)  # no pace named: the night's (live)
    assert third["paces"] == [LIVE, {"move_deadline": 43200, "on_deadline": "stand_in"}, LIVE]
    assert [t["move_deadline"] for t in round_tables(third, 3)] == [0, 0]


async def test_a_night_stored_without_paces_loads_as_live_and_plays_on(
    redis_server: RedisServer,
) -> None:
    clock = FakeClock()
    server = TableServer(SETTINGS, store=await open_store(redis_server.url), clock=clock)
    await server.start()
    key = await server.club_host_key(CLUB)
    assert key is not None
    night = Night(server, await follow(server, "host", key), key)
    await night.start(2)
    await night.opened(1)
    await night.host.close()
    await server.close()
    # the night as a server from before paces wrote it: no "pace", no "paces", no table's deadline
    store = await open_store(redis_server.url)
    assert isinstance(store, RedisStore)
    docs = RedisNightStore(store.client)
    club = await docs.get(club_key(CLUB))
    assert club is not None
    found = await docs.get(night_key(CLUB, club[0]["current"]))
    assert found is not None
    old, version = found
    del old["pace"], old["paces"]
    for entry in old["tables"].values():
        del entry["move_deadline"]
    await docs.put(night_key(CLUB, old["number"]), old, version)

    server = TableServer(SETTINGS, store=store, clock=clock)
    await server.start()
    try:
        night = Night(server, await follow(server, "host", key), key)
        assert server.nights is not None
        state = (await server.nights.state(CLUB)).state["night"]
        assert (state["pace"], state["paces"]) == (LIVE, [LIVE])
        await night.rule_all(state, 1)
        second = await night.opened(2)
        assert second["paces"] == [LIVE, LIVE]
        assert [await night.stored_pace(t["id"]) for t in round_tables(second, 2)] == [0, 0]
        await night.host.close()
    finally:
        await server.close()


async def test_a_turn_based_tables_stuck_game_out_of_memory_is_ruled_as_it_stands(
    opened: tuple[Night, FakeClock, Collected],
) -> None:
    night, clock, collected = opened
    assert night.server.nights is not None
    ana = await ClientSession.connect(night.server.ws_url, "Ana", player_key=new_key())
    await ana.request(m.ClubOpen(club=CLUB, member=True))
    await night.start(1, move_deadline=DAY)
    await night.send(m.ClubRound(club=CLUB, key=night.key, round=1))
    told = await ana.next_of(m.ClubSeat, wait_s=20)
    await ana.request(c.Join(key=told.join_key, seat=told.seat))  # as her club page does
    state = await night.server.nights.state(CLUB)
    table = state.state["night"]["tables"][f"1-{told.table}"]
    async with await ClientSession.connect(night.server.ws_url, "Eva") as eva:
        await eva.request(c.Watch(key=table["watch"]))
        await ana.close()  # she sat down and went away for the day
        away = await eva.next_of(s.Presence, lambda seen: not seen.seats[told.seat].connected, 20)
        assert away.seats[told.seat].occupant == "person"  # her seat stays hers
        await eva.request(c.Leave())  # answered once the table let its last viewer go
    clock.now += DAY + 1  # nobody else came: stand-ins sit, the bots play up to her decision
    notice = await collected.next("your_turn")  # told, as she is away: the table waits for her
    assert notice.room_id == table["id"]
    room = night.server.lobby.loaded(table["id"])
    assert room is not None
    scores = list(room.summary.scores)
    assert table["id"] in await night.server.lobby.unload_idle()  # it waits in the store only
    await night.send(m.ClubRule(club=CLUB, key=night.key, table=told.table))
    ruled = (await night.server.nights.state(CLUB)).state["night"]
    [match] = [x for x in ruled["tournament"]["rounds"][0]["matches"] if x["table"] == told.table]
    assert [match["score_a"], match["score_b"]] == scores


async def test_a_turn_based_round_table_waiting_in_the_store_shows_its_seats_and_score_unloaded(
    opened: tuple[Night, FakeClock, Collected],
) -> None:
    night, clock, collected = opened
    nights = night.server.nights
    assert nights is not None
    ana = await ClientSession.connect(night.server.ws_url, "Ana", player_key=new_key())
    await ana.request(m.ClubOpen(club=CLUB, member=True))
    await night.start(1, move_deadline=DAY)
    await night.send(m.ClubRound(club=CLUB, key=night.key, round=1))
    told = await ana.next_of(m.ClubSeat, wait_s=20)
    await ana.request(c.Join(key=told.join_key, seat=told.seat))
    await ana.close()  # she sat down and went away for the day
    clock.now += DAY + 1  # stand-ins sit in the empty seats; the bots play up to her decision
    table_id = (await collected.next("your_turn")).room_id
    assert table_id is not None
    room = night.server.lobby.loaded(table_id)
    assert room is not None
    shown = {k: v for k, v in entry_of(room.summary).items() if k in WAITING_FIELDS}
    assert shown["stage"] == "playing"
    assert shown["seats"][told.seat] == {"name": "Ana", "occupant": "person", "bot_level": None}
    assert table_id in await night.server.lobby.unload_idle()  # it waits in the store only
    view = await nights.view(CLUB)
    assert night.server.lobby.loaded(table_id) is None  # looked at, not loaded
    assert {k: view["live"][table_id][k] for k in WAITING_FIELDS} == shown
    assert set(view["live"][table_id]) <= PUBLIC_FIELDS  # nothing the lobby would not show
    assert "key" not in json.dumps(view["live"][table_id])


WAITING_FIELDS = {"table", "stage", "game", "seats", "scores", "move_deadline", "on_deadline"}
PUBLIC_FIELDS = WAITING_FIELDS | {"profile"}


async def raw(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send one frame as any client could write it; the answer to its request id."""
    await ws.send(msgpack.packb(message))
    while True:
        answer: dict[str, Any] = msgpack.unpackb(await ws.recv())
        if answer.get("rid") == message["rid"]:
            return answer


async def test_an_unknown_deadline_or_a_pace_for_a_started_round_is_refused_and_changes_nothing(
    opened: tuple[Night, FakeClock, Collected],
) -> None:
    night, _, _ = opened
    assert night.server.nights is not None
    for members in PAIRS:
        await night.send(m.ClubPair(club=CLUB, key=night.key, members=members))
    async with connect(night.server.ws_url) as ws:
        hello = {"type": "hello", "version": PROTOCOL_VERSION, "name": "host", "rid": 1}
        await raw(ws, hello)
        start = {"type": "club_start", "club": CLUB, "key": night.key, "rounds": 2, "rid": 2}
        refused = await raw(ws, {**start, "move_deadline": 7200})
        assert refused["type"] == "error"
        assert refused["code"] == "invalid_message"
        assert "move_deadline" in refused["message"]
        state = (await night.server.nights.state(CLUB)).state["night"]
        assert state["tournament"] is None  # not started
        assert (await raw(ws, {**start, "rid": 3, "move_deadline": 3600}))["type"] == "club_night"
        going = await night.opened(1)
        assert going["paces"][0]["move_deadline"] == 3600
        for bad, rid in ((7200, 4), ("1h", 5), (-1, 6)):
            next_round = {"type": "club_round", "club": CLUB, "key": night.key, "round": 2}
            refused = await raw(ws, {**next_round, "rid": rid, "move_deadline": bad})
            assert (refused["type"], refused["code"]) == ("error", "invalid_message")
    again = m.ClubRound(club=CLUB, key=night.key, round=1, move_deadline=DAY)
    with pytest.raises(RequestRefused) as caught:
        await night.host.request(again)
    assert "round 1 has already started" in caught.value.error.message
    after = (await night.server.nights.state(CLUB)).state["night"]
    assert after["paces"] == going["paces"]
    assert after["tables"] == going["tables"]
    assert len(after["tournament"]["rounds"]) == 1
