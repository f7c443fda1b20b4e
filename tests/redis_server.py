"""A private `redis-server` for tests: free port, temporary directory, killable and restartable.

Tests never touch the machine's shared Redis on 6379. Readiness is read from the server's own
"Ready to accept connections" line, not guessed with sleeps.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

READY_MARK = "Ready to accept connections"
START_TIMEOUT_S = 10.0


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """One redis-server process with append-only persistence in its own directory."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.process: subprocess.Popen[str] | None = None

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
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--dir", str(self.directory),
                "--appendonly", "yes",
                "--appendfsync", "always",
                "--save", "",
                "--logfile", "",
                "--protected-mode", "yes",
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
            raise RuntimeError("redis-server exited before it was ready:\n" + "".join(seen))
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
    server.start()
    try:
        yield server
    finally:
        server.stop()
