"""Liveness and readiness, and what a client is told while the store is away (#19).

``/healthz`` answers 200 while the process runs; ``/readyz`` 503 while Redis does not answer, and
200 again once it does. A request that needs the store meanwhile is refused with
``storage_unavailable``, a message that names no host, port or driver, and nothing changes.
"""

from __future__ import annotations

import pytest

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.store.redis import open_store
from tests.redis_server import RedisServer
from tests.server.test_edge_http import get_line, raw_request
from tests.serving import StartServer

pytestmark = pytest.mark.redis


async def test_readyz_fails_while_redis_is_down_and_clients_get_storage_unavailable(
    redis_server: RedisServer, start_server: StartServer
) -> None:
    store = await open_store(redis_server.url)
    async with start_server(store=store) as server:
        port = server.port
        assert (await raw_request(port, get_line(b"/readyz")))[0] == 200
        ana = await ClientSession.connect(server.ws_url, "Ana")
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        await ana.request(c.Watch(key=created.host_key))

        redis_server.stop()
        status, _, body = await raw_request(port, get_line(b"/readyz"))
        assert (status, body) == (503, b"storage unavailable\n")
        assert (await raw_request(port, get_line(b"/healthz")))[0] == 200  # alive all the same
        with pytest.raises(RequestRefused) as refused:
            await ana.request(c.CreateTable())
        assert refused.value.code is ErrorCode.STORAGE_UNAVAILABLE
        message = refused.value.error.message
        for secret in (str(redis_server.port), "127.0.0.1", "edis", "Error", "Timeout"):
            assert secret not in message
        assert len(server.lobby.rooms) == 1  # nothing was created
        assert isinstance(await ana.request(c.Ping()), s.Pong)  # the connection stays

        redis_server.start()
        assert (await raw_request(port, get_line(b"/readyz")))[0] == 200
        assert isinstance(await ana.request(c.CreateTable()), s.TableCreated)
        await ana.close()
