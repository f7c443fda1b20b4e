"""``clients.session``: the client library the terminal client, the bot client and tests share."""

from __future__ import annotations

import asyncio

import pytest

from clients import ClientSession, RequestRefused, ws_url
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer


def test_http_links_become_socket_addresses() -> None:
    assert ws_url("http://127.0.0.1:8765/t/abc") == "ws://127.0.0.1:8765/ws"
    assert ws_url("https://cuarenta.example/") == "wss://cuarenta.example/ws"
    assert ws_url("ws://127.0.0.1:1/ws") == "ws://127.0.0.1:1/ws"


async def test_requests_get_their_own_answers_and_refusals_raise(table_server: TableServer) -> None:
    async with await ClientSession.connect(table_server.url, "Ana") as ana:
        assert ana.connection_id
        pong = await ana.request(c.Ping())
        assert isinstance(pong, s.Pong)
        created = await ana.request(c.CreateTable(turn_timer=30))
        assert isinstance(created, s.TableCreated)
        seated = await ana.request(c.Join(key=created.join_key, seat=1))
        assert isinstance(seated, s.Seated)
        assert (ana.seat, ana.table, ana.token) == (1, created.table, seated.token)
        with pytest.raises(RequestRefused) as refused:
            await ana.request(c.Start())
        assert refused.value.code is ErrorCode.FORBIDDEN
        snapshot = await ana.next_snapshot(lambda snap: snap.you.seat == 1)
        assert snapshot.info.turn_timer == 30
        assert ana.problems == []


async def test_a_reconnected_session_keeps_its_history_and_its_seat(
    table_server: TableServer,
) -> None:
    ana = await ClientSession.connect(table_server.url, "Ana")
    created = await ana.request(c.CreateTable())
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key))
    await ana.request(c.AddBot(level=1))
    await ana.request(c.Ping())  # everything before the pong has been read
    history = [event.n for event in ana.events]
    await ana.close()
    async with await ana.reconnect(table_server.url, "Ana") as again:
        await again.request(c.AddBot(level=2))
        await again.request(c.Ping())
        numbers = [event.n for event in again.events]
        assert numbers[: len(history)] == history
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        assert again.seat == 0
        assert again.problems == []


async def test_a_refused_resume_closes_the_new_session(table_server: TableServer) -> None:
    with pytest.raises(RequestRefused) as refused:
        await ClientSession.connect(table_server.url, "Mallory", resume="tbl.not-a-token")
    assert refused.value.code is ErrorCode.BAD_TOKEN


async def test_a_wait_cancelled_as_its_message_arrives_is_cancelled(
    table_server: TableServer,
) -> None:
    """A bot client or terminal stopping its tasks must not have one run on for its whole
    timeout: on Python 3.11 ``asyncio.wait_for`` dropped a cancel that met the message."""
    async with await ClientSession.connect(table_server.url, "Ana") as ana:
        for rid, wait in ((99, ana._answer(99, 30)), (None, ana.recv(30))):
            if rid is not None:
                ana._answers[rid] = asyncio.Queue()
            while not ana._inbox.empty():  # what the hello brought: read already
                ana._inbox.get_nowait()
            task = asyncio.create_task(wait)
            await asyncio.sleep(0)  # the task now waits for its queue
            assert not task.done()
            if rid is not None:
                ana._answers[rid].put_nowait(s.Ack(rid=rid))
            else:
                ana._inbox.put_nowait(s.Ack(rid=1))
            task.cancel()  # in the same turn of the loop as the message
            with pytest.raises(asyncio.CancelledError):
                await task
