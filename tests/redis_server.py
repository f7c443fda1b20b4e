"""A private `redis-server` for tests: free port, temporary directory, killable and restartable.

Tests never touch the machine's shared Redis on 6379. Readiness is read from the server's own
"Ready to accept connections" line, not guessed with sleeps. ``redis_cluster`` starts a private
Redis Cluster of three masters (``redis-cli --cluster create``); it is ready when every node's
``CLUSTER INFO`` says ``cluster_state:ok`` (polled, bounded).
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

READY_MARK = "Ready to accept connections"
START_TIMEOUT_S = 10.0
CLUSTER_BUS_OFFSET = 10_000  # a cluster node also listens on its port + 10000
CLUSTER_READY_TIMEOUT_S = 30.0


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PortTaken(RuntimeError):
    """The port picked a moment ago was taken meanwhile (by a test in a parallel worker)."""


PORT_ATTEMPTS = 5


class RedisServer:
    """One redis-server process with append-only persistence in its own directory."""

    def __init__(
        self,
        directory: Path,
        port: int | None = None,
        extra_args: Sequence[str] = (),
        pick_port: Callable[[], int] = free_port,
    ) -> None:
        self.directory = directory
        self.pick_port = pick_port
        self.port = port or pick_port()
        self.extra_args = list(extra_args)
        self.process: subprocess.Popen[str] | None = None

    def start_anew(self) -> None:
        """The first start: on a port taken since it was picked, pick another and try again
        (a restart keeps its port, for clients to find it again)."""
        for _ in range(PORT_ATTEMPTS - 1):
            try:
                self.start()
                return
            except PortTaken:
                self._forget()
                self.port = self.pick_port()
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (or restart, reloading the append-only file) and wait until it accepts clients."""
        binary = shutil.which("redis-server")
        if binary is None:  # pragma: no cover - the Makefile installs it
            pytest.fail("redis-server is not installed: run `make test`, which installs it")
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--logfile",
                "",
                "--protected-mode",
                "yes",
                *self.extra_args,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.process.stdout is not None
        seen: list[str] = []
        for line in self.process.stdout:
            seen.append(line)
            if READY_MARK in line:
                break
        else:
            # its output ended: reap it (a Popen dropped unreaped warns, and pytest fails on that)
            self.process.wait(timeout=START_TIMEOUT_S)
            self.process.stdout.close()
            problem = (
                PortTaken
                if any("Address already in use" in line for line in seen)
                else (RuntimeError)
            )
            raise problem("redis-server exited before it was ready:\n" + "".join(seen))
        # After start-up Redis logs only rare events (far below a pipe's 64 KiB), so nobody needs to
        # keep reading; the pipe is closed when the process ends.

    def kill(self) -> None:
        """`kill -9`: no shutdown save, exactly like a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=START_TIMEOUT_S)
        self._forget()

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=START_TIMEOUT_S)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.kill()
        self._forget()

    def _forget(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A fresh private redis-server for one test; it may kill and restart it."""
    server = RedisServer(tmp_path / "redis")
    server.directory.mkdir()
    server.start_anew()
    try:
        yield server
    finally:
        server.stop()


def cluster_port() -> int:
    """A free port whose cluster bus port (+10000) was free a moment ago too."""
    while True:
        port = free_port()
        if port + CLUSTER_BUS_OFFSET < 65536:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                try:
                    sock.bind(("127.0.0.1", port + CLUSTER_BUS_OFFSET))
                except OSError:
                    continue
            return port


class RedisClusterServers:
    """Three redis-server masters in cluster mode, joined into one cluster (no replicas)."""

    def __init__(self, directory: Path, masters: int = 3) -> None:
        self.nodes = []
        for index in range(masters):
            node_dir = directory / f"node-{index}"
            node_dir.mkdir(parents=True)
            self.nodes.append(
                RedisServer(
                    node_dir,
                    None,
                    [
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        str(node_dir / "nodes.conf"),
                        "--cluster-node-timeout",
                        "5000",
                    ],
                    pick_port=cluster_port,
                )
            )

    @property
    def url(self) -> str:
        """What ``--store`` takes for a cluster: any one node, the client finds the others."""
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def start(self) -> None:
        cli = shutil.which("redis-cli")
        if cli is None:  # pragma: no cover - installed with redis-server
            pytest.fail("redis-cli is not installed: run `make test`, which installs it")
        for node in self.nodes:
            node.start_anew()
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"],
            check=True,
            capture_output=True,
            text=True,
            timeout=CLUSTER_READY_TIMEOUT_S,
        )
        deadline = time.monotonic() + CLUSTER_READY_TIMEOUT_S
        waiting = list(self.nodes)
        while waiting:  # every node must see all slots served before a client may start
            info = subprocess.run(
                [cli, "-p", str(waiting[0].port), "cluster", "info"],
                check=True,
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout
            if "cluster_state:ok" in info:
                waiting.pop(0)
                continue
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster not ready after {CLUSTER_READY_TIMEOUT_S} s:\n{info}")
            time.sleep(0.05)  # polling CLUSTER INFO: the cluster has no readiness signal

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """A fresh private Redis Cluster of three masters for one test."""
    cluster = RedisClusterServers(tmp_path / "redis-cluster")
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
