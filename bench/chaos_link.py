"""A lossy TCP link to one Redis node, in a process of its own (``LinkProcess``).

``python -m bench.chaos_link PORT TARGET SEED DIR`` forwards ``PORT`` to ``TARGET`` and reads
one number a line on stdin: the share of its connections to cut each second (0: none). It writes
its running count of cuts to ``DIR/cuts``. A process of its own, so that a busy bench (people,
bots and the audit share one event loop) cannot starve the PINGs the sentinels judge Redis by:
in the bench's loop, at load 25 and more, they saw the primary and the replica down at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import struct
import subprocess
import sys
from pathlib import Path

PIPE_BYTES = 65536
RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() sends a reset
START_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LossyLink:
    """A TCP proxy to one port; while ``share`` > 0 it cuts that share of its connections each
    second (and refuses that share of new ones), as a flaky network would: a reset mid-stream."""

    def __init__(self, port: int, target: int, rng: random.Random, tally: Path) -> None:
        self.port, self.target, self.rng, self.tally = port, target, rng, tally
        self.share = 0.0
        self.cuts = 0
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._server: asyncio.Server | None = None
        self._ticker: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self._ticker = asyncio.create_task(self._tick())

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            node_r, node_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            _abort(client_w)
            return
        pair = (client_w, node_w)
        if self.share and self.rng.random() < self.share:
            self._cut(pair)
            return
        self._links.add(pair)
        try:
            await asyncio.gather(_pipe(client_r, node_w), _pipe(node_r, client_w))
        finally:
            self._links.discard(pair)
            _abort(client_w)
            _abort(node_w)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            if self.share:
                for pair in list(self._links):
                    if self.rng.random() < self.share:
                        self._cut(pair)

    def _cut(self, pair: tuple[asyncio.StreamWriter, asyncio.StreamWriter]) -> None:
        self.cuts += 1
        self.tally.write_text(str(self.cuts))
        self._links.discard(pair)
        for writer in pair:
            _abort(writer)

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        if self._server is not None:
            self._server.close()
        for pair in list(self._links):
            for writer in pair:
                _abort(writer)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while data := await reader.read(PIPE_BYTES):
            writer.write(data)
            await writer.drain()
    _abort(writer)


def _abort(writer: asyncio.StreamWriter) -> None:
    """Close with a reset, not a goodbye: what a cut link looks like to both ends."""
    transport = writer.transport
    if not transport.is_closing():
        with contextlib.suppress(OSError):
            sock = transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
                )
        transport.abort()


class LinkProcess:
    """The bench's handle on one link process: its port, its share of cuts, its count."""

    def __init__(self, target: int, seed: int, directory: Path) -> None:
        self.port, self.target, self.seed, self.directory = free_port(), target, seed, directory
        self.process: subprocess.Popen[str] | None = None

    async def start(self) -> None:
        args = [sys.executable, "-m", "bench.chaos_link", str(self.port), str(self.target)]
        self.process = await asyncio.to_thread(
            subprocess.Popen,
            [*args, str(self.seed), str(self.directory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ready = await asyncio.wait_for(
            asyncio.to_thread(self.process.stdout.readline), START_TIMEOUT_S
        )
        if ready.strip() != "ready":
            raise RuntimeError(f"the link to {self.target} did not start: {ready!r}")

    @property
    def share(self) -> float:
        return 0.0

    @share.setter
    def share(self, share: float) -> None:
        assert self.process is not None
        assert self.process.stdin is not None
        self.process.stdin.write(f"{share}\n")
        self.process.stdin.flush()

    @property
    def cuts(self) -> int:
        tally = self.directory / "cuts"
        return int(tally.read_text() or 0) if tally.exists() else 0

    async def close(self) -> None:
        if self.process is not None:
            assert self.process.stdin is not None
            assert self.process.stdout is not None
            self.process.stdin.close()  # its end of input: it exits
            try:
                await asyncio.to_thread(self.process.wait, START_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                await asyncio.to_thread(self.process.wait)
            self.process.stdout.close()
            self.process = None


async def _serve(port: int, target: int, seed: int, directory: Path) -> None:
    link = LossyLink(port, target, random.Random(seed), directory / "cuts")
    await link.start()
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        with contextlib.suppress(ValueError):
            link.share = float(line)
    await link.close()


if __name__ == "__main__":
    port, target, seed = (int(value) for value in sys.argv[1:4])
    folder = Path(sys.argv[4])
    folder.mkdir(parents=True, exist_ok=True)
    asyncio.run(_serve(port, target, seed, folder))
