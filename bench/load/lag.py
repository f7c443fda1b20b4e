"""Event-loop lag, measured inside a server under test and reported on its stdout.

Lag is how late a short timer fires: while the loop runs other callbacks (decoding a frame,
building snapshots) a due timer waits, and so would any reply. The server's own ``/metrics``
gauge samples every 0.5 s and keeps only the last value, too coarse for a p99, so the
benchmark runs this probe in the server process instead: a timer every ``PROBE_INTERVAL_S``,
one ``lag [[t, lag_s], ...]`` line per second, ``t`` on the system-wide monotonic clock so the
benchmark can cut the samples to its measurement window.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import TextIO

PROBE_INTERVAL_S = 0.01
REPORT_EVERY_S = 1.0
LINE_PREFIX = "lag "


async def report_lag(out: TextIO = sys.stdout, interval_s: float = PROBE_INTERVAL_S) -> None:
    """Sample the running loop's lag forever, printing one line of samples per second."""
    loop = asyncio.get_running_loop()
    batch: list[tuple[float, float]] = []
    next_report = time.monotonic() + REPORT_EVERY_S
    while True:
        started = loop.time()
        await asyncio.sleep(interval_s)
        now = loop.time()
        batch.append((round(time.monotonic(), 4), round(max(0.0, now - started - interval_s), 6)))
        if now >= next_report:
            out.write(LINE_PREFIX + json.dumps(batch, separators=(",", ":")) + "\n")
            out.flush()
            batch = []
            next_report = now + REPORT_EVERY_S


def parse_line(line: str) -> list[tuple[float, float]] | None:
    """The (time, lag in seconds) samples of one probe line; None for any other line."""
    if not line.startswith(LINE_PREFIX):
        return None
    return [(float(t), float(lag)) for t, lag in json.loads(line[len(LINE_PREFIX) :])]
