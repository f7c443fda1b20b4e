"""The load processes as one fleet: split the tables among them, command them all, merge figures.

Processes are spawned (never forked from a parent that runs reader threads) and each holds one
event loop; tables are dealt round-robin so the processes carry equal shares.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from types import TracebackType
from typing import Any

from bench.load.errors import LoadError
from bench.load.stats import merged
from bench.load.worker import Target, WindowFigures, WorkerSpec, worker_main
from protocol import PROTOCOL_VERSION

TABLES_PER_PROCESS_SPAN = 1_000_000  # table numbers of process i start at i * this
REPLY_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class FleetFigures:
    """A window's figures from all load processes together."""

    rounds: int
    frames: int
    latencies: list[float]
    errors: dict[str, int]
    cpu_s: float  # summed over the processes
    lag: list[float]


class Fleet:
    """``processes`` load processes playing ``target`` at ``url``."""

    def __init__(
        self,
        target: Target,
        url: str,
        processes: int,
        seed: int = 1,
        version: int = PROTOCOL_VERSION,
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes: list[BaseProcess] = []
        self.tables = 0
        for index in range(processes):
            mine, theirs = context.Pipe()
            spec = WorkerSpec(target, url, index * TABLES_PER_PROCESS_SPAN, seed + index, version)
            process = context.Process(
                target=worker_main, args=(theirs, spec), daemon=True, name=f"load-{target}-{index}"
            )
            process.start()
            theirs.close()
            self.pipes.append(mine)
            self.processes.append(process)

    def __enter__(self) -> Fleet:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def connect(self, tables: int) -> None:
        """Open ``tables`` more tables' connections (and greet), spread over the processes."""
        count = len(self.pipes)
        shares = [tables // count + (1 if i < tables % count else 0) for i in range(count)]
        for pipe, share in zip(self.pipes, shares, strict=True):
            pipe.send(("connect", share))
        self._replies("connected")
        self.tables += tables

    def seat(self) -> None:
        self._all(("seat",), "seated")

    def start(self, at: float, interval: float) -> None:
        self._all(("start", at, interval), "started")

    def send_measure(self, start: float, end: float) -> None:
        """Ask every process for the window [start, end); collect with ``measured``."""
        for pipe in self.pipes:
            pipe.send(("measure", start, end))

    def measured(self) -> FleetFigures:
        parts: list[WindowFigures] = [reply[1] for reply in self._replies("measured")]
        errors: dict[str, int] = {}
        for part in parts:
            for code, count in part.errors.items():
                errors[code] = errors.get(code, 0) + count
        return FleetFigures(
            rounds=sum(part.rounds for part in parts),
            frames=sum(part.frames for part in parts),
            latencies=merged(part.latencies for part in parts),
            errors=errors,
            cpu_s=sum(part.cpu_s for part in parts),
            lag=merged(part.lag for part in parts),
        )

    def close(self) -> None:
        """Stop every process: close its connections, then end it (terminate if it hangs)."""
        for pipe in self.pipes:
            try:
                pipe.send(("stop",))
            except OSError:
                continue
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            if pipe.poll(15):
                with contextlib.suppress(EOFError, OSError):
                    pipe.recv()
            process.join(5)
            if process.is_alive():
                process.terminate()
                process.join(5)
            pipe.close()
        self.pipes, self.processes = [], []

    def _all(self, command: tuple[Any, ...], answer: str) -> None:
        for pipe in self.pipes:
            pipe.send(command)
        self._replies(answer)

    def _replies(self, answer: str) -> list[tuple[Any, ...]]:
        replies = []
        for index, pipe in enumerate(self.pipes):
            if not pipe.poll(REPLY_TIMEOUT_S):
                raise LoadError(f"load process {index} did not answer {answer!r} in time")
            try:
                reply = pipe.recv()
            except EOFError:
                raise LoadError(f"load process {index} died before {answer!r}") from None
            if reply[0] == "failed":
                raise LoadError(f"load process {index} failed: {reply[1]}")
            if reply[0] != answer:
                raise LoadError(f"load process {index} answered {reply[0]!r}, not {answer!r}")
            replies.append(reply)
        return replies
