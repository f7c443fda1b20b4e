"""Invariant 1 over real sockets: every frame a viewer receives holds only what it may see.

Each viewer's frames are decoded one by one and followed against the true deal (replayed from
the finished game's R15 record): no card of another seat's hand may appear before it is played
(R7) or shown in a cuarenta (R6) — before, during and after reconnects.
"""

from __future__ import annotations

import asyncio
import random

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from tests.server.players import (
    leaked_cards,
    play_until_finished,
    seat_four,
    seeds_not_won_on_the_deal,
)
from tests.serving import StartServer


async def test_no_frame_shows_a_player_or_spectator_another_seats_hand_r4_r6_r7(
    start_server: StartServer,
) -> None:
    async with start_server(claim_window_s=0.05, seeds=seeds_not_won_on_the_deal()) as server:
        sessions, created = await seat_four(server)
        watcher = await ClientSession.connect(server.ws_url, "Eva", keep_frames=True)
        await watcher.request(c.Watch(key=created.watch_key))
        await sessions[0].request(c.Start())
        viewed: list[tuple[int | None, ClientSession]] = [(i, x) for i, x in enumerate(sessions)]
        viewed.append((None, watcher))

        async def player(seat: int) -> None:
            session = sessions[seat]
            if seat == 2:  # drops mid-game and takes the seat back with its token
                await play_until_finished(session, random.Random(seat), stop_after=40)
                await session.close()
                session = await session.reconnect(server.ws_url, "Caro", keep_frames=True)
                viewed.append((seat, session))
            await play_until_finished(session, random.Random(seat))

        async def spectator() -> None:
            # a cuarenta in a later deal can end the game sooner (R6): then the second watcher
            # comes to the finished table
            await watcher.next_snapshot(
                lambda snap: snap.last_event >= 60 or snap.info.stage == "finished", wait_s=60
            )
            await watcher.close()
            again = await ClientSession.connect(server.ws_url, "Eva", keep_frames=True)
            viewed.append((None, again))
            await again.request(c.Watch(key=created.watch_key))
            await again.next_snapshot(lambda snap: snap.info.stage == "finished", wait_s=60)

        await asyncio.gather(*(player(seat) for seat in range(4)), spectator())
        answer = await sessions[0].request(c.GetRecord())
        assert isinstance(answer, s.RecordMessage)

        assert len(viewed) == 7
        for seat, session in viewed:
            assert session.frames, "every viewer received frames"
            assert leaked_cards(session.frames, seat, answer.record) == [], f"viewer {seat}"
            assert session.problems == []
            await session.close()


async def test_the_frame_checker_catches_a_hand_shown_to_the_wrong_seat(
    start_server: StartServer,
) -> None:
    """The check above is not vacuous: seat 0's own frames seen as seat 1's are leaks."""
    async with start_server(claim_window_s=0.05) as server:
        sessions, _ = await seat_four(server)
        await sessions[0].request(c.Start())
        await asyncio.gather(
            *(play_until_finished(x, random.Random(i)) for i, x in enumerate(sessions))
        )
        answer = await sessions[0].request(c.GetRecord())
        assert isinstance(answer, s.RecordMessage)
        assert leaked_cards(sessions[0].frames, 0, answer.record) == []
        assert len(leaked_cards(sessions[0].frames, 1, answer.record)) > 10
        for session in sessions:
            await session.close()
