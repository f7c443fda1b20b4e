"""A private primary, one replica and three sentinels for tests (``redis_sentinel`` fixture).

Every process listens on a free port of 127.0.0.1 in its own temporary directory; the sentinels
watch the primary with a short ``down-after-milliseconds`` so a killed primary is replaced within
a couple of seconds. Readiness and promotion are read from the processes themselves (the
replica's link status, the sentinels' ``get-master-addr-by-name``), polled with a bound.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redis_server import RedisServer, free_port

SERVICE = "cuarenta"
DOWN_AFTER_MS = 500
FAILOVER_TIMEOUT_MS = 3000
READY_TIMEOUT_S = 20.0
NO_SYNC_DELAY = ("--repl-diskless-sync-delay", "0")
POLL_S = 0.05  # no readiness signal to wait on: these states are polled, bounded


class SentinelServers:
    """A primary, a replica of it and three sentinels (quorum 2)."""

    def __init__(self, directory: Path, sentinels: int = 3) -> None:
        self.directory = directory
        (directory / "primary").mkdir(parents=True)
        (directory / "replica").mkdir()
        self.primary = RedisServer(directory / "primary")
        self.replica = RedisServer(directory / "replica")
        self.sentinel_ports = [free_port() for _ in range(sentinels)]
        self.sentinels: list[subprocess.Popen[bytes]] = []

    def url(self, options: str = "") -> str:
        """What ``--store`` takes: every sentinel, the service, and URL options (``?wait=0``)."""
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{SERVICE}{options}"

    def start(self) -> None:
        # a replica's first sync starts at once, not after the 5 s Redis waits for more replicas
        self.primary.extra_args = [*NO_SYNC_DELAY]
        self.primary.start_anew()
        self.replica.extra_args = [
            *NO_SYNC_DELAY,
            "--replicaof",
            "127.0.0.1",
            str(self.primary.port),
        ]
        self.replica.start_anew()
        self._wait_for(lambda: "master_link_status:up" in self.cli(self.replica.port, "info"))
        binary = shutil.which("redis-sentinel") or shutil.which("redis-server")
        if binary is None:  # pragma: no cover - installed with redis-server
            pytest.fail("redis-sentinel is not installed")
        for index, port in enumerate(self.sentinel_ports):
            config = self.directory / f"sentinel-{index}.conf"
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.directory}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {self.primary.port} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SERVICE} {FAILOVER_TIMEOUT_MS}\n"
                f"sentinel parallel-syncs {SERVICE} 1\n"
            )
            args = [binary, str(config)] + (["--sentinel"] if "sentinel" not in binary else [])
            self.sentinels.append(
                subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
        # every sentinel must know the replica and the other sentinels before a failover can run
        for port in self.sentinel_ports:
            self._wait_for(lambda port=port: self._sentinel_sees_all(port))

    def _sentinel_sees_all(self, port: int) -> bool:
        fields = self.cli(port, "sentinel", "master", SERVICE).split()
        info = dict(zip(fields[::2], fields[1::2], strict=False))
        wanted = str(len(self.sentinel_ports) - 1)
        return info.get("num-slaves") == "1" and info.get("num-other-sentinels") == wanted

    def primary_port(self) -> int:
        """The port the sentinels name as the primary now."""
        reply = self.cli(self.sentinel_ports[0], "sentinel", "get-master-addr-by-name", SERVICE)
        return int(reply.split()[1])

    def wait_for_promotion(self) -> None:
        """Block until the sentinels name the replica as the primary and it says it is one."""
        self._wait_for(
            lambda: (
                self.primary_port() == self.replica.port
                and "role:master" in self.cli(self.replica.port, "info", "replication")
            )
        )

    def cli(self, port: int, *command: str) -> str:
        cli = shutil.which("redis-cli")
        assert cli is not None
        done = subprocess.run(
            [cli, "-p", str(port), *command], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def _wait_for(self, ready: object) -> None:
        assert callable(ready)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not ready():
            if time.monotonic() > deadline:
                raise RuntimeError("sentinel fixture: not ready in time")
            time.sleep(POLL_S)

    def stop(self) -> None:
        for process in self.sentinels:
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=10)
        self.sentinels = []
        self.replica.stop()
        self.primary.stop()


@pytest.fixture
def redis_sentinel(tmp_path: Path) -> Iterator[SentinelServers]:
    """A fresh primary, replica and three sentinels for one test; it may kill the primary."""
    servers = SentinelServers(tmp_path / "redis-sentinel")
    try:
        servers.start()
        yield servers
    finally:
        servers.stop()
