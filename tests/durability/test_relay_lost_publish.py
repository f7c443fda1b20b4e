"""A reply the relay could not publish (Redis gone) is not logged as an unretrieved exception.

``Relay.reply`` sends and forgets: nobody awaits its future. When the publish fails, the
future's ``PeerGone('storage unavailable: …')`` must count as retrieved, or asyncio logs
"Future exception was never retrieved" at error level for every reply lost on a lossy link.
A real redis-server is killed under a started relay.
"""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from redis.asyncio import Redis

from server.cluster.relay import PeerGone, Relay
from server.store.redis import client_for
from tests.redis_server import RedisServer

pytestmark = pytest.mark.redis


async def test_a_reply_lost_with_redis_is_not_an_unretrieved_future_exception(
    redis_server: RedisServer,
) -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: reported.append(context))
    client = client_for(redis_server.url, 1.0)
    assert isinstance(client, Redis)

    def ignore(frame: dict[str, Any]) -> None:
        return None

    relay = Relay(client, "p1", ignore)
    await relay.start()
    try:
        redis_server.kill()
        relay.reply({"from": "p2", "id": 1}, {"ok": True})  # forgotten by its sender
        for _ in range(2):  # the second batch releases the first (the publisher's last batch)
            probe = relay.send("p2", {"k": "probe"})
            with pytest.raises(PeerGone, match="storage unavailable"):
                await asyncio.wait_for(probe, 30)
        del probe
        gc.collect()  # the forgotten future is gone now: its exception reported, or not
        await asyncio.sleep(0)  # the loop runs the handler's report (call_soon)
        assert [c.get("message") for c in reported] == []
    finally:
        await relay.close()
        await client.aclose()
        loop.set_exception_handler(None)
