"""Limits per client address and per connection, each with its documented answer.

- connections per address: the one past the cap is closed with 1008 and a reason;
- the hello deadline: a connection that never says hello is closed with 1008 at the deadline;
- tables per minute per address: ``rate_limited``, and no table is created;
- commands per second per connection: ``rate_limited``, the connection stays open;
- behind a trusted proxy the address is the one its ``X-Forwarded-For`` names; anyone else's
  header is ignored.
"""

from __future__ import annotations

import contextlib

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed

from clients.session import ClientSession, RequestRefused
from protocol import PROTOCOL_VERSION, decode_server, encode
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from server.config import Settings, trusted_networks
from server.edge import client_address
from tests.serving import StartServer


async def hello(server: TableServer, forwarded: str | None = None) -> ClientConnection:
    """A raw socket that has said hello (optionally claiming to come from ``forwarded``)."""
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    ws = await connect(server.ws_url, additional_headers=headers)
    with contextlib.suppress(ConnectionClosed):  # a refused socket may be closed already
        await ws.send(encode(c.Hello(version=PROTOCOL_VERSION, rid=1)))
    return ws


async def closed_with(ws: ClientConnection) -> tuple[int | None, str | None]:
    """Read until the server closes: its close code and reason (a refused socket's answer)."""
    with contextlib.suppress(ConnectionClosed):
        while True:
            await ws.recv()
    return ws.close_code, ws.close_reason


async def welcomed(ws: ClientConnection) -> bool:
    try:
        return isinstance(decode_server(await ws.recv()), s.Welcome)
    except ConnectionClosed:
        return False


async def test_the_connection_past_the_per_address_cap_is_closed_with_1008(
    start_server: StartServer,
) -> None:
    async with start_server(connections_per_address=2) as server:
        first, second = await hello(server), await hello(server)
        assert await welcomed(first)
        assert await welcomed(second)
        third = await hello(server)
        code, reason = await closed_with(third)
        assert code == 1008
        assert reason == "too many connections from your address (limit 2)"
        await first.close()
        await first.wait_closed()
        assert await _eventually_welcomed(server)  # a closed connection frees its place
        assert isinstance(decode_server(await _ping(second)), s.Pong)  # the others go on
        await second.close()
        text = server.metrics.render().decode()
        assert 'cuarenta_limit_refusals_total{limit="connections_per_address"} 1.0' in text


async def _eventually_welcomed(server: TableServer) -> bool:
    """A new connection is accepted once the server has counted the closed one out (its
    handler ends just after the close handshake: retry the refused ones, bounded)."""
    for _ in range(50):
        ws = await hello(server)
        if await welcomed(ws):
            await ws.close()
            return True
        await ws.wait_closed()
    return False


async def _ping(ws: ClientConnection) -> bytes:
    await ws.send(encode(c.Ping(rid=2)))
    answer = await ws.recv()
    assert isinstance(answer, bytes)
    return answer


async def test_a_connection_that_never_says_hello_is_closed_at_the_deadline(
    start_server: StartServer,
) -> None:
    async with start_server(hello_timeout_s=0.3) as server:
        greeted = await ClientSession.connect(server.ws_url, "Ana")
        async with connect(server.ws_url) as silent:  # answers pings, never says hello
            assert await closed_with(silent) == (1008, "no hello within 0.3 s")
        assert isinstance(await greeted.request(c.Ping()), s.Pong)  # a greeted one stays
        await greeted.close()
        text = server.metrics.render().decode()
        assert 'cuarenta_limit_refusals_total{limit="hello_deadline"} 1.0' in text


async def test_table_creation_is_limited_per_address_and_a_refusal_creates_nothing(
    start_server: StartServer,
) -> None:
    async with start_server(tables_per_min=2.0, trusted_proxies=("127.0.0.1",)) as server:
        ana = await ClientSession.connect(server.ws_url, "Ana")
        for _ in range(2):
            assert isinstance(await ana.request(c.CreateTable()), s.TableCreated)
        with pytest.raises(RequestRefused) as refused:
            await ana.request(c.CreateTable())
        assert refused.value.code is ErrorCode.RATE_LIMITED
        assert "2 new tables a minute" in refused.value.error.message
        assert len(server.lobby.rooms) == 2
        assert isinstance(await ana.request(c.Ping()), s.Pong)  # the connection stays
        # another client behind the trusted proxy has its own allowance
        other = await hello(server, forwarded="203.0.113.7")
        assert await welcomed(other)
        await other.send(encode(c.CreateTable(rid=5)))
        assert isinstance(decode_server(await other.recv()), s.TableCreated)
        assert len(server.lobby.rooms) == 3
        await other.close()
        await ana.close()
        text = server.metrics.render().decode()
        assert 'cuarenta_limit_refusals_total{limit="tables_per_minute"} 1.0' in text


