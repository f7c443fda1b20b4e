"""The cluster tests' pair of table servers on one private redis-server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import TableServer
from tests.redis_server import RedisServer
from tests.server.cluster.servers import two_servers


@pytest.fixture
async def pair(
    redis_server: RedisServer, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[TableServer, TableServer]]:
    """Two servers: both with the test module's ``SETTINGS``, or the first with its ``OWNER``
    and the second with its ``ORIGIN`` (the process that forwards to the owner)."""
    module = request.module
    first = getattr(module, "OWNER", None) or module.SETTINGS
    async with two_servers(redis_server.url, first, getattr(module, "ORIGIN", None)) as servers:
        yield servers
