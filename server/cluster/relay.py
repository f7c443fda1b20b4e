"""Envelopes between server processes over Redis pub/sub: forwarded commands, replies, messages.

Each process listens on one channel, ``cuarenta:proc:<process id>``. Everything a process
publishes leaves through one queue and one Redis connection, in order, so a peer receives one
table's messages in commit order and a forwarded command's messages before its reply
(invariants 2 and 4). An **envelope** is one msgpack map with a ``k`` (kind) field, published
on a process's channel (it may carry a server message's bytes: ``msg``); the ``Relay`` routes
``reply`` envelopes to the request awaiting them and hands every other envelope, in arrival
order and synchronously, to its handler (which starts a task for anything that must wait).

A peer that crashed has no subscription left, so Redis reports zero receivers for an envelope sent
to it: ``request`` raises ``PeerGone`` at once instead of waiting for a timeout.

On Redis 7 and later the channels are **sharded** (``SSUBSCRIBE``/``SPUBLISH``): a channel lives
on the node serving its slot, so on a Redis Cluster each process's mail goes through one
shard rather than through every node over the cluster bus, and the relay traffic spreads over
the masters with the processes; the receiver count is exact (the channel's own node counts
it). An older Redis gets plain pub/sub (on a Cluster, on one node, ``RELAY_KEY``'s). Which one
is read once, at ``start``, from ``INFO server``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from typing import Any

import msgpack
import structlog
from redis.asyncio import Redis, RedisCluster
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from server.errors import ServerError
from server.store.redis_client import node_client
from server.tasks import cancel_and_wait

log = structlog.get_logger("server.cluster.relay")

Envelope = dict[str, Any]
Handler = Callable[[Envelope], None]
RECONNECT_DELAY_S = 0.2
LISTEN_POLL_S = 1.0
SHARDED_SINCE = 7  # the first Redis major version with sharded pub/sub
RELAY_KEY = "cuarenta:{relay}"  # plain pub/sub on a Cluster: every process uses this key's node


class RelayError(ServerError):
    """An envelope could not reach its peer."""


class PeerGone(RelayError):
    """The peer process is not listening (crashed or shut down), or did not answer in time.

    ``reached``: the envelope may have reached it (False only when nobody was listening)."""

    def __init__(self, message: str, reached: bool = True) -> None:
        super().__init__(message)
        self.reached = reached


def channel_of(process: str) -> str:
    return f"cuarenta:proc:{process}"


class ShardedPubSub(PubSub):
    """redis-py's asyncio ``PubSub`` with ``ssubscribe`` (its 7.4 has it only in the sync one).

    A shard channel's messages come as ``smessage`` (a type ``handle_message`` already parses);
    a reconnection subscribes again, as ``PubSub`` does for its own channels."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shard_channels: set[str] = set()

    @property
    def subscribed(self) -> bool:
        return bool(self.shard_channels) or bool(super().subscribed)

    async def ssubscribe(self, channel: str) -> None:
        await self.execute_command("SSUBSCRIBE", channel)
        self.shard_channels.add(channel)

    async def on_connect(self, connection: Any) -> None:
        await super().on_connect(connection)
        if self.shard_channels:
            await self.execute_command("SSUBSCRIBE", *self.shard_channels)


async def sharded_pubsub(client: Redis | RedisCluster) -> bool:
    """Does this Redis have sharded pub/sub (version 7 or later, on every node of a Cluster)?"""
    if isinstance(client, RedisCluster):
        replies = await client.info("server", target_nodes=RedisCluster.PRIMARIES)
        infos = list(replies.values()) if "redis_version" not in replies else [replies]
    else:
        infos = [await client.info("server")]
    return all(int(str(info["redis_version"]).split(".")[0]) >= SHARDED_SINCE for info in infos)