async def test_the_forwarded_address_counts_only_from_a_trusted_proxy(
    start_server: StartServer,
) -> None:
    async with start_server(connections_per_address=1) as server:  # nobody trusted
        first = await hello(server, forwarded="203.0.113.7")
        assert await welcomed(first)
        spoofed = await hello(server, forwarded="198.51.100.9")  # still 127.0.0.1: refused
        assert (await closed_with(spoofed))[0] == 1008
        await first.close()
    async with start_server(connections_per_address=1, trusted_proxies=("127.0.0.0/8",)) as server:
        first = await hello(server, forwarded="203.0.113.7")
        second = await hello(server, forwarded="198.51.100.9")
        assert await welcomed(first)
        assert await welcomed(second)
        again = await hello(server, forwarded="10.9.9.9, 203.0.113.7")  # the proxy's entry
        assert (await closed_with(again))[0] == 1008
        await first.close()
        await second.close()


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        ("10.0.0.2", "203.0.113.7", "203.0.113.7"),
        ("10.0.0.2", "203.0.113.7, 10.0.0.3", "203.0.113.7"),  # a second trusted hop skipped
        ("10.0.0.2", "1.1.1.1, 203.0.113.7", "203.0.113.7"),  # the client's own claim ignored
        ("10.0.0.2", "not-an-address", "10.0.0.2"),
        ("192.0.2.1", "203.0.113.7", "192.0.2.1"),  # not a trusted proxy: its header ignored
        ("10.0.0.2", None, "10.0.0.2"),
    ],
)
def test_client_address_reads_the_forwarded_chain_from_the_right(
    peer: str, forwarded: str | None, expected: str
) -> None:
    proxies = trusted_networks(Settings(trusted_proxies=("10.0.0.0/8",)))
    headers = Headers() if forwarded is None else Headers([("X-Forwarded-For", forwarded)])
    assert client_address(peer, headers, proxies) == expected


def test_x_real_ip_names_the_client_when_there_is_no_forwarded_for() -> None:
    proxies = trusted_networks(Settings(trusted_proxies=("10.0.0.2",)))
    headers = Headers([("X-Real-IP", "203.0.113.7")])
    assert client_address("10.0.0.2", headers, proxies) == "203.0.113.7"


async def test_the_command_rate_limit_refuses_the_excess_and_keeps_the_connection(
    start_server: StartServer,
) -> None:
    async with start_server(commands_per_s=5.0) as server:  # burst 10
        other = await ClientSession.connect(server.ws_url, "Beto")
        async with connect(server.ws_url) as ws:
            await ws.send(encode(c.Hello(version=PROTOCOL_VERSION, rid=1)))
            assert isinstance(decode_server(await ws.recv()), s.Welcome)
            for rid in range(2, 32):  # 30 pings at once: far past the burst
                await ws.send(msgpack.packb({"type": "ping", "rid": rid}))
            answers = [decode_server(await ws.recv()) for _ in range(30)]
            limited = [a for a in answers if isinstance(a, s.Error)]
            assert {a.code for a in limited} == {ErrorCode.RATE_LIMITED}
            assert 15 <= len(limited) <= 21  # 9 of the burst left after the hello, a few refilled
            assert sorted(a.rid for a in answers if a.rid is not None) == list(range(2, 32))
            assert ws.close_code is None
        assert isinstance(await other.request(c.Ping()), s.Pong)  # its own bucket
        await other.close()
        text = server.metrics.render().decode()
        assert f'cuarenta_limit_refusals_total{{limit="commands_per_second"}} {len(limited)}.0' in (
            text
        )
