"""The relay between processes on sharded pub/sub (Redis 7): a process's channel lives on the
node serving its slot, so on a Redis Cluster the relay's traffic spreads over the masters, and a
crashed peer is still found at once (its channel's node counts no receiver).

Against a private redis-server 7 and the private three-master Cluster (tests/redis_server.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis, RedisCluster

from server.cluster.relay import Envelope, PeerGone, Relay, channel_of
from server.store.redis_client import client_for
from tests.redis_server import RedisClusterServers, RedisServer

pytestmark = pytest.mark.redis


class Peers:
    """Relays of several processes on one client; each answers an ``echo`` request."""

    def __init__(self, client: Redis | RedisCluster, sharded: bool | None = None) -> None:
        self.client = client
        self.sharded = sharded
        self.relays: dict[str, Relay] = {}
        self.got: dict[str, list[Envelope]] = {}

    async def start(self, process: str) -> Relay:
        got = self.got.setdefault(process, [])

        def handle(envelope: Envelope) -> None:
            got.append(envelope)
            if envelope.get("k") == "echo":
                relay.reply(envelope, {"ok": True, "to": process, "said": envelope["said"]})

        relay = Relay(self.client, process, handle, self.sharded)
        await relay.start()
        self.relays[process] = relay
        return relay

    async def close(self) -> None:
        for relay in self.relays.values():
            await relay.close()


@pytest.fixture
async def one_node(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = client_for(redis_server.url)
    assert isinstance(client, Redis)
    yield client
    await client.aclose()


async def subscribers(node: Redis, kind: str, channel: str) -> int:
    """``PUBSUB SHARDNUMSUB`` or ``NUMSUB`` of one channel on one node."""
    reply = await node.execute_command("PUBSUB", kind, channel)  # type: ignore[no-untyped-call]
    return int(reply[1])


async def echo(relay: Relay, to: str, said: str) -> dict[str, Any]:
    return await relay.request(to, {"k": "echo", "said": said}, timeout_s=10)


async def test_on_redis_7_the_relay_subscribes_a_shard_channel_and_requests_are_answered(
    one_node: Redis,
) -> None:
    peers = Peers(one_node)
    try:
        a, b = await peers.start("p-a"), await peers.start("p-b")
        assert a.sharded
        reply = await echo(a, "p-b", "hola")
        assert (reply["to"], reply["said"]) == ("p-b", "hola")
        assert (await echo(b, "p-a", "chao"))["to"] == "p-a"
        sharded = await subscribers(one_node, "SHARDNUMSUB", channel_of("p-b"))
        plain = await subscribers(one_node, "NUMSUB", channel_of("p-b"))
        assert (sharded, plain) == (1, 0)
        with pytest.raises(PeerGone, match="not listening"):
            await echo(a, "p-gone", "hola")
    finally:
        await peers.close()


async def test_plain_pub_sub_where_sharded_is_not_to_be_used(one_node: Redis) -> None:
    """What a Redis older than 7 gets (read from INFO at start; forced here)."""
    peers = Peers(one_node, sharded=False)
    try:
        a = await peers.start("p-a")
        await peers.start("p-b")
        assert (await echo(a, "p-b", "hola"))["said"] == "hola"
        assert await subscribers(one_node, "NUMSUB", channel_of("p-b")) == 1
    finally:
        await peers.close()


async def test_on_a_cluster_each_processs_channel_is_on_its_slots_node_and_all_pairs_talk(
    redis_cluster: RedisClusterServers,
) -> None:
    client = client_for(redis_cluster.url)
    assert isinstance(client, RedisCluster)
    await client.initialize()
    processes = [f"p-{n}" for n in range(6)]
    homes = {p: client.get_node_from_key(channel_of(p)) for p in processes}
    assert len({node.name for node in homes.values() if node}) >= 2, "channels on 2+ masters"
    peers = Peers(client)
    nodes = [Redis(port=node.port) for node in redis_cluster.nodes]
    try:
        for process in processes:
            assert (await peers.start(process)).sharded
        for sender in processes:
            for receiver in processes:
                if sender != receiver:
                    reply = await echo(peers.relays[sender], receiver, sender)
                    assert (reply["to"], reply["said"]) == (receiver, sender)
        for process, home in homes.items():
            assert home is not None
            counts = [await subscribers(node, "SHARDNUMSUB", channel_of(process)) for node in nodes]
            ports = [node.port for node in redis_cluster.nodes]
            assert counts == [1 if port == home.port else 0 for port in ports], process
        with pytest.raises(PeerGone, match="not listening"):
            await echo(peers.relays["p-0"], "p-gone", "hola")
        await peers.relays["p-5"].close()  # a crashed peer: found gone at once, not timed out
        with pytest.raises(PeerGone, match="not listening"):
            await echo(peers.relays["p-0"], "p-5", "hola")
    finally:
        await peers.close()
        for node in nodes:
            await node.aclose()
        await client.aclose()
