"""Event-loop lag, measured inside a server under test and reported on its stdout.

Lag is how late a short timer fires: while the loop runs other callbacks (decoding a frame,
building snapshots) a due timer waits, and so would any reply. The server's own ``/metrics``
gauge samples every 0.5 s and keeps only the last value, too coarse for a p99, so the
benchmark runs this probe in the server process instead: a timer every ``PROBE_INTERVAL_S``,
one ``lag [[t, lag_s], ...]`` line per second, ``t`` on the system-wide monotonic clock so the
benchmark can cut the samples to its measurement window. The garbage collector's pauses are
reported the same way (``gc [[t, generation, pause_s], ...]``, one line a second when there
were any): a collection of the oldest generation walks every live object, the likeliest pause
of a server that holds many tables.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from typing import Any, TextIO

PROBE_INTERVAL_S = 0.01
REPORT_EVERY_S = 1.0
LINE_PREFIX = "lag "
GC_PREFIX = "gc "


class GcPauses:
    """A ``gc.callbacks`` hook: every collection's end time, generation and duration."""

    def __init__(self) -> None:
        self.pauses: list[tuple[float, int, float]] = []
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        now = time.monotonic()
        if phase == "start":
            self._started = now
        else:
            self.pauses.append((round(now, 4), info["generation"], round(now - self._started, 6)))

    def take(self) -> list[tuple[float, int, float]]:
        taken, self.pauses = self.pauses, []
        return taken


async def report_lag(out: TextIO = sys.stdout, interval_s: float = PROBE_INTERVAL_S) -> None:
    """Sample the running loop's lag forever, printing one line of samples per second."""
    loop = asyncio.get_running_loop()
    batch: list[tuple[float, float]] = []
    next_report = time.monotonic() + REPORT_EVERY_S
    collections = GcPauses()
    gc.callbacks.append(collections)
    try:
        while True:
            started = loop.time()
            await asyncio.sleep(interval_s)
            now = loop.time()
            lag = round(max(0.0, now - started - interval_s), 6)
            batch.append((round(time.monotonic(), 4), lag))
            if now >= next_report:
                out.write(LINE_PREFIX + json.dumps(batch, separators=(",", ":")) + "\n")
                pauses = collections.take()
                if pauses:
                    out.write(GC_PREFIX + json.dumps(pauses, separators=(",", ":")) + "\n")
                out.flush()
                batch = []
                next_report = now + REPORT_EVERY_S
    finally:
        gc.callbacks.remove(collections)


def parse_line(line: str) -> list[tuple[float, float]] | None:
    """The (time, lag in seconds) samples of one probe line ([] for a ``gc`` line); None for
    any other line."""
    if line.startswith(GC_PREFIX):
        return []
    if not line.startswith(LINE_PREFIX):
        return None
    return [(float(t), float(lag)) for t, lag in json.loads(line[len(LINE_PREFIX) :])]


def parse_gc(line: str) -> list[tuple[float, int, float]]:
    """The (time, generation, pause in seconds) of one ``gc`` line; [] for any other line."""
    if not line.startswith(GC_PREFIX):
        return []
    return [(float(t), int(g), float(p)) for t, g, p in json.loads(line[len(GC_PREFIX) :])]
