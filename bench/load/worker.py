"""A load process: one event loop holding many tables, commanded over a pipe by the benchmark.

One loop per process keeps the load lean (two cores are shared with the server under test).
Commands, each answered once: ``connect n`` (open n more tables' connections), ``seat`` (seat
them), ``start at interval`` (let them play from ``at``, staggered over one interval when
paced), ``measure t0 t1`` (figures of the window [t0, t1)), ``stop``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import resource
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Literal

from bench.load.errors import LoadError
from bench.load.tables import CuarentaTable, FloorTable, Recorder, TableLoad
from bench.load.targets import die_with_parent
from protocol import PROTOCOL_VERSION

Target = Literal["cuarenta", "game", "floor"]
SETUP_CONCURRENCY = 64  # tables being connected or seated at once
LAG_PROBE_S = 0.01


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    target: Target
    url: str
    first_table: int  # table numbers of different processes never collide
    seed: int
    version: int = PROTOCOL_VERSION  # the protocol the server speaks (a baseline's may be older)


@dataclass(frozen=True, slots=True)
class WindowFigures:
    """One process's measurements of one window (latencies in seconds, raw)."""

    rounds: int
    frames: int
    latencies: list[float]
    errors: dict[str, int]
    cpu_s: float
    lag: list[float] = field(default_factory=list)


def raise_open_file_limit() -> int:
    """Lift the soft open-file limit to the hard one (thousands of sockets); return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def worker_main(pipe: Connection, spec: WorkerSpec) -> None:
    """Process entry point: serve commands until ``stop``; a failure is reported, not raised."""
    die_with_parent()
    raise_open_file_limit()
    try:
        asyncio.run(LoadWorker(spec, pipe).serve())
    except Exception as exc:  # the parent must hear about it rather than wait forever
        detail = "".join(traceback.format_exception_only(exc)).strip()
        with contextlib.suppress(OSError):
            pipe.send(("failed", detail))


class LoadWorker:
    def __init__(self, spec: WorkerSpec, pipe: Connection) -> None:
        self.spec = spec
        self.pipe = pipe
        self.recorder = Recorder()
        self.rng = random.Random(spec.seed)
        self.tables: list[TableLoad] = []
        self.unseated: list[TableLoad] = []
        self.unstarted: list[TableLoad] = []
        self.lag: list[tuple[float, float]] = []

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        probe = asyncio.create_task(self._probe_lag())
        try:
            while True:
                command, *params = await loop.run_in_executor(None, self.pipe.recv)
                if command == "stop":
                    await self._stop()
                    self.pipe.send(("stopped",))
                    return
                self.pipe.send(await self._run(command, params))
        finally:
            probe.cancel()

    async def _run(self, command: str, params: list[Any]) -> tuple[Any, ...]:
        if command == "connect":
            await self._connect(int(params[0]))
            return ("connected", len(self.unseated))
        if command == "seat":
            await _bounded(table.seat() for table in self.unseated)
            self.unstarted += self.unseated
            self.unseated = []
            return ("seated", len(self.unstarted))
        if command == "start":
            self._start(float(params[0]), float(params[1]))
            return ("started", len(self.tables))
        if command == "measure":
            return ("measured", await self._measure(float(params[0]), float(params[1])))
        raise LoadError(f"unknown load command {command!r}")

    async def _connect(self, count: int) -> None:
        first = self.spec.first_table + len(self.tables)
        spec, numbers = self.spec, range(first, first + count)
        # the game floor speaks the table server's protocol (the part the load uses)
        fresh: list[TableLoad] = (
            [FloorTable(n, self.recorder, spec.url) for n in numbers]
            if spec.target == "floor"
            else [CuarentaTable(n, self.recorder, spec.url, spec.version) for n in numbers]
        )
        self.tables += fresh
        self.unseated += fresh
        await _bounded(table.connect() for table in fresh)

    def _start(self, at: float, interval: float) -> None:
        """Closed loop: all at ``at``. Paced: spread over one interval, so tables never march."""
        for table in self.unstarted:
            table.start(at + self.rng.uniform(0, interval), interval)
        self.unstarted = []

    async def _measure(self, start: float, end: float) -> WindowFigures:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        self.recorder.open_window(start, end)
        cpu = time.process_time()
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        cpu = time.process_time() - cpu
        recorder = self.recorder
        recorder.window = (float("inf"), float("inf"))
        lag = [value for when, value in self.lag if start <= when < end]
        self.lag = []
        return WindowFigures(
            recorder.rounds,
            recorder.frames,
            recorder.latencies.tolist(),
            dict(recorder.errors),
            cpu,
            lag,
        )

    async def _stop(self) -> None:
        for table in self.tables:
            table.stop()
        closing = [conn.closed for table in self.tables for conn in table.connections]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*closing), 10)

    async def _probe_lag(self) -> None:
        """The load's own loop lag: a late load inflates the latencies it measures."""
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            await asyncio.sleep(LAG_PROBE_S)
            self.lag.append((time.monotonic(), max(0.0, loop.time() - started - LAG_PROBE_S)))
            if len(self.lag) > 100_000:
                del self.lag[:50_000]


async def _bounded(steps: Any) -> None:
    """Run coroutines with at most ``SETUP_CONCURRENCY`` in flight."""
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def gated(step: Any) -> None:
        async with gate:
            await step

    await asyncio.gather(*(gated(step) for step in steps))