class Relay:
    """This process's mailbox and post office on Redis pub/sub."""

    def __init__(
        self,
        client: Redis | RedisCluster,
        process: str,
        handler: Handler,
        sharded: bool | None = None,
    ) -> None:
        """``sharded``: use sharded pub/sub (None: if the Redis has it, read at ``start``)."""
        self.client = client
        self.process = process
        self.handler = handler
        self.sharded = sharded
        self._plain: Redis | None = None  # plain pub/sub on a Cluster: its one node's client
        self._outbox: asyncio.Queue[tuple[str, bytes, asyncio.Future[int] | None]] = asyncio.Queue()
        self._waiting: dict[int, asyncio.Future[Envelope]] = {}
        self._ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()
        self._closed = False
        #: told after a subscription lost and made again (not after the first): envelopes
        #: published meanwhile, or in flight when it broke, are gone without a trace
        self.on_resubscribed: Callable[[], None] | None = None

    async def start(self) -> None:
        """Subscribe (and wait until subscribed, so no envelope sent to us afterwards is lost)."""
        if isinstance(self.client, RedisCluster):
            await self.client.initialize()  # its slots, to find a channel's node
        if self.sharded is None:
            self.sharded = await sharded_pubsub(self.client)
        if not self.sharded and isinstance(self.client, RedisCluster):
            self._plain = node_client(self.client, RELAY_KEY)
            if self._plain is None:
                raise RelayError("no Redis Cluster node for the relay")
        self._tasks = [
            asyncio.create_task(self._listen(), name="relay-listen"),
            asyncio.create_task(self._publish_loop(), name="relay-publish"),
        ]
        await self._subscribed.wait()

    async def close(self) -> None:
        """Stop; envelopes still queued, requests still waiting and later sends fail at once."""
        self._closed = True
        await cancel_and_wait(self._tasks)
        if self._plain is not None:
            with contextlib.suppress(Exception):
                await self._plain.aclose()
        gone = PeerGone("this process is shutting down")
        for waiting in self._waiting.values():
            if not waiting.done():
                waiting.set_exception(gone)
        unsent = PeerGone("this process is shutting down", reached=False)
        while not self._outbox.empty():
            _, _, sent = self._outbox.get_nowait()
            if sent is not None and not sent.done():
                sent.set_exception(unsent)
                sent.exception()  # retrieved: the sender may have stopped waiting

    # ------------------------------------------------------------------ sending
    def send(self, process: str, envelope: Envelope) -> asyncio.Future[int]:
        """Queue ``envelope`` for ``process``; the future gets the number of receivers (0: gone)."""
        sent: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        if self._closed:  # nobody publishes any more: never leave a sender waiting
            sent.set_exception(PeerGone("this process is shutting down", reached=False))
            return sent
        data = msgpack.packb(envelope, use_bin_type=True)
        self._outbox.put_nowait((channel_of(process), data, sent))
        return sent

    async def request(self, process: str, envelope: Envelope, timeout_s: float) -> Envelope:
        """Send an envelope that expects a ``reply`` and return the reply envelope.

        Raises ``PeerGone`` if nobody listens on the peer's channel or no reply comes in time.
        """
        request_id = next(self._ids)
        answer: asyncio.Future[Envelope] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = answer
        try:
            receivers = await self.send(
                process, {**envelope, "id": request_id, "from": self.process}
            )
            if receivers == 0:
                raise PeerGone(f"process {process} is not listening", reached=False)
            async with asyncio.timeout(timeout_s):
                return await answer
        except TimeoutError as exc:
            raise PeerGone(f"process {process} did not answer within {timeout_s} s") from exc
        finally:
            del self._waiting[request_id]

    def reply(self, request: Envelope, envelope: Envelope) -> None:
        """Answer a request envelope (queued behind every envelope sent to that peer before)."""
        self.send(str(request["from"]), {**envelope, "k": "reply", "id": request["id"]})

    async def _publish_loop(self) -> None:
        """Publish queued envelopes in order, pipelining what has piled up (one trip a batch)."""
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 256:
                batch.append(self._outbox.get_nowait())
            command = "SPUBLISH" if self.sharded else "PUBLISH"
            try:
                async with (self._plain or self.client).pipeline(transaction=False) as pipe:
                    for channel, data, _ in batch:
                        pipe.execute_command(command, channel, data)
                    counts = await pipe.execute()
            except (RedisError, OSError) as exc:
                log.warning("relay publish failed", error=str(exc), envelopes=len(batch))
                for _, _, sent in batch:
                    if sent is not None and not sent.done():
                        sent.set_exception(PeerGone(f"storage unavailable: {exc}"))
                        sent.exception()  # retrieved: a reply's sender never awaits it
                continue
            for (_, _, sent), count in zip(batch, counts, strict=True):
                if sent is not None and not sent.done():
                    sent.set_result(int(count))

    # ------------------------------------------------------------------ receiving
    async def _listen(self) -> None:
        """Receive envelopes for this process; resubscribe by itself after Redis comes back."""
        channel = channel_of(self.process)
        lost = False
        while True:
            node = self._subscriber(channel)
            if node is None:
                log.warning("relay channel's Redis Cluster node unknown; asking again")
                await asyncio.sleep(RECONNECT_DELAY_S)  # back-off, not a sync
                continue
            pubsub = ShardedPubSub(node.connection_pool, ignore_subscribe_messages=True)
            try:
                if self.sharded:
                    await pubsub.ssubscribe(channel)
                else:
                    await pubsub.subscribe(channel)
                self._subscribed.set()
                if lost and self.on_resubscribed is not None:
                    lost = False
                    self.on_resubscribed()
                while True:
                    # An explicit read timeout: the client's socket timeout is for commands,
                    # and an idle subscription is normal.
                    message = await pubsub.get_message(timeout=LISTEN_POLL_S)
                    if message is not None and message.get("type") in ("message", "smessage"):
                        self._dispatch(msgpack.unpackb(message["data"], raw=False))
            except (RedisError, OSError) as exc:
                log.warning("relay subscription lost; resubscribing", error=str(exc))
                lost = True
                await asyncio.sleep(RECONNECT_DELAY_S)  # back-off before reconnecting, not a sync
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]  # untyped in redis-py
                if node is not self._plain and node is not self.client:
                    with contextlib.suppress(Exception):
                        await node.aclose()

    def _subscriber(self, channel: str) -> Redis | None:
        """The client to subscribe through: on a Cluster, the node serving the channel's slot
        now (asked again at each resubscription: the slot may have moved), or the plain one."""
        if self._plain is not None:
            return self._plain
        if isinstance(self.client, RedisCluster):
            return node_client(self.client, channel)
        return self.client

    def _dispatch(self, envelope: Envelope) -> None:
        if envelope.get("k") == "reply":
            waiting = self._waiting.get(int(envelope["id"]))
            if waiting is not None and not waiting.done():
                waiting.set_result(envelope)
            return
        try:
            self.handler(envelope)
        except Exception:
            log.exception("relay envelope failed", kind=envelope.get("k"))
