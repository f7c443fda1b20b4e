"""The Origin rule reads the scheme and the port as a browser writes them.

- behind a trusted proxy that says the page's scheme (``X-Forwarded-Proto``), an Origin of the
  other scheme is not the page's own: a plain-HTTP page on the same host may not open the TLS
  site's sockets (nor the reverse); the proxy's word is believed from a trusted peer only;
- a port with a leading zero (``:08765``) or an empty one is no origin a browser sends: refused;
- a resume that fails is answered once under the hello's ``rid`` (its error), a real server's
  frames read one by one.
"""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus

from protocol import PROTOCOL_VERSION, decode_server, encode
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from server.config import trusted_networks
from server.edge import OriginPolicy, request_scheme
from tests.serving import TEST_SETTINGS, StartServer

PROXIES = trusted_networks(TEST_SETTINGS.__class__(trusted_proxies=("10.0.0.0/8",)))


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "allowed"),
    [
        ("https://club.example", "club.example", "https", True),
        ("http://club.example", "club.example", "https", False),  # the plain-HTTP page
        ("http://club.example:443", "club.example", "https", False),
        ("https://club.example", "club.example", "http", False),
        ("http://club.example", "club.example", "http", True),
        ("http://club.example:8765", "club.example:8765", "http", True),
        ("https://club.example:8765", "club.example:8765", "http", False),
        ("http://club.example:08765", "club.example:8765", None, False),  # a leading zero
        ("http://club.example:8765", "club.example:08765", None, False),
        ("http://club.example:", "club.example", None, False),  # an empty port
        ("http://[::1]:08765", "[::1]:8765", None, False),
        ("http://[::1]:8765", "[::1]:8765", None, True),
    ],
)
def test_the_origins_scheme_and_port_must_be_the_pages_own(
    origin: str, host: str, scheme: str | None, allowed: bool
) -> None:
    headers = Headers([("Origin", origin), ("Host", host)])
    assert OriginPolicy().allows(headers, scheme) is allowed


@pytest.mark.parametrize(
    ("peer", "proto", "scheme"),
    [
        ("10.0.0.2", "https", "https"),
        ("10.0.0.2", "HTTP", "http"),
        ("10.0.0.2", "https, http", "https"),  # the first hop's
        ("10.0.0.2", "gopher", None),
        ("10.0.0.2", None, None),
        ("192.0.2.1", "https", None),  # not a trusted proxy: its word is not believed
    ],
)
def test_the_pages_scheme_is_a_trusted_proxys_word_only(
    peer: str, proto: str | None, scheme: str | None
) -> None:
    headers = Headers() if proto is None else Headers([("X-Forwarded-Proto", proto)])
    assert request_scheme(peer, headers, PROXIES) == scheme


async def upgrade_status(
    server: TableServer, headers: dict[str, str], host: str | None = None
) -> int:
    """101 if the socket opens; ``host`` is the Host the browser names (the socket still goes to
    the server on 127.0.0.1)."""
    uri = server.ws_url if host is None else f"ws://{host}/ws"
    place = {"host": "127.0.0.1", "port": server.port}
    try:
        async with connect(uri, additional_headers=headers, **place) as ws:  # type: ignore[arg-type]
            await ws.send(encode(c.Hello(version=PROTOCOL_VERSION, rid=1)))
            assert isinstance(decode_server(await ws.recv()), s.Welcome)
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


async def test_behind_a_trusted_tls_proxy_a_plain_http_origin_is_refused(
    start_server: StartServer,
) -> None:
    async with start_server(trusted_proxies=("127.0.0.1",)) as server:
        tls = {"X-Forwarded-Proto": "https"}
        page = "club.example"
        assert await upgrade_status(server, {**tls, "Origin": "https://club.example"}, page) == 101
        assert await upgrade_status(server, {**tls, "Origin": "http://club.example"}, page) == 403
    async with start_server() as server:  # nobody trusted: the header says nothing
        port = server.port
        origin = {"Origin": f"http://127.0.0.1:{port}", "X-Forwarded-Proto": "https"}
        assert await upgrade_status(server, origin) == 101
        leading_zero = {"Origin": f"http://127.0.0.1:0{port}"}
        assert await upgrade_status(server, leading_zero) == 403


@pytest.mark.parametrize("token", ["forged-token-0000", "nosuchtable.0123456789abcdef"])
async def test_a_failed_resume_is_answered_once_under_its_rid(
    table_server: TableServer, token: str
) -> None:
    async with connect(table_server.ws_url) as ws:
        await ws.send(encode(c.Hello(version=PROTOCOL_VERSION, rid=5, resume=token)))
        await ws.send(encode(c.Ping(rid=6)))  # everything the hello caused comes before its pong
        answers: list[s.ServerMessage] = []
        while not answers or not isinstance(answers[-1], s.Pong):
            answers.append(decode_server(await ws.recv()))
        under_five = [m for m in answers if getattr(m, "rid", None) == 5]
        assert [type(m).__name__ for m in under_five] == ["Error"]
        assert isinstance(under_five[0], s.Error)
        assert under_five[0].code is ErrorCode.BAD_TOKEN
