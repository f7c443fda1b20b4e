"""Two table servers sharing one private Redis: the cluster tests' pair of processes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from server.app import TableServer
from server.config import Settings
from server.store.redis import open_store


@asynccontextmanager
async def two_servers(
    url: str, settings: Settings, second: Settings | None = None
) -> AsyncIterator[tuple[TableServer, TableServer]]:
    """Start two servers on the Redis at ``url`` (the second with ``second``'s settings, if
    given); close both however the test ends."""
    servers = []
    try:
        for each in (settings, second or settings):
            server = TableServer(each, store=await open_store(url))
            await server.start()
            servers.append(server)
        yield servers[0], servers[1]
    finally:
        for server in servers:
            await server.close()
