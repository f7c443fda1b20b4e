"""Whole games over real WebSockets on 127.0.0.1, through ``clients.session``.

Every client's final snapshot must agree with ``engine.replay`` of the table's R15 record.
"""

from __future__ import annotations

import asyncio
import random

from clients.session import ClientSession
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol import server_messages as s
from tests.server.players import play_until_finished, seat_four, watched_bot_table
from tests.serving import StartServer


async def test_four_people_play_a_whole_game_that_replays_identically_r15(
    start_server: StartServer,
) -> None:
    async with start_server(claim_window_s=0.05) as server:
        sessions, _ = await seat_four(server)
        assert [x.seat for x in sessions] == [0, 1, 2, 3]
        await sessions[0].request(c.Start())
        finals = await asyncio.gather(
            *(play_until_finished(x, random.Random(i)) for i, x in enumerate(sessions))
        )
        answer = await sessions[1].request(c.GetRecord())
        assert isinstance(answer, s.RecordMessage)
        result = replay(Record.from_json(answer.record))
        assert result["status"] == "finished"
        for final in finals:
            assert final.view is not None
            assert final.view.scores == result["scores"]
            assert final.view.winner == result["winner"]
            assert final.view.phase == "finished"
        for session in sessions:
            assert session.problems == []
            await session.close()


async def test_one_person_and_three_bots_play_to_the_end(start_server: StartServer) -> None:
    async with (
        start_server(claim_window_s=0.05) as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
    ):
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        for level in (1, 2, 3):
            await ana.request(c.AddBot(level=level))
        await ana.request(c.Start())
        final = await play_until_finished(ana, random.Random(7))
        assert final.view is not None
        assert final.view.winner in (0, 1)
        if final.view.cuarenta is None:  # a dealt cuarenta wins at once at any score (R6)
            assert final.view.scores[final.view.winner] >= 40
        else:
            assert final.view.cuarenta[0] % 2 == final.view.winner
        assert ana.problems == []


async def test_four_bots_play_to_the_end_without_waiting_on_any_clock_r10(
    start_server: StartServer,
) -> None:
    async with (
        start_server(claim_window_s=3600) as server,
        await ClientSession.connect(server.ws_url, "Referee") as host,
    ):
        await watched_bot_table(host, level=2)
        final = await host.next_snapshot(lambda snap: snap.info.stage == "finished", wait_s=30)
        assert final.view is not None
        assert final.view.winner in (0, 1)
        assert final.you.role == "spectator"
