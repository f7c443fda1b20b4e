"""`bench.store.new_table`, which every load and soak command retries while a server refuses:
a refused setup must not leave its connection open on the server (the soak's RSS grew by one
idle WebSocket per refused try while Redis was away)."""

from __future__ import annotations

import asyncio

import pytest

from bench.store import new_table
from clients.session import RequestRefused
from tests.serving import StartServer


async def test_a_refused_setup_closes_its_connection(start_server: StartServer) -> None:
    async with start_server(tables_per_min=1.0) as server:
        host, _ = await new_table(server.ws_url, seated=False)  # the address's one table a minute
        with pytest.raises(RequestRefused):
            await new_table(server.ws_url, seated=False)  # rate_limited
        await host.close()
        async with asyncio.timeout(10):
            while True:
                if not server.connections:
                    break
                await asyncio.sleep(0.01)  # the server sees each close in its own time
