"""Half-sent upgrade requests count against their address from the TCP accept.

A client that opens sockets and never finishes its upgrade request would otherwise hold a file
descriptor per socket until websockets' opening timeout (10 s), however many it opens. Real
sockets on loopback to a real server: 1,500 half-sent upgrades from one address leave exactly
as many held as the address may open connections; the rest are answered 429 and closed at once.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from websockets.exceptions import InvalidStatus

from clients.session import ClientSession
from tests.serving import StartServer

CAP = 32
SOCKETS = 1_500
TURNED_AWAY_S = 7.0
"""From the first accept: under websockets' 10 s opening timeout, which would end them all."""

Socket = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def half_sent_upgrades(port: int, count: int) -> list[Socket]:
    """``count`` sockets, each sending an upgrade request without its closing blank line."""
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\n"
    ).encode()
    sockets = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        sockets.append((reader, writer))
    return sockets


async def ended(reads: list[asyncio.Task[bytes]], count: int, deadline: float) -> list[bytes]:
    """The answers of the first ``count`` sockets the server closed, by ``deadline``."""
    answers = []
    async with asyncio.timeout_at(deadline):
        for finished in asyncio.as_completed(reads):
            answers.append(await finished)
            if len(answers) == count:
                return answers
    return answers


async def test_half_open_upgrades_from_one_address_are_capped_like_open_connections(
    start_server: StartServer,
) -> None:
    async with start_server(connections_per_address=CAP) as server:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TURNED_AWAY_S
        started = time.monotonic()
        sockets = await half_sent_upgrades(server.port, SOCKETS)
        reads = [asyncio.create_task(reader.read()) for reader, _ in sockets]
        try:
            answers = await ended(reads, SOCKETS - CAP, deadline)
            assert len(answers) == SOCKETS - CAP
            assert all(answer.startswith(b"HTTP/1.1 429 ") for answer in answers)
            assert b"too many connections opening from your address (limit 32)" in answers[0]
            held = [read for read in reads if not read.done()]
            assert len(held) == CAP, f"{len(held)} held after {time.monotonic() - started:.1f} s"
            assert server.limits.opening == {"127.0.0.1": CAP}
            with pytest.raises(InvalidStatus) as refused:  # a real client meets the cap too
                await ClientSession.connect(server.ws_url, "Ana")
            assert refused.value.response.status_code == 429
        finally:
            for read in reads:
                read.cancel()
            for _, writer in sockets:
                writer.close()
            await asyncio.gather(*(w.wait_closed() for _, w in sockets), return_exceptions=True)
        async with asyncio.timeout(10):  # the server counts the closed ones out as it sees them
            while server.limits.opening:  # noqa: ASYNC110
                await asyncio.sleep(0.02)  # polling a counter the server changes on its own
        async with await ClientSession.connect(server.ws_url, "Ana") as ana:
            assert ana.connection_id is not None
        text = server.metrics.render().decode()
        assert (
            f'cuarenta_limit_refusals_total{{limit="opening_per_address"}} {SOCKETS - CAP + 1}.0'
            in text
        )
