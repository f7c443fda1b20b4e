"""Fixtures that start the real table server: in-process on 127.0.0.1:0, or as a subprocess.

- ``start_server(**settings)``: an async context manager factory; ``async with
  start_server(grace_s=1) as server`` yields a started ``TableServer`` (memory store unless a
  ``store=`` is given) and closes it afterwards.
- ``table_server``: one started server with the test defaults (no bot pacing).
- ``ServerProcess``: ``cuarenta serve`` in a child process, for crash tests (``kill()`` is
  SIGKILL); readiness is its ``listening on http://HOST:PORT/`` line, never a sleep.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest

from server.app import TableServer
from server.config import Settings
from server.disk import DiskProbe
from server.store.base import Store

TEST_SETTINGS = Settings(
    host="127.0.0.1",
    port=0,
    bot_delay_s=0.0,
    away_turn_s=0.0,
    commands_per_s=10_000.0,
    connections_per_address=0,
    tables_per_min=0.0,
    log_format="json",
    log_level="warning",
)
"""No pacing and no rate or address limit: test clients play at machine speed, all from
127.0.0.1 (tests of the limits set them back)."""
START_TIMEOUT_S = 20.0

StartServer = Callable[..., contextlib.AbstractAsyncContextManager[TableServer]]


@pytest.fixture
def start_server() -> StartServer:
    """A factory: ``async with start_server(claim_window_s=0.2) as server: ...``."""

    @contextlib.asynccontextmanager
    async def started(
        store: Store | None = None,
        seeds: Callable[[], int] | None = None,
        disk: DiskProbe | None = None,
        **overrides: Any,
    ) -> AsyncIterator[TableServer]:
        settings = replace(TEST_SETTINGS, **overrides)
        server = TableServer(settings, store=store, seeds=seeds, disk=disk or DiskProbe())
        await server.start()
        try:
            yield server
        finally:
            await server.close()

    return started


@pytest.fixture
async def table_server(start_server: StartServer) -> AsyncIterator[TableServer]:
    async with start_server() as server:
        yield server


class ServerProcess:
    """``python -m server.cli serve`` as a child process, killable and restartable."""

    def __init__(self, args: Sequence[str] = (), env: dict[str, str] | None = None) -> None:
        self.args = [
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--bot-delay",
            "0",
            "--log-format",
            "json",
            "--connections-per-address",  # every test client comes from 127.0.0.1
            "0",
            "--tables-per-min",
            "0",
            *args,
        ]
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://").rstrip("/") + "/ws"

    def start(self) -> str:
        """Start and return the URL from the server's own ``listening on`` line."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", *self.args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=self.env,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until the port is bound (or exit)
        if not line.startswith("listening on "):
            self.kill()
            raise RuntimeError(f"server did not start: {line!r}")
        self.url = line.removeprefix("listening on ").strip()
        return self.url

    def kill(self) -> None:
        """SIGKILL: no cleanup at all, like a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=START_TIMEOUT_S)
        self._forget()

    def freeze(self) -> None:
        """SIGSTOP: alive to the kernel and to Redis (its subscription stays), silent to all."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def stop(self) -> int:
        """SIGTERM and wait: the clean shutdown path; returns the exit code."""
        assert self.process is not None
        self.process.terminate()
        code = self.process.wait(timeout=START_TIMEOUT_S)
        self._forget()
        return code

    def _forget(self) -> None:
        """Close the stdout pipe with the process (an open pipe is a ResourceWarning)."""
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None


@pytest.fixture
def server_process() -> Iterator[Callable[..., ServerProcess]]:
    """A factory of started server subprocesses, all killed at the end of the test."""
    started: list[ServerProcess] = []

    def make(*args: str, env: dict[str, str] | None = None) -> ServerProcess:
        process = ServerProcess(args, env)
        process.start()
        started.append(process)
        return process

    yield make
    for process in started:
        process.kill()
