"""A hint over the wire: level 5's play for the asker's own turn, to the asker alone.

The engine proves a hint reads nothing the seat cannot see (re-dealing unseen cards leaves it
unchanged: ``tests/engine``); here the server's part: only a seated player whose turn it is,
only at a casual or solo table, once per decision, and no other viewer hears of it.
"""

from __future__ import annotations

import pytest

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.coach import Hint, HintRequest, SetHints
from protocol.errors import ErrorCode
from tests.serving import StartServer


async def _to_play(
    sessions: list[ClientSession],
) -> tuple[tuple[ClientSession, s.Snapshot], ClientSession]:
    """(the seat to play a card and its first snapshot of the game, the other seat)."""
    snaps = [
        await each.next_snapshot(lambda snap: snap.view is not None, wait_s=30) for each in sessions
    ]
    turn = snaps[0].view.turn if snaps[0].view is not None else None
    mover = next(index for index, each in enumerate(sessions) if each.seat == turn)
    return (sessions[mover], snaps[mover]), sessions[1 - mover]


async def _heads_up(ana: ClientSession, beto: ClientSession, casual: bool) -> s.TableCreated:
    created = await ana.request(c.CreateTable(profile="heads-up", casual=casual))
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key))
    await beto.request(c.Join(key=created.join_key))
    return created


async def _heard_before_pong(session: ClientSession) -> list[s.ServerMessage]:
    """Everything ``session`` was sent before the answer to a ping sent now (order kept)."""
    await session.send(c.Ping(rid=999))
    heard: list[s.ServerMessage] = []
    while not isinstance(message := await session.recv(), s.Pong):
        heard.append(message)
    return heard


async def test_a_hint_answers_the_player_to_play_alone_from_its_own_hand(
    start_server: StartServer,
) -> None:
    async with (
        start_server() as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
        await ClientSession.connect(server.ws_url, "Beto") as beto,
        await ClientSession.connect(server.ws_url, "Caro") as caro,
    ):
        created = await _heads_up(ana, beto, casual=True)
        await caro.request(c.Watch(key=created.watch_key))
        await ana.request(c.Start())
        (mover, snap), other = await _to_play([ana, beto])
        hint = await mover.request(HintRequest(), wait_s=30)  # the pool's first start included
        assert isinstance(hint, Hint)
        assert snap.view is not None
        assert snap.view.hand is not None
        assert hint.play.card in snap.view.hand  # a card of the asker's own hand (R7)
        assert hint.at == snap.last_event
        with pytest.raises(RequestRefused) as again:  # once per decision
            await mover.request(HintRequest())
        assert again.value.code is ErrorCode.RATE_LIMITED
        with pytest.raises(RequestRefused) as waiting:  # not the other seat's turn
            await other.request(HintRequest())
        assert waiting.value.code is ErrorCode.NOT_YOUR_TURN
        with pytest.raises(RequestRefused) as watching:  # a spectator has no decision
            await caro.request(HintRequest())
        assert watching.value.code is ErrorCode.NOT_SEATED
        for session in (other, caro):
            heard = await _heard_before_pong(session)
            assert not [each for each in heard if isinstance(each, Hint)]


async def test_a_rated_table_gives_no_hint(start_server: StartServer) -> None:
    async with (
        start_server() as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
        await ClientSession.connect(server.ws_url, "Beto") as beto,
    ):
        await _heads_up(ana, beto, casual=False)
        await ana.request(c.Start())
        (mover, _), _ = await _to_play([ana, beto])
        with pytest.raises(RequestRefused) as refused:
            await mover.request(HintRequest())
        assert refused.value.code is ErrorCode.FORBIDDEN
        assert "never in a rated game" in refused.value.error.message


async def test_a_hint_needs_a_table(start_server: StartServer) -> None:
    async with start_server() as server, await ClientSession.connect(server.ws_url) as ana:
        with pytest.raises(RequestRefused) as refused:
            await ana.request(HintRequest())
        assert refused.value.code is ErrorCode.NOT_AT_TABLE


async def test_the_host_switches_hints_off_for_the_table_and_the_players_see_it(
    start_server: StartServer,
) -> None:
    async with (
        start_server() as server,
        await ClientSession.connect(server.ws_url, "Ana") as ana,
        await ClientSession.connect(server.ws_url, "Beto") as beto,
    ):
        await _heads_up(ana, beto, casual=True)
        await ana.request(c.Start())
        (mover, _), _ = await _to_play([ana, beto])
        await ana.request(SetHints(hints=False))
        told = await beto.next_snapshot(lambda snap: not snap.info.hints)
        assert told.info.casual  # a casual table, its host said no
        with pytest.raises(RequestRefused) as refused:
            await mover.request(HintRequest())
        assert refused.value.code is ErrorCode.FORBIDDEN
        assert "switched hints off" in refused.value.error.message
        await ana.request(SetHints(hints=True))
        await mover.next_snapshot(lambda snap: snap.info.hints)
        assert isinstance(await mover.request(HintRequest(), wait_s=30), Hint)
