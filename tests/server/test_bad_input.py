"""Invariant 7: bad input gets a clear refusal and hurts nobody else.

Each bad request below comes over a real socket while four people sit at a game in progress;
afterwards the table's stored state is byte-for-byte what it was, the other connections still
get answers, and a second table, whose four people play on throughout, never stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from clients.session import ClientSession, RequestRefused
from protocol import PROTOCOL_VERSION, decode_server, encode
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from tests.server.fuzz_arena import Playing
from tests.server.players import seat_four


async def _started_table(server: TableServer) -> tuple[list[ClientSession], s.TableCreated]:
    sessions, created = await seat_four(server, keep_frames=False)
    await sessions[0].request(c.Start())
    for session in sessions:
        await session.next_snapshot(lambda snap: snap.view is not None)
    return sessions, created


def _stored_state(server: TableServer, table: str) -> bytes:
    return server.lobby.rooms[table].referee.to_state()


@contextlib.asynccontextmanager
async def _table_beside(server: TableServer) -> AsyncIterator[Playing]:
    """A second table playing random legal moves meanwhile; on leaving, it must have moved on
    with none of its seats stopped or shown anything wrong."""
    sessions, _ = await _started_table(server)
    playing = Playing(sessions)
    rng = random.Random(16)
    playing.tasks = [asyncio.create_task(playing.play(x, rng)) for x in sessions]
    try:
        yield playing
        await playing.moved_past(playing.events(), wait_s=30)  # it plays on after the bad input
        crashed = [t.exception() for t in playing.tasks if t.done() and not t.cancelled()]
        assert crashed == [], f"a seat of the table beside stopped: {crashed!r}"
        assert all(session.problems == [] for session in sessions)
    finally:
        for session in sessions:  # its seats' tasks end with their connections
            await session.close()
        for task in playing.tasks:
            task.cancel()
        await asyncio.gather(*playing.tasks, return_exceptions=True)


async def _closed_with(server: TableServer, frame: bytes | str) -> int | None:
    intruder = await ClientSession.connect(server.ws_url, "Mallory")
    await intruder.send_raw(frame)
    await intruder.closed.wait()
    code = intruder.ws.close_code
    await intruder.close()
    return code


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\xc1\xc1", 1008),  # not msgpack
        ("hello", 1008),  # a text frame
        (msgpack.packb([[[[[[[[[[[]]]]]]]]]]]), 1008),  # nested too deep
        (b"\x00" * 20_000, 1009),  # over the frame limit
        (msgpack.packb([{"type": "ping", "rid": 1}]), 1008),  # an array, not a map
        (msgpack.packb(7), 1008),  # a scalar, not a map
    ],
    ids=["not-msgpack", "text", "too-deep", "oversize", "top-level-array", "top-level-int"],
)
async def test_garbage_and_oversized_frames_close_only_their_connection(
    table_server: TableServer, frame: bytes | str, code: int
) -> None:
    sessions, created = await _started_table(table_server)
    async with _table_beside(table_server):
        before = _stored_state(table_server, created.table)
        assert await _closed_with(table_server, frame) == code
        assert _stored_state(table_server, created.table) == before
        for session in sessions:
            assert isinstance(await session.request(c.Ping()), s.Pong)
            assert session.problems == []
            await session.close()


async def test_bad_requests_get_an_error_naming_the_request_and_change_nothing_r7(
    table_server: TableServer,
) -> None:
    sessions, created = await _started_table(table_server)
    for session in sessions:  # every message sent before the pong has been read
        await session.request(c.Ping())
    view = sessions[0].snapshot.view if sessions[0].snapshot else None
    assert view is not None
    assert view.turn is not None
    mover = sessions[view.turn]
    idle = next(x for x in sessions[1:] if x.seat != view.turn)  # neither host nor on turn
    mover_view = mover.snapshot.view if mover.snapshot else None
    idle_view = idle.snapshot.view if idle.snapshot else None
    assert mover_view is not None
    assert mover_view.hand
    assert idle_view is not None
    assert idle_view.hand
    elsewhere = next(
        code
        for code in ("AC", "2D", "3H", "4S", "5C", "6D", "7H", "JS")
        if code not in mover_view.table and code not in mover_view.hand
    )
    async with _table_beside(table_server):
        before = _stored_state(table_server, created.table)

        async def refused(session: ClientSession, value: dict[str, object]) -> s.Error:
            await session.send_raw(msgpack.packb({**value, "rid": 4242}))
            return await session.next_of(s.Error, lambda e: e.rid == 4242, wait_s=5)

        unknown = await refused(idle, {"type": "teleport"})
        assert unknown.code is ErrorCode.UNKNOWN_TYPE
        wrong = await refused(idle, {"type": "play", "card": "8S", "take": []})
        assert wrong.code is ErrorCode.INVALID_MESSAGE
        assert "card" in wrong.message
        extra = await refused(idle, {"type": "stand", "please": True})
        assert extra.code is ErrorCode.INVALID_MESSAGE
        assert "please" in extra.message
        for garbage_type in (["play"], {"play": 1}, "x" * 300, 7, None):
            garbage = await refused(idle, {"type": garbage_type})
            assert garbage.code is ErrorCode.UNKNOWN_TYPE
            assert len(garbage.message) <= 300
        for coerced in ("7", 7.0, True):  # a rid is a number the client sent, never coerced
            await idle.send_raw(msgpack.packb({"type": "ping", "rid": coerced}))
            bad_rid = await idle.next_of(s.Error, lambda e: e.rid is None, wait_s=5)
            assert bad_rid.code is ErrorCode.INVALID_MESSAGE
            assert "rid" in bad_rid.message

        with pytest.raises(RequestRefused) as out_of_turn:
            await idle.request(c.Play(card=idle_view.hand[0], take=[]))
        assert out_of_turn.value.code is ErrorCode.NOT_YOUR_TURN

        with pytest.raises(RequestRefused) as illegal:
            await mover.request(c.Play(card=mover_view.hand[0], take=[elsewhere]))
        assert illegal.value.code is ErrorCode.ILLEGAL_ACTION
        assert illegal.value.error.message.startswith("R7")

        for control in (c.Kick(seat=0), c.AddBot(level=1), c.Lock(), c.Start(), c.RuleMisdeal()):
            with pytest.raises(RequestRefused) as forbidden:
                await idle.request(control)
            assert forbidden.value.code is ErrorCode.FORBIDDEN

        stranger = await ClientSession.connect(table_server.ws_url, "Mallory")
        with pytest.raises(RequestRefused) as not_at_table:
            await stranger.request(c.Play(card="AC", take=[]))
        assert not_at_table.value.code is ErrorCode.NOT_AT_TABLE
        with pytest.raises(RequestRefused) as no_link:
            await stranger.request(c.Join(key="not-a-real-link-key"))
        assert no_link.value.code is ErrorCode.NOT_FOUND
        with pytest.raises(RequestRefused) as watch_link:
            await stranger.request(c.Join(key=created.watch_key))
        assert watch_link.value.code is ErrorCode.FORBIDDEN
        await stranger.request(c.Watch(key=created.watch_key))
        with pytest.raises(RequestRefused) as spectator_move:
            await stranger.request(c.Play(card="AC", take=[]))
        assert spectator_move.value.code is ErrorCode.NOT_SEATED

        assert _stored_state(table_server, created.table) == before
        for session in [*sessions, stranger]:
            assert isinstance(await session.request(c.Ping()), s.Pong)
            assert session.problems == []
            await session.close()


@pytest.mark.parametrize(
    ("first", "code"),
    [
        (c.Ping(rid=1), ErrorCode.HELLO_REQUIRED),
        (c.Hello(rid=1, version=PROTOCOL_VERSION + 1), ErrorCode.VERSION_MISMATCH),
    ],
)
async def test_the_first_message_must_be_a_hello_of_this_version(
    table_server: TableServer, first: c.ClientMessage, code: ErrorCode
) -> None:
    async with connect(table_server.ws_url) as ws:
        await ws.send(encode(first))
        answer = decode_server(await ws.recv())
        assert isinstance(answer, s.Error)
        assert (answer.code, answer.rid) == (code, 1)
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 1008


async def test_a_viewer_is_told_whether_it_may_take_a_chair(table_server: TableServer) -> None:
    """Only a join-link (or host-key) viewer is offered a free chair: the watch link's viewer is
    told it may not, and a sit it sends anyway is refused and changes nothing."""
    async with await ClientSession.connect(table_server.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        assert (await ana.next_snapshot()).you.can_sit
        async with await ClientSession.connect(table_server.ws_url, "Nieto") as guest:
            await guest.request(c.Watch(key=created.join_key))
            told = await guest.next_snapshot()
            assert (told.you.role, told.you.can_sit) == ("spectator", True)
            async with await ClientSession.connect(table_server.ws_url, "Eva") as watcher:
                await watcher.request(c.Watch(key=created.watch_key))
                seen = await watcher.next_snapshot()
                assert (seen.you.role, seen.you.can_sit) == ("spectator", False)
                with pytest.raises(RequestRefused) as refused:
                    await watcher.request(c.Sit(seat=2))
                assert refused.value.code is ErrorCode.FORBIDDEN
            await guest.request(c.Sit(seat=2))
            sat = await guest.next_snapshot(lambda snap: snap.you.seat == 2)
            assert sat.info.seats[2].name == "Nieto"
