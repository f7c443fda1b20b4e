"""The Origin rule on the WebSocket upgrade: same origin, the allow-list, or no browser at all."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus

from clients.session import ClientSession
from protocol import PROTOCOL_VERSION, decode_server, encode
from protocol import client_messages as c
from protocol import server_messages as s
from server.app import TableServer
from server.edge import OriginPolicy
from tests.serving import StartServer


async def upgrade_status(server: TableServer, origin: str | None) -> int:
    """101 if a socket with this Origin opens (and says hello), else the HTTP status."""
    headers = {} if origin is None else {"Origin": origin}
    try:
        async with connect(server.ws_url, additional_headers=headers) as ws:
            await ws.send(encode(c.Hello(version=PROTOCOL_VERSION, rid=1)))
            assert isinstance(decode_server(await ws.recv()), s.Welcome)
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


async def test_a_cross_origin_upgrade_is_refused_with_403_and_the_same_origin_accepted(
    table_server: TableServer,
) -> None:
    async with await ClientSession.connect(table_server.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Join(key=created.host_key))
        before = next(iter(table_server.lobby.rooms.values())).referee.to_state()
        port = table_server.port
        assert await upgrade_status(table_server, "https://evil.example") == 403
        assert await upgrade_status(table_server, f"http://127.0.0.1:{port + 1}") == 403
        assert await upgrade_status(table_server, "null") == 403  # a sandboxed page or a file
        assert await upgrade_status(table_server, f"http://127.0.0.1:{port}") == 101
        assert await upgrade_status(table_server, None) == 101  # not a browser: allowed
        assert next(iter(table_server.lobby.rooms.values())).referee.to_state() == before
        assert isinstance(await ana.request(c.Ping()), s.Pong)
    metrics = table_server.metrics.render().decode()
    assert 'cuarenta_limit_refusals_total{limit="origin"} 3.0' in metrics


async def test_an_allow_listed_origin_is_accepted(start_server: StartServer) -> None:
    async with start_server(allowed_origins=("https://club.example",)) as server:
        assert await upgrade_status(server, "https://club.example") == 101
        assert await upgrade_status(server, "https://club.example:443") == 101
        assert await upgrade_status(server, "https://other.example") == 403
    async with start_server(allowed_origins=("*",)) as server:
        assert await upgrade_status(server, "https://anyone.example") == 101


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        ("https://club.example", "club.example", True),  # behind a TLS proxy: default ports
        ("https://club.example", "club.example:443", True),
        ("http://club.example", "club.example:80", True),
        ("https://club.example", "club.example:80", False),
        ("https://CLUB.example", "club.EXAMPLE", True),
        ("https://club.example.evil", "club.example", False),
        ("http://[::1]:8765", "[::1]:8765", True),
        ("ftp://club.example", "club.example", False),
        ("https://user@club.example", "club.example", False),
    ],
)
def test_the_same_origin_is_the_requests_own_host_and_port(
    origin: str, host: str, allowed: bool
) -> None:
    headers = Headers([("Origin", origin), ("Host", host)])
    assert OriginPolicy().allows(headers) is allowed


def test_a_repeated_origin_is_refused() -> None:
    headers = Headers([("Origin", "http://a"), ("Origin", "http://a"), ("Host", "a")])
    assert not OriginPolicy().allows(headers)
