"""Redis clients as the stores and the relay open them: fail fast, never retry on their own."""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")
CONNECT_TIMEOUT_S = 2.0
COMMAND_TIMEOUT_S = 5.0
Client = Redis | RedisCluster


def client_for(url: str, timeout_s: float | None = None) -> Client:
    """A client whose calls fail fast while Redis is away, and never retry on their own.

    A retried commit could run twice (the first attempt may have been applied before the
    connection broke); the version check would refuse the second, but failing at once and
    letting the room reload from the store is simpler to reason about. A ``redis+cluster://``
    (or ``rediss+cluster://``) URL names any node of a Redis Cluster; the client finds the rest
    and sends each table's commands to the node holding its slot.
    """
    options = client_options(timeout_s)
    if url.startswith(CLUSTER_SCHEMES):
        return RedisCluster.from_url(url.replace("+cluster", "", 1), **options)
    return Redis.from_url(url, **options)


def client_options(timeout_s: float | None = None) -> dict[str, Any]:
    return {
        "socket_connect_timeout": CONNECT_TIMEOUT_S,
        "socket_timeout": COMMAND_TIMEOUT_S if timeout_s is None else timeout_s,
        "retry": Retry(NoBackoff(), 0),
        "health_check_interval": 10,
    }


def node_client(cluster: RedisCluster, key: str) -> Redis | None:
    """A one-node client to the primary serving ``key``'s slot (None: no node known for it),
    with the cluster client's credentials: for what a Cluster client cannot send (a
    subscription)."""
    node = cluster.get_node_from_key(key)
    if node is None:
        return None
    options = cluster.connection_kwargs
    credentials = {
        name: options[name] for name in ("username", "password", "ssl") if name in options
    }
    return Redis(host=node.host, port=int(node.port), **client_options(), **credentials)
