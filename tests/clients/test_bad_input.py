"""Bad input from a client library user gets a plain message.

The library raises `SessionError`s whose text says what happened: an unknown link, a full
table, another protocol version, no server, options outside R13.
"""

from __future__ import annotations

import socket

import pytest

from clients.links import LinkError, TableLink
from clients.session import SessionError
from clients.table import TableRefused, Unreachable, connect, create_table, take_seat
from protocol import client_messages as c
from protocol.errors import ErrorCode
from server.app import TableServer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_an_unknown_link_is_refused_in_plain_words(table_server: TableServer) -> None:
    link = TableLink.of(table_server.url, "no-such-table-key")
    with pytest.raises(TableRefused, match="no table has this link") as caught:
        await take_seat(link, "Ana")
    assert caught.value.code is ErrorCode.NOT_FOUND


async def test_a_full_table_says_so_r1(table_server: TableServer) -> None:
    links = await create_table(table_server.url)
    async with await take_seat(links.host, "Ana") as host:
        for _ in range(3):
            await host.request(c.AddBot(level=1))
        with pytest.raises(TableRefused, match="the table is full") as caught:
            await take_seat(links.join, "Beto")
    assert caught.value.code is ErrorCode.NO_FREE_SEAT


async def test_another_protocol_version_is_refused_saying_so(
    table_server: TableServer,
) -> None:
    # The server answers an error and closes; whichever the client reads first, it says why.
    with pytest.raises(SessionError, match="protocol version"):
        await connect(table_server.url, "Ana", version=99, wait_s=5)


async def test_no_server_at_the_address_is_unreachable() -> None:
    with pytest.raises(Unreachable, match=r"no table server answers at http://127\.0\.0\.1"):
        await connect(f"http://127.0.0.1:{free_port()}", "Ana", wait_s=5)


async def test_bad_options_are_refused_naming_the_rule_r13(table_server: TableServer) -> None:
    with pytest.raises(TableRefused, match="R13") as caught:
        await create_table(table_server.url, options={"sequence": "sideways"})
    assert caught.value.code is ErrorCode.BAD_OPTIONS


def test_a_link_error_is_a_session_error() -> None:
    assert issubclass(LinkError, SessionError)
    assert issubclass(TableRefused, SessionError)
