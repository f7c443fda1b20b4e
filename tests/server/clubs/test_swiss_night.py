"""A whole Swiss night of six pairs on Redis, its server restarted in the middle of round 2.

Two people (Ana, Beto) follow the club and are told their seat by each round; each takes it with
an ordinary ``join`` and leaves, so the table's stand-in plays for them (invariant 5); the other
members never come, and bots stand in for them once the seat wait is over. Every game is a real
table's game at full bot speed. The proof: the standings the server shows equal a calculation
made here from the tables' kept game records; no pair meets another twice; and a server stopped
during round 2 and replaced by a new process on the same Redis finishes the night.
"""

from __future__ import annotations

import asyncio
from typing import Any

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import clubs as m
from server.app import TableServer
from server.store import open_store
from tests.redis_server import RedisServer
from tests.server.clubs.helpers import (
    CLUB,
    follow,
    kept_scores,
    night_until,
    round_done,
    round_started,
)
from tests.serving import StartServer

PAIRS = [["Ana"], ["Beto"], ["Carla", "Dani"], ["Eli", "Fer"], ["Gabo", "Hugo"], ["Iris"]]
SEAT_WAIT_S = 0.5  # absent members: bots stand in after this (the club's default is longer)


async def take_seats(person: ClientSession, server: TableServer, rounds: int) -> list[int]:
    """Each round's ``club_seat``: join that table at that seat, then leave (a stand-in plays)."""
    seats = []
    for _ in range(rounds):
        # connected before the seat is told: on a loaded machine a connection's hello took
        # longer than the seat wait, and a stand-in had the seat (a flaky seat_taken)
        async with await ClientSession.connect(server.ws_url, "x") as at_table:
            told = await person.next_of(m.ClubSeat, wait_s=120)
            seated = await at_table.request(c.Join(key=told.join_key, seat=told.seat))
            seats.append(told.seat)
            assert getattr(seated, "seat", told.seat) == told.seat
    return seats


def tally(night: dict[str, Any], scores: dict[str, tuple[int, int]]) -> dict[str, list[int]]:
    """Per pair, from the kept records: played, won, drawn, lost, points for, points against."""
    rows = {pair["id"]: [0, 0, 0, 0, 0, 0] for pair in night["pairs"]}
    for round_ in night["tournament"]["rounds"]:
        for match in round_["matches"]:
            key = f"{round_['number']}-{match['table']}"
            a, b = scores[key]
            for pair, mine, theirs in ((match["a"], a, b), (match["b"], b, a)):
                if pair in rows:
                    row = rows[pair]
                    row[0] += 1
                    row[1 + (0 if mine > theirs else 1 if mine == theirs else 2)] += 1
                    row[4] += mine
                    row[5] += theirs
    return rows


async def test_a_swiss_night_of_six_pairs_survives_a_restart_and_ranks_by_the_records(
    start_server: StartServer, redis_server: RedisServer
) -> None:
    async with start_server(
        store=await open_store(redis_server.url), clubs=(CLUB,), claim_window_s=0.2
    ) as first:
        first.nights.seat_wait_s = SEAT_WAIT_S  # type: ignore[union-attr]
        key = await first.club_host_key(CLUB)
        assert key is not None
        host = await follow(first, "host", key)
        ana = await follow(first, "Ana", member=True)
        beto = await follow(first, "Beto", member=True)
        for members in PAIRS:
            await host.request(m.ClubPair(club=CLUB, key=key, members=members, bot_level=2))
        await host.request(m.ClubStart(club=CLUB, key=key, format="swiss", rounds=3))
        seating = [asyncio.create_task(take_seats(p, first, 1)) for p in (ana, beto)]
        await host.request(m.ClubRound(club=CLUB, key=key, round=1))
        assert [len(seats) for seats in await asyncio.gather(*seating)] == [1, 1]
        await night_until(host, round_done(1))
        seating = [asyncio.create_task(take_seats(p, first, 1)) for p in (ana, beto)]
        await host.request(m.ClubRound(club=CLUB, key=key, round=2))
        await asyncio.gather(*seating)
        await night_until(host, round_started(2))
        for session in (host, ana, beto):
            await session.close()
    # the process is gone in the middle of round 2; a new one serves the same Redis
    async with start_server(
        store=await open_store(redis_server.url), clubs=(CLUB,), claim_window_s=0.2
    ) as second:
        second.nights.seat_wait_s = SEAT_WAIT_S  # type: ignore[union-attr]
        host = await follow(second, "host", key)
        await night_until(host, round_done(2))
        await host.request(m.ClubRound(club=CLUB, key=key, round=3))
        night = await night_until(host, round_done(3))
        await host.close()
        assert night["finished"]
        scores = {key_: await kept_scores(second, table) for key_, table in night["tables"].items()}
    rows = tally(night, scores)
    shown = {
        row["pair"]: [row["played"], row["won"], row["drawn"], row["lost"], row["points_for"]]
        for row in night["standings"]
    }
    assert shown == {pair: row[:5] for pair, row in rows.items()}
    order = [(2 * rows[r["pair"]][1] + rows[r["pair"]][2]) for r in night["standings"]]
    assert order == sorted(order, reverse=True)  # ranked by match points first
    meetings = [
        frozenset((match["a"], match["b"]))
        for round_ in night["tournament"]["rounds"]
        for match in round_["matches"]
    ]
    assert len(meetings) == 9
    assert len(set(meetings)) == 9  # no pair met another twice
