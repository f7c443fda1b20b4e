"""Seats never block the table (invariant 5) and gaps always mean loss (invariant 2)."""

from __future__ import annotations

import asyncio
import random

import pytest

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol import game_events as g
from protocol import server_messages as s
from protocol import table_events as t
from protocol.errors import ErrorCode
from server.app import TableServer
from tests.server.players import play_until_finished, seat_four, seeds_not_won_on_the_deal
from tests.serving import StartServer


def _played_by(seat: int, after: int):  # type: ignore[no-untyped-def]
    def test(event: s.Event) -> bool:
        body = event.event
        return event.n > after and isinstance(body, g.Played) and body.seat == seat

    return test


async def test_a_dropped_player_is_played_for_then_resumes_missing_nothing_r7(
    start_server: StartServer,
) -> None:
    async with start_server(
        claim_window_s=0.05, away_turn_s=0.2, seeds=seeds_not_won_on_the_deal()
    ) as server:
        sessions, created = await seat_four(server, keep_frames=False)
        watcher = await ClientSession.connect(server.ws_url, "Eva")
        await watcher.request(c.Watch(key=created.watch_key))
        await sessions[0].request(c.Start())

        async def leaver() -> s.Snapshot:
            beto = sessions[1]
            rng = random.Random(1)
            while True:  # play along until Beto's turn comes after event 12
                snap = await beto.next_snapshot()
                plays = [a for a in snap.legal if isinstance(a, c.Play)]
                if plays and snap.last_event == beto.last_event:
                    if snap.last_event >= 12:
                        break
                    await beto.act(rng.choice(plays))
            seen = beto.last_event
            await beto.close()  # mid-hand, on Beto's own turn
            stand_in = await watcher.next_of(
                s.Event, lambda e: isinstance(e.event, t.StandIn) and e.event.active
            )
            played = await watcher.next_of(s.Event, _played_by(1, seen))
            back = await beto.reconnect(server.ws_url, "Beto")
            snap = await back.next_snapshot()
            assert back.seat == 1
            assert snap.you.seat == 1
            numbers = [event.n for event in back.events]
            missed = [n for n in numbers if n > seen]
            assert missed[0] == seen + 1, "resumed right after the last event seen"
            assert stand_in.n in missed
            assert played.n in missed
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), (
                "nothing missed, nothing twice"
            )
            assert back.problems == []
            returned = await watcher.next_of(
                s.Event, lambda e: isinstance(e.event, t.StandIn) and not e.event.active
            )
            assert returned.event == t.StandIn(seat=1, active=False, reason="returned")
            return await play_until_finished(back, rng)

        others = [play_until_finished(sessions[i], random.Random(i)) for i in (0, 2, 3)]
        finals = await asyncio.gather(leaver(), *others)
        assert {final.view.winner for final in finals if final.view} <= {0, 1}
        for session in [*sessions, watcher]:
            await session.close()


async def test_a_seat_token_taken_to_a_new_connection_replaces_the_old_one(
    table_server: TableServer,
) -> None:
    server = table_server
    async with await ClientSession.connect(server.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.join_key, seat=2))
        assert ana.token is not None
        tab = await ClientSession.connect(server.ws_url, "Ana", resume=ana.token)
        goodbye = await ana.next_of(s.Goodbye)
        assert "new connection" in goodbye.reason
        assert tab.seat == 2
        await tab.close()


async def test_a_forged_or_foreign_seat_token_is_refused(table_server: TableServer) -> None:
    server = table_server
    async with await ClientSession.connect(server.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.join_key))
        assert ana.token is not None
        table, _, secret = ana.token.partition(".")
        forged = f"{table}.{'A' * len(secret)}"
        other = await ana.request(c.CreateTable())
        assert isinstance(other, s.TableCreated)
        foreign = f"{other.table}.{secret}"  # a real secret, another table
        for token in (forged, foreign, "nosuchtable.whatever-secret"):
            with pytest.raises(RequestRefused) as refused:
                await ClientSession.connect(server.ws_url, "Mallory", resume=token)
            assert refused.value.code is ErrorCode.BAD_TOKEN
