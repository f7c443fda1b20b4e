"""Two table servers sharing one private Redis: the cluster tests' pair of processes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from server.app import TableServer
from server.config import Settings
from server.store.redis import open_store


@asynccontextmanager
async def two_servers(
    url: str, settings: Settings
) -> AsyncIterator[tuple[TableServer, TableServer]]:
    """Start two servers on the Redis at ``url``; close both however the test ends."""
    servers = []
    try:
        for _ in range(2):
            server = TableServer(settings, store=await open_store(url))
            await server.start()
            servers.append(server)
        yield servers[0], servers[1]
    finally:
        for server in servers:
            await server.close()
