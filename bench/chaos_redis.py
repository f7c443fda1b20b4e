"""The chaos run's Redis: a primary, a replica and three sentinels, each node behind a lossy link.

Every Redis node listens on a private port and is reached only through its lossy link
(``bench.chaos_link``: a TCP proxy in a process of its own): the servers, the sentinels and the
replication stream all go through it, because each node announces the proxy's port
(``replica-announce-port``) and the sentinels watch the primary there. So a promotion names a
proxied address too, and a lossy window cuts the links of every client of Redis alike. Nodes are
started, killed (SIGKILL), stopped (SIGSTOP/SIGCONT) and restarted as the replica of whoever the
sentinels name.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from bench.chaos_link import LinkProcess, free_port

SERVICE = "cuarenta"
DOWN_AFTER_MS = 5000  # longer than a stall: SIGSTOP is a stall, SIGKILL a failover
FAILOVER_TIMEOUT_MS = 10_000
READY_MARK = "Ready to accept connections"  # redis-server's own line, in its log
READY_TIMEOUT_S = 30.0
POLL_S = 0.1  # promotion and replication have no signal to wait on: polled, bounded


class Node:
    """One redis-server on a private port, known to everyone by its link's port."""

    def __init__(self, directory: Path, rng: random.Random) -> None:
        directory.mkdir(parents=True)
        self.directory, self.port = directory, free_port()
        self.link = LinkProcess(self.port, rng.randrange(1 << 30), directory / "link")
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, replica_of: int | None = None) -> None:
        """Start (or restart from its append-only file), as the replica of ``replica_of`` (a
        link port) if given; returns once its log says it accepts connections (the log is a
        file: nobody has to keep reading a pipe through hours of resyncs)."""
        log = self.directory / "redis.log"
        ready_before = log.read_text().count(READY_MARK) if log.exists() else 0
        args = [
            *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
            *("--dir", str(self.directory), "--appendonly", "yes", "--appendfsync", "everysec"),
            *("--save", "", "--logfile", str(log), "--protected-mode", "yes"),
            *("--replica-announce-ip", "127.0.0.1", "--replica-announce-port", str(self.link.port)),
            # a replica's sync starts at once, not after the 5 s a primary waits for more replicas
            *("--repl-diskless-sync-delay", "0"),
        ]
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not (log.exists() and log.read_text().count(READY_MARK) > ready_before):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on {self.port} did not start: see {log}")
            time.sleep(POLL_S)  # the log line is the readiness signal: polled, bounded

    def signal(self, signum: signal.Signals) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signum)

    def kill(self) -> None:
        self.signal(signal.SIGCONT)  # a stopped process is killed all the same, but reaped now
        self.signal(signal.SIGKILL)
        self._reap()

    def stop(self) -> None:
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        self._reap()

    def _reap(self) -> None:
        if self.process is not None:
            self.process.wait(timeout=READY_TIMEOUT_S)
        self.process = None

    async def info(self, section: str = "replication") -> dict[str, Any]:
        client = Redis(port=self.port, socket_timeout=2, socket_connect_timeout=2)
        try:
            return dict(await client.info(section))
        finally:
            await client.aclose()


class SentinelRedis:
    """Two nodes (primary first) and three sentinels (quorum 2) watching them."""

    def __init__(self, directory: Path, rng: random.Random, sentinels: int = 3) -> None:
        self.directory = directory
        self.nodes = [Node(directory / "a", rng), Node(directory / "b", rng)]
        self.sentinel_ports = [free_port() for _ in range(sentinels)]
        self.sentinels: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{SERVICE}"

    async def start(self) -> None:
        for node in self.nodes:
            await node.link.start()
        primary, replica = self.nodes
        await asyncio.to_thread(primary.start)
        await asyncio.to_thread(replica.start, primary.link.port)
        await self.wait_replicating(replica)
        binary = shutil.which("redis-sentinel")
        assert binary is not None, "redis-sentinel is not installed"
        for index, port in enumerate(self.sentinel_ports):
            config = self.directory / f"sentinel-{index}.conf"
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.directory}\n"
                f"logfile {self.directory / f'sentinel-{index}.log'}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {primary.link.port} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
            )
            self.sentinels.append(await asyncio.to_thread(_spawn, [binary, str(config)]))
        for port in self.sentinel_ports:
            await _until(lambda port=port: self._sees_all(port), "the sentinels to know everyone")

    def _client(self, port: int) -> Redis:
        return Redis(port=port, socket_timeout=2, socket_connect_timeout=2)

    async def _sees_all(self, port: int) -> bool:
        client = self._client(port)
        try:
            info = await client.sentinel_master(SERVICE)  # type: ignore[no-untyped-call]
        finally:
            await client.aclose()
        wanted = len(self.sentinel_ports) - 1
        return bool(info["num-slaves"] == 1 and info["num-other-sentinels"] == wanted)

    async def primary(self) -> Node:
        """The node the sentinels name the primary (asked of the first that answers)."""
        for port in self.sentinel_ports:
            client = self._client(port)
            try:
                _, link = await client.sentinel_get_master_addr_by_name(SERVICE)  # type: ignore[no-untyped-call]
                return next(node for node in self.nodes if node.link.port == int(link))
            except (OSError, ConnectionError, TimeoutError, RedisError):
                continue
            finally:
                await client.aclose()
        raise RuntimeError("no sentinel answers")

    async def replica(self) -> Node:
        primary = await self.primary()
        return next(node for node in self.nodes if node is not primary)

    async def wait_replicating(self, node: Node) -> None:
        async def up() -> bool:
            with contextlib.suppress(OSError, TimeoutError, RedisError):
                return (await node.info()).get("master_link_status") == "up"
            return False

        await _until(up, f"redis {node.port} to follow its primary")

    async def kill_primary(self) -> None:
        """SIGKILL the primary; once the sentinels have promoted the other node and it says it
        is the primary, start the killed one again as its replica and wait until it follows."""
        old = await self.primary()
        await asyncio.to_thread(old.kill)
        new = next(node for node in self.nodes if node is not old)

        async def promoted() -> bool:
            with contextlib.suppress(OSError, TimeoutError, RedisError, RuntimeError):
                return await self.primary() is new and (await new.info()).get("role") == "master"
            return False

        await _until(promoted, "the sentinels to promote the replica")
        await asyncio.to_thread(old.start, new.link.port)
        await self.wait_replicating(old)

    def lossy(self, share: float) -> None:
        for node in self.nodes:
            node.link.share = share

    @property
    def cuts(self) -> int:
        return sum(node.link.cuts for node in self.nodes)

    async def stop(self) -> None:
        for process in self.sentinels:
            if process.poll() is None:
                process.terminate()
            await asyncio.to_thread(process.wait, READY_TIMEOUT_S)
        for node in self.nodes:
            await asyncio.to_thread(node.stop)
            await node.link.close()


def _spawn(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def _until(condition: object, what: str, timeout_s: float = READY_TIMEOUT_S) -> None:
    """Poll an async condition against a deadline."""
    assert callable(condition)
    deadline = time.monotonic() + timeout_s
    while not await condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout_s} s waiting for {what}")
        await asyncio.sleep(POLL_S)
